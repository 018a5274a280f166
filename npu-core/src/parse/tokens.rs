//! What the parser does on the raw token stream before syn sees it: the nesting depth
//! is measured with an explicit stack, since the input may nest deeper than any
//! recursion survives.

use proc_macro2::{Span, TokenStream, TokenTree};

use super::{MAX_GROUP_DEPTH, expr};
use crate::diag::{Code, Diagnostic};

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
