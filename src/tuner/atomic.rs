//! Atomic file replacement: a reader, or a run that crashes half-way, sees the old file
//! or the new one, never a mix.
//!
//! The bytes go to a temporary file in the target's own directory (a rename is atomic
//! only within one file system), which is synced and then renamed over the target; the
//! directory is synced afterwards so that the rename itself survives a power cut. The
//! temporary file comes from the `tempfile` crate: its names cannot collide between
//! processes, and it is removed on every failure path, panics included.

use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

/// Replaces `path` with `bytes` atomically (see the module docs). The directory must
/// exist. A new file gets the permissions `fs::write` would give it, not the owner-only
/// permissions of a temporary file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let file_name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let directory = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));

    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(file_name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // The umask still applies, so this gives what `fs::write` gives (usually 0o644).
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(directory)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|error| error.error)?;

    // Directories cannot be opened for syncing on every platform, so a failure here is
    // not an error: the data is written and renamed, only its durability is weaker.
    if let Ok(directory) = fs::File::open(directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in `directory`, sorted.
    fn names(directory: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn creates_then_replaces() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("vmla.json");
        write_atomic(&path, b"first").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"first");
        write_atomic(&path, b"second, longer").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second, longer");
        assert_eq!(names(directory.path()), ["vmla.json"]);
    }

    #[test]
    fn a_missing_directory_fails_and_leaves_nothing() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("missing").join("vmla.json");
        let error = write_atomic(&path, b"x").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert!(names(directory.path()).is_empty());
    }

    #[test]
    fn a_path_without_a_file_name_is_refused() {
        let error = write_atomic(Path::new("/"), b"x").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn renaming_over_a_directory_fails_and_leaves_no_temporary_file() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("taken");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("keep"), b"x").unwrap();
        assert!(write_atomic(&path, b"x").is_err());
        assert_eq!(names(directory.path()), ["taken"]);
    }

    #[cfg(unix)]
    #[test]
    fn permissions_match_a_plain_write() {
        use std::os::unix::fs::PermissionsExt as _;
        let directory = tempfile::tempdir().unwrap();
        let atomic = directory.path().join("atomic");
        let plain = directory.path().join("plain");
        write_atomic(&atomic, b"x").unwrap();
        fs::write(&plain, b"x").unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode();
        assert_eq!(mode(&atomic), mode(&plain));
    }
}
