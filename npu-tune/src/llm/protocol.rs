//! The wire protocol of chat completions: the request body, reading answers, and the
//! small text helpers errors use (URL redaction, excerpts, durations).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use std::fmt;

use serde::Deserialize;

/// The JSON posted to the server.
#[derive(Serialize)]
pub(super) struct RequestBody<'a> {
    pub(super) model: &'a str,
    pub(super) messages: &'a [ChatMessage],
    pub(super) temperature: f32,
    pub(super) max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) n: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) seed: Option<u64>,
    /// llama.cpp's GBNF grammar field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) grammar: Option<&'a str>,
    /// OpenAI-style structured output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) response_format: Option<Value>,
}

/// The choices and usage of one successful exchange.
pub(super) struct Answer {
    pub(super) choices: Vec<String>,
    /// Whether each choice stopped at the token budget (`finish_reason: "length"`).
    pub(super) cut: Vec<bool>,
    pub(super) usage: Option<Usage>,
}

/// A failed exchange and the wait the server asked for, if any.
pub(super) struct Failure {
    pub(super) error: LlmError,
    pub(super) retry_after: Option<Duration>,
}

impl From<LlmError> for Failure {
    fn from(error: LlmError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

/// `{base_url}/chat/completions`, tolerating a trailing slash, a URL that already
/// names the endpoint, and a bare `scheme://host:port` (which gets `/v1`).
pub(super) fn chat_completions_url(base_url: &str) -> String {
    let base = base_url.trim().trim_end_matches('/');
    if base.ends_with("/chat/completions") {
        return base.to_string();
    }
    let after_scheme = base.split_once("://").map_or(base, |(_, rest)| rest);
    if after_scheme.contains('/') {
        format!("{base}/chat/completions")
    } else {
        format!("{base}/v1/chat/completions")
    }
}

/// The URL with any `user:password@` replaced, for messages.
pub(super) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://<redacted>@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

pub(super) fn is_transient_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500..=599)
}

/// `Retry-After` in its seconds form. The HTTP-date form is rare from these
/// servers and falls back to the backoff.
pub(super) fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// The choices and usage of a 2xx body, or why it is not a chat completion.
pub(super) fn parse_answer(body: &str) -> Result<Answer, LlmError> {
    let json: Value = serde_json::from_str(body).map_err(|error| LlmError::Malformed {
        detail: format!(
            "the body is not JSON ({error}); it starts: {}",
            excerpt(body, 80)
        ),
    })?;
    if let Some(error) = json.get("error").filter(|error| !error.is_null()) {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_string);
        return Err(LlmError::Malformed {
            detail: format!(
                "the server sent an error object: {}",
                excerpt(&message, EXCERPT_CHARS)
            ),
        });
    }
    let Some(choices) = json.get("choices").and_then(Value::as_array) else {
        return Err(LlmError::Malformed {
            detail: "the reply has no `choices` array".into(),
        });
    };
    if choices.is_empty() {
        return Err(LlmError::Malformed {
            detail: "the reply's `choices` array is empty".into(),
        });
    }
    // A choice without text is skipped; the answer fails only when none has text.
    let (texts, cut) = texts_and_cuts(choices);
    if texts.is_empty() {
        return Err(LlmError::Malformed {
            detail: "no choice has a `message.content` string".into(),
        });
    }
    let usage = json.get("usage").and_then(|usage| {
        let count = |field: &str| usage.get(field).and_then(Value::as_u64);
        let (prompt, completion) = (count("prompt_tokens"), count("completion_tokens"));
        (prompt.is_some() || completion.is_some()).then(|| Usage {
            prompt_tokens: prompt.unwrap_or(0),
            completion_tokens: completion.unwrap_or(0),
        })
    });
    Ok(Answer {
        choices: texts,
        cut,
        usage,
    })
}

/// Each choice's text with whether the server cut it at the token budget
/// (`finish_reason: "length"`); a choice without text is left out.
fn texts_and_cuts(choices: &[Value]) -> (Vec<String>, Vec<bool>) {
    choices
        .iter()
        .filter_map(|choice| {
            let finish = choice.get("finish_reason").and_then(Value::as_str);
            Some((choice_text(choice)?, finish == Some("length")))
        })
        .unzip()
}

/// A choice's text: `message.content` as a string or as an array of text parts, or
/// the legacy completions `text`.
pub(super) fn choice_text(choice: &Value) -> Option<String> {
    match choice
        .get("message")
        .and_then(|message| message.get("content"))
    {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Array(parts)) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|part| part.get("text")?.as_str())
                .collect();
            (!texts.is_empty()).then(|| texts.concat())
        }
        _ => choice
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

/// At most `max_chars` characters of `text`, whitespace runs folded to one space,
/// with `…` when cut.
pub(super) fn excerpt(text: &str, max_chars: usize) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match folded.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &folded[..cut]),
        None => folded,
    }
}

