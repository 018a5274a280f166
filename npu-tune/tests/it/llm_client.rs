//! The LLM client against a scripted chat-completions server over real HTTP.
//!
//! Backoffs are 10 ms and waits are recorded rather than slept, except in the one test
//! that checks that `Retry-After` really delays the next try.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::chat_server::{Behaviour, ChatServer};
use npu_tune::llm::{ChatMessage, LlmClient, LlmConfig, LlmError, Usage};
use serde_json::json;

const SCHEDULE: &str = "schedule a { split i by 64; }";

fn config(server: &ChatServer) -> LlmConfig {
    let mut config = LlmConfig::new(server.base_url(), "test-model");
    config.timeout = Duration::from_secs(5);
    config.backoff = Duration::from_millis(10);
    config
}

/// A client whose waits between tries are recorded instead of slept.
fn recording_client(config: LlmConfig) -> (LlmClient, Arc<Mutex<Vec<Duration>>>) {
    let waits = Arc::new(Mutex::new(Vec::new()));
    let recorder = Arc::clone(&waits);
    let client = LlmClient::new(config).with_sleep(move |wait| recorder.lock().unwrap().push(wait));
    (client, waits)
}

fn messages() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("Write schedule blocks only."),
        ChatMessage::user("kernel add ..."),
    ]
}

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

#[test]
fn good_reply() {
    let server = ChatServer::start(vec![Behaviour::Reply(SCHEDULE.into())]);
    let (client, waits) = recording_client(config(&server));
    let completion = client.complete(&messages(), 1).unwrap();
    assert_eq!(completion.choices, vec![SCHEDULE.to_string()]);
    assert_eq!(completion.attempts, 1);
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 12,
            completion_tokens: 5
        })
    );
    assert!(waits.lock().unwrap().is_empty());

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    let body = &request.body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(
        body["messages"],
        json!([
            { "role": "system", "content": "Write schedule blocks only." },
            { "role": "user", "content": "kernel add ..." },
        ])
    );
    assert!((body["temperature"].as_f64().unwrap() - 0.8).abs() < 1e-6);
    assert_eq!(body["max_tokens"], 1024);
    assert!(
        body.get("n").is_none(),
        "n is sent only when above 1: {body}"
    );
    assert!(
        body.get("seed").is_none(),
        "no seed unless one is set: {body}"
    );
}

/// With a seed set, request `r` carries `seed + r`, retries counted: a second run
/// against the same server samples the same way.
#[test]
fn a_seed_is_sent_one_more_per_request() {
    let server = ChatServer::start(vec![
        Behaviour::Status(503, "busy".into()),
        Behaviour::Reply(SCHEDULE.into()),
        Behaviour::Reply(SCHEDULE.into()),
    ]);
    let mut config = config(&server);
    config.seed = Some(41);
    let (client, _) = recording_client(config);
    client.complete(&messages(), 1).unwrap();
    client.complete(&messages(), 1).unwrap();
    let seeds: Vec<serde_json::Value> = server
        .requests()
        .iter()
        .map(|r| r.body["seed"].clone())
        .collect();
    assert_eq!(seeds, vec![json!(41), json!(42), json!(43)]);
}

#[test]
fn n_choices_gathered_over_several_requests() {
    let server = ChatServer::start(vec![
        Behaviour::Reply("one".into()),
        Behaviour::Reply("two".into()),
        Behaviour::Reply("three".into()),
    ]);
    let (client, _) = recording_client(config(&server));
    let completion = client.complete(&messages(), 3).unwrap();
    assert_eq!(completion.choices, vec!["one", "two", "three"]);
    assert_eq!(completion.attempts, 3);
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 36,
            completion_tokens: 15
        })
    );
    // Each follow-up asks only for what is still missing.
    let asked: Vec<_> = server
        .requests()
        .iter()
        .map(|request| request.body.get("n").cloned())
        .collect();
    assert_eq!(asked, vec![Some(json!(3)), Some(json!(2)), None]);
}

