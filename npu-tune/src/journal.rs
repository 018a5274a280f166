//! The run journal: every evaluation is appended to `DIR/journal.jsonl` as it finishes,
//! so that an interrupted run continues with `--resume` without redoing finished work.
//!
//! The file holds one JSON object per line. The first line is the run's settings,
//! `{"header":{...}}` ([`JournalHeader`]); every later line is one evaluated candidate,
//! `{"candidate":{...}}` ([`CandidateRecord`]). `--resume` refuses a journal whose
//! header differs from the run's settings, since its records would answer a different
//! question.
//!
//! A crash can leave the last line cut short. Because each line is written with one
//! `write` that ends in its newline, a line without its newline is exactly that case:
//! [`Journal::open`] drops it, counts it ([`Journal::dropped_lines`]) and truncates the
//! file to the last whole line before appending. A line that ends in a newline but does
//! not parse was damaged some other way and is an error naming the file and line.
//!
//! Appends are written at once and synced to disk once per round ([`Journal::sync`],
//! which the loop calls after each round and at the end of a run) and when the journal
//! is dropped: a `sync_data` per record cost about 2.3 s of a 9 s run. A killed
//! process loses nothing written (the data is in the kernel's page cache); a power cut
//! loses at most the round in flight, and `--resume` repeats nothing that was synced.

//! A fresh start never destroys an old journal: it is renamed to
//! `journal.<unix-seconds>.jsonl.bak` first. While a [`Journal`] is open, it holds an
//! advisory lock on the file, so a second run in the same directory is refused rather
//! than interleaving its lines.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::record::CandidateRecord;

mod error;
mod key;
mod lines;
mod mismatch;

pub use error::JournalError;
pub use key::{CandidateKey, completed};
pub use lines::JournalHeader;
use lines::{Line, parse};
pub use mismatch::HeaderMismatch;

/// The journal's file name inside the output directory.
pub const FILE_NAME: &str = "journal.jsonl";

/// The stable hash a journal header records of a kernel's text or a target's figures:
/// FNV-1a, the same on every run and machine.
pub fn content_hash(bytes: &[u8]) -> String {
    npu_core::variants::fnv1a64(bytes.iter().copied())
}

/// An open journal, appending to `DIR/journal.jsonl`.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Bytes of whole lines in the file: where a failed append is cut back to.
    len: u64,
    dropped_lines: usize,
    backup: Option<PathBuf>,
    /// What [`open`](Journal::open) repaired or moved, one sentence each.
    notes: Vec<String>,
    /// Whether lines were written since the last sync.
    unsynced: bool,
}

