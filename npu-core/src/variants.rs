//! Variants files: generated schedules kept as DSL text beside the kernel that asks for
//! them with `variants 6 from "kernels/vmla.variants.npu";`.
//!
//! A variants file is a header of `//` comment lines followed by `schedule` blocks:
//!
//! ```text
//! // npu variants: generated schedules; regenerate with NPU_REGEN_VARIANTS=vmla
//! // kernel: vmla
//! // kernel-hash: fnv1a64:5d2c0c1b8f0e3a41
//! // target: npueval_demo
//! // generator: heuristic
//! // model: none
//! // rounds: 2
//! // candidates: 4
//! // seed: 0
//! // date: 2026-12-01
//! // hand: hand 9000 cycles
//! // v1: 4100 cycles, 2.20x over hand
//! schedule v1 {
//!     split i by 4096;
//!     stage a, b, c, y in ub depth 2;
//! }
//! ```
//!
//! The kernel hash ([`kernel_hash`]) covers the kernel's canonical text without its
//! schedules and the target's name, so a file written for another kernel, or for this
//! kernel before its algorithm changed, is recognised as stale and never used silently.
//! Only the hash decides; the other header lines are for the reviewer.
//!
//! [`check`] checks the schedules of a file as if they were written after the kernel's
//! hand schedules, with the same parser and checker, and reports every problem at its
//! line and column in the file. This module does no I/O: callers read and write files.

use crate::ast::KernelDef;
use crate::diag::{Code, DiagnosticRecord};
use crate::ir::CheckedKernel;
use crate::target::Target;

/// The header key of the kernel hash line.
pub const HASH_KEY: &str = "kernel-hash";

/// The stable hash of a kernel as a variants file records it: FNV-1a (64 bits) of the
/// kernel's canonical text without schedules or `variants` line
/// ([`crate::print::kernel_without_schedules`]), a NUL, and the target's name.
pub fn kernel_hash(def: &KernelDef, target: &str) -> String {
    let text = crate::print::kernel_without_schedules(def);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes().chain([0]).chain(target.bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("fnv1a64:{hash:016x}")
}

/// What a variants file's header says, as the writers fill it in.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub kernel: String,
    pub kernel_hash: String,
    pub target: String,
    /// `heuristic`, `llm`, ...
    pub generator: String,
    /// The LLM's model name, or `none`.
    pub model: String,
    pub rounds: u32,
    pub candidates: usize,
    pub seed: u64,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// The first hand schedule's name and simulated cycles.
    pub hand: Option<(String, u64)>,
    /// One entry per variant, in file order.
    pub variants: Vec<Entry>,
}

/// A variant's line in the header.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub cycles: u64,
}

/// One `// key: value` line of a header, with its 1-based line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderLine {
    pub line: usize,
    pub key: String,
    pub value: String,
}

/// Why a variants file cannot be used. Every variant names a 1-based line of the file.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The header has no `kernel-hash` line.
    NoHash,
    /// The file was written for another kernel, or for this one before it changed.
    Stale {
        line: usize,
        found: String,
        expected: String,
    },
    /// The schedules do not parse or check. A line of 0 means the kernel itself.
    Diagnostics(Vec<DiagnosticRecord>),
}

impl Header {
    /// The header as `//` lines, each ending with a newline.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut line = |key: &str, value: &dyn std::fmt::Display| {
            out.push_str(&format!("// {key}: {value}\n"));
        };
        line(
            "npu variants",
            &format!(
                "generated schedules, checked and simulated; regenerate with NPU_REGEN_VARIANTS={}",
                self.kernel
            ),
        );
        line("kernel", &self.kernel);
        line(HASH_KEY, &self.kernel_hash);
        line("target", &self.target);
        line("generator", &self.generator);
        line("model", &self.model);
        line("rounds", &self.rounds);
        line("candidates", &self.candidates);
        line("seed", &self.seed);
        line("date", &self.date);
        if let Some((name, cycles)) = &self.hand {
            line("hand", &format!("{name} {cycles} cycles"));
        }
        for entry in &self.variants {
            let speedup = match &self.hand {
                Some((name, hand)) => format!(
                    ", {:.2}x over {name}",
                    *hand as f64 / entry.cycles.max(1) as f64
                ),
                None => String::new(),
            };
            line(&entry.name, &format!("{} cycles{speedup}", entry.cycles));
        }
        out
    }
}

