//! Replaying answers a real model wrote: npu-tune/tests/fixtures/qwen2.5-coder-1.5b.json was
//! recorded from Qwen2.5-Coder-1.5B-Instruct (served by `local-llm`) with
//! `autotune --generator llm --record` (rowsum recorded again with `--llm-constrain none
//! --kernel rowsum --rounds 2 --candidates 3` once its sums folded in lanes). Replay is
//! deterministic and offline.

use npu_tune::generator::Replay;
use npu_tune::kernels::Bundled;
use npu_tune::record::KernelResult;
use npu_tune::replay::Transcript;
use npu_tune::run::{RunConfig, Silent, run};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/qwen2.5-coder-1.5b.json"
);

fn replay(name: &str) -> Vec<KernelResult> {
    let transcript = Transcript::load(FIXTURE).expect("the recorded transcript loads");
    let kernels: Vec<String> = {
        let mut names: Vec<String> = transcript
            .exchanges
            .iter()
            .map(|e| e.kernel.clone())
            .collect();
        names.dedup();
        names
    };
    let problems: Vec<_> = kernels
        .iter()
        .map(|k| Bundled::find(k).unwrap().problem(0, None).unwrap())
        .collect();
    let dir = std::env::temp_dir().join(format!("npu-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = RunConfig {
        rounds: 2,
        candidates: 3,
        seed: 0,
        jobs: 2,
        report_dir: dir.clone(),
        resume: false,
        baselines: false,
        verify: npu_tune::run::Verify::All,
    };
    let results =
        run(&problems, &mut Replay::new(transcript), &config, &Silent).expect("replay runs");
    let _ = std::fs::remove_dir_all(&dir);
    results
}

/// One line per candidate: kernel, round, verdict, cycles and the diagnostic codes.
fn summary(results: &[KernelResult]) -> String {
    let mut out = String::new();
    for result in results {
        for candidate in result.candidates.iter().filter(|c| c.generator == "replay") {
            let codes: Vec<String> = candidate
                .diagnostics
                .iter()
                .map(|d| d.code.to_string())
                .collect();
            out += &format!(
                "{} r{} {:?} {:?} [{}]\n",
                result.kernel,
                candidate.round,
                candidate.verdict,
                candidate.cycles,
                codes.join(" ")
            );
        }
        out += &format!(
            "{}: comp@1 {:.2} pass@1 {:.2}\n",
            result.kernel, result.comp_at_1, result.pass_at_1
        );
    }
    out
}

#[test]
fn replay_of_a_real_model_is_deterministic() {
    let first = summary(&replay("a"));
    let second = summary(&replay("b"));
    assert_eq!(first, second);
    insta::assert_snapshot!(first);
}

/// Recorded from the same model decoding under the tuner's grammars (llama.cpp's
/// server, `--llm-constrain auto` found GBNF): `autotune --generator llm --kernel vmla
/// --kernel rowsum --rounds 2 --candidates 3 --no-baselines --record FILE` (rowsum
/// recorded again with `--kernel rowsum` alone when the fold order gave its sums lanes,
/// and its exact set lost the tiles that cut them). Each round asked one candidate
/// under the syntax grammar and two under the exact legal set, or, where the exchange
/// keeps one grammar (rowsum's first round, before any exploring), all three under the
/// exact set.
const CONSTRAINED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/qwen2.5-coder-1.5b-gbnf.json"
);

#[test]
fn every_reply_decoded_under_the_exact_set_is_legal() {
    let transcript = Transcript::load(CONSTRAINED).expect("the recorded transcript loads");
    let mut exact = 0;
    for exchange in &transcript.exchanges {
        let problem = Bundled::find(&exchange.kernel)
            .unwrap()
            .problem(0, None)
            .unwrap();
        // The prompt and both grammars were kept, the exact set's as a trie of nodes.
        let prompt = exchange.prompt.as_deref().expect("the prompt is recorded");
        assert_eq!(npu_tune::replay::prompt_sha(prompt), exchange.prompt_sha);
        let exact_set = exchange.constraints.last().expect("a grammar was sent");
        assert!(exact_set.contains("n0 ::="));
        let under_syntax = match exchange.constraints.len() {
            1 => 0,
            2 => 1,
            n => panic!("{n} grammars in one exchange"),
        };
        for reply in &exchange.replies[under_syntax..] {
            exact += 1;
            if let Err(rejected) = problem.check(reply) {
                panic!(
                    "{} round {}: a reply under the exact set does not check:\n{}",
                    exchange.kernel,
                    exchange.round,
                    rejected.render()
                );
            }
        }
    }
    assert_eq!(exact, 9);
}
