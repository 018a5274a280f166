//! Calls that hung before npu read every file through its bounded reader: each is made
//! on its own thread with a deadline, so that a regression fails the test instead of
//! hanging the test run (the stuck thread is abandoned; the process ends with the run).

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// `work`'s answer, or a panic naming `what` when there is none within 20 s.
pub(crate) fn within_20_s<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(work());
    });
    receive
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what}: no answer in 20 s, it hangs"))
}

/// Makes a FIFO at `path` with the `mkfifo` command.
pub(crate) fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Whether `path` is (still) a FIFO.
pub(crate) fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}
