//! A scripted chat-completions server for testing the LLM client over real HTTP.
//!
//! It listens on `127.0.0.1:0`, answers each request with the next [`Behaviour`] of
//! its script, and records every request it reads. The HTTP handling is the minimum
//! the client needs: a request line, headers, a `Content-Length` body, and responses
//! with `Content-Length` and `Connection: close`. Dropping the server stops it: the
//! accept loop polls a stop flag, and every connection thread is joined.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::gbnf;

/// How the server answers one request.
#[derive(Clone, Debug)]
pub(crate) enum Behaviour {
    /// 200 with one choice, as the llama.cpp server does whatever `n` says.
    Reply(String),
    /// 200 with one choice per text.
    Replies(Vec<String>),
    /// This status with this body.
    Status(u16, String),
    /// This status with `Retry-After: <seconds>`.
    StatusRetryAfter(u16, u64),
    /// Waits, then behaves as the inner behaviour.
    Delay(Duration, Box<Behaviour>),
    /// Counts itself in, waits (up to 5 s) until the count reaches the number, then
    /// behaves as the inner behaviour; 500 "alone" when the wait runs out. Requests
    /// sent one after another never meet, so only concurrent ones get the answer.
    Together(Arc<AtomicUsize>, usize, Box<Behaviour>),
    /// 200 with this body, e.g. JSON that does not parse.
    RawBody(String),
    /// 200 with `"choices": []`.
    EmptyChoices,
    /// Reads the request and closes the connection without a byte of response.
    CloseWithoutResponse,
    /// Decodes under the request's GBNF `grammar`, as llama.cpp's server does: a
    /// string the grammar admits, its choices drawn from this seed; "hello" when the
    /// request has no grammar.
    FromGrammar(u64),
    /// This text when the request asks for a JSON Schema `response_format`, "hello"
    /// otherwise: a server with structured outputs that ignores `grammar`.
    WhenSchema(String),
    /// 200 with one choice that stopped at the token budget (`finish_reason:
    /// "length"`), as a reply that ran on does.
    Cut(String),
}

/// What the server read from one request.
#[derive(Clone, Debug)]
pub(crate) struct Recorded {
    pub method: String,
    pub path: String,
    /// The `Authorization` header, if sent.
    pub authorization: Option<String>,
    /// The body parsed as JSON; `Value::Null` when it is not JSON.
    pub body: Value,
}

pub(crate) struct ChatServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    shared: Arc<Shared>,
    accept_thread: Option<JoinHandle<()>>,
}

struct Shared {
    script: Mutex<VecDeque<Behaviour>>,
    /// The answer once the script is used up.
    repeat: Behaviour,
    requests: Mutex<Vec<Recorded>>,
}

/// The longest request head the server reads.
const MAX_HEAD: usize = 64 * 1024;

impl ChatServer {
    /// Answers requests with `script` in order, then with HTTP 500 "script exhausted".
    pub(crate) fn start(script: Vec<Behaviour>) -> Self {
        let exhausted = Behaviour::Status(500, "chat_server: script exhausted".into());
        Self::spawn(script.into(), exhausted)
    }

    /// Answers every request with `behaviour`.
    pub(crate) fn start_repeating(behaviour: Behaviour) -> Self {
        Self::spawn(VecDeque::new(), behaviour)
    }

    /// The API base to give the client: `http://127.0.0.1:PORT/v1`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request read so far, in order.
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.requests).clone()
    }

    fn spawn(script: VecDeque<Behaviour>, repeat: Behaviour) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let addr = listener.local_addr().expect("local address");
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            script: Mutex::new(script),
            repeat,
            requests: Mutex::new(Vec::new()),
        });
        let accept_thread = {
            let (stop, shared) = (Arc::clone(&stop), Arc::clone(&shared));
            thread::spawn(move || accept_loop(&listener, &stop, &shared))
        };
        ChatServer {
            addr,
            stop,
            shared,
            accept_thread: Some(accept_thread),
        }
    }
}

impl Drop for ChatServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.accept_thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking connection thread must not hide the requests from the test.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn accept_loop(listener: &TcpListener, stop: &Arc<AtomicBool>, shared: &Arc<Shared>) {
    let mut connections = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let (stop, shared) = (Arc::clone(stop), Arc::clone(shared));
                connections.push(thread::spawn(move || {
                    let _ = serve(stream, &stop, &shared);
                }));
            }
            Err(_) => thread::sleep(Duration::from_millis(2)),
        }
    }
    for connection in connections {
        let _ = connection.join();
    }
}

