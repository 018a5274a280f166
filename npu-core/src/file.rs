//! The files npu opens on a user's behalf: one bounded reader, and the rule for writes.
//!
//! Every file the macro, the build helper, `autotune` and the examples read for a user
//! (kernel sources, target files, variants files, knowledge files, idioms files,
//! journals, recordings) is read by [`read`] (or [`read_bytes`]), with its [`Kind`]:
//!
//! - only a regular file is read, or a symbolic link to one (links are followed). A
//!   FIFO, a device, a socket or a directory is refused *before it is opened*: opening
//!   a FIFO waits for a writer, and `/dev/zero` never ends. The type is checked again
//!   on what was opened, in case the path changed in between;
//! - at most the kind's size limit is read ([`Kind::default_limit`]: 1 MiB for a
//!   target or variants file, 16 MiB for a kernel source or an idioms file, 64 MiB for
//!   a knowledge file, 256 MiB for a recording, 1 GiB for a journal). The environment
//!   variable [`LIMIT_VAR`] (`NPU_MAX_FILE_BYTES=BYTES`) raises every limit to at least
//!   BYTES; it never lowers one. The macro reads it when the crate compiles, so
//!   changing it takes a rebuild of that crate;
//! - an error names the file and its kind ([`ReadError`]'s `Display`: "cannot read
//!   target file fifo.toml: not a regular file (a FIFO)"), or gives the reason alone
//!   ([`ReadError::reason`]) to a caller that names the file itself.
//!
//! A write goes to [`destination`]`(path)`: the path itself when it is missing or a
//! regular file, the file a symbolic link points to (so that replacing the file keeps
//! the link), and an error for anything else (a FIFO, a device, a directory, a link to
//! one, a link to nothing). No tool replaces a link with a regular file.
//!
//! This module and [`crate::target::read_file`] (this reader, for target files) are
//! npu-core's only I/O.

use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

/// The environment variable that raises every size limit: `NPU_MAX_FILE_BYTES=BYTES`.
pub const LIMIT_VAR: &str = "NPU_MAX_FILE_BYTES";

/// What a file is to npu: its name in errors and its size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A Rust or `.npu` file with kernels, read by `autotune` and the build helper.
    Kernel,
    /// A target file: `target "chip.toml";` or `autotune --target chip.toml`.
    Target,
    /// A variants file: `variants N from "FILE";`, read by the macro and the build helper.
    Variants,
    /// A `*.toml` file of a knowledge directory (`autotune --knowledge DIR`).
    Knowledge,
    /// A `*.toml` file of an idioms directory (`autotune draft --idioms DIR`).
    Idioms,
    /// A tuning run's journal, read by `autotune --resume`.
    Journal,
    /// A recorded LLM transcript (`autotune --replay FILE`).
    Recording,
    /// Examples a drafted kernel body must reproduce (`autotune draft --examples FILE`).
    Examples,
}

impl Kind {
    /// Every kind, for documentation and tests.
    pub const ALL: [Kind; 8] = [
        Kind::Kernel,
        Kind::Target,
        Kind::Variants,
        Kind::Knowledge,
        Kind::Idioms,
        Kind::Journal,
        Kind::Recording,
        Kind::Examples,
    ];

