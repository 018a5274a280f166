//! What the parser does on the raw token stream, around syn: the nesting depth is
//! measured before syn sees the tokens, and a missing `;` is pointed at afterwards.
//! Both walk the tokens with an explicit stack, since the input may nest deeper than
//! any recursion survives.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use super::expr::{self, MAX_EXPR_DEPTH};
use crate::diag::{Code, Diagnostic, Diagnostics, SpanKey};

/// The deepest nesting of delimiters (`(`, `[`, `{`) the parser accepts. syn builds
/// its view of the tokens recursively, one stack frame per level, so the depth is
/// measured without recursion before syn sees them. It leaves room for every
/// expression [`MAX_EXPR_DEPTH`](super::MAX_EXPR_DEPTH) allows inside a kernel body.
pub const MAX_GROUP_DEPTH: usize = MAX_EXPR_DEPTH + 8;

/// syn reports a missing `;` at the token after it, which for an item at the end of its
/// line is the first token of the next line, or the `}` closing the block. rustc
/// points at the item's end instead and says what to add; so does this, on both paths.
pub(super) fn point_missing_semicolons(tokens: &TokenStream, diagnostics: &mut Diagnostics) {
    let missing = |d: &Diagnostic| d.code == Code::E001 && d.message == "expected `;`";
    if !diagnostics.list.iter().any(missing) {
        return;
    }
    let flat = flat_tokens(tokens);
    // Each diagnostic is taken by value, so that its help is attached by the builder.
    let list = std::mem::take(&mut diagnostics.list);
    diagnostics.list = list
        .into_iter()
        .map(|diagnostic| {
            if missing(&diagnostic) {
                point_at_previous(diagnostic, &flat)
            } else {
                diagnostic
            }
        })
        .collect();
    diagnostics.sort();
}

/// A missing `;` reported at the first token of a line, moved to the token before it
/// on an earlier line, with a help saying what to add there.
fn point_at_previous(mut diagnostic: Diagnostic, flat: &[FlatToken]) -> Diagnostic {
    let at = SpanKey::of(diagnostic.span);
    let Some(next) = flat.iter().position(|token| token.keys.contains(&at)) else {
        return diagnostic;
    };
    let Some(previous) = next.checked_sub(1).map(|index| &flat[index]) else {
        return diagnostic;
    };
    if previous.span.end().line >= diagnostic.span.start().line {
        return diagnostic;
    }
    diagnostic.span = previous.span;
    diagnostic.help(format!("add `;` after `{}`", previous.text))
}

/// A leaf token or one delimiter of a group, in source order.
struct FlatToken {
    span: Span,
    /// The spans syn may report this token at (for an opening delimiter, also the
    /// whole group's).
    keys: Vec<SpanKey>,
    text: String,
}

/// Every token of `tokens` in order, delimiters included, without recursion.
fn flat_tokens(tokens: &TokenStream) -> Vec<FlatToken> {
    let mut flat = Vec::new();
    let mut stack = vec![(tokens.clone().into_iter(), None)];
    while let Some((level, close)) = stack.last_mut() {
        match level.next() {
            Some(TokenTree::Group(group)) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                let keys = vec![SpanKey::of(group.span_open()), SpanKey::of(group.span())];
                flat.push(FlatToken {
                    span: group.span_open(),
                    keys,
                    text: open.to_string(),
                });
                let close = FlatToken {
                    span: group.span_close(),
                    keys: vec![SpanKey::of(group.span_close())],
                    text: close.to_string(),
                };
                stack.push((group.stream().into_iter(), Some(close)));
            }
            Some(token) => flat.push(FlatToken {
                span: token.span(),
                keys: vec![SpanKey::of(token.span())],
                text: token.to_string(),
            }),
            None => {
                if let Some(close) = close.take() {
                    flat.push(close);
                }
                stack.pop();
            }
        }
    }
    flat
}

/// E007 at the first delimiter nested deeper than [`MAX_GROUP_DEPTH`], found with an
/// explicit stack: the input may be nested far deeper than any recursion survives.
pub(super) fn too_deeply_nested(tokens: &TokenStream) -> Option<Diagnostic> {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(level) = stack.last_mut() {
        match level.next() {
            Some(TokenTree::Group(group)) if stack.len() > MAX_GROUP_DEPTH => {
                return Some(too_deep_group(group.span_open()));
            }
            Some(TokenTree::Group(group)) => stack.push(group.stream().into_iter()),
            Some(_) => {}
            None => drop(stack.pop()),
        }
    }
    None
}

fn too_deep_group(span: Span) -> Diagnostic {
    Diagnostic::new(
        Code::E007,
        span,
        format!("delimiters nest deeper than {MAX_GROUP_DEPTH} levels"),
    )
    .help(expr::TOO_DEEP_HELP)
}