/// The `// key: value` lines at the top of a variants file, up to the first line that
/// is neither such a comment nor blank.
pub fn header_lines(text: &str) -> Vec<HeaderLine> {
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix("//") else {
            break;
        };
        if let Some((key, value)) = comment.split_once(':') {
            lines.push(HeaderLine {
                line: index + 1,
                key: key.trim().to_string(),
                value: value.trim().to_string(),
            });
        }
    }
    lines
}

/// The value of header key `key`, if the header has it.
pub fn header_value<'a>(lines: &'a [HeaderLine], key: &str) -> Option<&'a HeaderLine> {
    lines.iter().find(|line| line.key == key)
}

/// Whether `text` was written for `def` on `target`: `Ok` when its hash matches.
pub fn check_hash(def: &KernelDef, target: &str, text: &str) -> Result<(), Problem> {
    let lines = header_lines(text);
    let found = header_value(&lines, HASH_KEY).ok_or(Problem::NoHash)?;
    let expected = kernel_hash(def, target);
    if found.value == expected {
        Ok(())
    } else {
        Err(Problem::Stale {
            line: found.line,
            found: found.value.clone(),
            expected,
        })
    }
}

/// Checks the first `count` schedules of variants file `text` for `def` on `target`,
/// after `def`'s hand schedules: the checked kernel with hand schedules then variants,
/// whose `source` holds them all and no `variants` line.
///
/// The file is parsed as text, so its diagnostics carry its own lines and columns.
/// Inside a procedural macro, text parses into the compiler's tokens, which have none:
/// the macro switches proc-macro2 to its own implementation around this call.
pub fn check(
    def: &KernelDef,
    target: &Target,
    text: &str,
    count: usize,
) -> Result<CheckedKernel, Problem> {
    check_hash(def, &target.name, text)?;
    crate::parse::parse_schedules_str(text)
        .map_err(|diagnostics| Problem::Diagnostics(diagnostics.records()))?;
    // The hand-written kernel, printed, then the file verbatim: lines past the printed
    // kernel are the file's lines, and columns are unchanged.
    let mut hand = def.clone();
    hand.variants.clear();
    let prefix = crate::print::kernel(&hand);
    let prefix_lines = prefix.lines().count();
    let combined = format!("{prefix}{text}");
    let in_file = |mut record: DiagnosticRecord| {
        record.line = record.line.saturating_sub(prefix_lines);
        record
    };
    let (parsed, diagnostics) = crate::parse::parse_str_partial(&combined);
    let mut parsed = match parsed {
        Some(parsed) if diagnostics.is_empty() => parsed,
        _ => {
            let records = diagnostics.records().into_iter().map(in_file).collect();
            return Err(Problem::Diagnostics(records));
        }
    };
    parsed.schedules.truncate(def.schedules.len() + count);
    crate::check::check(&parsed, target).map_err(|diagnostics| {
        Problem::Diagnostics(diagnostics.records().into_iter().map(in_file).collect())
    })
}

impl Problem {
    /// The problem as compiler-style text naming `path` and the line: one
    /// `path:line:column: error[CODE]: message` line per diagnostic, with its help.
    pub fn render(&self, path: &str) -> String {
        match self {
            Problem::NoHash => format!(
                "{path}:1:1: variants file has no `// {HASH_KEY}: ...` header line; it was not written by npu, or its header was edited; delete it to regenerate it"
            ),
            Problem::Stale {
                line,
                found,
                expected,
            } => format!(
                "{path}:{line}:1: variants file is for another kernel or an older version of this one: its {HASH_KEY} is {found}, this kernel's is {expected}; regenerate it (delete the file, or build with NPU_REGEN_VARIANTS=1)"
            ),
            Problem::Diagnostics(records) => {
                let mut out = String::new();
                for record in records {
                    let at = if record.line == 0 {
                        format!("{path} (the kernel)")
                    } else {
                        format!("{path}:{}:{}", record.line, record.column)
                    };
                    out.push_str(&format!("{at}: error[{}]: {}", record.code, record.message));
                    if let Some(help) = &record.help {
                        out.push_str(&format!("\n  = help: {help}"));
                    }
                    out.push('\n');
                }
                out.trim_end().to_string()
            }
        }
    }

    /// The diagnostic codes of the problem; a stale or unsigned file has none.
    pub fn codes(&self) -> Vec<Code> {
        match self {
            Problem::Diagnostics(records) => records.iter().map(|r| r.code).collect(),
            _ => Vec::new(),
        }
    }
}
