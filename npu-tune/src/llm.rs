//! A client for OpenAI-compatible chat-completions endpoints.
//!
//! vLLM, the llama.cpp server, Ollama and hosted APIs all speak the same
//! `POST {base_url}/chat/completions` protocol, so one small blocking client over
//! `ureq` covers them. The client is configured by [`LlmConfig`], usually from the
//! environment ([`LlmConfig::from_env`]):
//!
//! - `NPU_LLM_URL`: the base URL, e.g. `http://127.0.0.1:8080/v1` (required),
//! - `NPU_LLM_MODEL`: the model name sent with each request (default `default`),
//! - `NPU_LLM_API_KEY`: sent as `Authorization: Bearer ...` when set.
//!
//! [`LlmClient::complete`] asks for `n` choices. Servers that ignore `n` (the llama.cpp
//! server returns one choice whatever `n` says) are asked again until `n` choices are
//! gathered. Transient failures (HTTP 408, 429 and 5xx, timeouts, connections closed
//! mid-answer) are retried with exponential backoff, honouring `Retry-After`; failures
//! that another try cannot fix (refused connection, refused key, a reply that is not a
//! chat completion) are returned at once, as an [`LlmError`] whose message says what
//! to change.
//!
//! The API key is never logged, printed or put in an error message: `Debug` of the
//! config and the client redacts it, and error excerpts of server bodies mask it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::grammar::{ConstrainMode, Constraint};
use protocol::*;
pub use protocol::{ChatMessage, LlmError, Usage};

mod protocol;

/// The longest wait between two tries that the doubling backoff reaches.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The longest `Retry-After` the client honours; a server asking for more gets this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The word constraint probes ask for: no model writes it unless held to it.
const PROBE_WORD: &str = "npu-constrained";

/// Where and how to reach the chat-completions server.
#[derive(Clone)]
pub struct LlmConfig {
    /// The API base, e.g. `http://127.0.0.1:8080/v1`. A URL that already ends in
    /// `/chat/completions` is used as is; a bare `scheme://host:port` gets `/v1`.
    pub base_url: String,
    /// The model name sent with each request. Single-model servers ignore it.
    pub model: String,
    /// Sent as `Authorization: Bearer <key>` when set and not empty.
    pub api_key: Option<String>,
    /// Sampling temperature; candidates should differ, so the default is 0.8.
    pub temperature: f32,
    /// The most tokens one choice may take; default 1024.
    pub max_tokens: u32,
    /// The limit for one HTTP exchange, connect to last byte; default 120 s.
    /// `Duration::ZERO` means no limit.
    pub timeout: Duration,
    /// How many times a transient failure is retried; default 3 (so 4 tries).
    pub max_retries: u32,
    /// How many requests may be in flight at once when a server answers one choice
    /// per request (the llama.cpp server with several slots, vLLM); default 1.
    pub jobs: usize,
    /// The first wait between tries; it doubles after each retry, up to
    /// [`MAX_BACKOFF`]. Default 1 s.
    pub backoff: Duration,
    /// The sampling seed of the first request; request `r` (counted from 0 in the
    /// order they are made, retries included) is sent `seed + r`, so a run against a
    /// server that honours `seed` (llama.cpp's, vLLM) samples the same way again.
    /// `None` (the default) sends no seed.
    pub seed: Option<u64>,
}

/// The answer to [`LlmClient::complete`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The text of each choice, at most `n` of them, in the order received.
    pub choices: Vec<String>,
    /// Whether each of `choices` stopped at the token budget (the server's
    /// `finish_reason` was `length`) rather than where the model or grammar ended it.
    pub cut: Vec<bool>,
    /// HTTP requests made, retries and follow-up requests included.
    pub attempts: u32,
    /// Token counts summed over the requests, when the server reported any.
    pub usage: Option<Usage>,
}

impl Completion {
    /// Keeps the first `wanted` choices.
    fn truncate(&mut self, wanted: usize) {
        self.choices.truncate(wanted);
        self.cut.truncate(wanted);
    }

