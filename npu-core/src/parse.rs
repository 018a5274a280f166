//! The parser: tokens (from rustc) or text (from a file or an LLM) to a [`KernelDef`].
//!
//! One parser serves both sources: [`parse_tokens`] is `syn::parse2` and [`parse_str`]
//! is `syn::parse_str` over the same grammar, so the macro and the tuner can never
//! disagree. Text parsed with [`parse_str`] carries line and column spans (proc-macro2's
//! `span-locations`), which [`Diagnostics::render`](crate::Diagnostics::render) uses.
//!
//! The parser only checks structure. Names, dtypes and numbers are checked later, so
//! that one run reports every problem. An unknown schedule word is reported and the
//! parser skips to the next `;`, for the same reason (schedule items are parsed in
//! `schedule`, expressions in `expr`).
//!
//! Input of any depth is safe: delimiters nested deeper than [`MAX_GROUP_DEPTH`] are
//! refused before syn (which recurses on them) sees the tokens, and expressions deeper
//! than [`MAX_EXPR_DEPTH`] while they are parsed (see `expr`), both as E007 at the token
//! where the limit is passed. Every later pass recurses over expressions and relies on
//! this bound; a chain of operators (`a + b - c + ...`, up to [`MAX_CHAIN_TERMS`]
//! operands) is one node, whose operands the passes walk in a loop.

use proc_macro2::{LexError, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitStr, Token, braced, bracketed, parenthesized};

use crate::ast::*;
use crate::diag::{Code, Diagnostic, Diagnostics};

mod expr;
mod leaves;
mod schedule;
mod tokens;

pub use expr::{MAX_CHAIN_TERMS, MAX_EXPR_DEPTH};
use leaves::{keyword_as_name, kw, number, subscripts};
use schedule::schedule_body;
pub use tokens::MAX_GROUP_DEPTH;
use tokens::{point_missing_semicolons, too_deeply_nested};

/// Parses an `npu_kernel!` body from rustc's tokens.
pub fn parse_tokens(tokens: TokenStream) -> Result<KernelDef, Diagnostics> {
    strict(parse_tokens_partial(tokens))
}

/// Parses an `npu_kernel!` body from text.
pub fn parse_str(source: &str) -> Result<KernelDef, Diagnostics> {
    strict(parse_str_partial(source))
}

/// Parses text that holds only `schedule` blocks, as an LLM writes them.
pub fn parse_schedules_str(source: &str) -> Result<Vec<Schedule>, Diagnostics> {
    strict(run_text(source, schedules))
}

/// Like [`parse_tokens`], but also returns the tree when the only problems were
/// unknown schedule items the parser skipped, so the checker can report the rest.
pub fn parse_tokens_partial(tokens: TokenStream) -> (Option<KernelDef>, Diagnostics) {
    if let Some(too_deep) = too_deeply_nested(&tokens) {
        return (None, too_deep.into());
    }
    let (value, mut diagnostics) = run(tokens.clone(), kernel_def);
    point_missing_semicolons(&tokens, &mut diagnostics);
    (value, diagnostics)
}

/// Like [`parse_str`], but also returns the tree when the only problems were
/// unknown schedule items the parser skipped.
pub fn parse_str_partial(source: &str) -> (Option<KernelDef>, Diagnostics) {
    run_text(source, kernel_def)
}

fn strict<T>((value, diagnostics): (Option<T>, Diagnostics)) -> Result<T, Diagnostics> {
    match value {
        Some(value) if diagnostics.is_empty() => Ok(value),
        _ => Err(diagnostics),
    }
}

/// A parser of this grammar: it reads `input` and adds what it recovered from (an
/// unknown schedule word it skipped) to the list it is given.
type Grammar<T> = fn(ParseStream, &mut Vec<Diagnostic>) -> syn::Result<T>;

/// Runs `parser` over `tokens`: the value, with every problem found, the recovered
/// ones first.
fn run<T>(tokens: TokenStream, parser: Grammar<T>) -> (Option<T>, Diagnostics) {
    let mut recovered = Vec::new();
    let result = (|input: ParseStream| parser(input, &mut recovered)).parse2(tokens);
    let mut diagnostics = Diagnostics { list: recovered };
    match result {
        Ok(value) => (Some(value), diagnostics),
        Err(error) => {
            let (too_deep, too_long) = (expr::too_deep_message(), expr::too_long_message());
            for error in error {
                let message = error.to_string();
                diagnostics.push(if message == too_deep {
                    Diagnostic::new(Code::E007, error.span(), message).help(expr::TOO_DEEP_HELP)
                } else if message == too_long {
                    Diagnostic::new(Code::E007, error.span(), message).help(expr::TOO_LONG_HELP)
                } else {
                    Diagnostic::new(Code::E001, error.span(), message)
                });
            }
            diagnostics.sort();
            (None, diagnostics)
        }
    }
}

