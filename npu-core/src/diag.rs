//! Diagnostics: what the parser and checker say about a kernel, with stable codes.
//!
//! A [`Diagnostic`] carries the span of the offending token. The macro turns it into a
//! `compile_error!` at that token; the string API renders it as text with line, column
//! and a caret excerpt ([`Diagnostics::render`]), the form an LLM sees in its feedback.
//! [`Diagnostics::records`] gives the span-free, serialisable form reports store.
//!
//! What is shown is bounded, however broken the input: the first
//! [`MAX_SHOWN_PER_CODE`] diagnostics of each code, then one "and N more" summary, and
//! each excerpt is a window of at most [`EXCERPT_CHARS`] characters around its caret.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use proc_macro2::{LineColumn, Span};
use serde::{Deserialize, Serialize};

mod render;

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
    /// Expressions or delimiters nested deeper than the parser's limit.
    E007,
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
    /// An intermediate (`let`) the schedule cannot keep on chip: staged, or consumed
    /// along an axis the schedule splits.
    E035,
    /// A gather the DSL or the schedule cannot run: nested, in a padded view, along
    /// two dimensions, from an intermediate, or a table whose rows do not fit on chip.
    E037,
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
            Code::E007 => "nesting too deep",
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
            Code::E035 => "intermediate not kept on chip",
            Code::E037 => "unsupported gather",
        }
    }

    /// Every code, in order.
    pub const ALL: [Code; 24] = [
        Code::E001,
        Code::E002,
        Code::E003,
        Code::E004,
        Code::E005,
        Code::E006,
        Code::E007,
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
        Code::E035,
        Code::E037,
    ];
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Diagnostics of one code shown before the rest are summed up in one diagnostic.
pub const MAX_SHOWN_PER_CODE: usize = 20;

/// Characters of a source line an excerpt shows at most; a longer line is cut to a
/// window around the caret.
pub const EXCERPT_CHARS: usize = 120;

/// A span's identity, to find a token again: where it starts and ends, in lines and
/// columns. `Span` has no equality of its own, and two tokens of one input never share
/// both ends (rustc gives proc macros these positions since 1.88).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpanKey {
    start: (usize, usize),
    end: (usize, usize),
}

impl SpanKey {
    /// The key of `span`.
    pub fn of(span: Span) -> SpanKey {
        let (start, end) = (span.start(), span.end());
        SpanKey {
            start: (start.line, start.column),
            end: (end.line, end.column),
        }
    }
}

/// One problem found in a kernel.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The stable code docs, tests and the knowledge base refer to.
    pub code: Code,
    /// The offending tokens: where the caret goes.
    pub span: Span,
    /// Lower-case, names the construct and the numbers, no trailing period.
    pub message: String,
    /// A fix that would pass, when there is one. Attached with [`help`](Self::help),
    /// the one way to attach it.
    pub help: Option<String>,
    /// The concrete edits the help line proposes, each checked to clear this diagnostic
    /// without bringing another (see [`crate::fix`]).
    pub fixes: Vec<crate::fix::Fix>,
    /// Secondary spans that explain the primary one, each with what it says there.
    pub labels: Vec<Label>,
    /// Context that is neither the problem nor the fix: why a rule exists, how a
    /// number was counted. Lower-case, no trailing period, like the message.
    pub notes: Vec<String>,
    /// The span's position, once [`Diagnostics::detach`] has read it; from then on the
    /// span is `Span::call_site()` and this is the only position.
    location: Option<(LineColumn, LineColumn)>,
}

