//! The one rule about what a variants writer may overwrite, shared by the build helper
//! and `autotune --write-variants`, with one wording for each refusal.
//!
//! A writer writes only to a path that does not exist or to a variants file of the same
//! kernel, recognised by its header (`// npu variants: ...` first, then
//! `// kernel: NAME`). Anything else (another kernel's file, a Rust source, the kernel's
//! own source, a binary file, a directory, a read-only file, a link to nothing) is
//! refused, and nothing is touched. A file of the same kernel is replaced freely only
//! when its text is exactly what the generator wrote (its `text-hash` line matches);
//! a file edited by hand, one that is not UTF-8, or one from an npu that did not sign
//! its files is replaced only when `NPU_REGEN_VARIANTS` names the kernel, and then its
//! old bytes are kept as `FILE.orig`.

use std::fs;
use std::io;
use std::path::Path;

use npu_core::variants::{HASH_KEY, as_written, header_lines, header_value};

/// What is at a variants file's path, when it may belong to the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Nothing: a writer creates the file.
    Missing,
    /// The kernel's file, exactly as npu wrote it. `current` when its kernel hash is
    /// the kernel's as it is now.
    Generated {
        /// Whether its kernel hash is the kernel's as it is now.
        current: bool,
    },
    /// The kernel's file, but not as npu wrote it; `why` says how it differs.
    Edited {
        /// Whether its kernel hash is the kernel's as it is now.
        current: bool,
        /// How it differs from what npu wrote, one phrase.
        why: String,
    },
}

/// Whether `NPU_REGEN_VARIANTS` (`value`) asks to regenerate `kernel`'s file: `1` or
/// `all` ask for every kernel, `vmla,rowsum` for those named.
pub fn regeneration_requested(value: Option<&str>, kernel: &str) -> bool {
    let Some(value) = value.map(str::trim) else {
        return false;
    };
    value == "1" || value == "all" || value.split(',').any(|name| name.trim() == kernel)
}

/// The rule in one call: `Ok(keep_original)` when `path` may be written for `kernel`
/// (whose current kernel hash is `kernel_hash`), with `regenerate` saying whether
/// `NPU_REGEN_VARIANTS` names it; otherwise the error to show.
pub fn destination(
    path: &Path,
    kernel: &str,
    kernel_hash: &str,
    regenerate: bool,
) -> Result<bool, String> {
    let existing = inspect(path, kernel, kernel_hash)?;
    may_replace(&existing, path, kernel, regenerate)
}

/// Whether `existing` may be replaced: `Ok(keep_original)` (true for a file not as
/// written, replaced on request), or the error saying why not and how to ask.
pub fn may_replace(
    existing: &Existing,
    path: &Path,
    kernel: &str,
    regenerate: bool,
) -> Result<bool, String> {
    match existing {
        Existing::Missing | Existing::Generated { .. } => Ok(false),
        Existing::Edited { .. } if regenerate => Ok(true),
        Existing::Edited { why, .. } => Err(format!(
            "{} is the variants file of kernel `{kernel}`, but not as npu wrote it ({why}); \
             npu does not overwrite it unasked: NPU_REGEN_VARIANTS={kernel} regenerates it \
             and keeps the old text as {}.orig",
            path.display(),
            path.display()
        )),
    }
}

/// What is at `path`, for `kernel` with kernel hash `kernel_hash`; an error (the
/// refusal, naming the file and why) for anything the rule never overwrites.
pub fn inspect(path: &Path, kernel: &str, kernel_hash: &str) -> Result<Existing, String> {
    let refuse = |reason: &str| refusal(path, kernel, reason);
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return match fs::symlink_metadata(path) {
                Ok(_) => Err(refuse("it is a symbolic link to nothing")),
                Err(_) => Ok(Existing::Missing),
            };
        }
        Err(error) => return Err(refuse(&format!("it cannot be read: {error}"))),
    };
    if metadata.is_dir() {
        return Err(refuse("it is a directory"));
    }
    if !metadata.is_file() {
        let kind = npu_core::file::describe(&metadata.file_type());
        return Err(refuse(&format!("it is not a regular file ({kind})")));
    }
    crate::atomic::refuse_read_only(path).map_err(|error| error.to_string())?;
    let bytes = npu_core::file::read_bytes(npu_core::file::Kind::Variants, path)
        .map_err(|error| refuse(&format!("it cannot be read: {}", error.reason())))?;
    classify(&bytes, kernel, kernel_hash).map_err(|reason| refuse(&reason))
}

/// The refusal, in the rule's one wording.
fn refusal(path: &Path, kernel: &str, reason: &str) -> String {
    format!(
        "{} is not a variants file of kernel `{kernel}` ({reason}); npu writes only a \
         variants file of this kernel or a path that does not exist: move the file away or \
         choose another path",
        path.display()
    )
}

/// What a file's bytes are for `kernel`, or why they are not its variants file.
fn classify(bytes: &[u8], kernel: &str, kernel_hash: &str) -> Result<Existing, String> {
    let (text, bad_byte) = match std::str::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(error) => {
            let offset = error.valid_up_to();
            // The header is read from the valid part: a stray byte below it is an
            // edit of this kernel's file, one inside it makes the file unrecognisable.
            let valid = std::str::from_utf8(&bytes[..offset]).unwrap_or_default();
            (valid, Some((offset, bytes[offset])))
        }
    };
    let not_utf8 = |(offset, byte): (usize, u8)| {
        format!("it is not UTF-8: byte 0x{byte:02x} at offset {offset}")
    };
    let lines = header_lines(text);
    let is_variants = lines.first().is_some_and(|line| line.key == "npu variants");
    match (is_variants, header_value(&lines, "kernel")) {
        (true, Some(name)) if name.value == kernel => {}
        (true, Some(name)) => return Err(format!("its header names kernel `{}`", name.value)),
        _ => match bad_byte {
            Some(bad) => return Err(not_utf8(bad)),
            None => return Err("it has no `// npu variants` header naming a kernel".into()),
        },
    }
    let current = header_value(&lines, HASH_KEY).is_some_and(|line| line.value == kernel_hash);
    let why = match (bad_byte, as_written(text)) {
        (Some(bad), _) => not_utf8(bad),
        (None, Some(true)) => return Ok(Existing::Generated { current }),
        (None, Some(false)) => "its text does not match its `text-hash` line".to_string(),
        (None, None) => "it has no `text-hash` line".to_string(),
    };
    let current = current && bad_byte.is_none();
    Ok(Existing::Edited { current, why })
}