/// One line of the journal, as written (borrowing, so appends do not clone).
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum LineRef<'a> {
    Header(&'a JournalHeader),
    Candidate(&'a CandidateRecord),
}

impl Journal {
    /// Opens `dir/journal.jsonl` for a run with settings `header`, creating `dir` if
    /// needed.
    ///
    /// With `resume`, the records already in the journal are returned and new ones are
    /// appended after them; the journal's header must match `header`. A missing or
    /// empty journal resumes as a fresh one. Without `resume`, an existing journal is
    /// renamed to `journal.<unix-seconds>.jsonl.bak` ([`backup`](Self::backup)) and a
    /// new one is started.
    pub fn open(
        dir: &Path,
        header: &JournalHeader,
        resume: bool,
    ) -> Result<(Journal, Vec<CandidateRecord>), JournalError> {
        let named = dir.join(FILE_NAME);
        let named_error = |source| JournalError::Io {
            path: named.clone(),
            source,
        };
        fs::create_dir_all(dir).map_err(named_error)?;
        // A journal that is a link is written through (the link stays a link); one that
        // is not a regular file, or is past the journal's size limit, is refused before
        // it is opened: npu-core's bounded reader (a FIFO would hang `--resume`).
        let path = npu_core::file::destination(&named).map_err(named_error)?;
        let io_error = |source| JournalError::Io {
            path: path.clone(),
            source,
        };
        if let Err(error) = npu_core::file::check(npu_core::file::Kind::Journal, &path)
            && !error.is_not_found()
        {
            return Err(io_error(error.into_io()));
        }
        if resume {
            // Appending needs no write permission for root: the mode is the user's word.
            crate::atomic::refuse_read_only(&path).map_err(io_error)?;
        }
        let existing = match OpenOptions::new().read(true).append(true).open(&path) {
            Ok(file) => Some(file),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => return Err(io_error(error)),
        };
        if let Some(file) = &existing {
            lock(file, &path)?;
        }

        let (file, backup) = match existing {
            Some(file) if resume => return Self::resume(path, file, header),
            // An empty journal holds nothing to keep; it is reused, lock and all.
            Some(file) if file.metadata().map_err(io_error)?.len() == 0 => (file, None),
            existing => {
                let mut backup = None;
                if existing.is_some() {
                    let beside = path.parent().unwrap_or(dir);
                    let backup_path = backup_path(beside).map_err(io_error)?;
                    fs::rename(&path, &backup_path).map_err(io_error)?;
                    backup = Some(backup_path);
                }
                // The old file's lock goes with it; the new file takes its own.
                drop(existing);
                let file = OpenOptions::new()
                    .read(true)
                    .append(true)
                    .create(true)
                    .open(&path)
                    .map_err(io_error)?;
                lock(&file, &path)?;
                (file, backup)
            }
        };
        let notes = backup
            .iter()
            .map(|backup| {
                format!(
                    "journal {}: kept the previous journal as {} and started afresh",
                    path.display(),
                    backup.display()
                )
            })
            .collect();
        let mut journal = Journal {
            path: path.clone(),
            file,
            len: 0,
            dropped_lines: 0,
            backup,
            notes,
            unsynced: false,
        };
        journal.start(header).map_err(io_error)?;
        sync_directory(path.parent().unwrap_or(dir));
        Ok((journal, Vec::new()))
    }

    /// Appends one record as one line; [`sync`](Self::sync) makes it durable.
    pub fn append(&mut self, record: &CandidateRecord) -> io::Result<()> {
        self.write_line(&LineRef::Candidate(record))?;
        self.unsynced = true;
        Ok(())
    }

    /// Syncs the lines appended since the last sync to disk.
    pub fn sync(&mut self) -> io::Result<()> {
        if self.unsynced {
            self.file.sync_data()?;
            self.unsynced = false;
        }
        Ok(())
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines cut short by a crash that [`open`](Self::open) dropped (0 or 1); worth a
    /// warning, since that evaluation is done again.
    pub fn dropped_lines(&self) -> usize {
        self.dropped_lines
    }

    /// Where [`open`](Self::open) moved the previous journal, on a fresh start.
    pub fn backup(&self) -> Option<&Path> {
        self.backup.as_deref()
    }

    /// What [`open`](Self::open) changed on disk besides appending: a cut line dropped,
    /// blank space cut off, a missing newline added, the old journal moved aside. Each
    /// note names the journal and says what happened, for the caller to show as a
    /// warning: nothing is repaired silently.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    fn resume(
        path: PathBuf,
        mut file: File,
        header: &JournalHeader,
    ) -> Result<(Journal, Vec<CandidateRecord>), JournalError> {
        let io_error = |source| JournalError::Io {
            path: path.clone(),
            source,
        };
        let bytes = npu_core::file::read_opened(npu_core::file::Kind::Journal, &path, &mut file)
            .map_err(|error| io_error(error.into_io()))?;
        let parsed = parse(&bytes).map_err(|bad| JournalError::Corrupt {
            path: path.clone(),
            line: bad.line,
            column: bad.column,
            message: bad.message,
        })?;
        if parsed.header.is_none() && parsed.dropped_lines > 0 && !is_cut_header(&bytes) {
            return Err(JournalError::Corrupt {
                path: path.clone(),
                line: 1,
                column: 0,
                message: "the first line is not a run header; this is not a journal".into(),
            });
        }
        if let Some(journal_header) = &parsed.header {
            journal_header
                .matches(header)
                .map_err(|mismatch| JournalError::HeaderMismatch {
                    path: path.clone(),
                    mismatch,
                })?;
        }

        // Cut a crashed tail off, so that new lines do not continue it.
        if parsed.good_len < bytes.len() as u64 {
            file.set_len(parsed.good_len).map_err(io_error)?;
        }
        let notes = repair_notes(&path, &parsed, bytes.len() as u64);
        let mut journal = Journal {
            path: path.clone(),
            file,
            len: parsed.good_len,
            dropped_lines: parsed.dropped_lines,
            backup: None,
            notes,
            unsynced: false,
        };
        if parsed.header.is_none() {
            // Nothing but a cut header line, or an empty file: start it afresh.
            journal.start(header).map_err(io_error)?;
        } else if parsed.needs_newline {
            journal.file.write_all(b"\n").map_err(io_error)?;
            journal.file.sync_data().map_err(io_error)?;
            journal.len += 1;
        } else if parsed.good_len < bytes.len() as u64 {
            journal.file.sync_data().map_err(io_error)?;
        }
        Ok((journal, parsed.records))
    }

    /// Writes the header into an empty journal.
    fn start(&mut self, header: &JournalHeader) -> io::Result<()> {
        self.file.set_len(0)?;
        self.len = 0;
        self.write_line(&LineRef::Header(header))
    }

    fn write_line(&mut self, line: &LineRef<'_>) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(line).map_err(io::Error::other)?;
        // serde_json writes a NaN or infinite float as `null`, which does not read back:
        // such a line would make the journal unresumable, so it is refused here.
        if let Err(error) = serde_json::from_slice::<Line>(&bytes) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "this journal line would not read back ({error}): {}",
                    line.describe()
                ),
            ));
        }
        bytes.push(b'\n');
        // A header is synced at once; records wait for the round's sync.
        let is_header = matches!(line, LineRef::Header(_));
        let written = self.file.write_all(&bytes).and_then(|()| {
            if is_header {
                self.file.sync_data()
            } else {
                Ok(())
            }
        });
        match written {
            Ok(()) => {
                self.len += bytes.len() as u64;
                Ok(())
            }
            Err(error) => {
                // Cut back a partial line (a full disk, say), so that the next append
                // does not continue it and turn it into a corrupt middle line.
                let _ = self.file.set_len(self.len);
                Err(error)
            }
        }
    }
}

