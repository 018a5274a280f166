//! Replies that end: each request carries a token budget sized from the signature,
//! and a reply the server cut at it (`finish_reason: "length"`) says so in the next
//! round's feedback, live and in replay of its recording.

use crate::support::chat_server::{Behaviour, ChatServer};

const KERNEL: &str = "/// This kernel adds input_vector to in_buffer.\nkernel add_buffers(in_buffer: [f32; 4], input_vector: [f32; 4]) -> out_buffer: [f32; 4] {}\ntarget ascend910b;\n";
const EXAMPLES: &str = r#"{"examples": [{"inputs": {"in_buffer": [1, 2, 3, 4], "input_vector": [10, 20, 30, 40]}, "outputs": {"out_buffer": [11, 22, 33, 44]}}]}"#;
const RUN_ON: &str =
    "out_buffer[i] = in_buffer[i] + input_vector[i] + input_vector[i] + input_vector[i] +";
const RIGHT: &str = "out_buffer[i] = in_buffer[i] + input_vector[i];";
const SAYS_CUT: &str = "the reply ran to its token budget and was cut there";

/// `autotune draft` of [`KERNEL`] in `dir` for 2 rounds of 1 candidate with `args`.
fn draft(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let (kernel, examples) = (dir.join("add.npu"), dir.join("add.json"));
    std::fs::write(&kernel, KERNEL).unwrap();
    std::fs::write(&examples, EXAMPLES).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .arg("draft")
        .arg(&kernel)
        .arg("--examples")
        .arg(&examples)
        .args(["--rounds", "2", "--candidates", "1", "--no-tune"])
        .args(args)
        .env_remove("NPU_LLM_URL")
        .output()
        .unwrap()
}

#[test]
fn a_reply_cut_at_its_budget_says_so_in_the_feedback() {
    let server = ChatServer::start(vec![
        Behaviour::Cut(RUN_ON.into()),
        Behaviour::Reply(RIGHT.into()),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("rec.json");
    let url = server.base_url();
    let output = draft(
        dir.path(),
        &["--llm-url", &url, "--record", record.to_str().unwrap()],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let requests = server.requests();
    // Three ports, one of them an output: 192 + 3 x 48 + 1 x 64 = 400 tokens, under
    // the configured 1024.
    assert_eq!(requests[0].body["max_tokens"], 400);
    let feedback = |at: usize| requests[at].body["messages"].to_string();
    assert!(!feedback(0).contains(SAYS_CUT));
    assert!(feedback(1).contains(SAYS_CUT), "{}", feedback(1));
    let recording = std::fs::read_to_string(&record).unwrap();
    let transcript: serde_json::Value = serde_json::from_str(&recording).unwrap();
    assert_eq!(transcript["exchanges"][0]["cut_at"], serde_json::json!([0]));
    assert!(
        transcript["exchanges"][1].get("cut_at").is_none(),
        "{recording}"
    );

    // Replayed, the second round is asked with the prompt the live run sent.
    let replayed = tempfile::tempdir().unwrap();
    let replay = [
        "--generator",
        "replay",
        "--replay",
        record.to_str().unwrap(),
    ];
    let output = draft(replayed.path(), &replay);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let written = std::fs::read_to_string(replayed.path().join("add.npu")).unwrap();
    assert!(written.contains(RIGHT), "{written}");
}
