//! What the macro emits besides the errors when a kernel does not check: a stub of the
//! module a checked kernel would have produced, so that code elsewhere in the crate that
//! calls `vmla::reference(..)` or reads `vmla::SCHEDULES` sees no second wave of "cannot
//! find" errors, only the kernel's own diagnostics.
//!
//! The stub is read from the raw tokens, tolerantly, because the parser may have given
//! up early: whatever of `kernel NAME(inputs) -> outputs` and the `schedule NAME` headers
//! can be recognised is used, and the rest is left out. A dtype that is misspelled is
//! typed as its likely intent (`fp16` as `f16`), and an unrecognisable one loosely, so
//! calls type-check as they will once the kernel is fixed. Without a kernel name there
//! is no stub, only the errors.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::quote;

use npu_core::Dtype;
use npu_core::internal::did_you_mean;

use crate::expand::{self, Bodies, Interface, Port};

/// The stub module for a kernel that did not check, or nothing when even its name is
/// unreadable.
pub(crate) fn stub(input: &TokenStream) -> TokenStream {
    let Some(signature) = scan(input) else {
        return TokenStream::new();
    };
    let name = expand::unraw(&signature.name);
    let interface = Interface {
        doc: format!(
            "The `{name}` kernel, which did not compile: see the errors at its definition."
        ),
        name: signature.name,
        source: String::new(),
        target_toml: quote!(""),
        schedules: signature.schedules,
        inputs: signature
            .inputs
            .into_iter()
            .map(|(name, dtype, scalar)| port(name, dtype, scalar, true))
            .collect(),
        outputs: signature
            .outputs
            .into_iter()
            .map(|(name, dtype, scalar)| port(name, dtype, scalar, false))
            .collect(),
    };
    let message = format!("kernel `{name}` did not compile");
    let unreachable = quote!(::core::panic!(#message));
    // The stub's functions never run (the crate does not compile), but they take their
    // arguments, so that rustc does not add "unused variable" warnings to the errors.
    let params = interface.inputs.iter().map(|port| &port.name);
    let bodies = Bodies {
        kernel: unreachable.clone(),
        reference: quote!(let _ = (#(#params,)*); #unreachable),
        reference_host: quote!(let _ = inputs; #unreachable),
        helpers: TokenStream::new(),
    };
    expand::module(&interface, &bodies)
}

/// What could be read of a kernel's signature.
struct Signature {
    name: Ident,
    inputs: Vec<Param>,
    outputs: Vec<Param>,
    schedules: Vec<String>,
}

/// Finds `kernel NAME (..) -> ..` and `schedule NAME` at the top level of the input.
fn scan(input: &TokenStream) -> Option<Signature> {
    let tokens: Vec<TokenTree> = input.clone().into_iter().collect();
    let start = tokens.iter().position(|t| is_word(t, "kernel"))?;
    let name = tokens.get(start + 1).and_then(identifier)?;
    let mut signature = Signature {
        name,
        inputs: Vec::new(),
        outputs: Vec::new(),
        schedules: Vec::new(),
    };
    let mut rest = &tokens[start + 2..];
    if let Some(TokenTree::Group(group)) = rest.first()
        && group.delimiter() == Delimiter::Parenthesis
    {
        signature.inputs = params(&group.stream());
        rest = &rest[1..];
    }
    if let [TokenTree::Punct(dash), TokenTree::Punct(arrow), after @ ..] = rest
        && dash.as_char() == '-'
        && arrow.as_char() == '>'
    {
        signature.outputs = match after.first() {
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => {
                params(&group.stream())
            }
            _ => params(&after.iter().take_while(|t| !is_brace(t)).cloned().collect()),
        };
    }
    for pair in tokens[start..].windows(2) {
        if is_word(&pair[0], "schedule")
            && let Some(name) = identifier(&pair[1])
        {
            signature.schedules.push(expand::unraw(&name));
        }
    }
    dedup(&mut signature.inputs);
    dedup(&mut signature.outputs);
    Some(signature)
}

/// A parameter as far as it could be read: its name, its dtype, and whether it is a
/// scalar (`name: dtype`, no brackets).
type Param = (Ident, Option<Ident>, bool);

/// `name: [dtype; ..]` or `name: dtype`, ..., skipping what does not read as a parameter.
fn params(stream: &TokenStream) -> Vec<Param> {
    let tokens: Vec<TokenTree> = stream.clone().into_iter().collect();
    tokens
        .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .filter_map(|param| {
            let name = identifier(param.first()?)?;
            let (dtype, scalar) = match param.get(2) {
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => {
                    (first_ident(group), false)
                }
                Some(TokenTree::Ident(dtype)) => (Some(dtype.clone()), true),
                _ => (None, false),
            };
            Some((name, dtype, scalar))
        })
        .collect()
}

/// A stub port: the dtype's Rust type, its likely intent when misspelled, or for an
/// input a loose `impl Sized` element that accepts any slice (or any scalar).
fn port(name: Ident, dtype: Option<Ident>, scalar: bool, is_input: bool) -> Port {
    let written = dtype.map(|d| d.to_string());
    let dtype = written
        .as_deref()
        .and_then(|w| did_you_mean(w, Dtype::NAMES))
        .and_then(Dtype::from_name);
    let element = match dtype {
        Some(dtype) => expand::rust_type(dtype),
        None if is_input => quote!(impl ::core::marker::Sized),
        None => quote!(::core::primitive::f32),
    };
    let declared = written.unwrap_or_else(|| "?".into());
    Port {
        name,
        element,
        declared: if scalar {
            declared
        } else {
            format!("[{declared}; ..]")
        },
        scalar,
    }
}

/// Later parameters with an earlier one's name are left out: the duplicate is already
/// an error of its own, and twice the same argument name would be another.
fn dedup(params: &mut Vec<Param>) {
    let mut seen = Vec::new();
    params.retain(|(name, _, _)| {
        let text = name.to_string();
        let fresh = !seen.contains(&text);
        seen.push(text);
        fresh
    });
}

fn first_ident(group: &Group) -> Option<Ident> {
    match group.stream().into_iter().next()? {
        TokenTree::Ident(ident) => Some(ident),
        _ => None,
    }
}

/// An identifier Rust accepts as a name: not a keyword, not `_`.
fn identifier(token: &TokenTree) -> Option<Ident> {
    match token {
        TokenTree::Ident(ident) => syn::parse2::<syn::Ident>(token.clone().into())
            .ok()
            .map(|_| ident.clone()),
        _ => None,
    }
}

fn is_word(token: &TokenTree, word: &str) -> bool {
    matches!(token, TokenTree::Ident(ident) if ident == word)
}

fn is_brace(token: &TokenTree) -> bool {
    matches!(token, TokenTree::Group(group) if group.delimiter() == Delimiter::Brace)
}