/// `300 ms`, `1.5 s`, `120 s`.
pub(super) fn human_duration(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

/// Whether an error is a server refusing the `n` parameter, as the llama.cpp server
/// does with "Field 'n': Value must be between 1 <= value <= 1".
pub(super) fn refuses_n(error: &LlmError) -> bool {
    match error {
        LlmError::Status {
            status: 400 | 422,
            body_excerpt,
        } => {
            body_excerpt.contains("'n'")
                || body_excerpt.contains("\"n\"")
                || body_excerpt.contains("`n`")
        }
        _ => false,
    }
}

/// How much of a server's error body an [`LlmError::Status`] keeps, in characters.
pub(super) const EXCERPT_CHARS: usize = 200;

/// One message of a chat, as the chat-completions API takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The message's text.
    pub content: String,
}

/// Token counts as the server reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt (the messages sent).
    pub prompt_tokens: u64,
    /// Tokens of the generated choices.
    pub completion_tokens: u64,
}

/// Why a completion failed. The messages name the cause and the fix.
#[derive(Debug)]
pub enum LlmError {
    /// No connection: refused, unknown host, unreachable network or a URL that is
    /// not one. Not retried: the server is not running or the URL is wrong.
    Unreachable {
        /// The endpoint, with any credentials in it redacted.
        url: String,
        /// What the transport said.
        detail: String,
    },
    /// HTTP 401 or 403. Not retried.
    Unauthorized {
        /// The HTTP status, 401 or 403.
        status: u16,
    },
    /// No complete answer within the configured timeout.
    Timeout {
        /// The configured timeout.
        after: Duration,
    },
    /// An HTTP error status other than 401 and 403, with the start of the body.
    Status {
        /// The HTTP status.
        status: u16,
        /// The start of the body on one line, the API key masked.
        body_excerpt: String,
    },
    /// The server answered 2xx, but not with a usable chat completion. Not retried.
    Malformed {
        /// What is wrong with the answer.
        detail: String,
    },
    /// The connection was closed or reset before the answer was complete.
    Disconnected {
        /// The endpoint, with any credentials in it redacted.
        url: String,
        /// What the transport said.
        detail: String,
    },
    /// The request could not be built, e.g. an API key that is not a valid header.
    InvalidRequest {
        /// What could not be built (never the key itself).
        detail: String,
    },
    /// Every try failed with a transient error; `last` is the final one.
    RetriesExhausted {
        /// Tries made, the first included.
        attempts: u32,
        /// The last try's error.
        last: Box<LlmError>,
    },
}

impl ChatMessage {
    /// A message from `role` (`system`, `user` or `assistant`).
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage {
            role: role.into(),
            content: content.into(),
        }
    }

    /// A `system` message: the instructions the model follows.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new("system", content)
    }

    /// A `user` message: the request.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new("user", content)
    }

    /// An `assistant` message: an earlier reply of the model.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new("assistant", content)
    }
}

impl LlmError {
    /// Whether another try may succeed.
    pub(super) fn is_transient(&self) -> bool {
        match self {
            LlmError::Timeout { .. } | LlmError::Disconnected { .. } => true,
            LlmError::Status { status, .. } => is_transient_status(*status),
            _ => false,
        }
    }
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmError::Unreachable { url, detail } => write!(
                f,
                "cannot reach the LLM server at {url}: {detail}; is the server running? \
                 set NPU_LLM_URL to its base URL, e.g. http://127.0.0.1:8080/v1"
            ),
            LlmError::Unauthorized { status } => write!(
                f,
                "the LLM server answered HTTP {status}: the API key was refused; set NPU_LLM_API_KEY"
            ),
            LlmError::Timeout { after } => write!(
                f,
                "the LLM server did not answer within {}; a model may be slow to load, \
                 raise the timeout",
                human_duration(*after)
            ),
            LlmError::Status {
                status,
                body_excerpt,
            } => {
                write!(f, "the LLM server answered HTTP {status}")?;
                if !body_excerpt.is_empty() {
                    write!(f, ": {body_excerpt}")?;
                }
                if *status == 404 {
                    write!(
                        f,
                        "; check that NPU_LLM_URL is the API base, usually ending in /v1"
                    )?;
                }
                Ok(())
            }
            LlmError::Malformed { detail } => {
                write!(
                    f,
                    "the LLM server's reply is not a chat completion: {detail}"
                )
            }
            LlmError::Disconnected { url, detail } => write!(
                f,
                "the LLM server at {url} closed the connection before answering: {detail}"
            ),
            LlmError::InvalidRequest { detail } => {
                write!(
                    f,
                    "the request to the LLM server could not be built: {detail}"
                )
            }
            LlmError::RetriesExhausted { attempts, last } => {
                write!(f, "gave up after {attempts} attempts: {last}")
            }
        }
    }
}

impl std::error::Error for LlmError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LlmError::RetriesExhausted { last, .. } => Some(last.as_ref()),
            _ => None,
        }
    }
}
