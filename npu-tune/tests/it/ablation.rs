//! The LLM ablation, replayed: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, llama.cpp's server
//! on 2 cores) tuning the six default kernels in five modes, recorded with
//! `autotune --seed 0 --no-baselines --record npu-tune/tests/fixtures/ablation/MODE.json` and
//! the flags of [`MODES`]. Replay is offline and deterministic; these tests hold the
//! recorded figures: the default constrained mode is legal and correct on the first
//! try on every kernel; the table puts each mode's best beside the heuristic's at the
//! same budget. rowsum and softmax were recorded again (`--kernel rowsum --kernel
//! softmax`, the same flags) when their sums began to fold in lanes, which changed their
//! cycles, their prompts and rowsum's legal tiles.

use npu_tune::generator::{Generator, Heuristic, Hybrid, Replay};
use npu_tune::kernels::{Bundled, SUITE};
use npu_tune::record::KernelResult;
use npu_tune::replay::Transcript;
use npu_tune::run::{RunConfig, Silent, Verify, run};

/// A mode of the ablation: its fixture, the flags it was recorded with, and its budget.
struct Mode {
    name: &'static str,
    flags: &'static str,
    rounds: u32,
    candidates: usize,
}

const MODES: [Mode; 5] = [
    Mode {
        name: "default",
        flags: "--generator llm (auto found GBNF; exact set or legal subset, explore 0.25, knowledge)",
        rounds: 2,
        candidates: 2,
    },
    Mode {
        name: "hybrid",
        flags: "--generator llm+heuristic (the model after a round that found nothing faster)",
        rounds: 5,
        candidates: 4,
    },
    Mode {
        name: "exact",
        flags: "--generator llm --llm-explore 0 --no-knowledge",
        rounds: 1,
        candidates: 2,
    },
    Mode {
        name: "syntax",
        flags: "--generator llm --llm-explore 1 --no-knowledge",
        rounds: 1,
        candidates: 2,
    },
    Mode {
        name: "plain",
        flags: "--generator llm --llm-constrain none --no-knowledge",
        rounds: 1,
        candidates: 2,
    },
];

fn config(mode: &str, rounds: u32, candidates: usize) -> (RunConfig, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("npu-ablation-{}-{mode}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = RunConfig {
        rounds,
        candidates,
        seed: 0,
        jobs: 2,
        report_dir: dir.clone(),
        resume: false,
        baselines: false,
        // As `autotune` does by default: timing first, the best three verified on data.
        verify: Verify::Best(3),
    };
    (config, dir)
}

fn tune(
    mode: &str,
    generator: &mut dyn Generator,
    rounds: u32,
    candidates: usize,
) -> Vec<KernelResult> {
    let problems: Vec<_> = SUITE
        .iter()
        .map(|bundled: &Bundled| bundled.problem(0, None).expect("a default kernel"))
        .collect();
    let (config, dir) = config(mode, rounds, candidates);
    let results = run(&problems, generator, &config, &Silent).expect("the run finishes");
    let _ = std::fs::remove_dir_all(&dir);
    results
}

fn transcript(mode: &str) -> Transcript {
    let path = format!(
        "{}/tests/fixtures/ablation/{mode}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    Transcript::load(&path).expect("the recorded transcript loads")
}

fn replay(mode: &Mode) -> Vec<KernelResult> {
    let replay = Replay::new(transcript(mode.name));
    if mode.name == "hybrid" {
        // As `--generator llm+heuristic` builds it: after a round that found nothing
        // faster, a quarter of the next (at least one candidate) from the model.
        let mut hybrid = Hybrid::new(replay, 0.25);
        tune(mode.name, &mut hybrid, mode.rounds, mode.candidates)
    } else {
        let mut replay = replay;
        tune(mode.name, &mut replay, mode.rounds, mode.candidates)
    }
}

/// The best cycles, or `-` when no candidate was correct.
fn best(result: &KernelResult) -> String {
    result
        .best
        .as_ref()
        .map_or("-".into(), |best| best.cycles.to_string())
}

/// Every reply the model gave was decoded under the grammar the run says, and the
/// recording kept what reproducing it needs: the prompt and the grammars sent.
#[test]
fn the_recordings_keep_prompts_and_grammars() {
    for mode in &MODES {
        let transcript = transcript(mode.name);
        let kernels: Vec<&str> = SUITE.iter().map(|b| b.name).collect();
        for exchange in &transcript.exchanges {
            assert!(
                kernels.contains(&exchange.kernel.as_str()),
                "{}",
                exchange.kernel
            );
            let prompt = exchange.prompt.as_deref().expect("the prompt is recorded");
            assert_eq!(npu_tune::replay::prompt_sha(prompt), exchange.prompt_sha);
            assert_eq!(
                exchange.constraints.is_empty(),
                mode.name == "plain",
                "{} {}: grammars sent",
                mode.name,
                exchange.kernel
            );
        }
    }
}

/// The ablation table: per mode and kernel, Comp@1, Pass@1, the duplicate share and
/// the best cycles, beside the heuristic's best at the same budget. The default mode
/// is legal and correct on the first try on every kernel; the hybrid is never slower
/// than the heuristic alone.
#[test]
fn ablation_table() {
    let mut heuristics: Vec<((u32, usize), Vec<KernelResult>)> = Vec::new();
    let mut out =
        String::from("mode     kernel       comp@1  pass@1  duplicates      best  heuristic\n");
    for mode in &MODES {
        let results = replay(mode);
        assert_eq!(results.len(), SUITE.len());
        if mode.name == "default" {
            for result in &results {
                assert!(
                    result.comp_at_1 >= 0.95 && result.pass_at_1 >= 0.95,
                    "{}: Comp@1 {:.2}, Pass@1 {:.2}",
                    result.kernel,
                    result.comp_at_1,
                    result.pass_at_1
                );
            }
        }
        let budget = (mode.rounds, mode.candidates);
        if !heuristics.iter().any(|(b, _)| *b == budget) {
            let name = format!("heuristic-{}x{}", budget.0, budget.1);
            let results = tune(&name, &mut Heuristic::default(), budget.0, budget.1);
            heuristics.push((budget, results));
        }
        let (_, heuristic) = heuristics
            .iter()
            .find(|(b, _)| *b == budget)
            .expect("run above");
        for (result, heuristic) in results.iter().zip(heuristic) {
            assert_eq!(result.kernel, heuristic.kernel);
            if mode.name == "hybrid" {
                let cycles = |r: &KernelResult| r.best.as_ref().map(|b| b.cycles);
                assert!(
                    cycles(result) <= cycles(heuristic) && cycles(result).is_some(),
                    "{}: the hybrid's best {:?} is slower than the heuristic's {:?}",
                    result.kernel,
                    cycles(result),
                    cycles(heuristic)
                );
            }
            out += &format!(
                "{:<8} {:<12} {:>5.0}% {:>6.0}% {:>10.0}% {:>9} {:>10}\n",
                mode.name,
                result.kernel,
                result.comp_at_1 * 100.0,
                result.pass_at_1 * 100.0,
                result.duplicate_share * 100.0,
                best(result),
                best(heuristic),
            );
        }
        out += &format!(
            "         {} rounds x {} candidates: {}\n",
            mode.rounds, mode.candidates, mode.flags
        );
    }
    insta::assert_snapshot!(out);
}
