//! Diagnostics: what the parser and checker say about a kernel, with stable codes.
//!
//! A [`Diagnostic`] carries the span of the offending token. The macro turns it into a
//! `compile_error!` at that token; the string API renders it as text with line, column
//! and a caret excerpt ([`Diagnostics::render`]), the form an LLM sees in its feedback.
//! [`Diagnostics::records`] gives the span-free, serialisable form reports store.

use std::fmt;

use proc_macro2::Span;
use serde::{Deserialize, Serialize};

/// The stable code of a diagnostic class. Docs, tests and the knowledge base use these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Code {
    /// The text is not a kernel: a token is missing or out of place.
    E001,
    /// A tensor or axis name that the kernel does not declare.
    E002,
    /// A function the algorithm language does not have.
    E003,
    /// A dtype the language does not have.
    E004,
    /// A target that is not a preset, or a target file that cannot be used.
    E005,
    /// A schedule item, memory level or tail policy the language does not have.
    E006,
    /// Operands or an output whose dtypes disagree.
    E010,
    /// Tensor ranks or extents that disagree.
    E011,
    /// A subscript past the end of a tensor.
    E012,
    /// Buffers that do not fit a memory level (UB, L1, L0A, L0B, L0C).
    E020,
    /// A copy whose length or start offset breaks the target's alignment.
    E021,
    /// A vector instruction that needs more repeats than the unit issues.
    E022,
    /// A cube tile that is not a multiple of the cube's fractal.
    E023,
    /// More cores than the target has.
    E024,
    /// More synchronisation events than the target has.
    E025,
    /// A dtype or operation the target's unit cannot compute.
    E026,
    /// A schedule item, schedule or target given twice.
    E030,
    /// A schedule item or target that must be present but is not.
    E031,
    /// A tile that is zero or larger than its axis.
    E032,
    /// A tile that leaves a tail with no `tail` policy, or an `exact` tail that breaks alignment.
    E033,
    /// A variants file that was not written for this kernel, or for an older version of it.
    E034,
}

impl Code {
    /// A short name of the class, as docs/dsl.md lists it.
    pub fn title(self) -> &'static str {
        match self {
            Code::E001 => "syntax error",
            Code::E002 => "unknown name",
            Code::E003 => "unknown function",
            Code::E004 => "unknown dtype",
            Code::E005 => "unknown target",
            Code::E006 => "unknown schedule word",
            Code::E010 => "type mismatch",
            Code::E011 => "shape mismatch",
            Code::E012 => "index out of range",
            Code::E020 => "capacity overflow",
            Code::E021 => "misaligned copy",
            Code::E022 => "vector repeat limit",
            Code::E023 => "cube tile not a multiple of the fractal",
            Code::E024 => "too many cores",
            Code::E025 => "too many events",
            Code::E026 => "unsupported by the unit",
            Code::E030 => "duplicate",
            Code::E031 => "missing",
            Code::E032 => "bad tile",
            Code::E033 => "unhandled tail",
            Code::E034 => "stale variants file",
        }
    }

    /// Every code, in order.
    pub const ALL: [Code; 21] = [
        Code::E001,
        Code::E002,
        Code::E003,
        Code::E004,
        Code::E005,
        Code::E006,
        Code::E010,
        Code::E011,
        Code::E012,
        Code::E020,
        Code::E021,
        Code::E022,
        Code::E023,
        Code::E024,
        Code::E025,
        Code::E026,
        Code::E030,
        Code::E031,
        Code::E032,
        Code::E033,
        Code::E034,
    ];
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// One problem found in a kernel.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub code: Code,
    pub span: Span,
    /// Lower-case, names the construct and the numbers, no trailing period.
    pub message: String,
    /// A fix that would pass, when there is one.
    pub help: Option<String>,
    /// The concrete edits the help line proposes, each checked to clear this diagnostic
    /// without bringing another (see [`crate::fix`]).
    pub fixes: Vec<crate::fix::Fix>,
}

