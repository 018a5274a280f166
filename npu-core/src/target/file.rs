//! Reading a target file: bounded in size, regular files only.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;

/// Largest target file [`read_file`] reads: the presets are about 2 KiB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Reads a target file's text, or says why not in a phrase to follow the path: "No
/// such file or directory (os error 2)", "not a regular file (a FIFO)". Only regular
/// files of at most [`MAX_FILE_BYTES`] are read; the type is checked before opening
/// (opening a FIFO waits for a writer) and again on what was opened.
pub fn read_file(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    regular_and_small(&metadata)?;
    let file = File::open(path).map_err(|error| error.to_string())?;
    regular_and_small(&file.metadata().map_err(|error| error.to_string())?)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(None));
    }
    String::from_utf8(bytes).map_err(|error| {
        format!(
            "not UTF-8 text (byte {} is not valid)",
            error.utf8_error().valid_up_to()
        )
    })
}

fn regular_and_small(metadata: &std::fs::Metadata) -> Result<(), String> {
    if !metadata.is_file() {
        return Err(format!(
            "not a regular file ({})",
            file_kind(&metadata.file_type())
        ));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(too_large(Some(metadata.len())));
    }
    Ok(())
}

fn too_large(len: Option<u64>) -> String {
    let size = len.map_or(String::new(), |len| format!(" ({len} bytes)"));
    format!("larger than the {MAX_FILE_BYTES}-byte limit of a target file{size}")
}

/// "a directory", "a FIFO": what a path that is not a regular file names.
fn file_kind(kind: &std::fs::FileType) -> &'static str {
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
    } else {
        "neither a file nor a directory"
    }
}
