//! A hardware-aware knowledge base, in the spirit of Hawk (arXiv 2607.01590): entries
//! of a trigger (kernel class, dtype, diagnostic code, bottleneck class), a rationale
//! (a short rule about the hardware) and a template (a schedule the checker accepts for
//! a named bundled kernel, which a test checks).
//!
//! Entries live in human-readable TOML files under `knowledge/` (compiled in as the
//! default base; `KnowledgeBase::load` reads a directory instead, through npu-core's
//! bounded reader: a FIFO or a device named `*.toml` is an error, not a hang). Each file
//! is schema-checked on load, and an error names the file, the line and what is wrong.
//!
//! [`KnowledgeBase::retrieve`] ranks entries in two spaces and fuses the rankings:
//! syntax (the diagnostic codes of the latest failures and the words of the failing
//! schedule against each entry's codes and template) and hardware (the report's
//! bottleneck class, memory-bound ratio and buffer pressure against each entry's
//! bottlenecks). Reciprocal-rank fusion keeps either space from drowning the other;
//! ties go by entry id, so retrieval is deterministic.
//!
//! The parent holds the types and the vocabulary of triggers; `load` reads and
//! schema-checks files into a base, `retrieve` ranks a base's entries for a query.

use std::collections::BTreeSet;
use std::fmt;

use npu_core::{Code, Dtype};

pub mod distill;
mod load;
mod retrieve;
#[cfg(test)]
mod tests;

/// The file of a knowledge directory that `--learn` writes learned entries to.
pub const LEARNED_FILE: &str = "learned.toml";
/// How every file `--learn` writes begins: a [`LEARNED_FILE`] without it is not its own,
/// and is never overwritten.
pub const LEARNED_HEADER: &str = "# Knowledge entries, written by `autotune --learn`. Each entry: a trigger, a\n# rationale and a template the checker accepts for the named bundled kernel.\n";
/// The file that lists pruned entry ids, which loading skips.
pub const PRUNED_FILE: &str = "pruned.toml";
/// The audit log `--learn` appends to.
pub const AUDIT_FILE: &str = "audit.log";

/// The bottleneck classes a trigger may name, as the simulator's symptom says them.
pub const BOTTLENECKS: [&str; 7] = [
    "memory-bound",
    "compute-bound",
    "latency-bound",
    "serialised",
    "loop overhead",
    "no overlap",
    "idle cores",
];

/// The kernel classes a trigger may name.
pub const CLASSES: [&str; 3] = ["elementwise", "reduction", "matmul"];

/// One entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// A unique name, which records, pruning and the audit log refer to it by.
    pub id: String,
    /// When the entry applies.
    pub trigger: Trigger,
    /// The rule about the hardware, in a sentence or two, as prompts show it.
    pub rationale: String,
    /// The bundled kernel the template is written for.
    pub kernel: String,
    /// A `schedule` block for `kernel` that the checker accepts, ending in a newline.
    pub template: String,
    /// Where it was read from: `file:line`.
    pub origin: String,
}

/// When an entry applies. An empty list matches anything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trigger {
    /// Kernel classes it is eligible for, of [`CLASSES`].
    pub classes: Vec<String>,
    /// Dtypes it is eligible for: the kernel must use one of them.
    pub dtypes: Vec<Dtype>,
    /// Diagnostic codes that rank it up in the syntax space.
    pub codes: Vec<Code>,
    /// Bottleneck classes, of [`BOTTLENECKS`], that rank it up in the hardware space.
    pub bottlenecks: Vec<String>,
}

/// Every entry, sorted by id.
#[derive(Clone, Debug, Default)]
pub struct KnowledgeBase {
    /// The entries; ids are unique.
    pub entries: Vec<Entry>,
}

/// A knowledge file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnowledgeError {
    /// `file:line`, or the file alone when the problem has no line.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for KnowledgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

impl std::error::Error for KnowledgeError {}

/// What retrieval is asked about: the kernel and what its latest candidates showed.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// The kernel's class, one of [`CLASSES`].
    pub class: String,
    /// The dtypes of the kernel's tensors, each once, sorted by name.
    pub dtypes: Vec<Dtype>,
    /// Diagnostic codes of the latest rejected candidates, most recent first.
    pub codes: Vec<Code>,
    /// Words of the latest failing schedule.
    pub words: BTreeSet<String>,
    /// Bottleneck classes of the best correct candidate.
    pub bottlenecks: Vec<String>,
    /// Cores of the kernel's class on its target: advice to spread over cores is no
    /// use on a target with one.
    pub cores: u64,
}
// Counts units of work of loading and retrieval (an entry scored, two entries compared,
// an id looked up, a step of a line's binary search) on this thread, in unit tests
// only: they show how the work grows with the entries without timing it.
#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline]
fn tally(units: u64) {
    #[cfg(test)]
    WORK.with(|work| work.set(work.get() + units));
    #[cfg(not(test))]
    let _ = units;
}