/// [`run`] over text, which has positions that rustc's tokens lack. Two things syn and
/// proc-macro2 report vaguely are made exact with them: text that does not split into
/// tokens, and the end of the text, which syn places at line 1, column 1.
fn run_text<T>(source: &str, parser: Grammar<T>) -> (Option<T>, Diagnostics) {
    let tokens: TokenStream = match source.parse() {
        Ok(tokens) => tokens,
        Err(error) => return (None, lex_error(source, &error).into()),
    };
    if let Some(too_deep) = too_deeply_nested(&tokens) {
        return (None, too_deep.into());
    }
    let last_token = tokens.clone().into_iter().last().map(|token| match token {
        TokenTree::Group(group) => group.span_close(),
        token => token.span(),
    });
    let (value, mut diagnostics) = run(tokens.clone(), parser);
    point_missing_semicolons(&tokens, &mut diagnostics);
    if let Some(last_token) = last_token {
        for diagnostic in &mut diagnostics.list {
            // Only `Span::call_site()`, where syn reports the end of the input, has an
            // empty range: every token is at least one byte long.
            if diagnostic.span.byte_range().is_empty() {
                diagnostic.span = last_token;
            }
        }
        diagnostics.sort();
    }
    (value, diagnostics)
}

/// proc-macro2 says only "cannot parse string into token stream", so the message names
/// the character it stopped at.
fn lex_error(source: &str, error: &LexError) -> Diagnostic {
    let span = error.span();
    let found = source
        .get(span.byte_range().start..)
        .and_then(|rest| rest.chars().next());
    let message = match found {
        Some(open @ ('(' | '[' | '{')) => format!("unclosed delimiter `{open}`"),
        Some(close @ (')' | ']' | '}')) => format!("unexpected closing delimiter `{close}`"),
        Some('"') => "unterminated string".to_string(),
        Some(other) => format!("unknown start of token {other:?}"),
        None => error.to_string(),
    };
    Diagnostic::new(Code::E001, span, message)
}

// schedules := ('schedule' IDENT '{' item* '}')*
fn schedules(input: ParseStream, recovered: &mut Vec<Diagnostic>) -> syn::Result<Vec<Schedule>> {
    let mut list = Vec::new();
    while !input.is_empty() {
        input.parse::<kw::schedule>()?;
        list.push(schedule_body(input, recovered)?);
    }
    Ok(list)
}

// kernel_def := doc* 'kernel' IDENT '(' params ')' '->' outputs '{' stmt* '}' section*
// section    := 'target' (IDENT | STRING) ';' | 'schedule' IDENT '{' item* '}'
//             | 'variants' INT 'from' STRING ';'
fn kernel_def(input: ParseStream, recovered: &mut Vec<Diagnostic>) -> syn::Result<KernelDef> {
    let doc = doc_comments(input)?;
    let kernel_span = input.parse::<kw::kernel>()?.span;
    let name: Ident = input.parse()?;
    let content;
    parenthesized!(content in input);
    let inputs = params(&content)?;
    input.parse::<Token![->]>()?;
    let outputs = if input.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        params(&content)?
    } else {
        let output = param(input)?;
        if input.peek(Token![,]) {
            return Err(syn::Error::new(
                input.span(),
                format!(
                    "a kernel with several outputs lists them in parentheses: \
                     `-> ({}: ..., ...)`",
                    output.name
                ),
            ));
        }
        vec![output]
    };
    let content;
    braced!(content in input);
    let mut body = Vec::new();
    while !content.is_empty() {
        body.push(stmt(&content)?);
    }
    let mut targets = Vec::new();
    let mut schedules = Vec::new();
    let mut variants = Vec::new();
    while !input.is_empty() {
        let lookahead = input.lookahead1();
        if lookahead.peek(kw::target) {
            input.parse::<kw::target>()?;
            let target = if input.peek(LitStr) {
                let path: LitStr = input.parse()?;
                TargetRef::File {
                    path: path.value(),
                    span: path.span(),
                }
            } else {
                TargetRef::Preset(input.parse()?)
            };
            input.parse::<Token![;]>()?;
            targets.push(target);
        } else if lookahead.peek(kw::schedule) {
            input.parse::<kw::schedule>()?;
            schedules.push(schedule_body(input, recovered)?);
        } else if lookahead.peek(kw::variants) {
            variants.push(variants_ref(input)?);
        } else {
            return Err(lookahead.error());
        }
    }
    Ok(KernelDef {
        doc,
        kernel_span,
        name,
        inputs,
        outputs,
        body,
        targets,
        schedules,
        variants,
    })
}