    /// The kind's name in errors: "target file".
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Kernel => "kernel source",
            Kind::Target => "target file",
            Kind::Variants => "variants file",
            Kind::Knowledge => "knowledge file",
            Kind::Idioms => "idioms file",
            Kind::Journal => "journal",
            Kind::Recording => "recording",
            Kind::Examples => "examples file",
        }
    }

    /// The largest file of this kind read without [`LIMIT_VAR`]. Each is far above what
    /// npu writes or ships: the target presets are about 2 KiB, a variants file of 64
    /// variants about 15 KiB, the built-in knowledge 13 KiB (a knowledge file of 32,000
    /// entries 13 MiB), the built-in idioms 4 KiB, a journal about 1.5 KiB per candidate.
    pub const fn default_limit(self) -> u64 {
        const MIB: u64 = 1 << 20;
        match self {
            Kind::Target | Kind::Variants => MIB,
            Kind::Kernel | Kind::Idioms => 16 * MIB,
            Kind::Knowledge => 64 * MIB,
            Kind::Recording | Kind::Examples => 256 * MIB,
            Kind::Journal => 1024 * MIB,
        }
    }

    /// The limit in force: the default, raised by [`LIMIT_VAR`] when that is set to a
    /// larger number of bytes.
    pub fn limit(self) -> u64 {
        self.limit_with(std::env::var(LIMIT_VAR).ok().as_deref())
    }

    /// The limit when [`LIMIT_VAR`] has `value` (`None`: unset). A value that is not a
    /// number of bytes is ignored.
    pub fn limit_with(self, value: Option<&str>) -> u64 {
        let raised = value.and_then(|v| v.trim().replace('_', "").parse::<u64>().ok());
        self.default_limit().max(raised.unwrap_or(0))
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A file that could not be read: which, of what kind, and why.
#[derive(Debug)]
pub struct ReadError {
    /// The path as the caller gave it, not resolved through links.
    pub path: PathBuf,
    /// What npu read the file as, which set its size limit and names it in messages.
    pub kind: Kind,
    /// What went wrong.
    pub reason: Reason,
}

/// Why a file could not be read.
#[derive(Debug)]
pub enum Reason {
    /// The system's error: a missing file, a permission denied.
    Io(io::Error),
    /// Not a regular file: "a FIFO", "a directory" (see [`describe`]).
    NotRegular(&'static str),
    /// Larger than `limit`; `size` when the file said it before it was read.
    TooLarge {
        /// The length the file's metadata gave; `None` when it outgrew the limit while
        /// being read.
        size: Option<u64>,
        /// The limit in force, in bytes ([`Kind::limit`]).
        limit: u64,
    },
    /// Not UTF-8 text: `byte` is the offset of the first byte that is not valid.
    NotUtf8 {
        /// Offset of the first invalid byte: the length of the valid UTF-8 prefix.
        byte: usize,
    },
}

impl ReadError {
    /// Whether the file does not exist (a missing variants file is not an error).
    pub fn is_not_found(&self) -> bool {
        matches!(&self.reason, Reason::Io(error) if error.kind() == io::ErrorKind::NotFound)
    }

    /// Why, as a phrase to follow the file's name: "not a regular file (a FIFO)".
    pub fn reason(&self) -> String {
        match &self.reason {
            Reason::Io(error) => error.to_string(),
            Reason::NotRegular(what) => format!("not a regular file ({what})"),
            Reason::TooLarge { size, limit } => {
                let size = size.map_or(String::new(), |size| format!(" ({size} bytes)"));
                format!(
                    "larger than the {} limit of a {}{size}; {LIMIT_VAR}=BYTES raises it",
                    bytes(*limit),
                    self.kind
                )
            }
            Reason::NotUtf8 { byte } => format!("not UTF-8 text (byte {byte} is not valid)"),
        }
    }

    /// The error as an `io::Error` whose message is [`reason`](Self::reason), for a
    /// caller whose own error names the file.
    pub fn into_io(self) -> io::Error {
        let message = self.reason();
        match self.reason {
            Reason::Io(error) => error,
            Reason::NotRegular(_) => io::Error::new(io::ErrorKind::InvalidInput, message),
            Reason::TooLarge { .. } => io::Error::new(io::ErrorKind::FileTooLarge, message),
            Reason::NotUtf8 { .. } => io::Error::new(io::ErrorKind::InvalidData, message),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read {} {}: {}",
            self.kind,
            self.path.display(),
            self.reason()
        )
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.reason {
            Reason::Io(error) => Some(error),
            _ => None,
        }
    }
}

/// Reads a file of `kind` as UTF-8 text (see the module docs).
pub fn read(kind: Kind, path: &Path) -> Result<String, ReadError> {
    let bytes = read_bytes(kind, path)?;
    String::from_utf8(bytes).map_err(|error| ReadError {
        path: path.to_path_buf(),
        kind,
        reason: Reason::NotUtf8 {
            byte: error.utf8_error().valid_up_to(),
        },
    })
}

/// Reads a file of `kind` as bytes (see the module docs).
pub fn read_bytes(kind: Kind, path: &Path) -> Result<Vec<u8>, ReadError> {
    check(kind, path)?;
    let mut file = File::open(path).map_err(|error| fail(kind, path, Reason::Io(error)))?;
    read_opened(kind, path, &mut file)
}

/// Checks, without opening it, that `path` is a regular file (or a link to one) within
/// the limit of `kind`; returns its metadata. For a caller that opens the file itself
/// (to lock it, say) and then reads it with [`read_opened`].
pub fn check(kind: Kind, path: &Path) -> Result<Metadata, ReadError> {
    let metadata = std::fs::metadata(path).map_err(|error| fail(kind, path, Reason::Io(error)))?;
    regular_and_small(kind, &metadata).map_err(|reason| fail(kind, path, reason))?;
    Ok(metadata)
}

/// Reads the rest of `file`, opened from `path` after [`check`], within the limit of
/// `kind`: the type and size are checked again on the open file first.
pub fn read_opened(kind: Kind, path: &Path, file: &mut File) -> Result<Vec<u8>, ReadError> {
    let metadata = file
        .metadata()
        .map_err(|error| fail(kind, path, Reason::Io(error)))?;
    regular_and_small(kind, &metadata).map_err(|reason| fail(kind, path, reason))?;
    let limit = kind.limit();
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| fail(kind, path, Reason::Io(error)))?;
    if bytes.len() as u64 > limit {
        return Err(fail(kind, path, Reason::TooLarge { size: None, limit }));
    }
    Ok(bytes)
}

/// Where a write of `path` goes (see the module docs): `path` when it does not exist
/// or is a regular file, the file a symbolic link points to when that is a regular
/// file, else an error (kind `InvalidInput`) saying what `path` is.
pub fn destination(path: &Path) -> io::Result<PathBuf> {
    let refuse = |what: String| {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{what}; npu writes only regular files, and never replaces a link"),
        ))
    };
    let link = match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(error) => return Err(error),
        Ok(metadata) if metadata.is_file() => return Ok(path.to_path_buf()),
        Ok(metadata) if !metadata.file_type().is_symlink() => {
            return refuse(format!(
                "not a regular file ({})",
                describe(&metadata.file_type())
            ));
        }
        Ok(_) => std::fs::read_link(path)?,
    };
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => std::fs::canonicalize(path),
        Ok(metadata) => refuse(format!(
            "a symbolic link to {} ({})",
            link.display(),
            describe(&metadata.file_type())
        )),
        Err(error) if error.kind() == io::ErrorKind::NotFound => refuse(format!(
            "a symbolic link to {}, which does not exist",
            link.display()
        )),
        Err(error) => Err(error),
    }
}

