//! Progress on stderr: one bar per phase of a run.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use npu_tune::record::CandidateRecord;
use npu_tune::run::Progress;

/// One progress bar per phase, on stderr (hidden when it is not a terminal).
#[derive(Default)]
pub(crate) struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl Progress for Bars {
    fn start(&self, kernel: &str, generator: &str, total: u64) {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>24} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(format!("{kernel} {generator}"));
        if let Ok(mut current) = self.current.lock() {
            if let Some(previous) = current.take() {
                previous.finish();
            }
            *current = Some(bar);
        }
    }

    fn advance(&self, record: &CandidateRecord) {
        if let Ok(current) = self.current.lock()
            && let Some(bar) = current.as_ref()
        {
            bar.inc(1);
            if let Some(cycles) = record.cycles {
                bar.set_message(format!("last {cycles} cycles"));
            }
        }
    }

    fn finish(&self) {
        if let Ok(mut current) = self.current.lock()
            && let Some(bar) = current.take()
        {
            bar.finish();
        }
    }
}