    /// Adds an answer's choices and token counts.
    fn absorb(&mut self, answer: Answer) {
        self.choices.extend(answer.choices);
        self.cut.extend(answer.cut);
        if let Some(usage) = answer.usage {
            let total = self.usage.get_or_insert_with(Usage::default);
            total.prompt_tokens = total.prompt_tokens.saturating_add(usage.prompt_tokens);
            total.completion_tokens = total
                .completion_tokens
                .saturating_add(usage.completion_tokens);
        }
    }
}

/// How one request is decoded: under a constraint or freely, at a temperature.
#[derive(Clone, Copy, Debug)]
pub struct Sampling<'a> {
    /// The grammar or schema the server decodes under; `None` decodes freely.
    pub constraint: Option<&'a Constraint>,
    /// The sampling temperature sent with the request.
    pub temperature: f32,
    /// The most tokens one choice may take, at most the configured `max_tokens`;
    /// `None` is the configured one.
    pub max_tokens: Option<u32>,
}

/// A blocking chat-completions client. Cheap to clone; `complete` takes `&self`, so
/// one client can serve parallel workers.
#[derive(Clone)]
pub struct LlmClient {
    config: LlmConfig,
    endpoint: String,
    agent: ureq::Agent,
    sleep: Arc<dyn Fn(Duration) + Send + Sync>,
    /// Set once the server has refused `n` > 1 (the llama.cpp server does): from then
    /// on every request asks for one choice.
    single_choice: Arc<AtomicBool>,
    /// Requests made so far: the offset of the next one's seed.
    sent: Arc<AtomicU64>,
}

impl LlmConfig {
    /// The model name used when none is configured.
    pub const DEFAULT_MODEL: &'static str = "default";

    /// A config with the default sampling, timeout and retry settings and no key.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        LlmConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            temperature: 0.8,
            max_tokens: 1024,
            timeout: Duration::from_secs(120),
            max_retries: 3,
            jobs: 1,
            backoff: Duration::from_secs(1),
            seed: None,
        }
    }

    /// Reads `NPU_LLM_URL`, `NPU_LLM_MODEL` and `NPU_LLM_API_KEY`. `None` when
    /// `NPU_LLM_URL` is unset or blank, which means "no LLM configured".
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) over any variable lookup, so that callers and
    /// tests need not touch the process environment.
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let non_blank = |name: &str| {
            lookup(name)
                .map(|value| value.trim().to_string())
                .filter(|value| !value.is_empty())
        };
        let base_url = non_blank("NPU_LLM_URL")?;
        let model = non_blank("NPU_LLM_MODEL").unwrap_or_else(|| Self::DEFAULT_MODEL.to_string());
        let mut config = LlmConfig::new(base_url, model);
        config.api_key = non_blank("NPU_LLM_API_KEY");
        Some(config)
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        chat_completions_url(&self.base_url)
    }
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("base_url", &redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("jobs", &self.jobs)
            .field("backoff", &self.backoff)
            .field("seed", &self.seed)
            .finish()
    }
}

