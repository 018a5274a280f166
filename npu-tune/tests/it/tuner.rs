//! The tuning loop end to end: prompts, determinism, resume, reports.

#[cfg(unix)]
use crate::support::hang;

use std::path::Path;

use npu_tune::evaluate::Problem;
use npu_tune::generator::{Generator, Grid, Heuristic, Random};
use npu_tune::kernels::{Bundled, SUITE};
use npu_tune::prompt;
use npu_tune::record::{KernelResult, Verdict};
use npu_tune::run::{RunConfig, Silent, run};

fn problem(name: &str) -> Problem {
    Bundled::find(name)
        .expect("bundled kernel")
        .problem(0, None)
        .expect("problem")
}

fn config(dir: &Path, rounds: u32, candidates: usize) -> RunConfig {
    RunConfig {
        rounds,
        candidates,
        seed: 7,
        jobs: 2,
        report_dir: dir.to_path_buf(),
        resume: false,
        baselines: true,
        verify: npu_tune::run::Verify::All,
    }
}

fn tune(
    problems: &[Problem],
    generator: &mut dyn Generator,
    config: &RunConfig,
) -> Vec<KernelResult> {
    run(problems, generator, config, &Silent).expect("run")
}

/// The candidates of a result as comparable lines: generator, round, index, verdict, cycles, text.
fn fingerprint(results: &[KernelResult]) -> Vec<String> {
    results
        .iter()
        .flat_map(|r| &r.candidates)
        .map(|c| {
            format!(
                "{} {} {} {:?} {:?}\n{}",
                c.generator, c.round, c.index, c.verdict, c.cycles, c.source
            )
        })
        .collect()
}

#[test]
fn prompt_snapshot() {
    let problem = problem("vmla");
    let messages = prompt::messages(&problem, 0, &[]);
    insta::assert_snapshot!("prompt_vmla_round_0", prompt::text(&messages));
}

#[test]
fn prompt_with_feedback_snapshot() {
    let problem = problem("vmla");
    let dir = tempdir("prompt_feedback");
    let results = tune(
        std::slice::from_ref(&problem),
        &mut Heuristic::default(),
        &RunConfig {
            baselines: false,
            verify: npu_tune::run::Verify::All,
            ..config(&dir, 1, 4)
        },
    );
    let history: Vec<_> = results[0]
        .candidates
        .iter()
        .filter(|c| c.generator == "heuristic")
        .cloned()
        .collect();
    let messages = prompt::messages(&problem, 1, &history);
    insta::assert_snapshot!("prompt_vmla_round_1", prompt::text(&messages));
}

#[test]
fn prompts_fit_a_small_model() {
    for bundled in SUITE {
        let problem = bundled.problem(0, None).unwrap();
        let messages = prompt::messages(&problem, 0, &[]);
        let tokens = prompt::estimate_tokens(&messages);
        assert!(tokens < 3000, "{}: about {tokens} tokens", bundled.name);
    }
}

#[test]
fn prompt_examples_fit_each_kernel_and_pass_the_checker() {
    // The whole suite, so that every example (fused, windowed) meets a kernel it fits.
    for bundled in npu_tune::kernels::all() {
        let problem = bundled.problem(0, None).unwrap();
        let examples = prompt::examples(&problem);
        assert!(!examples.is_empty(), "{}: no examples", bundled.name);
        for example in examples {
            if let Err(diagnostics) = npu_core::check_source(&example, &problem.kernel.target) {
                panic!("{}:\n{}", bundled.name, diagnostics.render(&example));
            }
            let cores = problem
                .kernel
                .target
                .cores
                .vector
                .max(problem.kernel.target.cores.cube);
            assert!(
                cores > 1 || !example.contains("parallel"),
                "{}: {example}",
                bundled.name
            );
        }
    }
}

