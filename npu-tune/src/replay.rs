//! Recorded LLM exchanges, saved as JSON and replayed without a network.
//!
//! A [`Transcript`] holds, for each kernel and round of a tuning run, the replies the
//! model gave and a hash of the prompt that produced them. A [`Replayer`] serves those
//! replies back, so that tests and demos of the LLM generator are deterministic and
//! offline. The prompt hash is FNV-1a 64 ([`prompt_sha`]): stable across platforms and
//! Rust versions, and enough to notice that a prompt changed since the recording. It is
//! not a cryptographic hash and does not need to be.
//!
//! Saving is atomic: the JSON goes to a temporary file in the same directory, is
//! flushed to disk, and is renamed over the target, so an interrupted run leaves the
//! old transcript or the new one, never half of one.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The exchanges of one tuning run with one model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transcript {
    /// The model's name, as the LLM configuration gave it.
    pub model: String,
    /// Every exchange, in recorded order.
    pub exchanges: Vec<Exchange>,
}

/// One prompt and the replies it got.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// The key the exchange is filed under: the kernel's name (`VARIANT/NAME` in a
    /// drafting evaluation).
    pub kernel: String,
    /// The 0-based round that sent the prompt.
    pub round: u32,
    /// [`prompt_sha`] of the prompt text: 16 lower-case hex digits.
    pub prompt_sha: String,
    /// The replies (choices) the model gave, in order.
    pub replies: Vec<String>,
    /// The prompt itself, so a recording can be read and rerun.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The grammars (GBNF) or JSON Schemas the server was asked to decode under, one
    /// per distinct constraint of the round, in the order sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
    /// Replies the source asked again for because they repeated a body already
    /// tried, in the order received; `replies` holds what replaced them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resampled: Vec<String>,
    /// The position in `replies` of each of `resampled`'s replacements. A recording
    /// made before positions were kept has none, and replay infers them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resampled_at: Vec<usize>,
    /// The positions in `replies` of the replies that stopped at the token budget, so
    /// that replay gives the feedback the live run gave.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_at: Vec<usize>,
}

/// Why a transcript could not be loaded or saved.
#[derive(Debug)]
pub enum ReplayError {
    /// Reading, writing or renaming the file failed.
    Io {
        /// The transcript file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The file is not a transcript: bad JSON or a missing or mistyped field.
    Corrupt {
        /// The transcript file.
        path: PathBuf,
        /// 1-based line of the error in the file.
        line: usize,
        /// 1-based column of the error in the line.
        column: usize,
        /// serde_json's message, without its position.
        message: String,
    },
}

/// Serves a transcript's replies by kernel and round.
#[derive(Clone, Debug)]
pub struct Replayer {
    transcript: Transcript,
    /// For each kernel, the indices of its exchanges in recorded order.
    by_kernel: HashMap<String, Vec<usize>>,
}

/// The FNV-1a 64 hash of `text` as 16 lower-case hex digits, as recordings store it
/// (without the `fnv1a64:` that the hashes in npu's other files carry).
pub fn prompt_sha(text: &str) -> String {
    format!("{:016x}", npu_core::variants::fnv1a64_hash(text.bytes()))
}

impl Transcript {
    /// An empty transcript of `model`.
    pub fn new(model: impl Into<String>) -> Self {
        Transcript {
            model: model.into(),
            exchanges: Vec::new(),
        }
    }

    /// Appends an exchange, hashing `prompt`.
    pub fn record(
        &mut self,
        kernel: impl Into<String>,
        round: u32,
        prompt: &str,
        replies: Vec<String>,
    ) {
        self.exchanges.push(Exchange {
            kernel: kernel.into(),
            round,
            prompt_sha: prompt_sha(prompt),
            replies,
            prompt: None,
            constraints: Vec::new(),
            resampled: Vec::new(),
            resampled_at: Vec::new(),
            cut_at: Vec::new(),
        });
    }

    /// Appends an exchange with its whole prompt and the constraints it was sent with.
    pub fn record_full(
        &mut self,
        kernel: impl Into<String>,
        round: u32,
        prompt: &str,
        constraints: Vec<String>,
        replies: Vec<String>,
    ) {
        self.record(kernel, round, prompt, replies);
        if let Some(exchange) = self.exchanges.last_mut() {
            exchange.prompt = Some(prompt.to_string());
            exchange.constraints = constraints;
        }
    }

    /// Reads a transcript written by [`save`](Self::save).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReplayError> {
        let path = path.as_ref();
        let text =
            npu_core::file::read(npu_core::file::Kind::Recording, path).map_err(|error| {
                ReplayError::Io {
                    path: path.to_path_buf(),
                    source: error.into_io(),
                }
            })?;
        Self::from_json(&text).map_err(|error| ReplayError::corrupt(path, &error))
    }