impl Diagnostic {
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            span,
            message: message.into(),
            help: None,
            fixes: Vec::new(),
        }
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The message as rustc shows it: the code first, the help on its own line.
    pub fn compiler_message(&self) -> String {
        match &self.help {
            Some(help) => format!("[{}] {}\n= help: {}", self.code, self.message, help),
            None => format!("[{}] {}", self.code, self.message),
        }
    }

    /// This diagnostic as a `syn::Error` at its span, for `compile_error!`.
    pub fn to_syn_error(&self) -> syn::Error {
        syn::Error::new(self.span, self.compiler_message())
    }

    /// The span-free form: code, 1-based line and column, message and help.
    pub fn record(&self) -> DiagnosticRecord {
        let start = self.span.start();
        DiagnosticRecord {
            code: self.code,
            line: start.line,
            column: start.column + 1,
            message: self.message.clone(),
            help: self.help.clone(),
        }
    }
}

/// A diagnostic without its span: what reports, journals and tests keep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticRecord {
    pub code: Code,
    /// 1-based line in the source the diagnostic was found in.
    pub line: usize,
    /// 1-based column, in characters, as rustc counts them.
    pub column: usize,
    pub message: String,
    pub help: Option<String>,
}

/// All the diagnostics of one parse or check, in source order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.list.push(diagnostic);
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    /// The codes in order, handy for tests and metrics.
    pub fn codes(&self) -> Vec<Code> {
        self.list.iter().map(|d| d.code).collect()
    }

    /// Sorts by position so that output reads top to bottom.
    pub fn sort(&mut self) {
        self.list.sort_by_key(|d| {
            let start = d.span.start();
            (start.line, start.column, d.code)
        });
    }

    /// All diagnostics combined into one `syn::Error`, for the macro.
    pub fn to_syn_error(&self) -> syn::Error {
        let mut iter = self.list.iter().map(Diagnostic::to_syn_error);
        let mut first = iter
            .next()
            .unwrap_or_else(|| syn::Error::new(Span::call_site(), "kernel rejected"));
        for error in iter {
            first.combine(error);
        }
        first
    }

    pub fn records(&self) -> Vec<DiagnosticRecord> {
        self.list.iter().map(Diagnostic::record).collect()
    }

    /// Renders every diagnostic as rustc does, with a caret excerpt of `source`, the
    /// text the spans were parsed from.
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        for diagnostic in &self.list {
            render_one(diagnostic, source, &mut out);
        }
        out
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Self {
        Diagnostics {
            list: vec![diagnostic],
        }
    }
}

impl fmt::Display for Diagnostics {
    /// Without the source text: one `error[CODE] line:column: message` line each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for record in self.records() {
            writeln!(
                f,
                "error[{}] {}:{}: {}",
                record.code, record.line, record.column, record.message
            )?;
            if let Some(help) = &record.help {
                writeln!(f, "  = help: {help}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

fn render_one(diagnostic: &Diagnostic, source: &str, out: &mut String) {
    use std::fmt::Write as _;
    let start = diagnostic.span.start();
    let end = diagnostic.span.end();
    let _ = writeln!(out, "error[{}]: {}", diagnostic.code, diagnostic.message);
    let line_text = source.lines().nth(start.line.saturating_sub(1));
    match line_text {
        Some(text) => {
            let number = start.line.to_string();
            let pad = " ".repeat(number.len());
            let width = if end.line == start.line && end.column > start.column {
                end.column - start.column
            } else {
                1
            };
            let _ = writeln!(
                out,
                "{pad}--> line {}, column {}",
                start.line,
                start.column + 1
            );
            let _ = writeln!(out, "{pad} |");
            let _ = writeln!(out, "{number} | {text}");
            let indent: String = text
                .chars()
                .take(start.column)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "{pad} | {indent}{}", "^".repeat(width));
            if let Some(help) = &diagnostic.help {
                let _ = writeln!(out, "{pad} = help: {help}");
            }
        }
        None => {
            if let Some(help) = &diagnostic.help {
                let _ = writeln!(out, "  = help: {help}");
            }
        }
    }
    out.push('\n');
}

/// The closest candidate to `name` by edit distance, when one is close enough to be
/// the likely intent.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let score =
            strsim::jaro_winkler(&name.to_ascii_lowercase(), &candidate.to_ascii_lowercase());
        if score >= 0.75 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// "did you mean `x`" or a list of what is allowed, for a help line.
pub fn suggestion(name: &str, candidates: &[&str]) -> String {
    match did_you_mean(name, candidates.iter().copied()) {
        Some(best) => format!("did you mean `{best}`?"),
        None => format!("expected one of {}", list(candidates)),
    }
}

/// `a`, `b` and `c` as "`a`, `b`, `c`".
pub fn list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|s| format!("`{}`", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
