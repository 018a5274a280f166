//! Atomic file replacement: a reader, or a run that crashes half-way, sees the old file
//! or the new one, never a mix.
//!
//! The bytes go to a temporary file in the target's own directory (a rename is atomic
//! only within one file system), which is synced and then renamed over the target; the
//! directory is synced afterwards so that the rename itself survives a power cut. The
//! temporary file comes from the `tempfile` crate: its names cannot collide between
//! processes, and it is removed on every failure path, panics included.
//!
//! A path that is a symbolic link is written through: the file the link points to is
//! replaced (the temporary file goes beside *it*) and the link stays a link. A path
//! that is neither missing nor a regular file (a FIFO, a device, a directory, a link to
//! one of those or to nothing) is refused before anything is written
//! ([`npu_core::file::destination`]).

use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

/// Replaces `path` with `bytes` atomically (see the module docs), or the file it links
/// to. The directory must exist. A new file gets the permissions `fs::write` would give
/// it, not the owner-only permissions of a temporary file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let destination = npu_core::file::destination(path)?;
    let path = destination.as_path();
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

    /// Writing through a link replaces the file it points to, beside that file, and
    /// leaves the link a link; a link to nothing, a FIFO or a device is refused and
    /// nothing is written.
    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through_never_replaced() {
        let directory = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let real = elsewhere.path().join("learned.toml");
        fs::write(&real, b"old").unwrap();
        let link = directory.path().join("learned.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_link(&link).unwrap(), real);
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(names(directory.path()), ["learned.toml"]);
        assert_eq!(names(elsewhere.path()), ["learned.toml"]);

        let dangling = directory.path().join("dangling");
        std::os::unix::fs::symlink(elsewhere.path().join("missing"), &dangling).unwrap();
        let error = write_atomic(&dangling, b"x").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert!(
            error.to_string().contains("which does not exist"),
            "{error}"
        );
        let to_zero = directory.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &to_zero).unwrap();
        let error = write_atomic(&to_zero, b"x").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("a symbolic link to /dev/zero (a character device)"),
            "{error}"
        );
        let fifo = directory.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let error = write_atomic(&fifo, b"x").unwrap_err();
        assert!(
            error.to_string().starts_with("not a regular file (a FIFO)"),
            "{error}"
        );
        for path in [&dangling, &to_zero] {
            assert!(fs::symlink_metadata(path).unwrap().file_type().is_symlink());
        }
        assert_eq!(
            names(directory.path()),
            ["dangling", "fifo", "learned.toml", "zero"]
        );
        assert_eq!(names(elsewhere.path()), ["learned.toml"]);
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
