//! Variants files: generated schedules kept as DSL text beside the kernel that asks for
//! them with `variants 6 from "kernels/vmla.variants.npu";`.
//!
//! A variants file is a header of `//` comment lines followed by `schedule` blocks:
//!
//! ```text
//! // npu variants: generated schedules; regenerate with NPU_REGEN_VARIANTS=vmla
//! // kernel: vmla
//! // kernel-hash: fnv1a64:5d2c0c1b8f0e3a41
//! // text-hash: fnv1a64:93e1a0b7c44d2f10
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
//! Only the hash decides whether the macro uses the file; the other header lines are for
//! the reviewer, except the text hash ([`sign`], [`as_written`]): it covers the file's
//! own text, so that a writer can tell a file it may replace (exactly as generated)
//! from one a person edited (which it never replaces unasked).
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
/// The header key of the line that hashes the file's own text (see [`sign`]).
pub const TEXT_HASH_KEY: &str = "text-hash";

/// The stable hash of a kernel as a variants file records it: FNV-1a (64 bits) of the
/// kernel's canonical text without schedules or `variants` line
/// ([`crate::print::kernel_without_schedules`]), a NUL, and the target's name.
pub fn kernel_hash(def: &KernelDef, target: &str) -> String {
    header_hash(&crate::print::kernel_without_schedules(def), target)
}

/// [`kernel_hash`] of a checked kernel, from its [`header`](crate::CheckedKernel::header).
pub fn checked_kernel_hash(kernel: &crate::CheckedKernel) -> String {
    header_hash(&kernel.header, &kernel.target.name)
}

fn header_hash(header: &str, target: &str) -> String {
    fnv1a64(header.bytes().chain([0]).chain(target.bytes()))
}

/// [`fnv1a64_hash`] of `bytes`, as `fnv1a64:` and 16 hex digits: the stable hash every
/// file npu writes records.
pub fn fnv1a64(bytes: impl IntoIterator<Item = u8>) -> String {
    format!("fnv1a64:{:016x}", fnv1a64_hash(bytes))
}

/// FNV-1a (64 bits) of `bytes`: the workspace's one stable hash, the same on every run,
/// machine and Rust version (never std's hasher, which is seeded per process). Files
/// record it as [`fnv1a64`]; the tuner also hashes prompts and seeds its RNGs with it.
pub fn fnv1a64_hash(bytes: impl IntoIterator<Item = u8>) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    bytes.into_iter().fold(OFFSET_BASIS, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// The hash of a variants file's text as [`sign`] records it: FNV-1a of every line but
/// the `text-hash` header line, each ended by `\n` (so `\r\n` endings hash alike).
pub fn text_hash(text: &str) -> String {
    let skipped = header_value(&header_lines(text), TEXT_HASH_KEY).map(|line| line.line);
    let kept = text
        .lines()
        .enumerate()
        .filter(move |(index, _)| Some(index + 1) != skipped)
        .flat_map(|(_, line)| line.bytes().chain([b'\n']));
    fnv1a64(kept)
}

/// `text` with a `// text-hash: ...` line after its kernel-hash line (or its first
/// line): what the generator wrote, so a later writer can tell an untouched file, which
/// it may replace, from one edited by hand, which it must not.
pub fn sign(text: &str) -> String {
    let hash = text_hash(text);
    let lines = header_lines(text);
    let after = header_value(&lines, HASH_KEY).map_or(1, |line| line.line);
    let mut out = String::with_capacity(text.len() + 40);
    for (index, line) in text.split_inclusive('\n').enumerate() {
        out.push_str(line);
        if index + 1 == after {
            out.push_str(&format!("// {TEXT_HASH_KEY}: {hash}\n"));
        }
    }
    out
}

/// Whether `text` is exactly what the generator wrote: `Some(true)` when its
/// `text-hash` line matches its text, `Some(false)` when it does not (the file was
/// edited), `None` when it has none (written by hand, or by an npu before 0.1.1).
pub fn as_written(text: &str) -> Option<bool> {
    let lines = header_lines(text);
    let recorded = header_value(&lines, TEXT_HASH_KEY)?;
    Some(recorded.value == text_hash(text))
}

/// What a variants file's header says, as the writers fill it in.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The kernel's name, also used in the regenerate hint of the first line.
    pub kernel: String,
    /// [`kernel_hash`] of the kernel and target the schedules were generated for: the
    /// only line [`check_hash`] reads.
    pub kernel_hash: String,
    /// The name of the target the variants were tuned and simulated on.
    pub target: String,
    /// `heuristic`, `llm`, ...
    pub generator: String,
    /// The LLM's model name, or `none`.
    pub model: String,
    /// Rounds the tuning run made.
    pub rounds: u32,
    /// Candidates the tuning run proposed per round.
    pub candidates: usize,
    /// The tuning run's random seed.
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
    /// The schedule's name, as its `schedule NAME { ... }` block says.
    pub name: String,
    /// Its simulated cycles on the header's target.
    pub cycles: u64,
}