impl LineRef<'_> {
    fn describe(&self) -> String {
        match self {
            LineRef::Header(_) => "the run header".to_string(),
            LineRef::Candidate(record) => format!(
                "candidate {} of round {} of {} for {}",
                record.index, record.round, record.generator, record.kernel
            ),
        }
    }
}

/// What resuming from `parsed`, read from `len` bytes, changes in the file.
fn repair_notes(path: &Path, parsed: &lines::Parsed, len: u64) -> Vec<String> {
    let dropped = len - parsed.good_len;
    let what = if parsed.dropped_lines > 0 && parsed.header.is_none() {
        format!(
            "dropped a cut header line ({dropped} bytes) left by an interrupted run and started afresh"
        )
    } else if parsed.dropped_lines > 0 {
        format!(
            "dropped a cut last line ({dropped} bytes) left by an interrupted run; its evaluation is done again"
        )
    } else if dropped > 0 {
        format!("dropped {dropped} bytes of blank space after the last line")
    } else if parsed.needs_newline {
        "added the newline the last line was missing".to_string()
    } else {
        return Vec::new();
    };
    vec![format!("journal {}: {what}", path.display())]
}

/// Whether `bytes`, one unterminated line, can be the start of a run header cut by a
/// crash. Only that is repaired: a file whose one line is anything else (a source, a
/// binary) is not a journal to cut back.
fn is_cut_header(bytes: &[u8]) -> bool {
    let start = bytes.trim_ascii_start();
    let header_start = br#"{"header":"#;
    start.starts_with(header_start) || header_start.starts_with(start)
}

/// How long a journal's lock is tried before another run is said to hold it: a
/// process another thread of this one is starting holds a copy of every open file
/// (and so of the lock of a journal just closed) until it execs, a moment long.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// Takes the advisory lock on an open journal, trying for [`LOCK_PATIENCE`]. File
/// systems without locks are let through: the lock only guards against a mistake,
/// it is not needed for correctness.
fn lock(file: &File, path: &Path) -> Result<(), JournalError> {
    let start = std::time::Instant::now();
    let mut result = file.try_lock();
    while matches!(result, Err(fs::TryLockError::WouldBlock)) && start.elapsed() < LOCK_PATIENCE {
        std::thread::sleep(std::time::Duration::from_millis(10));
        result = file.try_lock();
    }
    match result {
        Ok(()) => Ok(()),
        Err(fs::TryLockError::WouldBlock) => Err(JournalError::Locked {
            path: path.to_path_buf(),
        }),
        Err(fs::TryLockError::Error(error)) if error.kind() == io::ErrorKind::Unsupported => Ok(()),
        Err(fs::TryLockError::Error(source)) => Err(JournalError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A name for the previous journal that no file has yet.
fn backup_path(dir: &Path) -> io::Result<PathBuf> {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let mut candidate = dir.join(format!("journal.{seconds}.jsonl.bak"));
    let mut counter = 1;
    while candidate.try_exists()? {
        counter += 1;
        candidate = dir.join(format!("journal.{seconds}-{counter}.jsonl.bak"));
    }
    Ok(candidate)
}

impl Drop for Journal {
    /// Syncs what is left: the end of a run, or an early return on an error.
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

/// Makes a new directory entry durable, where the platform allows opening a directory.
fn sync_directory(dir: &Path) {
    if let Ok(directory) = File::open(dir) {
        let _ = directory.sync_all();
    }
}