#[test]
fn search_generators_are_deterministic_for_a_seed() {
    let problems = [problem("vmla"), problem("rowsum")];
    let makers: [fn() -> Box<dyn Generator>; 3] = [
        || Box::new(Heuristic::default()),
        || Box::new(Random),
        || Box::new(Grid),
    ];
    for make in makers {
        let first = tune(&problems, make().as_mut(), &config(&tempdir("det_a"), 3, 4));
        let second = tune(&problems, make().as_mut(), &config(&tempdir("det_b"), 3, 4));
        assert_eq!(fingerprint(&first), fingerprint(&second));
    }
}

#[test]
fn heuristic_beats_the_hand_schedule_on_every_bundled_kernel() {
    let problems: Vec<Problem> = SUITE.iter().map(|b| b.problem(0, None).unwrap()).collect();
    let results = tune(
        &problems,
        &mut Heuristic::default(),
        &RunConfig {
            baselines: false,
            verify: npu_tune::run::Verify::All,
            ..config(&tempdir("beats_hand"), 3, 6)
        },
    );
    for result in &results {
        let best = result
            .best
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no correct schedule", result.kernel));
        let hand = result.baselines.hand.cycles.expect("hand schedule runs");
        assert!(
            best.cycles < hand,
            "{}: best {} vs hand {hand}",
            result.kernel,
            best.cycles
        );
        assert!(
            result
                .candidates
                .iter()
                .all(|c| c.verdict != Verdict::Wrong),
            "{}: a wrong result",
            result.kernel
        );
    }
}

