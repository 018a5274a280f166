//! The drafting evaluation: scores and the table from replies given in the test,
//! and the recorded run of a real small model replayed offline.

use std::collections::BTreeSet;
use std::path::Path;

use npu_tune::draft::eval::{self, EvalKernel};
use npu_tune::draft::run::{BodySource, ReplayBodies};
use npu_tune::draft::scoreboard::{self, Budget, Score, Variant};
use npu_tune::replay::{Replayer, Transcript};

fn set() -> Vec<EvalKernel> {
    eval::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("eval")).unwrap()
}

/// Runs each of `variants` over the kernels of `set` recorded for it in `transcript`,
/// replaying it ([`ReplayBodies::strict`] when `strict`: each prompt must be the
/// recorded one).
fn replay(
    set: &[EvalKernel],
    transcript: &Transcript,
    variants: &[Variant],
    budget: Budget,
    strict: bool,
) -> Vec<Score> {
    let recorded: BTreeSet<&str> = transcript
        .exchanges
        .iter()
        .map(|e| e.kernel.as_str())
        .collect();
    let mut scores = Vec::new();
    for &variant in variants {
        let kernels: Vec<EvalKernel> = set
            .iter()
            .filter(|k| recorded.contains(format!("{}/{}", variant.name(), k.task.name).as_str()))
            .cloned()
            .collect();
        let mut source = |_: Variant| -> Result<Box<dyn BodySource>, String> {
            let replayer = Replayer::new(transcript.clone());
            Ok(Box::new(match strict {
                true => ReplayBodies::strict(replayer),
                false => ReplayBodies::new(replayer),
            }))
        };
        let idioms = npu_tune::draft::idioms::builtin();
        let run = scoreboard::score_set(
            &kernels,
            &[variant],
            budget,
            &idioms,
            &mut source,
            &mut |_| {},
        );
        scores.extend(run.unwrap());
    }
    scores
}

/// A first round with one body that checks and matches and one that does not check,
/// a kernel whose first body checks but computes other values and whose second round
/// fixes it, and one solved by a body the checker accepts only rewritten: Comp@1,
/// Pass@1, Pass@(2×2) and the rewrite say so, and the table leaves blank a variant
/// that did not run on a group.
#[test]
fn scores_count_checks_matches_and_rounds() {
    let mut transcript = Transcript::new("scripted");
    let replies = |texts: &[&str]| texts.iter().map(|t| t.to_string()).collect();
    let clamp = "y[i] = min(max(x[i], -1), 1);";
    transcript.record(
        "full/copy",
        0,
        "p",
        replies(&["y[i] = x[i];", "y[i] = x[i];"]),
    );
    transcript.record(
        "full/center_rows",
        0,
        "p",
        replies(&[
            "y[i, k] = x[i, k] - sum[k](x[i, k]) * 0.0078125;",
            "y[i, k] = x[i, k];",
        ]),
    );
    transcript.record(
        "full/hard_tanh",
        0,
        "p",
        replies(&[clamp, "y[i] = clamp(x);"]),
    );
    transcript.record(
        "full/outer_product",
        0,
        "p",
        replies(&["c[m, n] = a[m] + b[n];", "c[m, n] = a[m] - b[n];"]),
    );
    transcript.record(
        "full/outer_product",
        1,
        "p",
        replies(&["```\nc[m, n] = a[m] * b[n];\n```", "c[m, n] = b[n];"]),
    );
    transcript.record(
        "grammar/hard_tanh",
        0,
        "p",
        replies(&["y[i] = x[i];", clamp]),
    );
    let budget = Budget {
        rounds: 2,
        candidates: 2,
    };
    let variants = [Variant::Grammar, Variant::Full];
    let scores = replay(&set(), &transcript, &variants, budget, false);
    let summary: Vec<_> = scores
        .iter()
        .map(|s| {
            let name = format!("{}/{}", s.variant.name(), s.kernel);
            (
                name,
                s.comp1,
                s.pass1,
                s.solved,
                s.solved_rewritten,
                s.rounds,
            )
        })
        .collect();
    let expected = [
        ("grammar/hard_tanh", 1.0, 0.5, true, false, 1),
        ("full/copy", 1.0, 1.0, true, false, 1),
        ("full/center_rows", 1.0, 0.5, true, true, 1),
        ("full/hard_tanh", 0.5, 0.5, true, false, 1),
        ("full/outer_product", 1.0, 0.0, true, false, 2),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|&(name, comp1, pass1, solved, rewritten, rounds)| {
            (name.to_string(), comp1, pass1, solved, rewritten, rounds)
        })
        .collect();
    assert_eq!(summary, expected);
    insta::assert_snapshot!(scoreboard::table(&scores, budget));
}

/// The recorded run of Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, llama.cpp's server) on the
/// whole evaluation set under every variant, made by the command the README gives,
/// replays offline to the table the README shows.
#[test]
fn the_recorded_small_model_run_replays_to_the_readme_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let transcript = Transcript::load(root.join("tests/fixtures/draft-eval-1.5b.json")).unwrap();
    let budget = Budget {
        rounds: 3,
        candidates: 4,
    };
    let set = set();
    let scores = replay(&set, &transcript, &Variant::ALL, budget, true);
    assert_eq!(
        scores.len(),
        set.len() * Variant::ALL.len(),
        "every kernel is recorded under every variant"
    );
    // Every round asked the prompt recorded for it: the replies are the model's to
    // these prompts, not to those of an earlier version of the loop.
    for score in &scores {
        assert_eq!(score.stopped, None, "{}", score.kernel);
    }
    let table = scoreboard::table(&scores, budget);
    insta::assert_snapshot!(table);
    let readme = std::fs::read_to_string(root.join("../README.md")).unwrap();
    assert!(readme.contains(&table), "the README shows:\n{table}");
}

/// The recorded run of the same model on the users' set (`full` variant, 2 rounds of
/// 2, `--llm-seed 0`), made by the command the README gives, replays offline to the
/// table the README shows, every group of the set in it.
#[test]
fn the_recorded_users_set_run_replays_to_the_readme_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/fixtures/draft-eval-users-1.5b.json");
    let transcript = Transcript::load(fixture).unwrap();
    let budget = Budget {
        rounds: 2,
        candidates: 2,
    };
    let set = eval::load_named(&root.join("eval"), eval::USERS).unwrap();
    let scores = replay(&set, &transcript, &[Variant::Full], budget, true);
    assert_eq!(scores.len(), set.len(), "every kernel is recorded");
    for score in &scores {
        assert_eq!(score.stopped, None, "{}", score.kernel);
    }
    let table = scoreboard::table(&scores, budget);
    let groups: BTreeSet<&str> = set.iter().map(|k| k.group.as_str()).collect();
    for group in groups {
        assert!(
            table.contains(&format!("| {group} |")),
            "{group} in\n{table}"
        );
    }
    insta::assert_snapshot!(table);
    let readme = std::fs::read_to_string(root.join("../README.md")).unwrap();
    assert!(readme.contains(&table), "the README shows:\n{table}");
}

/// `--table drafts.md` writes its scores to `drafts.json`: with `--record drafts.json`
/// the run is refused before it asks for anything, and the recording is untouched.
#[test]
fn a_table_that_would_overwrite_the_recording_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("drafts.json");
    std::fs::write(&record, "kept").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .args(["draft-eval", "--generator", "replay", "--replay"])
        .arg(&record)
        .arg("--record")
        .arg(&record)
        .arg("--table")
        .arg(dir.path().join("drafts.md"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("the --record file"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), "kept");
}