impl Diagnostic {
    /// A diagnostic of `code` at `span` with no help, labels or notes; attach those
    /// with the builders before it is reported.
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            span,
            message: message.into(),
            help: None,
            fixes: Vec::new(),
            labels: Vec::new(),
            notes: Vec::new(),
            location: None,
        }
    }

    /// Adds a secondary span labelled `text`.
    pub fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label::new(span, text));
        self
    }

    /// Where the diagnostic starts: 1-based line, 0-based column in characters.
    pub fn start(&self) -> LineColumn {
        ends(self.span, self.location).0
    }

    /// Where the diagnostic ends, as [`start`](Self::start) counts.
    pub fn end(&self) -> LineColumn {
        ends(self.span, self.location).1
    }

    /// Attaches the help: what to change so that the diagnostic goes away. This is the
    /// one way to attach a help, so that a diagnostic is built whole before it is
    /// reported.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a note: context that explains the diagnostic without being the problem or
    /// the fix (rustc's `= note:` lines). Notes are shown in the order they are added.
    pub fn note(mut self, text: impl Into<String>) -> Self {
        self.notes.push(text.into());
        self
    }

    /// Attaches the fixes a recheck found to clear this diagnostic and the help line
    /// that proposes them, or `fallback` when none was found. The schedule checker
    /// can only recheck candidates once every rule has run, after the diagnostic was
    /// reported (see `schedule::help`); this is the one way it sets the help then.
    pub(crate) fn resolve_fixes(&mut self, fixes: Vec<crate::fix::Fix>, fallback: String) {
        self.help = Some(if fixes.is_empty() {
            fallback
        } else {
            let texts: Vec<String> = fixes.iter().map(ToString::to_string).collect();
            texts.join(", or ")
        });
        self.fixes = fixes;
    }

    /// The diagnostic [`Diagnostics::shown`] puts in this one's place when it is the
    /// first of its code past [`MAX_SHOWN_PER_CODE`]: at its position, counting the
    /// `omitted` ones. It keeps none of this diagnostic's labels, notes or fixes,
    /// which are about a problem it does not show.
    fn summary(&self, omitted: usize) -> Diagnostic {
        let message = format!("and {omitted} more {} errors not shown", self.code.title());
        Diagnostic {
            location: self.location,
            ..Diagnostic::new(self.code, self.span, message)
        }
        .help("fix the ones shown and check again")
    }

    /// The message as rustc shows it: the code first, then each note and the help on a
    /// line of its own, in rustc's order.
    pub fn compiler_message(&self) -> String {
        let mut text = format!("[{}] {}", self.code, self.message);
        for note in &self.notes {
            text.push_str(&format!("\n= note: {note}"));
        }
        if let Some(help) = &self.help {
            text.push_str(&format!("\n= help: {help}"));
        }
        text
    }

    /// This diagnostic as a `syn::Error` at its span, for `compile_error!`, and one
    /// more at each label's span on another line, saying the label and what it belongs
    /// to: a stable procedural macro cannot give an error a secondary span, so a second
    /// place elsewhere gets its own marker, as close as rustc's output comes to a `-`
    /// label. A label on the primary span's line is left to the message and its notes.
    pub fn to_syn_error(&self) -> syn::Error {
        let mut error = syn::Error::new(self.span, self.compiler_message());
        if self.labels.is_empty() {
            // Nothing to place: the span is not read (outside a procedural macro it may
            // belong to a span table already freed).
            return error;
        }
        let line = self.start().line;
        for label in self.labels.iter().filter(|l| l.start().line != line) {
            error.combine(syn::Error::new(
                label.span,
                format!("[{}] {} (for: {})", self.code, label.text, self.message),
            ));
        }
        error
    }

    /// The span-free form: code, 1-based line and column, message, help, labels and
    /// notes.
    pub fn record(&self) -> DiagnosticRecord {
        let start = self.start();
        DiagnosticRecord {
            code: self.code,
            line: start.line,
            column: start.column + 1,
            message: self.message.clone(),
            help: self.help.clone(),
            labels: self.labels.iter().map(Label::record).collect(),
            notes: self.notes.clone(),
        }
    }
}

/// A secondary span of a diagnostic and what it says there (rustc's `-` marks).
#[derive(Clone, Debug)]
pub struct Label {
    /// The tokens the label marks.
    pub span: Span,
    /// What the label says there, lower-case.
    pub text: String,
    /// As [`Diagnostic`]'s: the position once [`Diagnostics::detach`] has read it.
    location: Option<(LineColumn, LineColumn)>,
}

impl Label {
    /// A label at `span` saying `text`.
    pub fn new(span: Span, text: impl Into<String>) -> Label {
        Label {
            span,
            text: text.into(),
            location: None,
        }
    }

    /// Where the label starts, as [`Diagnostic::start`] counts.
    pub fn start(&self) -> LineColumn {
        ends(self.span, self.location).0
    }

    /// Where the label ends.
    pub fn end(&self) -> LineColumn {
        ends(self.span, self.location).1
    }

