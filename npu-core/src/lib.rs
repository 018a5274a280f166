//! The npu DSL: syntax tree, parser, hardware targets, legality checker and lowering.
//!
//! The stages, each in its own module:
//!
//! 1. `parse`: tokens or text to a [`KernelDef`](ast::KernelDef) with spans.
//! 2. `check` and `schedule`: a `KernelDef` and a [`Target`] to a span-free
//!    [`CheckedKernel`], or [`Diagnostics`] that point at the offending tokens
//!    ([`check_source`] runs both). The buffer plan both the checker and lowering use
//!    is in `plan`. These modules are private: their entry points are here and, for
//!    npu's own crates, in `internal`.
//! 3. [`print`](mod@print): the canonical text of a kernel, for the macro, prompts and snapshots.
//! 4. [`lower`](mod@lower): a checked schedule to a [`Program`] of per-core, per-pipe instruction
//!    streams with placed buffers and explicit synchronisation ([`program`] documents
//!    the instruction set), which npu-sim runs.
//! 5. [`validate`](mod@validate): a second guard, independent of the checker, that
//!    checks a lowered [`Program`] instruction by instruction against its [`Target`].
//! 6. [`variants`]: generated schedules kept in a variants file, checked like hand
//!    schedules and tied to the kernel by a hash.
//!
//! npu-core's only I/O is [`file`](mod@file): the bounded reader of every file npu
//! opens on a user's behalf (kernel sources, target files, variants files, knowledge
//! files, journals, recordings), which the macro, the build helper and the tools share,
//! and the rule for where a write goes ([`file::destination`]). [`target::read_file`]
//! is that reader for target files. Everything else takes text.

#![warn(missing_docs)]

extern crate proc_macro;

pub mod ast;
mod check;
mod diag;
mod dtype;
mod encoding;
pub mod file;
mod fix;
pub mod functions;
pub mod host;
#[doc(hidden)]
pub mod internal;
pub mod ir;
pub mod lower;
mod parse;
mod plan;
pub mod print;
pub mod program;
pub mod rewrite;
pub mod scalar;
mod schedule;
pub mod target;
pub mod validate;
pub mod variants;
mod words;

pub use diag::{
    Code, Diagnostic, DiagnosticRecord, Diagnostics, EXCERPT_CHARS, Label, LabelRecord,
    MAX_SHOWN_PER_CODE,
};
pub use dtype::Dtype;
pub use fix::{Edit, Fix};
pub use ir::CheckedKernel;
pub use lower::{lower, lower_named};
pub use parse::{MAX_CHAIN_TERMS, MAX_EXPR_DEPTH, MAX_GROUP_DEPTH};
pub use program::{Pipe, Program};
pub use schedule::max_repeats;
pub use target::{Family, Level, Target, TargetError};
pub use validate::{Rule, Violation, validate};

/// Parses and checks kernel source text against `target`, whatever target the text
/// names. Diagnostics render against `source` with [`Diagnostics::render`].
///
/// ```
/// let source = "
///     kernel scale(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] * 2.0; }
///     target npueval_demo;
///     schedule s { split i by 1024; stage x, y in ub depth 2; }
/// ";
/// let target = npu_core::Target::preset("npueval_demo").unwrap();
/// let kernel = npu_core::check_source(source, &target).unwrap();
/// assert_eq!(kernel.schedules[0].tiles, [1024]);
/// ```
///
/// Text parsed outside the compiler leaves its source in a per-thread span table
/// (proc-macro2's `span-locations`) that only grows. So that checking text again and
/// again runs in bounded memory, both `check_source` functions read every position
/// into their diagnostics and then release the table: spans of text parsed earlier on
/// this thread with [`parse::parse_str`] are invalid after the call.
pub fn check_source(source: &str, target: &Target) -> Result<CheckedKernel, Diagnostics> {
    let (def, parsed) = parse::parse_str_partial(source);
    let result = match def {
        Some(def) => merge(parsed, check::check(&def, target)),
        None => Err(parsed),
    };
    release_spans(result)
}

/// Parses kernel source text into its syntax tree, to edit (a diagnostic's [`Fix`],
/// with [`Fix::apply`]) and print ([`print::kernel`]) before checking it again. Like
/// [`check_source`], it frees this thread's span table: the tree's spans are not
/// positions any more, and the diagnostics carry their own.
///
/// ```
/// let source = "
///     kernel scale(x: [f32; 4096]) -> y: [f32; 4096] { y[i] = x[i] * 2.0; }
///     target ascend910b;
///     schedule s { split i by 1000; stage x, y in ub depth 2; }
/// ";
/// let target = npu_core::Target::preset("ascend910b").unwrap();
/// let refused = npu_core::check_source(source, &target).unwrap_err();
/// let fix = refused.iter().find_map(|d| d.fixes.first()).unwrap().clone();
/// let mut kernel = npu_core::parse(source).unwrap();
/// assert!(fix.apply(&mut kernel));
/// let fixed = npu_core::print::kernel(&kernel);
/// assert!(npu_core::check_source(&fixed, &target).is_ok(), "{fixed}");
/// ```
pub fn parse(source: &str) -> Result<ast::KernelDef, Diagnostics> {
    let (def, mut parsed) = parse::parse_str_partial(source);
    parsed.detach();
    let result = match def {
        Some(def) if parsed.is_empty() => Ok(def),
        _ => Err(parsed),
    };
    if !proc_macro::is_available() {
        proc_macro2::extra::invalidate_current_thread_spans();
    }
    result
}

