//! Diagnostics as text, drawn as rustc draws them: the message, the position, each
//! line the diagnostic marks with `^` under the offending token and `-` under each
//! labelled secondary span with its label, then the notes and the help.

use std::fmt::Write as _;

use proc_macro2::LineColumn;

use super::{Diagnostic, Diagnostics, EXCERPT_CHARS};

impl Diagnostics {
    /// Renders the diagnostics [`shown`](Self::shown) as rustc does, with a caret
    /// excerpt of `source`, the text the spans were parsed from.
    pub fn render(&self, source: &str) -> String {
        self.render_at(source, None)
    }

    /// As [`render`](Self::render), each diagnostic headed by its position in the
    /// file `path` as compilers print it, `PATH:LINE:COLUMN: error[CODE]: message`,
    /// which editors, terminals and `grep` follow.
    pub fn render_in(&self, source: &str, path: &str) -> String {
        self.render_at(source, Some(path))
    }

    fn render_at(&self, source: &str, path: Option<&str>) -> String {
        let lines = line_starts(source);
        let mut out = String::new();
        for diagnostic in self.shown() {
            render_one(&diagnostic, (source, path), &lines, &mut out);
        }
        out
    }
}

/// One marked span: where, the marker character, and its label.
struct Mark<'d> {
    start: LineColumn,
    end: LineColumn,
    marker: char,
    label: Option<&'d str>,
}

/// Renders `diagnostic` against `source` (read from `path`, if named), whose lines
/// start at `lines`, into `out`.
fn render_one(
    diagnostic: &Diagnostic,
    (source, path): (&str, Option<&str>),
    lines: &[usize],
    out: &mut String,
) {
    let start = diagnostic.start();
    if let Some(path) = path {
        let _ = write!(out, "{path}:{}:{}: ", start.line, start.column + 1);
    }
    let _ = writeln!(out, "error[{}]: {}", diagnostic.code, diagnostic.message);
    if line_text(source, lines, start.line).is_none() {
        footer(diagnostic, " ", out);
        return;
    }
    let marks = marks(diagnostic, source, lines);
    let digits = marks
        .iter()
        .map(|m| m.start.line.to_string().len())
        .max()
        .unwrap_or(1);
    let pad = " ".repeat(digits);
    if path.is_none() {
        let _ = writeln!(
            out,
            "{pad}--> line {}, column {}",
            start.line,
            start.column + 1
        );
    }
    let _ = writeln!(out, "{pad} |");
    let mut shown_line: Option<(usize, String)> = None;
    for mark in &marks {
        let line = mark.start.line;
        let text = line_text(source, lines, line).unwrap_or_default();
        let width = if mark.end.line == line && mark.end.column > mark.start.column {
            mark.end.column - mark.start.column
        } else {
            1
        };
        let (shown, indent, width) = excerpt(text, mark.start.column, width);
        if shown_line.as_ref() != Some(&(line, shown.clone())) {
            let _ = writeln!(out, "{line:>digits$} | {shown}");
            shown_line = Some((line, shown));
        }
        let markers = mark.marker.to_string().repeat(width);
        let label = mark.label.map(|l| format!(" {l}")).unwrap_or_default();
        let _ = writeln!(out, "{pad} | {indent}{markers}{label}");
    }
    footer(diagnostic, &pad, out);
}

/// The spans `diagnostic` marks on lines of `source`, in the order they are drawn: the
/// primary span with `^`, each label's with `-`.
fn marks<'d>(diagnostic: &'d Diagnostic, source: &str, lines: &[usize]) -> Vec<Mark<'d>> {
    let mut marks = vec![Mark {
        start: diagnostic.start(),
        end: diagnostic.end(),
        marker: '^',
        label: None,
    }];
    marks.extend(diagnostic.labels.iter().map(|label| Mark {
        start: label.start(),
        end: label.end(),
        marker: '-',
        label: Some(label.text.as_str()),
    }));
    marks.retain(|mark| line_text(source, lines, mark.start.line).is_some());
    // Stable: the primary mark stays first among marks at one position.
    marks.sort_by_key(|mark| (mark.start.line, mark.start.column));
    marks
}

/// The lines under the excerpt, indented by `pad` as its gutter is: each note, then
/// the help, as rustc orders them; then the blank line that ends the diagnostic.
fn footer(diagnostic: &Diagnostic, pad: &str, out: &mut String) {
    for note in &diagnostic.notes {
        let _ = writeln!(out, "{pad} = note: {note}");
    }
    if let Some(help) = &diagnostic.help {
        let _ = writeln!(out, "{pad} = help: {help}");
    }
    out.push('\n');
}

/// Line `line` (1-based) of `source` without its line break, if there is one.
fn line_text<'s>(source: &'s str, lines: &[usize], line: usize) -> Option<&'s str> {
    let index = line.checked_sub(1)?;
    let from = *lines.get(index)?;
    let to = lines.get(index + 1).copied().unwrap_or(source.len());
    Some(source[from..to].trim_end_matches(['\n', '\r']))
}

/// The byte offset of the start of each line of `source`, as `str::lines` counts them
/// (no empty line after a final newline).
fn line_starts(source: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(source.match_indices('\n').map(|(at, _)| at + 1))
        .filter(|&start| start < source.len())
        .collect()
}

/// The part of `line` to show for a caret at character `column`, `width` characters
/// wide: the whole line when it is short, else a window of [`EXCERPT_CHARS`] around
/// the caret with `…` where it was cut. Returns the text, the caret's indent (tabs
/// kept, so that it lines up) and the caret's width within the window.
fn excerpt(line: &str, column: usize, width: usize) -> (String, String, usize) {
    let indent_of = |text: &str| -> String {
        text.chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect()
    };
    let chars = line.chars().count();
    if chars <= EXCERPT_CHARS {
        let before: String = line.chars().take(column).collect();
        return (line.to_string(), indent_of(&before), width);
    }
    // Show a third of the window before the caret, the rest from it on.
    let first = column.saturating_sub(EXCERPT_CHARS / 3).min(chars);
    let last = (first + EXCERPT_CHARS).min(chars);
    let window: String = line.chars().skip(first).take(last - first).collect();
    let before: String = window.chars().take(column - first).collect();
    let mut shown = String::new();
    let mut indent = String::new();
    if first > 0 {
        shown.push('…');
        indent.push(' ');
    }
    shown.push_str(&window);
    if last < chars {
        shown.push('…');
    }
    indent.push_str(&indent_of(&before));
    let width = width.min(last.saturating_sub(column)).max(1);
    (shown, indent, width)
}