/// The llama.cpp server answers 400 to `n` > 1 (seen with the local Qwen model); the
/// client then asks for one choice at a time, and keeps doing so.
#[test]
fn a_server_refusing_n_gets_one_choice_per_request() {
    let refusal = r#"{"error":{"code":400,"message":"Field 'n': Value must be between 1 <= value <= 1, but got 3","type":"invalid_request_error"}}"#;
    let server = ChatServer::start(vec![
        Behaviour::Status(400, refusal.into()),
        Behaviour::Reply("one".into()),
        Behaviour::Reply("two".into()),
        Behaviour::Reply("three".into()),
        Behaviour::Reply("four".into()),
        Behaviour::Reply("five".into()),
    ]);
    let (client, waits) = recording_client(config(&server));
    let completion = client.complete(&messages(), 3).unwrap();
    assert_eq!(completion.choices, vec!["one", "two", "three"]);
    let again = client.complete(&messages(), 2).unwrap();
    assert_eq!(again.choices, vec!["four", "five"]);
    let asked: Vec<_> = server
        .requests()
        .iter()
        .map(|request| request.body.get("n").cloned())
        .collect();
    assert_eq!(asked, vec![Some(json!(3)), None, None, None, None, None]);
    assert!(
        waits.lock().unwrap().is_empty(),
        "a refused `n` is not a transient failure"
    );
}

/// With `jobs`, the one-choice requests after a refused `n` are in flight together
/// (the server answers only requests that meet), and the choices keep request order.
#[test]
fn jobs_send_one_choice_requests_at_once() {
    let refusal = r#"{"error":{"code":400,"message":"Field 'n': Value must be between 1 <= value <= 1, but got 4","type":"invalid_request_error"}}"#;
    let arrived = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let together = |text: &str| {
        Behaviour::Together(
            Arc::clone(&arrived),
            3,
            Box::new(Behaviour::Reply(text.into())),
        )
    };
    let server = ChatServer::start(vec![
        Behaviour::Status(400, refusal.into()),
        together("same"),
        together("same"),
        together("same"),
        Behaviour::Reply("last".into()),
    ]);
    let mut config = config(&server);
    config.jobs = 3;
    let (client, _) = recording_client(config);
    let completion = client.complete(&messages(), 4).unwrap();
    assert_eq!(completion.choices, vec!["same", "same", "same", "last"]);
    assert_eq!(completion.attempts, 5);
}

#[test]
fn n_choices_in_one_request_are_cut_to_n() {
    let texts = ["a", "b", "c", "d"].map(String::from).to_vec();
    let server = ChatServer::start(vec![Behaviour::Replies(texts)]);
    let (client, _) = recording_client(config(&server));
    let completion = client.complete(&messages(), 3).unwrap();
    assert_eq!(completion.choices, vec!["a", "b", "c"]);
    assert_eq!(completion.attempts, 1);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn zero_choices_make_no_request() {
    let server = ChatServer::start(vec![]);
    let (client, _) = recording_client(config(&server));
    let completion = client.complete(&messages(), 0).unwrap();
    assert!(completion.choices.is_empty());
    assert_eq!(completion.attempts, 0);
    assert!(server.requests().is_empty());
}

#[test]
fn slow_reply_times_out_then_retry_succeeds() {
    let server = ChatServer::start(vec![
        Behaviour::Delay(
            Duration::from_secs(2),
            Box::new(Behaviour::Reply("late".into())),
        ),
        Behaviour::Reply("on time".into()),
    ]);
    let mut config = config(&server);
    config.timeout = ms(300);
    let (client, waits) = recording_client(config);
    let completion = client.complete(&messages(), 1).unwrap();
    assert_eq!(completion.choices, vec!["on time"]);
    assert_eq!(completion.attempts, 2);
    assert_eq!(*waits.lock().unwrap(), vec![ms(10)]);
}

#[test]
fn slow_replies_exhaust_retries_with_a_timeout() {
    let server = ChatServer::start_repeating(Behaviour::Delay(
        Duration::from_secs(2),
        Box::new(Behaviour::Reply("late".into())),
    ));
    let mut config = config(&server);
    config.timeout = ms(200);
    config.max_retries = 1;
    let (client, _) = recording_client(config);
    let error = client.complete(&messages(), 1).unwrap_err();
    let LlmError::RetriesExhausted { attempts, last } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*attempts, 2);
    assert!(
        matches!(**last, LlmError::Timeout { after } if after == ms(200)),
        "{last:?}"
    );
    assert!(
        error.to_string().contains("did not answer within 200 ms"),
        "{error}"
    );
}