/// Parses and checks kernel source text against the preset it names. A `target` line
/// naming a file is resolved with `read_file`, which gets the path as written.
pub fn check_source_with(
    source: &str,
    read_file: impl FnOnce(&str) -> Result<String, String>,
) -> Result<CheckedKernel, Diagnostics> {
    let (def, parsed) = parse::parse_str_partial(source);
    let result = match def {
        Some(def) => {
            let checked = check::resolve_target(&def, read_file)
                .and_then(|target| check::check(&def, &target));
            merge(parsed, checked)
        }
        None => Err(parsed),
    };
    release_spans(result)
}

/// A schedule block [`check_schedule`] refused: the diagnostics, and the whole kernel
/// text (the kernel's header and the block) they point into.
#[derive(Clone, Debug)]
pub struct Rejected {
    /// Why the block was refused, with spans into `source`.
    pub diagnostics: Diagnostics,
    /// The kernel's header followed by the block: the text the diagnostics point into.
    pub source: String,
}

impl Rejected {
    /// The diagnostics with caret excerpts of the text they point into.
    pub fn render(&self) -> String {
        self.diagnostics.render(&self.source)
    }
}

/// Checks one schedule block's text against a checked kernel: the kernel with that
/// block as its only schedule, or why not. The block is checked as part of the
/// kernel's own canonical text ([`CheckedKernel::header`]) on the kernel's target, so
/// it gets every diagnostic a schedule written in the kernel would get. Like
/// [`check_source`], it frees this thread's span table.
///
/// ```
/// let source = "
///     kernel scale(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] * 2.0; }
///     target npueval_demo;
///     schedule s { split i by 1024; stage x, y in ub depth 2; }
/// ";
/// let target = npu_core::Target::preset("npueval_demo").unwrap();
/// let kernel = npu_core::check_source(source, &target).unwrap();
/// let wide = npu_core::check_schedule(&kernel, "schedule w { split i by 2048; stage x, y in ub; }");
/// assert_eq!(wide.unwrap().schedules[0].tiles, [2048]);
/// let bad = npu_core::check_schedule(&kernel, "schedule b { split i by 1000; stage x, y in ub; }");
/// assert!(bad.unwrap_err().render().contains("E0"));
/// ```
pub fn check_schedule(kernel: &CheckedKernel, schedule: &str) -> Result<CheckedKernel, Rejected> {
    let header = kernel.header.trim_end();
    let source = format!("{header}\n{schedule}");
    let checked = match check_block(kernel, schedule, header.lines().count()) {
        Some(checked) => release_spans(checked),
        None => check_source(&source, &kernel.target),
    };
    checked.map_err(|diagnostics| Rejected {
        diagnostics,
        source,
    })
}

/// [`check_schedule`] without checking the algorithm again: when `text` parses as
/// exactly one schedule block, that block checked against `kernel`'s algorithm, with
/// the diagnostics a check of the whole text would give (the block is parsed `lines`
/// lines down, where it stands in that text); `None` for any other text, which the
/// whole check then reports on.
fn check_block(
    kernel: &CheckedKernel,
    text: &str,
    lines: usize,
) -> Option<Result<CheckedKernel, Diagnostics>> {
    let padded = format!("{}{text}", "\n".repeat(lines));
    let parsed = parse::parse_schedules_str(&padded).ok()?;
    let [block] = parsed.as_slice() else {
        return None;
    };
    let mut checked = CheckedKernel {
        schedules: Vec::new(),
        source: format!("{}\n{}", kernel.header, print::schedule(block)),
        ..kernel.clone()
    };
    let mut diagnostics = Diagnostics::default();
    schedule::check_blocks(std::slice::from_ref(block), &mut checked, &mut diagnostics);
    diagnostics.sort();
    Some(match diagnostics.is_empty() {
        true => Ok(checked),
        false => Err(diagnostics),
    })
}

/// The one schedule block in `text`, printed canonically under the name `name`; `None`
/// when `text` is not exactly one block that parses. Two spellings of one schedule
/// give the same text. Like [`check_source`], it frees this thread's span table.
///
/// ```
/// let text = "schedule hand {   split i by 1024 ; stage x,y in ub depth 2; }";
/// assert_eq!(
///     npu_core::canonical_schedule(text, "s").unwrap(),
///     "schedule s {\n    split i by 1024;\n    stage x, y in ub depth 2;\n}\n",
/// );
/// ```
pub fn canonical_schedule(text: &str, name: &str) -> Option<String> {
    let printed = parse::parse_schedules_str(text)
        .ok()
        .and_then(|mut schedules| {
            let [schedule] = schedules.as_mut_slice() else {
                return None;
            };
            schedule.name = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
            Some(print::schedule(schedule))
        });
    if !proc_macro::is_available() {
        proc_macro2::extra::invalidate_current_thread_spans();
    }
    printed
}

/// Detaches the diagnostics from their spans and frees this thread's span table (see
/// [`check_source`]). Inside a procedural macro spans belong to the compiler and there
/// is no table to free.
fn release_spans(result: Result<CheckedKernel, Diagnostics>) -> Result<CheckedKernel, Diagnostics> {
    let result = result.map_err(|mut diagnostics| {
        diagnostics.detach();
        diagnostics
    });
    if !proc_macro::is_available() {
        proc_macro2::extra::invalidate_current_thread_spans();
    }
    result
}

/// Adds the parser's recovered diagnostics (see [`parse::parse_str_partial`]) to the
/// checker's result, in source order. The macro and the string API both use it.
pub fn merge(
    mut parsed: Diagnostics,
    checked: Result<CheckedKernel, Diagnostics>,
) -> Result<CheckedKernel, Diagnostics> {
    match checked {
        Ok(kernel) if parsed.is_empty() => Ok(kernel),
        Ok(_) => Err(parsed),
        Err(more) => {
            parsed.list.extend(more.list);
            parsed.sort();
            Err(parsed)
        }
    }
}