fn fail(kind: Kind, path: &Path, reason: Reason) -> ReadError {
    ReadError {
        path: path.to_path_buf(),
        kind,
        reason,
    }
}

fn regular_and_small(kind: Kind, metadata: &Metadata) -> Result<(), Reason> {
    if !metadata.is_file() {
        return Err(Reason::NotRegular(describe(&metadata.file_type())));
    }
    let limit = kind.limit();
    if metadata.len() > limit {
        return Err(Reason::TooLarge {
            size: Some(metadata.len()),
            limit,
        });
    }
    Ok(())
}

/// "1 MiB", "16 MiB", "1 GiB", or "1234 bytes".
fn bytes(count: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if count >= size && count.is_multiple_of(size) {
            return format!("{} {unit}", count / size);
        }
    }
    format!("{count}-byte")
}

/// "a directory", "a FIFO": what a path that is not a regular file names.
pub fn describe(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "neither a file nor a directory"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_raised_never_lowered() {
        assert_eq!(Kind::Target.limit_with(None), 1 << 20);
        assert_eq!(Kind::Target.limit_with(Some("5000000")), 5_000_000);
        assert_eq!(Kind::Target.limit_with(Some("5_000_000")), 5_000_000);
        assert_eq!(Kind::Target.limit_with(Some("10")), 1 << 20);
        assert_eq!(Kind::Journal.limit_with(Some("5000000")), 1 << 30);
        assert_eq!(Kind::Target.limit_with(Some("lots")), 1 << 20);
    }

    #[test]
    fn sizes_read_as_units() {
        assert_eq!(bytes(1 << 20), "1 MiB");
        assert_eq!(bytes(64 << 20), "64 MiB");
        assert_eq!(bytes(1 << 30), "1 GiB");
        assert_eq!(bytes(5_000_000), "5000000-byte");
    }
}
