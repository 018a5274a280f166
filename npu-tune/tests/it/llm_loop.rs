//! The llm generator end to end: the tuning loop against a real HTTP server on
//! 127.0.0.1 that speaks chat-completions with scripted faults. The loop must finish,
//! count each fault as the right failure, and feed the reason back to the model.

use std::time::Duration;

use crate::support::chat_server::{Behaviour, ChatServer};
use npu_tune::generator::Llm;
use npu_tune::kernels::Bundled;
use npu_tune::llm::{LlmClient, LlmConfig};
use npu_tune::record::Verdict;
use npu_tune::run::{RunConfig, Silent, run};

const GOOD: &str = "Here is a faster schedule:\n```rust\nschedule fast {\n    split i by 4096;\n    stage a, b, c, y in ub depth 2;\n}\n```\nIt double-buffers.";
const GOOD_TOO: &str =
    "schedule small {\n    split i by 1024;\n    stage a, b, c, y in ub depth 2;\n}";
const CUT: &str = "```\nschedule cut {\n    split i by 2048;\n    stage a, b,";
const PROSE: &str = "To make this kernel faster you should use double buffering and larger tiles.";
const OVERFLOW: &str =
    "schedule big {\n    split i by 16384;\n    stage a, b, c, y in ub depth 2;\n}";
const WRONG_KERNEL: &str = "schedule other {\n    split j by 64;\n    stage x, y in ub depth 2;\n}";

#[test]
fn llm_generator_survives_every_fault_and_feeds_reasons_back() {
    let server = ChatServer::start(vec![
        // Round 0: a reply slower than the timeout, then a good one.
        Behaviour::Delay(
            Duration::from_secs(3),
            Box::new(Behaviour::Reply(GOOD.into())),
        ),
        Behaviour::Reply(GOOD.into()),
        // Rate limited, then a reply cut mid-schedule.
        Behaviour::StatusRetryAfter(429, 1),
        Behaviour::Reply(CUT.into()),
        // A server error, then prose only.
        Behaviour::Status(500, "overloaded".into()),
        Behaviour::Reply(PROSE.into()),
        // Round 1: illegal schedules and one for another kernel, then a good one.
        Behaviour::Reply(OVERFLOW.into()),
        Behaviour::Reply(WRONG_KERNEL.into()),
        Behaviour::Reply(GOOD_TOO.into()),
        // Round 2: malformed JSON; round 3: no choices.
        Behaviour::RawBody("{\"choices\": [ this is not json".into()),
        Behaviour::EmptyChoices,
    ]);
    let mut config = LlmConfig::new(server.base_url(), "scripted");
    config.timeout = Duration::from_millis(800);
    config.backoff = Duration::from_millis(10);
    let client = LlmClient::new(config).with_sleep(|_| {});
    let results = tune_vmla(client, "faults", 4, 3).expect("the loop finishes");
    let result = &results[0];

    let llm: Vec<_> = result
        .candidates
        .iter()
        .filter(|c| c.generator == "llm")
        .collect();
    let verdicts: Vec<(u32, Verdict)> = llm.iter().map(|c| (c.round, c.verdict)).collect();
    assert_eq!(
        verdicts,
        [
            (0, Verdict::Correct),
            (0, Verdict::Unparsable),
            (0, Verdict::Unparsable),
            (1, Verdict::Rejected),
            (1, Verdict::Rejected),
            (1, Verdict::Correct),
            (2, Verdict::Unparsable),
            (2, Verdict::Unparsable),
            (2, Verdict::Unparsable),
            (3, Verdict::Unparsable),
            (3, Verdict::Unparsable),
            (3, Verdict::Unparsable),
        ]
    );
    let feedback: Vec<&str> = llm.iter().map(|c| c.feedback.as_str()).collect();
    assert!(
        feedback[1].contains("unbalanced") || feedback[1].contains("ends inside"),
        "{}",
        feedback[1]
    );
    assert!(
        feedback[2].contains("no `schedule` block"),
        "{}",
        feedback[2]
    );
    assert!(feedback[3].contains("E020"), "{}", feedback[3]);
    assert!(
        feedback[4].contains("E002") && feedback[4].contains("unknown axis `j`"),
        "{}",
        feedback[4]
    );
    assert!(
        feedback[6].contains("not JSON") || feedback[6].contains("JSON"),
        "{}",
        feedback[6]
    );
    assert!(feedback[9].contains("empty"), "{}", feedback[9]);
    assert_eq!(result.comp_at_1, 1.0 / 3.0);
    assert_eq!(result.pass_at_1, 1.0 / 3.0);
    assert_eq!(result.failures_per_round, [2, 2, 3, 3]);

    // Each later prompt carries the reasons of the earlier failures.
    let prompts: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let round_1 = &prompts[6];
    assert!(
        round_1.contains("no `schedule` block"),
        "round 1 prompt lacks the prose-only reason"
    );
    assert!(
        round_1.contains("16828") || round_1.contains("correct,"),
        "round 1 prompt lacks the good result"
    );
    let round_2 = &prompts[9];
    assert!(
        round_2.contains("E020") && round_2.contains("unknown axis"),
        "round 2 prompt lacks the checker's reasons"
    );
}

/// Runs the llm generator on vmla for `rounds` rounds of `candidates`, in a fresh
/// report directory named `name`.
fn tune_vmla(
    client: LlmClient,
    name: &str,
    rounds: u32,
    candidates: usize,
) -> Result<Vec<npu_tune::record::KernelResult>, npu_tune::run::RunError> {
    let mut generator = Llm::new(client, None);
    let problem = Bundled::find("vmla").unwrap().problem(0, None).unwrap();
    let dir = std::env::temp_dir().join(format!("npu-llm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = RunConfig {
        rounds,
        candidates,
        seed: 0,
        jobs: 2,
        report_dir: dir.clone(),
        resume: false,
        baselines: false,
        verify: npu_tune::run::Verify::All,
    };
    let result = run(
        std::slice::from_ref(&problem),
        &mut generator,
        &config,
        &Silent,
    );
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[test]
fn unreachable_endpoint_stops_the_run_with_a_clear_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = LlmClient::new(LlmConfig::new(
        format!("http://127.0.0.1:{port}/v1"),
        "none",
    ));
    let error = tune_vmla(client, "unreachable", 1, 2)
        .unwrap_err()
        .to_string();
    assert!(error.contains("is the server running"), "{error}");
}

#[test]
fn refused_key_stops_the_run_with_a_clear_error() {
    let server = ChatServer::start_repeating(Behaviour::Status(401, "invalid api key".into()));
    let mut config = LlmConfig::new(server.base_url(), "m");
    config.api_key = Some("sk-test-secret".into());
    let error = tune_vmla(LlmClient::new(config), "refused", 1, 2)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("NPU_LLM_API_KEY") && !error.contains("sk-test-secret"),
        "{error}"
    );
}
