//! Atomic file replacement: a reader, or a run that crashes half-way, sees the old file
//! or the new one, never a mix.
//!
//! The bytes go to a temporary file in the target's own directory (a rename is atomic
//! only within one file system), which is synced and then renamed over the target; the
//! directory is synced afterwards so that the rename itself survives a power cut.
//!
//! The temporary file is named `.NAME.npu-tmp.PID.N` (NAME the target's file name, PID
//! the writing process, N a counter within it), so that it is recognisable in a user's
//! source tree and cannot collide between writers. It is removed on every failure path,
//! panics included; only a killed process leaves one behind, and the next write to the
//! same target, or [`sweep`], removes it once its process is gone. A temporary file of
//! a live process, or of a process whose liveness cannot be told (on systems without
//! `/proc`), is never touched.
//!
//! A read-only file is never replaced, even by a user (root) whose rename would
//! succeed: its mode is how the user said not to change it.
//!
//! A path that is a symbolic link is written through: the file the link points to is
//! replaced (the temporary file goes beside *it*) and the link stays a link. A path
//! that is neither missing nor a regular file (a FIFO, a device, a directory, a link to
//! one of those or to nothing) is refused before anything is written
//! ([`npu_core::file::destination`]).

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What every temporary file's name holds between the target's name and the pid.
const MARKER: &str = ".npu-tmp.";

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
    refuse_read_only(path)?;
    sweep(path);

    let mut temp = Temporary::create(directory, file_name)?;
    temp.file.write_all(bytes)?;
    temp.file.sync_all()?;
    temp.persist(path)?;

    // Directories cannot be opened for syncing on every platform, so a failure here is
    // not an error: the data is written and renamed, only its durability is weaker.
    if let Ok(directory) = fs::File::open(directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

/// An error when `path` exists and is read-only (no write permission for anyone).
/// Writers check this themselves rather than rely on the operating system, which lets
/// root write anything and lets anyone rename over a file in a directory they own.
pub fn refuse_read_only(path: &Path) -> io::Result<()> {
    match fs::metadata(path) {
        Ok(metadata) if metadata.is_file() && metadata.permissions().readonly() => {
            Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is read-only; npu does not replace a read-only file (make it writable to let it)",
                    path.display()
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// Removes the temporary files a killed writer of `path` left beside it: those named
/// `.NAME.npu-tmp.PID...` whose process is no longer running. Returns how many it
/// removed; failures are ignored (the next run tries again).
pub fn sweep(path: &Path) -> usize {
    let (Some(file_name), Some(directory)) = (path.file_name(), path.parent()) else {
        return 0;
    };
    let directory = if directory.as_os_str().is_empty() {
        Path::new(".")
    } else {
        directory
    };
    let mut prefix = OsString::from(".");
    prefix.push(file_name);
    prefix.push(MARKER);
    let Some(prefix) = prefix.to_str() else {
        return 0;
    };
    let Ok(entries) = fs::read_dir(directory) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(pid_of)
        else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && !may_be_running(pid) && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The pid of a temporary file's name after its marker: `PID.N`.
fn pid_of(rest: &str) -> Option<u32> {
    let (pid, counter) = rest.split_once('.')?;
    counter.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether process `pid` may be running: this process, one `/proc` lists, or any pid
/// where there is no `/proc` to ask.
fn may_be_running(pid: u32) -> bool {
    pid == std::process::id()
        || !Path::new("/proc/self").exists()
        || Path::new("/proc").join(pid.to_string()).exists()
}

/// A temporary file beside its target, removed when dropped unless persisted.
struct Temporary {
    path: PathBuf,
    file: File,
    persisted: bool,
}

impl Temporary {
    fn create(directory: &Path, file_name: &std::ffi::OsStr) -> io::Result<Temporary> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        loop {
            let mut name = OsString::from(".");
            name.push(file_name);
            name.push(format!(
                "{MARKER}{}.{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let path = directory.join(name);
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                // The umask still applies, so this gives what `fs::write` gives (usually
                // 0o644).
                use std::os::unix::fs::OpenOptionsExt as _;
                options.mode(0o666);
            }
            match options.open(&path) {
                Ok(file) => {
                    return Ok(Temporary {
                        path,
                        file,
                        persisted: false,
                    });
                }
                // Left by an earlier process with this pid: take the next number.
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(error) => return Err(error),
            }
        }
    }

    fn persist(&mut self, target: &Path) -> io::Result<()> {
        fs::rename(&self.path, target)?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = fs::remove_file(&self.path);
        }
    }
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

    /// A pid no process has: a child's, after it exited and was reaped.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn temporary_files_of_dead_writers_are_swept_and_no_others() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("vmla.variants.npu");
        let dead = format!(".vmla.variants.npu.npu-tmp.{}.0", dead_pid());
        let live = format!(".vmla.variants.npu.npu-tmp.{}.0", std::process::id());
        let other_target = format!(".rowsum.variants.npu.npu-tmp.{}.0", dead_pid());
        let not_ours = ".vmla.variants.npu.npu-tmp.notapid".to_string();
        for name in [&dead, &live, &other_target, &not_ours] {
            fs::write(directory.path().join(name), b"half").unwrap();
        }
        write_atomic(&path, b"whole").unwrap();
        let mut expected = vec![
            other_target.clone(),
            live.clone(),
            not_ours.clone(),
            "vmla.variants.npu".to_string(),
        ];
        expected.sort();
        if Path::new("/proc/self").exists() {
            assert_eq!(names(directory.path()), expected);
        }
        assert_eq!(fs::read(&path).unwrap(), b"whole");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_never_replaced() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("kept.toml");
        fs::write(&path, b"mine").unwrap();
        let mut permissions = fs::metadata(&path).unwrap().permissions();
        permissions.set_readonly(true);
        fs::set_permissions(&path, permissions).unwrap();
        let error = write_atomic(&path, b"theirs").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
        assert!(error.to_string().ends_with("kept.toml is read-only; npu does not replace a read-only file (make it writable to let it)"), "{error}");
        assert_eq!(fs::read(&path).unwrap(), b"mine");
        assert_eq!(names(directory.path()), ["kept.toml"]);
    }
}
