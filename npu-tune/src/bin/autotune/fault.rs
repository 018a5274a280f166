//! A fault to test resuming with: `NPU_TUNE_EXIT_AFTER=K` ends the process, as a kill
//! would, right after the K-th evaluation of the run is journalled. Tests use it to
//! stop a run partway at a point that does not depend on timing (with `--jobs 1`).
//! Unset, it does nothing.

use std::sync::atomic::{AtomicU64, Ordering};

use npu_tune::record::CandidateRecord;
use npu_tune::run::Progress;

/// The variable that names K.
const VARIABLE: &str = "NPU_TUNE_EXIT_AFTER";

/// The exit status of a run stopped by the fault.
const EXIT_STATUS: i32 = 75;

/// `inner`, and the exit after K evaluations when [`VARIABLE`] asks for it.
pub(crate) struct ExitAfter<P> {
    inner: P,
    limit: Option<u64>,
    seen: AtomicU64,
}

impl<P: Progress> ExitAfter<P> {
    /// Wraps `inner`, reading K from the environment (ignored unless a number).
    pub(crate) fn from_env(inner: P) -> ExitAfter<P> {
        let limit = std::env::var(VARIABLE).ok().and_then(|v| v.parse().ok());
        ExitAfter {
            inner,
            limit,
            seen: AtomicU64::new(0),
        }
    }
}

impl<P: Progress> Progress for ExitAfter<P> {
    fn start(&self, kernel: &str, generator: &str, total: u64) {
        self.inner.start(kernel, generator, total);
    }

    fn advance(&self, record: &CandidateRecord) {
        self.inner.advance(record);
        let seen = self.seen.fetch_add(1, Ordering::SeqCst) + 1;
        if self.limit.is_some_and(|limit| seen >= limit) {
            self.inner.finish();
            eprintln!("{VARIABLE}: stopping after {seen} evaluations");
            std::process::exit(EXIT_STATUS);
        }
    }

    fn finish(&self) {
        self.inner.finish();
    }
}