    fn record(&self) -> LabelRecord {
        let start = self.start();
        LabelRecord {
            line: start.line,
            column: start.column + 1,
            text: self.text.clone(),
        }
    }
}

/// Where `span` starts and ends, or the position [`detach`] read out of it.
fn ends(span: Span, location: Option<(LineColumn, LineColumn)>) -> (LineColumn, LineColumn) {
    location.unwrap_or_else(|| (span.start(), span.end()))
}

/// Reads `span`'s position into `location` and leaves `Span::call_site()` in its place.
fn detach(span: &mut Span, location: &mut Option<(LineColumn, LineColumn)>) {
    if location.is_none() {
        *location = Some((span.start(), span.end()));
        *span = Span::call_site();
    }
}

/// A diagnostic without its span: what reports, journals and tests keep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticRecord {
    /// As [`Diagnostic::code`].
    pub code: Code,
    /// 1-based line in the source the diagnostic was found in.
    pub line: usize,
    /// 1-based column, in characters, as rustc counts them.
    pub column: usize,
    /// As [`Diagnostic::message`].
    pub message: String,
    /// As [`Diagnostic::help`].
    pub help: Option<String>,
    /// The labelled secondary spans, when there are any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<LabelRecord>,
    /// The notes, when there are any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A label without its span.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelRecord {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// As [`Label::text`].
    pub text: String,
}

/// All the diagnostics of one parse or check, in source order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    /// Every diagnostic found, in the order found until [`sort`](Self::sort)ed.
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Adds a diagnostic at the end.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.list.push(diagnostic);
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many there are, shown or not.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Every diagnostic, shown or not, in list order.
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
            let start = d.start();
            (start.line, start.column, d.code)
        });
    }

    /// Reads every position out of its span and leaves `Span::call_site()` in its place,
    /// so that the diagnostics stay right after the thread's span table is released
    /// (see [`crate::check_source`]). Positions and rendering are unchanged.
    pub fn detach(&mut self) {
        for diagnostic in &mut self.list {
            detach(&mut diagnostic.span, &mut diagnostic.location);
            for label in &mut diagnostic.labels {
                detach(&mut label.span, &mut label.location);
            }
        }
    }

    /// The diagnostics as shown: in order, the first [`MAX_SHOWN_PER_CODE`] of each
    /// code, and in place of the first one past that, a summary that counts the rest.
    pub fn shown(&self) -> Vec<Cow<'_, Diagnostic>> {
        let mut counts: BTreeMap<Code, usize> = BTreeMap::new();
        let mut summaries: BTreeMap<Code, usize> = BTreeMap::new();
        let mut shown = Vec::new();
        for diagnostic in &self.list {
            let count = counts.entry(diagnostic.code).or_default();
            *count += 1;
            if *count <= MAX_SHOWN_PER_CODE {
                shown.push(Cow::Borrowed(diagnostic));
            } else if *count == MAX_SHOWN_PER_CODE + 1 {
                summaries.insert(diagnostic.code, shown.len());
                shown.push(Cow::Borrowed(diagnostic));
            }
        }
        for (code, index) in summaries {
            let omitted = counts[&code] - MAX_SHOWN_PER_CODE;
            shown[index] = Cow::Owned(shown[index].summary(omitted));
        }
        shown
    }

    /// All diagnostics shown combined into one `syn::Error`, for the macro.
    pub fn to_syn_error(&self) -> syn::Error {
        let shown = self.shown();
        let mut iter = shown.iter().map(|d| d.to_syn_error());
        let mut first = iter
            .next()
            .unwrap_or_else(|| syn::Error::new(Span::call_site(), "kernel rejected"));
        for error in iter {
            first.combine(error);
        }
        first
    }

    /// The records of the diagnostics [`shown`](Self::shown).
    pub fn records(&self) -> Vec<DiagnosticRecord> {
        self.shown().iter().map(|d| d.record()).collect()
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
    /// Without the source text: one `error[CODE] line:column: message` line each, then
    /// its notes and its help.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for record in self.records() {
            writeln!(
                f,
                "error[{}] {}:{}: {}",
                record.code, record.line, record.column, record.message
            )?;
            for note in &record.notes {
                writeln!(f, "  = note: {note}")?;
            }
            if let Some(help) = &record.help {
                writeln!(f, "  = help: {help}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
