//! Why a journal could not be opened or resumed, as the command line reports it.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::mismatch::HeaderMismatch;

/// Why a journal could not be opened or resumed.
#[derive(Debug)]
pub enum JournalError {
    /// Creating, reading, renaming or writing the file failed.
    Io {
        /// The journal file (where it is a link, the file it leads to).
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// Another process holds the journal open.
    Locked {
        /// The journal file.
        path: PathBuf,
    },
    /// A whole line (one that ends in a newline) that is not a journal line.
    Corrupt {
        /// The journal file.
        path: PathBuf,
        /// 1-based.
        line: usize,
        /// 1-based, in bytes; 0 when the problem is the line as a whole.
        column: usize,
        /// What is wrong with the line.
        message: String,
    },
    /// The journal was written by a run with other settings.
    HeaderMismatch {
        /// The journal file.
        path: PathBuf,
        /// The first setting that differs.
        mismatch: HeaderMismatch,
    },
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Io { path, source } => write!(f, "journal {}: {source}", path.display()),
            JournalError::Locked { path } => write!(
                f,
                "journal {} is in use by another run; wait for it to finish or use another \
                 output directory",
                path.display()
            ),
            JournalError::Corrupt {
                path,
                line,
                column,
                message,
            } => write!(
                f,
                "journal {}:{line}:{column} is not a journal line: {message}; move the file \
                 away to start afresh",
                path.display()
            ),
            JournalError::HeaderMismatch { path, mismatch } => {
                // A hash or the model version is no setting a rerun can choose.
                let choosable = !mismatch.setting.contains("hash")
                    && mismatch.setting != "simulator model version";
                let settings = match choosable {
                    true => "rerun with the journal's settings, or ",
                    false => "its records are not this run's numbers; rerun ",
                };
                write!(
                    f,
                    "cannot resume {}: {mismatch}; {settings}without --resume to start afresh \
                     (the old journal is kept as a backup), or with another --report-dir",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JournalError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