fn serve(mut stream: TcpStream, stop: &AtomicBool, shared: &Shared) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let Some(request) = read_request(&mut stream)? else {
        return Ok(());
    };
    let model = request.body.get("model").cloned().unwrap_or(Value::Null);
    let body = request.body.clone();
    lock(&shared.requests).push(request);
    let behaviour = lock(&shared.script)
        .pop_front()
        .unwrap_or_else(|| shared.repeat.clone());
    // llama.cpp's server parses the grammar before it decodes, and answers 400 when
    // its parser refuses it (as `load-in_buffer1 ::= ...` was).
    let refused = body
        .get("grammar")
        .and_then(Value::as_str)
        .and_then(|grammar| gbnf::check(grammar).err());
    let behaviour = match (refused, behaviour) {
        (Some(problem), _) => Behaviour::Status(400, format!("error parsing grammar: {problem}")),
        (None, behaviour) => behaviour,
    };
    let behaviour = match behaviour {
        Behaviour::FromGrammar(seed) => match body.get("grammar").and_then(Value::as_str) {
            Some(grammar) => match gbnf::sample(grammar, seed) {
                Ok(text) => Behaviour::Reply(text),
                Err(problem) => Behaviour::Status(400, format!("bad grammar: {problem}")),
            },
            None => Behaviour::Reply("hello".into()),
        },
        Behaviour::WhenSchema(text) => match body.get("response_format") {
            Some(_) => Behaviour::Reply(text),
            None => Behaviour::Reply("hello".into()),
        },
        other => other,
    };
    respond(&mut stream, behaviour, &model, stop)
}

/// Reads one request; `None` if the client closed before a complete head.
fn read_request(stream: &mut TcpStream) -> io::Result<Option<Recorded>> {
    let mut data = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = data.windows(4).position(|window| window == b"\r\n\r\n") {
            break at + 4;
        }
        if data.len() > MAX_HEAD {
            return Ok(None);
        }
        let read = stream.read(&mut chunk)?;
        if read == 0 {
            return Ok(None);
        }
        data.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split_whitespace();
    let method = request_line.next().unwrap_or_default().to_string();
    let path = request_line.next().unwrap_or_default().to_string();
    let mut content_length = 0usize;
    let mut authorization = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = value.parse().unwrap_or(0);
        } else if name.eq_ignore_ascii_case("authorization") {
            authorization = Some(value.to_string());
        }
    }
    let mut body = data[head_end..].to_vec();
    while body.len() < content_length {
        let read = stream.read(&mut chunk)?;
        if read == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Ok(Some(Recorded {
        method,
        path,
        authorization,
        body,
    }))
}

fn respond(
    stream: &mut TcpStream,
    behaviour: Behaviour,
    model: &Value,
    stop: &AtomicBool,
) -> io::Result<()> {
    match behaviour {
        Behaviour::Reply(text) => write_json(stream, &completion(model, &[text])),
        Behaviour::Cut(text) => {
            let mut body = completion(model, &[text]);
            body["choices"][0]["finish_reason"] = "length".into();
            write_json(stream, &body)
        }
        Behaviour::Replies(texts) => write_json(stream, &completion(model, &texts)),
        Behaviour::Status(status, body) => write_response(stream, status, "text/plain", &[], &body),
        Behaviour::StatusRetryAfter(status, seconds) => write_response(
            stream,
            status,
            "text/plain",
            &[("Retry-After", seconds.to_string())],
            "slow down",
        ),
        Behaviour::Delay(delay, then) => {
            // Sleep in short steps so that dropping the server ends the wait.
            let until = Instant::now() + delay;
            while Instant::now() < until && !stop.load(Ordering::SeqCst) {
                thread::sleep(Duration::from_millis(5));
            }
            respond(stream, *then, model, stop)
        }
        Behaviour::Together(arrived, count, then) => {
            arrived.fetch_add(1, Ordering::SeqCst);
            let until = Instant::now() + Duration::from_secs(5);
            while arrived.load(Ordering::SeqCst) < count {
                if Instant::now() > until || stop.load(Ordering::SeqCst) {
                    return write_response(stream, 500, "text/plain", &[], "alone");
                }
                thread::sleep(Duration::from_millis(2));
            }
            respond(stream, *then, model, stop)
        }
        Behaviour::RawBody(body) => write_response(stream, 200, "application/json", &[], &body),
        Behaviour::EmptyChoices => write_json(stream, &json!({ "model": model, "choices": [] })),
        Behaviour::CloseWithoutResponse => stream.shutdown(Shutdown::Both),
        // Resolved against the request in `serve`; nested in a delay, they answer plainly.
        Behaviour::FromGrammar(_) | Behaviour::WhenSchema(_) => {
            write_json(stream, &completion(model, &["hello".to_string()]))
        }
    }
}

/// A chat completion with one choice per text; usage is 12 prompt tokens and 5
/// completion tokens per choice.
fn completion(model: &Value, texts: &[String]) -> Value {
    let choices: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(index, text)| {
            json!({
                "index": index,
                "message": { "role": "assistant", "content": text },
                "finish_reason": "stop",
            })
        })
        .collect();
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": choices,
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 5 * texts.len(),
            "total_tokens": 12 + 5 * texts.len(),
        },
    })
}

fn write_json(stream: &mut TcpStream, body: &Value) -> io::Result<()> {
    write_response(stream, 200, "application/json", &[], &body.to_string())
}

fn write_response(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    extra_headers: &[(&str, String)],
    body: &str,
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in extra_headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    response.push_str(body);
    stream.write_all(response.as_bytes())?;
    stream.flush()?;
    stream.shutdown(Shutdown::Write)
}