    /// Writes the transcript as pretty JSON, atomically (see the module docs).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), ReplayError> {
        let path = path.as_ref();
        let io_error = |source| ReplayError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut json =
            serde_json::to_string_pretty(self).map_err(|error| io_error(error.into()))?;
        json.push('\n');
        super::atomic::write_atomic(path, json.as_bytes()).map_err(io_error)
    }

    /// Parses a transcript from JSON text.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl ReplayError {
    fn corrupt(path: &Path, error: &serde_json::Error) -> Self {
        let (line, column) = (error.line(), error.column());
        let full = error.to_string();
        // serde_json ends its message with the position, which is kept in fields.
        let message = full
            .strip_suffix(&format!(" at line {line} column {column}"))
            .unwrap_or(&full)
            .to_string();
        ReplayError::Corrupt {
            path: path.to_path_buf(),
            line,
            column,
            message,
        }
    }
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Io { path, source } => {
                write!(f, "transcript {}: {source}", path.display())
            }
            ReplayError::Corrupt {
                path,
                line,
                column,
                message,
            } => write!(
                f,
                "transcript {}:{line}:{column} is not a valid transcript: {message}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplayError::Io { source, .. } => Some(source),
            ReplayError::Corrupt { .. } => None,
        }
    }
}

impl Replayer {
    /// A replayer of `transcript`, indexing its exchanges by kernel.
    pub fn new(transcript: Transcript) -> Self {
        let mut by_kernel: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, exchange) in transcript.exchanges.iter().enumerate() {
            by_kernel
                .entry(exchange.kernel.clone())
                .or_default()
                .push(index);
        }
        Replayer {
            transcript,
            by_kernel,
        }
    }

    /// The transcript it serves.
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// The replies recorded for `kernel` at `round`, as [`exchange`](Self::exchange)
    /// finds them.
    pub fn next(&self, kernel: &str, round: u32) -> Option<Vec<String>> {
        self.exchange(kernel, round).map(|e| e.replies.clone())
    }

    /// The exchange recorded for `kernel` at `round`; the same arguments always give
    /// the same answer.
    ///
    /// The first exchange recorded for that kernel and round is used. Past the last
    /// recorded round, the kernel's exchanges are cycled through in recorded order
    /// (one past the last round gives the first exchange). A round missing inside the
    /// recording gives exchange `round % count`. `None` only for a kernel that was
    /// never recorded.
    pub fn exchange(&self, kernel: &str, round: u32) -> Option<&Exchange> {
        let indices = self.by_kernel.get(kernel)?;
        let exchange = |index: usize| &self.transcript.exchanges[index];
        if let Some(&index) = indices
            .iter()
            .find(|&&index| exchange(index).round == round)
        {
            return Some(exchange(index));
        }
        let last_round = indices.iter().map(|&index| exchange(index).round).max()?;
        let position = if round > last_round {
            u64::from(round - last_round - 1) % indices.len() as u64
        } else {
            u64::from(round) % indices.len() as u64
        };
        let index = indices[usize::try_from(position).ok()?];
        Some(exchange(index))
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// A fresh, empty directory under the system temp directory.
    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("npu-replay-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn replies(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|text| text.to_string()).collect()
    }

    fn sample() -> Transcript {
        let mut transcript = Transcript::new("qwen2.5-coder-7b");
        transcript.record("add", 0, "prompt 0", replies(&["a0"]));
        transcript.record("mm", 0, "prompt mm", replies(&["m0", "m0'"]));
        transcript.record("add", 1, "prompt 1", replies(&["a1"]));
        transcript.record("add", 2, "prompt 2", replies(&["a2"]));
        transcript
    }

    #[test]
    fn fnv1a_reference_values() {
        assert_eq!(prompt_sha(""), "cbf29ce484222325");
        assert_eq!(prompt_sha("a"), "af63dc4c8601ec8c");
        assert_eq!(prompt_sha("foobar"), "85944171f73967e8");
    }

    #[test]
    fn replays_by_kernel_and_round() {
        let replayer = Replayer::new(sample());
        let next = |kernel: &str, round: u32| {
            replayer
                .next(kernel, round)
                .map(|replies| replies.join(","))
        };
        assert_eq!(next("add", 0).as_deref(), Some("a0"));
        assert_eq!(next("add", 2).as_deref(), Some("a2"));
        assert_eq!(next("add", 1).as_deref(), Some("a1"));
        assert_eq!(next("mm", 0).as_deref(), Some("m0,m0'"));
        // Past the recording: cycle in recorded order.
        assert_eq!(next("add", 3).as_deref(), Some("a0"));
        assert_eq!(next("add", 4).as_deref(), Some("a1"));
        assert_eq!(next("add", 5).as_deref(), Some("a2"));
        assert_eq!(next("add", 6).as_deref(), Some("a0"));
        assert_eq!(next("mm", 7).as_deref(), Some("m0,m0'"));
        assert_eq!(
            next("add", u32::MAX).as_deref(),
            next("add", u32::MAX).as_deref()
        );
        assert_eq!(next("softmax", 0), None);
        assert_eq!(Replayer::new(Transcript::new("m")).next("add", 0), None);
    }

    #[test]
    fn missing_rounds_inside_the_recording() {
        let mut transcript = Transcript::new("m");
        transcript.record("k", 0, "p", replies(&["r0"]));
        transcript.record("k", 5, "p", replies(&["r5"]));
        let replayer = Replayer::new(transcript);
        assert_eq!(replayer.next("k", 3), Some(replies(&["r5"])));
        assert_eq!(replayer.next("k", 6), Some(replies(&["r0"])));
    }

    #[test]
    fn save_then_load() {
        let dir = temp_dir("roundtrip");
        let path = dir.join("run.json");
        let transcript = sample();
        transcript.save(&path).unwrap();
        assert_eq!(Transcript::load(&path).unwrap(), transcript);

        // Saving again replaces the file and leaves no temporary file behind.
        let mut changed = transcript.clone();
        changed.record("add", 3, "prompt 3", replies(&["a3"]));
        changed.save(&path).unwrap();
        assert_eq!(Transcript::load(&path).unwrap(), changed);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("run.json")]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn corrupt_files_name_the_file_and_position() {
        let dir = temp_dir("corrupt");
        let path = dir.join("bad.json");
        fs::write(
            &path,
            "{\n  \"model\": \"m\",\n  \"exchanges\": [ { \"kernel\": 3 } ]\n}\n",
        )
        .unwrap();
        let error = Transcript::load(&path).unwrap_err();
        let ReplayError::Corrupt { line, column, .. } = &error else {
            panic!("expected a corrupt-file error, got {error:?}");
        };
        assert_eq!((*line, *column), (3, 30));
        let message = error.to_string();
        assert!(message.contains("bad.json:3:30"), "{message}");
        assert!(
            message.contains("invalid type: integer `3`, expected a string"),
            "{message}"
        );
        assert!(!message.contains(" at line "), "{message}");

        fs::write(&path, "{\"model\": \"m\", \"exchanges\": [").unwrap();
        let message = Transcript::load(&path).unwrap_err().to_string();
        assert!(message.contains("bad.json:1:29"), "{message}");
        assert!(message.contains("EOF"), "{message}");

        let missing = dir.join("missing.json");
        let error = Transcript::load(&missing).unwrap_err();
        assert!(matches!(error, ReplayError::Io { .. }));
        assert!(error.to_string().contains("missing.json"), "{error}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn save_into_a_missing_directory_fails_cleanly() {
        let dir = temp_dir("missing-dir");
        let path = dir.join("no").join("such").join("run.json");
        let error = sample().save(&path).unwrap_err();
        assert!(matches!(error, ReplayError::Io { .. }));
        assert!(error.to_string().contains("run.json"), "{error}");
        // A directory cannot be replaced by a file; the temporary file is removed.
        let error = sample().save(&dir).unwrap_err();
        assert!(matches!(error, ReplayError::Io { .. }));
        assert!(dir.is_dir());
        let parent = dir.parent().unwrap();
        let prefix = format!(".{}.", dir.file_name().unwrap().to_string_lossy());
        let leftovers = fs::read_dir(parent)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(&prefix))
            .count();
        assert_eq!(leftovers, 0);
        let _ = fs::remove_dir_all(&dir);
    }

    /// A recording that is a FIFO (`--replay FIFO` hung) or a link to `/dev/zero` is an
    /// error naming the file; the kernel source `autotune` is given, likewise.
    #[cfg(unix)]
    #[test]
    fn a_recording_or_kernel_source_that_is_a_fifo_is_an_error_not_a_hang() {
        let dir = temp_dir("fifo");
        let fifo = dir.join("run.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let (send, receive) = std::sync::mpsc::channel();
        let (recording, source) = (fifo.clone(), fifo.with_extension("rs"));
        std::os::unix::fs::symlink(&fifo, &source).unwrap();
        std::thread::spawn(move || {
            let recording = Transcript::load(&recording).map(|_| ()).unwrap_err();
            let source = crate::build::discover(&source).map(|_| ()).unwrap_err();
            let zero = Transcript::load("/dev/zero").map(|_| ()).unwrap_err();
            let _ = send.send([recording.to_string(), source, zero.to_string()]);
        });
        let [recording, source, zero] = receive
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("no answer in 20 s: the read hangs");
        assert!(
            recording.ends_with("run.json: not a regular file (a FIFO)"),
            "{recording}"
        );
        assert!(source.starts_with("cannot read kernel source "), "{source}");
        assert!(
            source.ends_with("run.rs: not a regular file (a FIFO)"),
            "{source}"
        );
        assert_eq!(
            zero,
            "transcript /dev/zero: not a regular file (a character device)"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