/// One `// key: value` line of a header, with its 1-based line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderLine {
    /// The 1-based line number in the file.
    pub line: usize,
    /// The text before the first colon, trimmed: `kernel-hash`.
    pub key: String,
    /// The text after the first colon, trimmed (it may hold more colons).
    pub value: String,
}

/// Why a variants file cannot be used. Every variant names a 1-based line of the file.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The header has no `kernel-hash` line.
    NoHash,
    /// The file was written for another kernel, or for this one before it changed.
    Stale {
        /// The 1-based line of the file's `kernel-hash` header.
        line: usize,
        /// The hash the file records.
        found: String,
        /// The hash of the kernel and target as they are now ([`kernel_hash`]).
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

/// `path:line:column` of a diagnostic in a variants file, or `path (the kernel)` for
/// one about the kernel itself (line 0).
pub fn location(path: &str, record: &DiagnosticRecord) -> String {
    if record.line == 0 {
        format!("{path} (the kernel)")
    } else {
        format!("{path}:{}:{}", record.line, record.column)
    }
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
                    let at = location(path, record);
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

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "
        kernel scale(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] * 2.0; }
        target npueval_demo;
        variants 2 from \"scale.variants.npu\";
        schedule hand { split i by 512; stage x, y in ub depth 1; }
    ";

    fn def(text: &str) -> KernelDef {
        crate::parse::parse_str(text).unwrap()
    }

    fn hash(text: &str, target: &str) -> String {
        kernel_hash(&def(text), target)
    }

    fn file(body: &str) -> String {
        format!(
            "// kernel: scale\n// {HASH_KEY}: {}\n{body}",
            hash(KERNEL, "npueval_demo")
        )
    }

    #[test]
    fn the_hash_covers_the_algorithm_and_the_target_only() {
        let base = hash(KERNEL, "npueval_demo");
        // Pinned: committed variants files carry it, so a change here makes them stale.
        assert_eq!(base, "fnv1a64:be0feeb82cd04e68");
        let respaced = KERNEL.replace("y[i] = x[i] * 2.0;", "y[i]=x[i]*2.0; /* doubled */");
        assert_eq!(hash(&respaced, "npueval_demo"), base);
        let rescheduled = KERNEL
            .replace("split i by 512", "split i by 1024")
            .replace("variants 2", "variants 5");
        assert_eq!(hash(&rescheduled, "npueval_demo"), base);
        assert_ne!(hash(&KERNEL.replace("2.0", "3.0"), "npueval_demo"), base);
        assert_ne!(hash(KERNEL, "ascend910b"), base);
    }

    #[test]
    fn a_rendered_header_reads_back() {
        let header = Header {
            kernel: "scale".into(),
            kernel_hash: "fnv1a64:0123".into(),
            target: "npueval_demo".into(),
            generator: "llm".into(),
            model: "tiny: coder".into(),
            rounds: 3,
            candidates: 4,
            seed: 7,
            date: "2026-12-01".into(),
            hand: Some(("hand".into(), 900)),
            variants: vec![Entry {
                name: "v1".into(),
                cycles: 400,
            }],
        };
        let text = header.render();
        assert!(
            text.ends_with("// hand: hand 900 cycles\n// v1: 400 cycles, 2.25x over hand\n"),
            "{text}"
        );
        let lines = header_lines(&format!("{text}\nschedule v1 {{}}\n// not: header"));
        let value = |key| header_value(&lines, key).map(|l| (l.line, l.value.as_str()));
        assert_eq!(value(HASH_KEY), Some((3, "fnv1a64:0123")));
        assert_eq!(value("model"), Some((6, "tiny: coder")));
        assert_eq!(value("not"), None);
    }

    #[test]
    fn only_the_first_count_variants_are_checked_and_kept() {
        let target = Target::preset("npueval_demo").unwrap();
        let text = file(
            "schedule v1 { split i by 1024; stage x, y in ub depth 2; }\nschedule v2 { split i by 2048; stage x, y in ub depth 2; }\nschedule v3 { split i by 99999; stage x, y in ub; }\n",
        );
        let kernel = check(&def(KERNEL), &target, &text, 2).unwrap();
        let names: Vec<&str> = kernel.schedules.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["hand", "v1", "v2"]);
        assert!(!kernel.source.contains("variants"), "{}", kernel.source);
        assert_eq!(
            check(&def(KERNEL), &target, &text, 3)
                .unwrap_err()
                .render("f.npu"),
            "f.npu:5:26: error[E032]: split `i` by 99999 is larger than its extent 4096\n  = help: split i by 4096"
        );
    }

    #[test]
    fn a_variant_named_like_a_hand_schedule_is_a_duplicate_at_its_line() {
        let target = Target::preset("npueval_demo").unwrap();
        let text = file("\nschedule hand { split i by 1024; stage x, y in ub depth 2; }\n");
        let problem = check(&def(KERNEL), &target, &text, 2).unwrap_err();
        assert_eq!(problem.codes(), [Code::E030]);
        assert!(
            problem
                .render("f.npu")
                .starts_with("f.npu:4:10: error[E030]"),
            "{}",
            problem.render("f.npu")
        );
    }

    #[test]
    fn the_checker_takes_one_variants_line_asking_for_1_to_64() {
        let target = Target::preset("npueval_demo").unwrap();
        let codes = |text: &str| match crate::check::check(&def(text), &target) {
            Ok(_) => Vec::new(),
            Err(diagnostics) => diagnostics
                .records()
                .iter()
                .map(|r| (r.code, r.line, r.column))
                .collect(),
        };
        assert_eq!(codes(KERNEL), []);
        let twice = KERNEL.replace("schedule hand", "variants 1 from \"b.npu\"; schedule hand");
        assert_eq!(codes(&twice), [(Code::E030, 5, 9)]);
        assert_eq!(
            codes(&KERNEL.replace("variants 2", "variants 0")),
            [(Code::E012, 4, 18)]
        );
        assert_eq!(
            codes(&KERNEL.replace("variants 2", "variants 65")),
            [(Code::E012, 4, 18)]
        );
        assert_eq!(codes(&KERNEL.replace("variants 2", "variants 64")), []);
    }

    #[test]
    fn a_signed_file_is_as_written_until_a_byte_changes() {
        let text = file("schedule v1 { split i by 1024; stage x, y in ub depth 2; }\n");
        assert_eq!(as_written(&text), None);
        let signed = sign(&text);
        let lines = header_lines(&signed);
        assert_eq!(header_value(&lines, TEXT_HASH_KEY).map(|l| l.line), Some(3));
        assert_eq!(as_written(&signed), Some(true));
        assert_eq!(as_written(&signed.replace("\n", "\r\n")), Some(true));
        assert_eq!(as_written(&signed.replace("1024", "2048")), Some(false));
        let corrupted_hash = signed.replace("fnv1a64:be", "fnv1a64:bf");
        assert_eq!(as_written(&corrupted_hash), Some(false));
        // Pinned: committed files carry it.
        assert_eq!(fnv1a64(*b"npu"), "fnv1a64:20f8c719253bbb72");
    }

    /// FNV-1a's published test vectors for the empty string, "a" and "foobar".
    #[test]
    fn fnv1a64_reference_values() {
        assert_eq!(fnv1a64_hash(*b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64_hash(*b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64_hash(*b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a64(*b"a"), "fnv1a64:af63dc4c8601ec8c");
    }
}