impl LlmClient {
    /// A client for `config`. Nothing is sent until [`complete`](Self::complete).
    pub fn new(config: LlmConfig) -> Self {
        let timeout = (!config.timeout.is_zero()).then_some(config.timeout);
        let agent_config = ureq::Agent::config_builder()
            .timeout_global(timeout)
            // Error statuses come back as responses, so that 429 and 5xx bodies and
            // `Retry-After` can be read.
            .http_status_as_error(false)
            .user_agent(concat!("npu/", env!("CARGO_PKG_VERSION")))
            .build();
        LlmClient {
            endpoint: config.endpoint(),
            agent: ureq::Agent::new_with_config(agent_config),
            config,
            sleep: Arc::new(std::thread::sleep),
            single_choice: Arc::new(AtomicBool::new(false)),
            sent: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Replaces how the client waits between tries (by default `thread::sleep`), so
    /// that tests can record the waits instead of sitting through them.
    pub fn with_sleep(mut self, sleep: impl Fn(Duration) + Send + Sync + 'static) -> Self {
        self.sleep = Arc::new(sleep);
        self
    }

    /// The settings the client was built with.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// Asks for `n` choices for `messages`.
    ///
    /// When the server returns fewer choices than asked, the remainder is asked for
    /// again; each answer carries at least one choice, so at most `n` requests are
    /// made (plus retries). If a follow-up request fails after some choices were
    /// gathered, those choices are returned rather than the error. `n = 0` makes no
    /// request and returns no choices.
    pub fn complete(&self, messages: &[ChatMessage], n: u32) -> Result<Completion, LlmError> {
        self.complete_constrained(messages, n, None)
    }

    /// As [`complete`](Self::complete), with the server asked to decode under
    /// `constraint` (see [`super::grammar`]).
    pub fn complete_constrained(
        &self,
        messages: &[ChatMessage],
        n: u32,
        constraint: Option<&Constraint>,
    ) -> Result<Completion, LlmError> {
        let sampling = Sampling {
            constraint,
            temperature: self.config.temperature,
            max_tokens: None,
        };
        self.complete_sampled(messages, n, sampling)
    }

    /// As [`complete_constrained`](Self::complete_constrained), at the temperature
    /// `sampling` names rather than the configured one.
    pub fn complete_sampled(
        &self,
        messages: &[ChatMessage],
        n: u32,
        sampling: Sampling<'_>,
    ) -> Result<Completion, LlmError> {
        let wanted = n as usize;
        let mut completion = Completion {
            // Capped: `n` comes from the caller and may be anything.
            choices: Vec::with_capacity(wanted.min(64)),
            cut: Vec::with_capacity(wanted.min(64)),
            attempts: 0,
            usage: None,
        };
        // One more pass than `n`, for the request that finds out `n` is refused.
        for _ in 0..=n {
            let gathered = u32::try_from(completion.choices.len()).unwrap_or(u32::MAX);
            let missing = n.saturating_sub(gathered);
            if missing == 0 {
                break;
            }
            let single = self.single_choice.load(Ordering::Relaxed);
            let ask = if single { missing.min(1) } else { missing };
            let parallel = if single { self.jobs(missing) } else { 1 };
            let answers = self.requests(messages, ask, parallel, sampling, &mut completion);
            for answer in answers {
                match answer {
                    Err(error) if ask > 1 && refuses_n(&error) => {
                        self.single_choice.store(true, Ordering::Relaxed);
                    }
                    Ok(answer) => completion.absorb(answer),
                    Err(error) if completion.choices.is_empty() => return Err(error),
                    Err(_) => {
                        completion.truncate(wanted);
                        return Ok(completion);
                    }
                }
            }
            if completion.choices.len() >= wanted {
                break;
            }
        }
        completion.truncate(wanted);
        Ok(completion)
    }

    /// Finds out once which constraint the server honours: a GBNF `grammar` (llama.cpp
    /// and its wrappers), else a JSON Schema `response_format` (vLLM, hosted APIs).
    /// Each probe asks for a reply the model would not write unconstrained; the reason
    /// of the last failure comes back when neither is honoured.
    pub fn probe_constraints(&self) -> Result<ConstrainMode, String> {
        let messages = [ChatMessage::user("Reply with one word: hello.")];
        let gbnf = Constraint::Gbnf(format!("root ::= \"{PROBE_WORD}\""));
        let reason = match self.complete_constrained(&messages, 1, Some(&gbnf)) {
            Ok(c) if c.choices.first().is_some_and(|r| r.trim() == PROBE_WORD) => {
                return Ok(ConstrainMode::Gbnf);
            }
            Ok(c) => format!(
                "the server ignored a GBNF grammar (it replied {:?})",
                excerpt(c.choices.first().map_or("", String::as_str), 40)
            ),
            Err(error) => format!("the server refused a GBNF grammar: {error}"),
        };
        let schema = Constraint::JsonSchema(serde_json::json!({
            "type": "object",
            "properties": { "probe": { "const": PROBE_WORD } },
            "required": ["probe"],
            "additionalProperties": false,
        }));
        match self.complete_constrained(&messages, 1, Some(&schema)) {
            Ok(c)
                if c.choices.first().is_some_and(|r| {
                    serde_json::from_str::<serde_json::Value>(r.trim())
                        .is_ok_and(|v| v["probe"] == PROBE_WORD)
                }) =>
            {
                Ok(ConstrainMode::JsonSchema)
            }
            Ok(_) => Err(format!("{reason}; it also ignored a JSON Schema")),
            Err(error) => Err(format!("{reason}; it refused a JSON Schema: {error}")),
        }
    }

    /// How many one-choice requests to send at once for `missing` choices.
    fn jobs(&self, missing: u32) -> u32 {
        let jobs = u32::try_from(self.config.jobs).unwrap_or(u32::MAX);
        missing.min(jobs.max(1))
    }

    /// `parallel` requests for `n` choices each, at once when more than one, answers
    /// in the order the requests were made (so a run is reproducible from its seeds
    /// whatever order the server answers in).
    fn requests(
        &self,
        messages: &[ChatMessage],
        n: u32,
        parallel: u32,
        sampling: Sampling<'_>,
        completion: &mut Completion,
    ) -> Vec<Result<Answer, LlmError>> {
        if parallel <= 1 {
            let answer =
                self.complete_with_retries(messages, n, sampling, &mut completion.attempts);
            return vec![answer];
        }
        let answered: Vec<(Result<Answer, LlmError>, u32)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..parallel)
                .map(|_| {
                    scope.spawn(|| {
                        let mut attempts = 0;
                        let answer =
                            self.complete_with_retries(messages, n, sampling, &mut attempts);
                        (answer, attempts)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("a request thread does not panic"))
                .collect()
        });
        answered
            .into_iter()
            .map(|(answer, attempts)| {
                completion.attempts = completion.attempts.saturating_add(attempts);
                answer
            })
            .collect()
    }

    /// One request for `n` choices, retried while its failures are transient.
    fn complete_with_retries(
        &self,
        messages: &[ChatMessage],
        n: u32,
        sampling: Sampling<'_>,
        attempts: &mut u32,
    ) -> Result<Answer, LlmError> {
        let mut backoff = self.config.backoff.min(MAX_BACKOFF);
        let mut tries = 0u32;
        loop {
            tries = tries.saturating_add(1);
            *attempts = attempts.saturating_add(1);
            let (error, retry_after) = match self.send(messages, n, sampling) {
                Ok(answer) => return Ok(answer),
                Err(failure) => (failure.error, failure.retry_after),
            };
            if !error.is_transient() {
                return Err(error);
            }
            if tries > self.config.max_retries {
                return Err(LlmError::RetriesExhausted {
                    attempts: tries,
                    last: Box::new(error),
                });
            }
            (self.sleep)(retry_after.map_or(backoff, |wait| wait.min(MAX_RETRY_AFTER)));
            backoff = backoff.saturating_mul(2).min(MAX_BACKOFF);
        }
    }

    /// One HTTP exchange.
    fn send(
        &self,
        messages: &[ChatMessage],
        n: u32,
        sampling: Sampling<'_>,
    ) -> Result<Answer, Failure> {
        let constraint = sampling.constraint;
        let body = RequestBody {
            model: &self.config.model,
            messages,
            temperature: sampling.temperature,
            max_tokens: sampling
                .max_tokens
                .map_or(self.config.max_tokens, |budget| {
                    budget.min(self.config.max_tokens)
                }),
            // Sent only when more than one choice is wanted: some servers reject `n`.
            n: (n > 1).then_some(n),
            seed: self
                .config
                .seed
                .map(|seed| seed.wrapping_add(self.sent.fetch_add(1, Ordering::SeqCst))),
            grammar: match constraint {
                Some(Constraint::Gbnf(grammar)) => Some(grammar),
                _ => None,
            },
            response_format: match constraint {
                Some(Constraint::JsonSchema(schema)) => Some(serde_json::json!({
                    "type": "json_schema",
                    "json_schema": { "name": "schedule", "strict": true, "schema": schema },
                })),
                _ => None,
            },
        };
        let mut request = self
            .agent
            .post(&self.endpoint)
            .header("Accept", "application/json");
        if let Some(key) = self.config.api_key.as_deref().filter(|key| !key.is_empty()) {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request
            .send_json(&body)
            .map_err(|error| self.transport_failure(error))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|value| value.to_str().ok())
            .and_then(parse_retry_after);
        let text = match response.body_mut().read_to_string() {
            Ok(text) => text,
            Err(error) if (200..=299).contains(&status) => {
                return Err(self.transport_failure(error));
            }
            // An error status is reported even when its body cannot be read.
            Err(_) => String::new(),
        };
        let error = match status {
            200..=299 => return parse_answer(&text).map_err(Failure::from),
            401 | 403 => LlmError::Unauthorized { status },
            _ => LlmError::Status {
                status,
                body_excerpt: self.excerpt(&text),
            },
        };
        Err(Failure { error, retry_after })
    }

    /// Classifies a ureq error. Never includes request headers: they hold the key.
    fn transport_failure(&self, error: ureq::Error) -> Failure {
        let url = redact_url(&self.endpoint);
        let timeout = LlmError::Timeout {
            after: self.config.timeout,
        };
        let error = match error {
            ureq::Error::Timeout(_) => timeout,
            ureq::Error::Io(io) => {
                use std::io::ErrorKind as Kind;
                match io.kind() {
                    Kind::TimedOut | Kind::WouldBlock => timeout,
                    Kind::ConnectionReset
                    | Kind::ConnectionAborted
                    | Kind::BrokenPipe
                    | Kind::UnexpectedEof
                    | Kind::Interrupted => LlmError::Disconnected {
                        url,
                        detail: io.to_string(),
                    },
                    _ => LlmError::Unreachable {
                        url,
                        detail: io.to_string(),
                    },
                }
            }
            ureq::Error::Protocol(protocol) => LlmError::Disconnected {
                url,
                detail: protocol.to_string(),
            },
            ureq::Error::HostNotFound => LlmError::Unreachable {
                url,
                detail: "unknown host".into(),
            },
            ureq::Error::ConnectionFailed => LlmError::Unreachable {
                url,
                detail: "connection failed".into(),
            },
            ureq::Error::BadUri(_) | ureq::Error::RequireHttpsOnly(_) => LlmError::Unreachable {
                url,
                detail: "not a valid http(s) URL".into(),
            },
            // The only headers set are `Accept` and `Authorization`, so a header that
            // cannot be built is the key. The error text is not shown: it may hold it.
            ureq::Error::Http(_) => LlmError::InvalidRequest {
                detail: "the API key is not a valid header value; NPU_LLM_API_KEY must be \
                         one line of printable ASCII"
                    .into(),
            },
            ureq::Error::BodyExceedsLimit(limit) => LlmError::Malformed {
                detail: format!("the reply is larger than {limit} bytes"),
            },
            ureq::Error::LargeResponseHeader(size, limit) => LlmError::Malformed {
                detail: format!("the reply's headers take {size} bytes, more than {limit}"),
            },
            other => LlmError::Unreachable {
                url,
                detail: other.to_string(),
            },
        };
        Failure {
            error,
            retry_after: None,
        }
    }

    /// The start of a server's error body on one line, with the key masked in case
    /// the server echoes the request.
    fn excerpt(&self, body: &str) -> String {
        let mut text = excerpt(body, EXCERPT_CHARS);
        if let Some(key) = self.config.api_key.as_deref().filter(|key| key.len() >= 4) {
            text = text.replace(key, "<redacted>");
        }
        text
    }
}

impl fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmClient")
            .field("endpoint", &redact_url(&self.endpoint))
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