#[test]
fn retry_after_is_honoured() {
    let server = ChatServer::start(vec![
        Behaviour::StatusRetryAfter(429, 1),
        Behaviour::Reply("ok".into()),
    ]);
    let mut config = config(&server);
    config.backoff = ms(1);
    // A real sleep: this checks that the client waits as told, not how fast it is.
    let client = LlmClient::new(config);
    let started = Instant::now();
    let completion = client.complete(&messages(), 1).unwrap();
    let waited = started.elapsed();
    assert_eq!(completion.choices, vec!["ok"]);
    assert_eq!(completion.attempts, 2);
    assert!(
        waited >= ms(950),
        "retried after {waited:?}, before the 1 s Retry-After"
    );
}

#[test]
fn retry_after_is_capped_at_a_minute() {
    let server = ChatServer::start(vec![
        Behaviour::StatusRetryAfter(429, 3600),
        Behaviour::Reply("ok".into()),
    ]);
    let (client, waits) = recording_client(config(&server));
    assert_eq!(client.complete(&messages(), 1).unwrap().choices, vec!["ok"]);
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(60)]);
}

#[test]
fn server_error_then_success() {
    let server = ChatServer::start(vec![
        Behaviour::Status(500, "oops".into()),
        Behaviour::Reply("ok".into()),
    ]);
    let (client, waits) = recording_client(config(&server));
    let completion = client.complete(&messages(), 1).unwrap();
    assert_eq!(completion.choices, vec!["ok"]);
    assert_eq!(completion.attempts, 2);
    assert_eq!(*waits.lock().unwrap(), vec![ms(10)]);
}

#[test]
fn server_errors_forever_exhaust_retries() {
    let server = ChatServer::start_repeating(Behaviour::Status(503, "model is loading".into()));
    let (client, waits) = recording_client(config(&server));
    let error = client.complete(&messages(), 1).unwrap_err();
    let LlmError::RetriesExhausted { attempts, last } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*attempts, 4, "one try and max_retries = 3 retries");
    let LlmError::Status {
        status,
        body_excerpt,
    } = last.as_ref()
    else {
        panic!("{last:?}")
    };
    assert_eq!((*status, body_excerpt.as_str()), (503, "model is loading"));
    assert_eq!(server.requests().len(), 4);
    // Exponential backoff from the configured 10 ms.
    assert_eq!(*waits.lock().unwrap(), vec![ms(10), ms(20), ms(40)]);
    assert_eq!(
        error.to_string(),
        "gave up after 4 attempts: the LLM server answered HTTP 503: model is loading"
    );
}

