//! Constrained decoding end to end, against a loopback server that honours what it is
//! sent: a GBNF `grammar` (it answers with a string the grammar admits, as llama.cpp's
//! server does), or a JSON Schema `response_format`. The probe picks the form each
//! server honours; every candidate decoded under the exact-set grammar is legal.

use crate::support::chat_server::{Behaviour, ChatServer};
use npu_tune::generator::{Generator, Heuristic, Hybrid, Llm};
use npu_tune::grammar::ConstrainMode;
use npu_tune::kernels::Bundled;
use npu_tune::llm::{LlmClient, LlmConfig};
use npu_tune::record::{KernelResult, Verdict};
use npu_tune::run::{RunConfig, Silent, run};

fn client(server: &ChatServer) -> LlmClient {
    LlmClient::new(LlmConfig::new(server.base_url(), "scripted")).with_sleep(|_| {})
}

fn tune(
    kernel: &str,
    generator: &mut dyn Generator,
    rounds: u32,
    candidates: usize,
) -> KernelResult {
    let problem = Bundled::find(kernel).unwrap().problem(0, None).unwrap();
    // Tests run in parallel: each run gets a directory of its own.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run_index = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "npu-constrained-{kernel}-{}-{run_index}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let config = RunConfig {
        rounds,
        candidates,
        seed: 0,
        jobs: 1,
        report_dir: dir.clone(),
        resume: false,
        baselines: false,
        verify: npu_tune::run::Verify::All,
    };
    let result = run(std::slice::from_ref(&problem), generator, &config, &Silent);
    let _ = std::fs::remove_dir_all(&dir);
    result.expect("the loop finishes").remove(0)
}

#[test]
fn gbnf_probe_then_exact_set_grammar_gives_only_legal_candidates() {
    // Every request is decoded under its grammar; the probe's grammar admits one word.
    let script = (0..40).map(Behaviour::FromGrammar).collect();
    let server = ChatServer::start(script);
    let mut generator = Llm::constrained(client(&server), None, ConstrainMode::Auto, 0.25);
    let result = tune("rowsum", &mut generator, 2, 4);
    assert_eq!(
        generator.probe_note.as_deref(),
        Some("the server honours a GBNF grammar")
    );

    let requests = server.requests();
    let grammars: Vec<&str> = requests
        .iter()
        .skip(1) // the probe
        .map(|r| {
            r.body["grammar"]
                .as_str()
                .expect("every request carries a grammar")
        })
        .collect();
    assert!(!grammars.is_empty());
    for grammar in &grammars {
        assert!(
            grammar.contains("stage x, y in ub depth"),
            "this kernel's names"
        );
        assert!(!grammar.contains("stage a, b"), "no other kernel's names");
        assert!(requests[1].body.get("response_format").is_none());
    }
    // The first round's four candidates are held to the exact legal set (a trie: its
    // rules are numbered nodes); from the second round, one in four explores under the
    // syntax grammar.
    let exact = grammars.iter().filter(|g| g.contains("n0 ::=")).count();
    assert_eq!((exact, grammars.len()), (7, 8));
    assert!(grammars[..4].iter().all(|g| g.contains("n0 ::=")));

    let llm: Vec<_> = result
        .candidates
        .iter()
        .filter(|c| c.generator == "llm")
        .collect();
    assert_eq!(llm.len(), 8);
    // Round 1 asks every candidate under the exact set, round 2 its first under the
    // syntax grammar and the other three under the exact set: those are all legal
    // (correct, or a repeat of a legal one).
    let exact_set = |c: &&&npu_tune::record::CandidateRecord| c.round == 0 || c.index > 0;
    for candidate in llm.iter().filter(exact_set) {
        assert!(
            matches!(candidate.verdict, Verdict::Correct | Verdict::Duplicate),
            "{:?} under the exact set:\n{}",
            candidate.verdict,
            candidate.source
        );
    }
    // The report says what each kind of decoding produced.
    let shares: Vec<(&str, u64)> = result
        .constraints
        .iter()
        .map(|s| (s.constraint.as_str(), s.candidates))
        .collect();
    assert_eq!(shares, [("exact set", 7), ("syntax", 1)]);
    assert!(
        llm.iter()
            .filter(exact_set)
            .all(|c| c.constraint.as_deref() == Some("exact set"))
    );
    // So Comp@1 and Pass@1, first-round metrics, measure the exact-set mode alone.
    assert_eq!((result.comp_at_1, result.pass_at_1), (1.0, 1.0));
    // Repeats are recorded, not evaluated, and do not count in Comp@1.
    let duplicates = llm
        .iter()
        .filter(|c| c.verdict == Verdict::Duplicate)
        .count();
    assert!((result.duplicate_share - duplicates as f64 / 8.0).abs() < 1e-9);
}

