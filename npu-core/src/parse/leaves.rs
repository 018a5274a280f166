//! The leaves of the grammar the kernel, expression and schedule parsers share:
//! numbers, names that are Rust keywords, and subscripts (`[i, 2*k + 1, idx[j]]`).

use syn::parse::ParseStream;
use syn::{Ident, LitInt, Token, bracketed};

use crate::ast::*;

/// The keywords of the kernel and schedule grammar; the expression parser declares its own.
pub(super) mod kw {
    syn::custom_keyword!(kernel);
    syn::custom_keyword!(target);
    syn::custom_keyword!(schedule);
    syn::custom_keyword!(parallel);
    syn::custom_keyword!(over);
    syn::custom_keyword!(cores);
    syn::custom_keyword!(split);
    syn::custom_keyword!(by);
    syn::custom_keyword!(stage);
    syn::custom_keyword!(depth);
    syn::custom_keyword!(cube);
    syn::custom_keyword!(tail);
    syn::custom_keyword!(order);
    syn::custom_keyword!(x);
    syn::custom_keyword!(variants);
    syn::custom_keyword!(from);
}

/// The E001 for a Rust keyword where a name should be (`in`, `type`): it says so and
/// names the raw identifier that works.
pub(super) fn keyword_as_name(input: ParseStream) -> Option<syn::Error> {
    use syn::ext::IdentExt;
    if input.peek(Ident) || !input.peek(Ident::peek_any) {
        return None;
    }
    let keyword = input.fork().call(Ident::parse_any).ok()?;
    if keyword == "_" {
        return None;
    }
    Some(syn::Error::new(
        keyword.span(),
        format!(
            "`{keyword}` is a Rust keyword, which cannot name a tensor: write `r#{keyword}` or use another name"
        ),
    ))
}

pub(super) fn number(input: ParseStream) -> syn::Result<Number> {
    let lit: LitInt = input.parse()?;
    Ok(Number {
        value: integer(&lit)?,
        span: lit.span(),
    })
}

// syn reads `-64` as one negative literal, and Rust's message for it, "invalid digit
// found in string", does not say what is wrong.
pub(super) fn integer(lit: &LitInt) -> syn::Result<u64> {
    lit.base10_parse::<u64>().map_err(|_| {
        let message = if lit.base10_digits().starts_with('-') {
            format!("expected a non-negative integer, found `{lit}`")
        } else {
            format!("integer `{lit}` does not fit in 64 bits")
        };
        syn::Error::new(lit.span(), message)
    })
}

// subscripts := '[' index (',' index)* ']'
pub(super) fn subscripts(input: ParseStream) -> syn::Result<Vec<Index>> {
    let content;
    bracketed!(content in input);
    index_list(&content)
}

// The inside of `[..]`: index (',' index)*
fn index_list(content: ParseStream) -> syn::Result<Vec<Index>> {
    let mut indices = Vec::new();
    while !content.is_empty() {
        indices.push(index(content)?);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if indices.is_empty() {
        return Err(content.error("expected at least one subscript"));
    }
    Ok(indices)
}

// index := IDENT '[' index (',' index)* ']'          (a gather: `idx[i]`)
//          | term (('+' | '-') term)*
// term  := INT | IDENT | INT '*' IDENT | IDENT '*' INT
// One term alone is a plain axis or a fixed position; anything more is an affine form
// whose constants fold into one offset. Axes take positive coefficients only.
fn index(input: ParseStream) -> syn::Result<Index> {
    let span = input.span();
    if input.peek(Ident) && input.peek2(syn::token::Bracket) {
        // A nested gather `x[a[b[i]]]` parses; the checker refuses it (E037).
        let tensor: Ident = input.parse()?;
        let indices = subscripts(input)?;
        return Ok(Index::Gather(Gather { tensor, indices }));
    }
    let mut terms = Vec::new();
    let mut offset: i64 = 0;
    let mut constants = 0;
    let mut negative = false;
    loop {
        let lookahead = input.lookahead1();
        if lookahead.peek(Ident) {
            let axis: Ident = input.parse()?;
            let mut coefficient = 1;
            if input.peek(Token![*]) {
                input.parse::<Token![*]>()?;
                coefficient = coefficient_after(input)?;
            }
            if negative {
                return Err(syn::Error::new(
                    axis.span(),
                    format!(
                        "axis `{axis}` is subtracted, but axes in a subscript take positive coefficients"
                    ),
                ));
            }
            terms.push(AffineTerm { coefficient, axis });
        } else if lookahead.peek(LitInt) {
            let value = number(input)?;
            if input.peek(Token![*]) {
                input.parse::<Token![*]>()?;
                let axis: Ident = input.parse()?;
                if value.value == 0 || negative {
                    return Err(syn::Error::new(
                        value.span,
                        format!("axis `{axis}` takes a positive coefficient"),
                    ));
                }
                terms.push(AffineTerm {
                    coefficient: value.value,
                    axis,
                });
            } else {
                let magnitude = i64::try_from(value.value).map_err(|_| {
                    syn::Error::new(value.span, "subscript constant does not fit in 63 bits")
                })?;
                let signed = if negative { -magnitude } else { magnitude };
                offset = offset.checked_add(signed).ok_or_else(|| {
                    syn::Error::new(value.span, "subscript constant does not fit in 63 bits")
                })?;
                constants += 1;
                if terms.is_empty()
                    && constants == 1
                    && !(input.peek(Token![+]) || input.peek(Token![-]))
                {
                    return Ok(Index::Const(value));
                }
            }
        } else {
            return Err(lookahead.error());
        }
        if input.peek(Token![+]) {
            input.parse::<Token![+]>()?;
            negative = false;
        } else if input.peek(Token![-]) {
            input.parse::<Token![-]>()?;
            negative = true;
        } else {
            break;
        }
    }
    if let ([term], 0, 0) = (terms.as_slice(), offset, constants)
        && term.coefficient == 1
    {
        return Ok(Index::Axis(term.axis.clone()));
    }
    Ok(Index::Affine(Affine {
        terms,
        offset,
        span,
    }))
}

// The integer after `IDENT *`.
fn coefficient_after(input: ParseStream) -> syn::Result<u64> {
    let value = number(input)?;
    if value.value == 0 {
        return Err(syn::Error::new(
            value.span,
            "an axis takes a positive coefficient",
        ));
    }
    Ok(value.value)
}