#[test]
fn malformed_json_is_not_retried() {
    let server = ChatServer::start(vec![Behaviour::RawBody(
        r#"{"choices": [{"message": "#.into(),
    )]);
    let (client, _) = recording_client(config(&server));
    let error = client.complete(&messages(), 1).unwrap_err();
    assert!(
        matches!(&error, LlmError::Malformed { detail } if detail.contains("not JSON")),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn empty_choices_are_malformed() {
    let server = ChatServer::start(vec![Behaviour::EmptyChoices]);
    let (client, _) = recording_client(config(&server));
    let error = client.complete(&messages(), 1).unwrap_err();
    assert!(
        matches!(&error, LlmError::Malformed { detail } if detail.contains("empty")),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn refused_key_is_not_retried_and_not_shown() {
    for status in [401, 403] {
        let server = ChatServer::start(vec![Behaviour::Status(
            status,
            "invalid key sk-test-secret".into(),
        )]);
        let mut config = config(&server);
        config.api_key = Some("sk-test-secret".into());
        let (client, waits) = recording_client(config);
        let error = client.complete(&messages(), 1).unwrap_err();
        assert!(
            matches!(error, LlmError::Unauthorized { status: s } if s == status),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("set NPU_LLM_API_KEY"), "{message}");
        assert!(!message.contains("sk-test-secret"), "{message}");
        assert_eq!(server.requests().len(), 1);
        assert!(waits.lock().unwrap().is_empty());
    }
}

#[test]
fn other_client_errors_are_not_retried() {
    let server = ChatServer::start(vec![
        Behaviour::Status(400, "max_tokens is too large\n for this model".into()),
        Behaviour::Status(404, "no route".into()),
    ]);
    let (client, _) = recording_client(config(&server));
    let error = client.complete(&messages(), 1).unwrap_err();
    let LlmError::Status {
        status,
        body_excerpt,
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(
        (*status, body_excerpt.as_str()),
        (400, "max_tokens is too large for this model")
    );
    let error = client.complete(&messages(), 1).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("check that NPU_LLM_URL is the API base"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn echoed_key_is_masked_in_excerpts() {
    let server = ChatServer::start(vec![Behaviour::Status(
        400,
        "bad request from Bearer sk-test-secret".into(),
    )]);
    let mut config = config(&server);
    config.api_key = Some("sk-test-secret".into());
    let (client, _) = recording_client(config);
    let error = client.complete(&messages(), 1).unwrap_err();
    assert!(!error.to_string().contains("sk-test-secret"), "{error}");
    assert!(error.to_string().contains("Bearer <redacted>"), "{error}");
}

#[test]
fn connection_refused_is_unreachable() {
    // A port that was free a moment ago and has no listener now.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut config = LlmConfig::new(format!("http://{addr}/v1"), "test-model");
    config.backoff = ms(10);
    let (client, waits) = recording_client(config);
    let error = client.complete(&messages(), 1).unwrap_err();
    assert!(
        matches!(&error, LlmError::Unreachable { url, .. } if url.contains(&addr.to_string())),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("is the server running? set NPU_LLM_URL"),
        "{error}"
    );
    assert!(
        waits.lock().unwrap().is_empty(),
        "a refused connection is not retried"
    );
}

#[test]
fn closed_connection_is_retried() {
    let server = ChatServer::start(vec![
        Behaviour::CloseWithoutResponse,
        Behaviour::Reply("ok".into()),
    ]);
    let (client, _) = recording_client(config(&server));
    let completion = client.complete(&messages(), 1).unwrap();
    assert_eq!(completion.choices, vec!["ok"]);
    assert_eq!(completion.attempts, 2);

    let server = ChatServer::start_repeating(Behaviour::CloseWithoutResponse);
    let mut config = config(&server);
    config.max_retries = 0;
    let (client, _) = recording_client(config);
    let error = client.complete(&messages(), 1).unwrap_err();
    let LlmError::RetriesExhausted { attempts: 1, last } = &error else {
        panic!("{error:?}")
    };
    assert!(matches!(**last, LlmError::Disconnected { .. }), "{last:?}");
}

#[test]
fn a_failed_follow_up_keeps_the_choices_gathered() {
    let server = ChatServer::start(vec![
        Behaviour::Reply("one".into()),
        Behaviour::Status(401, String::new()),
    ]);
    let (client, _) = recording_client(config(&server));
    let completion = client.complete(&messages(), 2).unwrap();
    assert_eq!(completion.choices, vec!["one"]);
    assert_eq!(completion.attempts, 2);
}

#[test]
fn api_key_is_sent_as_bearer() {
    let server = ChatServer::start(vec![Behaviour::Reply("ok".into())]);
    let mut config = config(&server);
    config.api_key = Some("sk-test-secret".into());
    LlmClient::new(config).complete(&messages(), 1).unwrap();
    assert_eq!(
        server.requests()[0].authorization.as_deref(),
        Some("Bearer sk-test-secret")
    );
}

#[test]
fn no_authorization_without_a_key() {
    let server = ChatServer::start(vec![
        Behaviour::Reply("ok".into()),
        Behaviour::Reply("ok".into()),
    ]);
    let mut config = config(&server);
    LlmClient::new(config.clone())
        .complete(&messages(), 1)
        .unwrap();
    config.api_key = Some(String::new());
    LlmClient::new(config).complete(&messages(), 1).unwrap();
    let headers: Vec<_> = server
        .requests()
        .into_iter()
        .map(|request| request.authorization)
        .collect();
    assert_eq!(headers, vec![None, None]);
}

#[test]
fn base_url_variants_reach_the_endpoint() {
    let server = ChatServer::start(vec![
        Behaviour::Reply("ok".into()),
        Behaviour::Reply("ok".into()),
        Behaviour::Reply("ok".into()),
    ]);
    let base = server.base_url();
    let root = base.trim_end_matches("/v1").to_string();
    for base_url in [format!("{base}/"), format!("{base}/chat/completions"), root] {
        let mut config = config(&server);
        config.base_url = base_url;
        LlmClient::new(config).complete(&messages(), 1).unwrap();
    }
    let paths: Vec<_> = server
        .requests()
        .into_iter()
        .map(|request| request.path)
        .collect();
    assert_eq!(paths, vec!["/v1/chat/completions"; 3]);
}
