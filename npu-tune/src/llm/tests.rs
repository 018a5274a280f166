use super::protocol::*;
use super::*;

#[test]
fn endpoint_urls() {
    let cases = [
        (
            "http://127.0.0.1:8766/v1",
            "http://127.0.0.1:8766/v1/chat/completions",
        ),
        (
            "http://127.0.0.1:8766/v1/",
            "http://127.0.0.1:8766/v1/chat/completions",
        ),
        (
            "http://127.0.0.1:8766",
            "http://127.0.0.1:8766/v1/chat/completions",
        ),
        (
            "http://127.0.0.1:8766/",
            "http://127.0.0.1:8766/v1/chat/completions",
        ),
        ("http://h/chat/completions", "http://h/chat/completions"),
        (
            "http://h/v1/chat/completions/",
            "http://h/v1/chat/completions",
        ),
        (
            "https://api.example.com/openai/v1",
            "https://api.example.com/openai/v1/chat/completions",
        ),
        (" http://h/v1 ", "http://h/v1/chat/completions"),
    ];
    for (base, expected) in cases {
        assert_eq!(chat_completions_url(base), expected, "base_url {base:?}");
    }
}

#[test]
fn config_from_vars() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    };
    assert!(LlmConfig::from_vars(vars(&[])).is_none());
    assert!(LlmConfig::from_vars(vars(&[("NPU_LLM_URL", "  ")])).is_none());

    let config = LlmConfig::from_vars(vars(&[("NPU_LLM_URL", "http://h:1/v1")])).unwrap();
    assert_eq!(
        (config.base_url.as_str(), config.model.as_str()),
        ("http://h:1/v1", "default")
    );
    assert_eq!(config.api_key, None);
    assert_eq!(
        (config.temperature, config.max_tokens, config.max_retries),
        (0.8, 1024, 3)
    );
    assert_eq!(
        (config.timeout, config.backoff),
        (Duration::from_secs(120), Duration::from_secs(1))
    );

    let config = LlmConfig::from_vars(vars(&[
        ("NPU_LLM_URL", "http://h:1/v1"),
        ("NPU_LLM_MODEL", "qwen"),
        ("NPU_LLM_API_KEY", "sk-secret"),
    ]))
    .unwrap();
    assert_eq!(config.model, "qwen");
    assert_eq!(config.api_key.as_deref(), Some("sk-secret"));
}

#[test]
fn debug_never_shows_the_key() {
    let mut config = LlmConfig::new("http://user:pw@h/v1", "m");
    config.api_key = Some("sk-secret".into());
    let client = LlmClient::new(config.clone());
    for text in [format!("{config:?}"), format!("{client:?}")] {
        assert!(!text.contains("sk-secret"), "{text}");
        assert!(!text.contains("pw"), "{text}");
        assert!(text.contains("<redacted>"), "{text}");
    }
}

#[test]
fn retry_after_values() {
    assert_eq!(parse_retry_after("1"), Some(Duration::from_secs(1)));
    assert_eq!(parse_retry_after(" 30 "), Some(Duration::from_secs(30)));
    assert_eq!(parse_retry_after("-1"), None);
    assert_eq!(parse_retry_after("1.5"), None);
    assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
}

#[test]
fn answers() {
    let ok = |body: &str| {
        parse_answer(body)
            .map(|answer| answer.choices)
            .map_err(|error| error.to_string())
    };
    let reply = r#"{"choices":[{"message":{"role":"assistant","content":"a"}},{"message":{"content":"b"}}]}"#;
    assert_eq!(ok(reply), Ok(vec!["a".to_string(), "b".to_string()]));
    assert_eq!(
        ok(r#"{"choices":[{"text":"legacy"}]}"#),
        Ok(vec!["legacy".to_string()])
    );
    assert_eq!(
        ok(r#"{"choices":[{"message":{"content":[{"type":"text","text":"x"},{"text":"y"}]}}]}"#),
        Ok(vec!["xy".to_string()])
    );
    assert_eq!(
        ok(r#"{"choices":[{"message":{"content":null}},{"message":{"content":"kept"}}]}"#),
        Ok(vec!["kept".to_string()])
    );

    let error = |body: &str| ok(body).unwrap_err();
    assert!(
        error("<html>oops</html>").contains("not JSON"),
        "{}",
        error("<html>oops</html>")
    );
    assert!(error("{}").contains("no `choices` array"));
    assert!(error(r#"{"choices":[]}"#).contains("empty"));
    assert!(error(r#"{"choices":[{"message":{"content":null}}]}"#).contains("message.content"));
    assert!(error(r#"{"error":{"message":"model not loaded"}}"#).contains("model not loaded"));
    assert!(error("").contains("not JSON"));
    assert!(error("[1,2]").contains("no `choices` array"));
}

#[test]
fn usage_is_lenient() {
    let usage = |body: &str| parse_answer(body).ok().and_then(|answer| answer.usage);
    let choice = r#""choices":[{"message":{"content":"a"}}]"#;
    assert_eq!(
        usage(&format!(
            r#"{{{choice},"usage":{{"prompt_tokens":7,"completion_tokens":3}}}}"#
        )),
        Some(Usage {
            prompt_tokens: 7,
            completion_tokens: 3
        })
    );
    assert_eq!(usage(&format!(r#"{{{choice},"usage":null}}"#)), None);
    assert_eq!(
        usage(&format!(r#"{{{choice},"usage":{{"prompt_tokens":"x"}}}}"#)),
        None
    );
}

#[test]
fn excerpts_fold_and_cut() {
    assert_eq!(excerpt("a\n  b\tc", 10), "a b c");
    assert_eq!(excerpt("héllo wörld", 5), "héllo…");
    assert_eq!(excerpt("", 5), "");
}

#[test]
fn messages_name_the_fix() {
    let unreachable = LlmError::Unreachable {
        url: "http://h/v1".into(),
        detail: "refused".into(),
    };
    assert!(
        unreachable
            .to_string()
            .contains("is the server running? set NPU_LLM_URL")
    );
    assert!(
        LlmError::Unauthorized { status: 401 }
            .to_string()
            .contains("set NPU_LLM_API_KEY")
    );
    assert_eq!(
        LlmError::Timeout {
            after: Duration::from_millis(300)
        }
        .to_string(),
        "the LLM server did not answer within 300 ms; a model may be slow to load, raise the timeout"
    );
    let not_found = LlmError::Status {
        status: 404,
        body_excerpt: String::new(),
    };
    assert!(not_found.to_string().contains("ending in /v1"));
    let exhausted = LlmError::RetriesExhausted {
        attempts: 4,
        last: Box::new(not_found),
    };
    assert!(
        exhausted
            .to_string()
            .starts_with("gave up after 4 attempts: the LLM server answered HTTP 404")
    );
    assert_eq!(human_duration(Duration::from_secs(120)), "120 s");
    assert_eq!(human_duration(Duration::from_millis(1500)), "1.5 s");
}

#[test]
fn urls_are_redacted() {
    assert_eq!(redact_url("http://u:p@h:1/v1"), "http://<redacted>@h:1/v1");
    assert_eq!(redact_url("http://h:1/v1?a=b@c"), "http://h:1/v1?a=b@c");
    assert_eq!(redact_url("not a url"), "not a url");
}