// variants_ref := 'variants' INT 'from' STRING ';'
fn variants_ref(input: ParseStream) -> syn::Result<VariantsRef> {
    let keyword = input.parse::<kw::variants>()?.span;
    let count = number(input)?;
    input.parse::<kw::from>()?;
    let path: LitStr = input.parse()?;
    input.parse::<Token![;]>()?;
    Ok(VariantsRef {
        keyword,
        count,
        path: path.value(),
        path_span: path.span(),
    })
}

// doc := ('#' '[' 'doc' '=' STRING ']')*
// Read token by token rather than as `syn::Attribute`s: an attribute's value is a Rust
// expression, which syn parses recursively with no depth limit, so `#[doc = "" - - -
// ...]` would overflow the stack.
fn doc_comments(input: ParseStream) -> syn::Result<Vec<String>> {
    let mut doc = Vec::new();
    while input.peek(Token![#]) {
        let (pound, brackets) = input.step(|cursor| {
            let pair = cursor
                .token_tree()
                .and_then(|(pound, rest)| Some((pound, rest.token_tree()?)));
            match pair {
                Some((pound, (brackets, rest))) => Ok(((pound, brackets), rest)),
                None => Err(cursor.error("expected an attribute `#[doc = \"...\"]`")),
            }
        })?;
        let inside: Vec<TokenTree> = match &brackets {
            TokenTree::Group(group) if group.delimiter() == proc_macro2::Delimiter::Bracket => {
                group.stream().into_iter().take(4).collect()
            }
            _ => Vec::new(),
        };
        let text = match inside.as_slice() {
            [
                TokenTree::Ident(name),
                TokenTree::Punct(eq),
                TokenTree::Literal(text),
            ] if name == "doc" && eq.as_char() == '=' => {
                syn::parse2::<LitStr>(TokenTree::Literal(text.clone()).into()).ok()
            }
            _ => None,
        };
        let Some(text) = text else {
            return Err(syn::Error::new_spanned(
                quote::quote!(#pound #brackets),
                "only `///` doc comments may precede `kernel`",
            ));
        };
        doc.push(text.value().trim().to_string());
    }
    Ok(doc)
}

// params := (param (',' param)* ','?)?
fn params(input: ParseStream) -> syn::Result<Vec<Param>> {
    let mut list = Vec::new();
    while !input.is_empty() {
        list.push(param(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(list)
}

// param := IDENT ':' '[' IDENT ';' INT (',' INT)* ']' | IDENT ':' IDENT
// The second form is a scalar parameter: no brackets, an empty shape.
fn param(input: ParseStream) -> syn::Result<Param> {
    let name = tensor_name(input)?;
    input.parse::<Token![:]>()?;
    if input.peek(Ident) {
        return Ok(Param {
            name,
            dtype: input.parse()?,
            shape: Vec::new(),
        });
    }
    if !input.peek(syn::token::Bracket) {
        return Err(input.error(format!(
            "expected `[DTYPE; EXTENTS]` after `{name}:` for a tensor, or a dtype such as `f32` for a scalar parameter"
        )));
    }
    let content;
    bracketed!(content in input);
    let dtype: Ident = content.parse()?;
    content.parse::<Token![;]>()?;
    let mut shape = vec![number(&content)?];
    while !content.is_empty() {
        content.parse::<Token![,]>()?;
        if content.is_empty() {
            break;
        }
        shape.push(number(&content)?);
    }
    Ok(Param { name, dtype, shape })
}

/// A tensor's name: an identifier, or a raw one (`r#in`) for a Rust keyword, which
/// a plain name cannot be.
fn tensor_name(input: ParseStream) -> syn::Result<Ident> {
    if let Some(error) = keyword_as_name(input) {
        return Err(error);
    }
    input.parse()
}

// stmt := 'let'? IDENT ('[' indices ']')? '=' expr ';'
// Without subscripts it writes a 0-d output or `let` (`y = sum[k](x[k]);`); the
// checker, not the parser, says when the tensor has a rank (E011).
fn stmt(input: ParseStream) -> syn::Result<Stmt> {
    let let_token = if input.peek(Token![let]) {
        Some(input.parse::<Token![let]>()?.span)
    } else {
        None
    };
    let output = tensor_name(input)?;
    let empty_brackets = input
        .cursor()
        .group(proc_macro2::Delimiter::Bracket)
        .is_some_and(|(inside, _, _)| inside.eof());
    if empty_brackets {
        let fix = if let_token.is_some() {
            format!("a 0-d value is written without brackets, `let {output} = ...;`")
        } else {
            format!("write one per dimension, as in `{output}[i]`")
        };
        return Err(input.error(format!("`{output}[]` has no subscripts: {fix}")));
    }
    let indices = if input.peek(Token![=]) && !input.peek(Token![==]) {
        Vec::new()
    } else {
        subscripts(input)?
    };
    input.parse::<Token![=]>()?;
    let value = expr::expr(input)?;
    input.parse::<Token![;]>()?;
    Ok(Stmt {
        output,
        indices,
        value,
        let_token,
    })
}