#[test]
fn json_schema_when_the_server_ignores_grammars() {
    let reply = r#"{"cores": 8, "tiles": {"i": 8, "k": null}, "depth": 2, "tail": "none"}"#;
    let probe = r#"{"probe": "npu-constrained"}"#;
    let mut script = vec![
        Behaviour::Reply("hello".into()), // the grammar probe: ignored
        Behaviour::WhenSchema(probe.to_string()), // the schema probe: honoured
    ];
    script.extend((0..4).map(|_| Behaviour::WhenSchema(reply.to_string())));
    let server = ChatServer::start(script);
    let mut generator = Llm::constrained(client(&server), None, ConstrainMode::Auto, 0.0);
    let result = tune("rowsum", &mut generator, 1, 2);
    let note = generator.probe_note.clone().unwrap_or_default();
    assert_eq!(note, "the server honours a JSON Schema");
    let requests = server.requests();
    assert!(
        requests[0].body["grammar"].is_string(),
        "the grammar was probed first"
    );
    let schema = &requests[2].body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["properties"]["depth"]["enum"],
        serde_json::json!([1, 2])
    );
    let llm: Vec<_> = result
        .candidates
        .iter()
        .filter(|c| c.generator == "llm")
        .collect();
    assert!(
        llm.iter()
            .all(|c| c.source.contains("parallel i over 8 cores;"))
    );
    // The server answers the same object twice: the repeat is not evaluated again.
    assert_eq!(llm[0].verdict, Verdict::Correct);
    assert_eq!(llm[1].verdict, Verdict::Duplicate);
    assert!(
        llm[1]
            .feedback
            .contains("the same schedule as candidate r0_0"),
        "{}",
        llm[1].feedback
    );
    assert_eq!((result.comp_at_1, result.duplicate_share), (1.0, 0.5));
}

#[test]
fn no_constraint_when_the_server_honours_neither() {
    let server = ChatServer::start_repeating(Behaviour::Reply("hello".into()));
    let client = client(&server);
    let probed = client.probe_constraints();
    let reason = probed.expect_err("neither form is honoured");
    assert!(
        reason.contains("ignored a GBNF grammar") && reason.contains("ignored a JSON Schema"),
        "{reason}"
    );
}

#[test]
fn hybrid_consults_the_model_after_the_heuristic_stalls() {
    let (rounds, candidates) = (6, 4);
    let server = ChatServer::start((0..40).map(Behaviour::FromGrammar).collect());
    let llm = Llm::constrained(client(&server), None, ConstrainMode::Gbnf, 0.0);
    let mut hybrid = Hybrid::new(llm, 0.25);
    let result = tune("rowsum", &mut hybrid, rounds, candidates);
    let alone = tune("rowsum", &mut Heuristic::default(), rounds, candidates);
    assert_eq!(result.generator, "llm+heuristic");
    let own = |result: &KernelResult, round: u32| -> Vec<String> {
        result
            .candidates
            .iter()
            .filter(|c| c.generator == result.generator && c.round == round)
            .map(|c| c.source.clone())
            .collect()
    };
    let fastest = |result: &KernelResult, before: u32| {
        result
            .candidates
            .iter()
            .filter(|c| c.generator != result.generator || c.round < before)
            .filter(|c| matches!(c.verdict, Verdict::Correct | Verdict::Duplicate))
            .filter_map(|c| c.cycles)
            .min()
    };
    let mut stalls = 0;
    for round in 0..rounds {
        let sources = own(&result, round);
        assert_eq!(sources.len(), candidates, "round {round}");
        let stalled = round > 0 && fastest(&result, round) == fastest(&result, round - 1);
        if stalls == 0 && !stalled {
            // Until the first stall the hybrid is the heuristic, candidate for candidate.
            assert_eq!(sources, own(&alone, round), "round {round}");
        }
        if stalled {
            stalls += 1;
            // The model's candidate comes first, the heuristic's three after it.
            assert!(!sources[0].contains("heuristic_r"), "{}", sources[0]);
            assert!(sources[1..].iter().all(|s| s.contains("heuristic_r")));
        } else {
            assert!(
                sources.iter().all(|s| s.contains("heuristic_r")),
                "round {round}"
            );
        }
    }
    assert!(stalls > 0, "the heuristic never stalled in {rounds} rounds");
    // Only the model's requests reached the server: one per stalled round.
    assert_eq!(server.requests().len(), stalls);
    assert!(result.best.is_some());
}

#[test]
fn recordings_keep_the_prompt_and_the_grammar_sent() {
    use std::sync::{Arc, Mutex};
    let server = ChatServer::start((0..10).map(Behaviour::FromGrammar).collect());
    let transcript = Arc::new(Mutex::new(npu_tune::replay::Transcript::new("scripted")));
    let mut generator = Llm::constrained(
        client(&server),
        Some(transcript.clone()),
        ConstrainMode::Gbnf,
        0.5,
    );
    tune("vmla", &mut generator, 2, 2);
    let transcript = transcript.lock().unwrap();
    // The first round asks both candidates under the exact set, in one request.
    assert_eq!(transcript.exchanges[0].constraints.len(), 1);
    assert!(transcript.exchanges[0].constraints[0].contains("n0 ::="));
    let exchange = &transcript.exchanges[1];
    let prompt = exchange.prompt.as_deref().expect("the prompt text is kept");
    assert_eq!(npu_tune::replay::prompt_sha(prompt), exchange.prompt_sha);
    // The second: one candidate explored under the syntax grammar, one under the exact set.
    assert_eq!(exchange.constraints.len(), 2);
    assert!(exchange.constraints[0].contains("split-a0 ::="));
    assert!(exchange.constraints[1].contains("n0 ::="));
    assert_eq!(exchange.replies.len(), 2);
}