#[test]
fn resume_after_an_interruption_loses_and_repeats_nothing() {
    let problems = [problem("vmla")];
    let whole_dir = tempdir("resume_whole");
    let whole = tune(
        &problems,
        &mut Heuristic::default(),
        &config(&whole_dir, 4, 4),
    );
    let journal_lines = std::fs::read_to_string(whole_dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .count();

    // Interrupt: keep the header and the first 9 evaluations, and cut the 10th mid-line.
    let dir = tempdir("resume_cut");
    let _ = tune(&problems, &mut Heuristic::default(), &config(&dir, 4, 4));
    let text = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut cut = lines[..10].join("\n");
    cut.push('\n');
    cut.push_str(&lines[10][..lines[10].len() / 2]);
    std::fs::write(dir.join("journal.jsonl"), cut).unwrap();

    let resumed = tune(
        &problems,
        &mut Heuristic::default(),
        &RunConfig {
            resume: true,
            ..config(&dir, 4, 4)
        },
    );
    assert_eq!(fingerprint(&whole), fingerprint(&resumed));
    let after = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert_eq!(
        after.lines().filter(|l| !l.trim().is_empty()).count(),
        journal_lines,
        "each evaluation journalled exactly once"
    );
}

#[test]
fn resume_refuses_a_journal_whose_kernel_or_target_changed() {
    let dir = tempdir("resume_changed");
    let _ = tune(
        &[problem("vmla")],
        &mut Heuristic::default(),
        &config(&dir, 1, 2),
    );
    let before = std::fs::read(dir.join("journal.jsonl")).unwrap();
    let resume = |problem: Problem| {
        let config = RunConfig {
            resume: true,
            ..config(&dir, 1, 2)
        };
        run(&[problem], &mut Heuristic::default(), &config, &Silent)
            .map(|_| ())
            .map_err(|error| error.to_string())
    };
    // A target file of the same name with one figure edited.
    let mut retargeted = problem("vmla");
    retargeted.kernel.target.clock_mhz += 1;
    let error = resume(retargeted).unwrap_err();
    assert!(
        error.contains(
            "the journal was written with kernel `vmla`'s target's content hash `fnv1a64:"
        ),
        "{error}"
    );
    // The kernel's text edited under the same name.
    let mut edited = problem("vmla");
    let text = edited.kernel.source.replacen("+ c[i]", "- c[i]", 1);
    assert_ne!(text, edited.kernel.source);
    edited.kernel.source = text;
    let error = resume(edited).unwrap_err();
    assert!(error.contains("kernel `vmla`'s text hash"), "{error}");
    assert!(
        error.contains("without --resume to start afresh"),
        "{error}"
    );
    assert_eq!(std::fs::read(dir.join("journal.jsonl")).unwrap(), before);
    assert_eq!(resume(problem("vmla")), Ok(()));
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-tuner-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn timing_first_finds_the_same_best_and_verifies_it() {
    let problems = [problem("vmla"), problem("rowsum"), problem("matmul")];
    let dir = std::env::temp_dir().join(format!("npu-verify-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let all = tune(
        &problems,
        &mut Heuristic::default(),
        &config(&dir.join("all"), 4, 6),
    );
    let timed = tune(
        &problems,
        &mut Heuristic::default(),
        &RunConfig {
            verify: npu_tune::run::Verify::Best(3),
            ..config(&dir.join("timed"), 4, 6)
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
    let mut unverified = 0;
    for (a, t) in all.iter().zip(&timed) {
        // Timing-only simulation gives the cycles a functional one does.
        let cycles = |r: &KernelResult| r.best.as_ref().map(|b| b.cycles);
        assert_eq!(cycles(a), cycles(t), "{}", a.kernel);
        let best = t.best.as_ref().expect("a best");
        let record = t
            .candidates
            .iter()
            .find(|c| c.source == best.source && c.verdict == Verdict::Correct)
            .expect("the best's record");
        assert!(record.verified, "{}: the best was not verified", t.kernel);
        unverified += t.candidates.iter().filter(|c| !c.verified).count();
    }
    assert!(unverified > 0, "timing-first verified every candidate");
}

#[test]
fn the_heuristic_is_never_slower_than_the_hand_schedule() {
    // The three kernels whose hand schedule the first drafts once lost to.
    let problems = [
        problem("variance"),
        problem("avg_pool2d"),
        problem("conv2d_s2_bias_relu"),
    ];
    for (rounds, candidates) in [(1, 2), (3, 4)] {
        let results = tune(
            &problems,
            &mut Heuristic::default(),
            &RunConfig {
                baselines: false,
                ..config(&tempdir("never_slower"), rounds, candidates)
            },
        );
        for result in &results {
            let hand = result
                .baselines
                .hand
                .cycles
                .expect("the hand schedule runs");
            let best = result.best.as_ref().expect("a best").cycles;
            assert!(
                best <= hand,
                "{}: best {best} vs hand {hand}",
                result.kernel
            );
        }
    }
    // With one round of two, nothing is known before the round: the hand schedule is
    // proposed again, recorded as a duplicate that carries its cycles.
    let results = tune(
        &problems[..1],
        &mut Heuristic::default(),
        &RunConfig {
            baselines: false,
            ..config(&tempdir("hand_repeat"), 1, 2)
        },
    );
    let repeat = &results[0].candidates[1];
    assert_eq!(repeat.verdict, Verdict::Duplicate, "{}", repeat.source);
    assert!(
        repeat.feedback.contains("hand schedule"),
        "{}",
        repeat.feedback
    );
    assert_eq!(repeat.cycles, results[0].baselines.hand.cycles);
}

#[test]
fn the_heuristic_keeps_the_hand_schedule_when_its_space_runs_out_early() {
    // Two fused reductions over whole rows: the space keeps `k` whole and the cores
    // fixed, so the search has one new schedule (depth 1, slower) and an empty second
    // round ends it long before the last round.
    let source = "kernel row_variance(x: [f32; 128, 4096]) -> v: [f32; 128] {
            let mu[r] = sum[k](x[r, k]) / 4096.0;
            let d[r, k] = x[r, k] - mu[r];
            v[r] = sum[k](d[r, k] * d[r, k]) / 4096.0;
        }
        target ascend910b;
        schedule s { parallel r over 32 cores; split r by 2; stage x, v in ub depth 2; tail pad; }";
    let target = npu_core::Target::preset("ascend910b").expect("a preset");
    let kernel = npu_core::check_source(source, &target).expect("the kernel checks");
    let problem = npu_tune::build::discover::seeded_problem(kernel, 0);
    let results = tune(
        &[problem],
        &mut Heuristic::default(),
        &RunConfig {
            baselines: false,
            ..config(&tempdir("space_runs_out"), 3, 4)
        },
    );
    let result = &results[0];
    let hand = result
        .baselines
        .hand
        .cycles
        .expect("the hand schedule runs");
    assert!(result.candidates.len() < 12, "the space did not run out");
    let best = result.best.as_ref().expect("a best").cycles;
    assert!(best <= hand, "best {best} vs hand {hand}");
}

#[test]
fn knowledge_steers_the_heuristic_and_is_recorded_per_candidate() {
    let problems = [problem("variance"), problem("gelu")];
    let run_with = |heuristic: &mut Heuristic, name: &str| {
        tune(
            &problems,
            heuristic,
            &RunConfig {
                baselines: false,
                ..config(&tempdir(name), 3, 4)
            },
        )
    };
    let with = run_with(&mut Heuristic::default(), "steered");
    let steered: Vec<_> = with
        .iter()
        .flat_map(|r| &r.candidates)
        .filter(|c| c.generator == "heuristic" && !c.knowledge.is_empty())
        .collect();
    assert!(
        !steered.is_empty(),
        "no candidate drew on the knowledge base"
    );
    let base = npu_tune::knowledge::KnowledgeBase::builtin();
    for candidate in &steered {
        // One entry per candidate, and a real one.
        assert_eq!(candidate.knowledge.len(), 1, "{:?}", candidate.knowledge);
        assert!(base.entries.iter().any(|e| e.id == candidate.knowledge[0]));
    }
    let without = run_with(&mut Heuristic::with_knowledge(None), "unsteered");
    assert!(
        without
            .iter()
            .flat_map(|r| &r.candidates)
            .all(|c| c.knowledge.is_empty())
    );
}

#[test]
fn the_space_keeps_a_fused_kernels_reduced_axes_whole() {
    // softmax reduces over `k` in its statements: a split of `k` is the checker's E035.
    for name in ["softmax", "layernorm", "rmsnorm", "log_softmax"] {
        let problem = problem(name);
        let kernel = &problem.kernel;
        let space = npu_tune::space::Space::of(kernel);
        for axis in npu_core::internal::whole_axes(kernel) {
            assert_eq!(
                space.tiles[axis],
                [None],
                "{name}: {}",
                kernel.axes[axis].name
            );
        }
        let results = tune(
            std::slice::from_ref(&problem),
            &mut Heuristic::default(),
            &RunConfig {
                baselines: false,
                ..config(&tempdir("fused_space"), 3, 4)
            },
        );
        assert!(
            results[0]
                .candidates
                .iter()
                .all(|c| c.verdict != Verdict::Rejected),
            "{name}: a rejected candidate"
        );
    }
}

/// Issue 24: a knowledge `*.toml` that is a FIFO hung `autotune --knowledge DIR`; one
/// that links to `/dev/zero` was read until memory ran out. Each is an error naming the
/// file; a link to a regular knowledge file is read.
#[cfg(unix)]
#[test]
fn a_knowledge_file_that_is_a_fifo_or_endless_is_an_error_not_a_hang() {
    use npu_tune::knowledge::{KnowledgeBase, PRUNED_FILE};
    let load = |dir: &Path| {
        let dir = dir.to_path_buf();
        hang::within_20_s("KnowledgeBase::load", move || {
            KnowledgeBase::load(&dir).map_err(|e| e.to_string())
        })
    };
    for name in ["hand.toml", PRUNED_FILE] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        hang::mkfifo(&path);
        let error = load(dir.path()).unwrap_err();
        assert_eq!(
            error,
            format!(
                "{}: cannot read: not a regular file (a FIFO)",
                path.display()
            )
        );
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let error = load(dir.path()).unwrap_err();
        assert!(
            error.ends_with("not a regular file (a character device)"),
            "{error}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let real = elsewhere.path().join("shared.toml");
    std::fs::write(&real, KnowledgeBase::builtin().to_toml()).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("shared.toml")).unwrap();
    let base = load(dir.path()).unwrap();
    assert_eq!(base.entries.len(), KnowledgeBase::builtin().entries.len());
}
