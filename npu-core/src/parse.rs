//! The parser: tokens (from rustc) or text (from a file or an LLM) to a [`KernelDef`].
//!
//! One parser serves both sources: [`parse_tokens`] is `syn::parse2` and [`parse_str`]
//! is `syn::parse_str` over the same grammar, so the macro and the tuner can never
//! disagree. Text parsed with [`parse_str`] carries line and column spans (proc-macro2's
//! `span-locations`), which [`Diagnostics::render`](crate::Diagnostics::render) uses.
//!
//! The parser only checks structure. Names, dtypes and numbers are checked later, so
//! that one run reports every problem. An unknown schedule word is reported and the
//! parser skips to the next `;`, for the same reason.

use std::cell::RefCell;

use proc_macro2::{LexError, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitFloat, LitInt, LitStr, Token, braced, bracketed, parenthesized};

use crate::ast::*;
use crate::diag::{Code, Diagnostic, Diagnostics, suggestion};

mod kw {
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
    syn::custom_keyword!(variants);
    syn::custom_keyword!(from);
}

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
    run(|| kernel_def.parse2(tokens))
}

/// Like [`parse_str`], but also returns the tree when the only problems were
/// unknown schedule items the parser skipped.
pub fn parse_str_partial(source: &str) -> (Option<KernelDef>, Diagnostics) {
    run_text(source, kernel_def)
}

thread_local! {
    /// Unknown schedule words found while parsing; the parser recovers from them.
    static RECOVERED: RefCell<Vec<Diagnostic>> = const { RefCell::new(Vec::new()) };
}

fn strict<T>((value, diagnostics): (Option<T>, Diagnostics)) -> Result<T, Diagnostics> {
    match value {
        Some(value) if diagnostics.is_empty() => Ok(value),
        _ => Err(diagnostics),
    }
}

fn run<T>(parse: impl FnOnce() -> syn::Result<T>) -> (Option<T>, Diagnostics) {
    RECOVERED.with(|r| r.borrow_mut().clear());
    let result = parse();
    let recovered = RECOVERED.with(|r| std::mem::take(&mut *r.borrow_mut()));
    let mut diagnostics = Diagnostics { list: recovered };
    match result {
        Ok(value) => (Some(value), diagnostics),
        Err(error) => {
            for error in error {
                diagnostics.push(Diagnostic::new(Code::E001, error.span(), error.to_string()));
            }
            diagnostics.sort();
            (None, diagnostics)
        }
    }
}

/// [`run`] over text, which has positions that rustc's tokens lack. Two things syn and
/// proc-macro2 report vaguely are made exact with them: text that does not split into
/// tokens, and the end of the text, which syn places at line 1, column 1.
fn run_text<T>(
    source: &str,
    parser: fn(ParseStream) -> syn::Result<T>,
) -> (Option<T>, Diagnostics) {
    let tokens: TokenStream = match source.parse() {
        Ok(tokens) => tokens,
        Err(error) => return (None, lex_error(source, &error).into()),
    };
    let last_token = tokens.clone().into_iter().last().map(|token| match token {
        TokenTree::Group(group) => group.span_close(),
        token => token.span(),
    });
    let (value, mut diagnostics) = run(|| parser.parse2(tokens));
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
fn schedules(input: ParseStream) -> syn::Result<Vec<Schedule>> {
    let mut list = Vec::new();
    while !input.is_empty() {
        input.parse::<kw::schedule>()?;
        list.push(schedule_body(input)?);
    }
    Ok(list)
}

// kernel_def := doc* 'kernel' IDENT '(' params ')' '->' outputs '{' stmt* '}' section*
// section    := 'target' (IDENT | STRING) ';' | 'schedule' IDENT '{' item* '}'
//             | 'variants' INT 'from' STRING ';'
fn kernel_def(input: ParseStream) -> syn::Result<KernelDef> {
    let attrs = syn::Attribute::parse_outer(input)?;
    let mut doc = Vec::new();
    for attr in &attrs {
        match &attr.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    doc.push(s.value().trim().to_string());
                }
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    attr,
                    "only `///` doc comments may precede `kernel`",
                ));
            }
        }
    }
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
        vec![param(input)?]
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
            schedules.push(schedule_body(input)?);
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

// param := IDENT ':' '[' IDENT ';' INT (',' INT)* ']'
fn param(input: ParseStream) -> syn::Result<Param> {
    let name: Ident = input.parse()?;
    input.parse::<Token![:]>()?;
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

fn number(input: ParseStream) -> syn::Result<Number> {
    let lit: LitInt = input.parse()?;
    Ok(Number {
        value: integer(&lit)?,
        span: lit.span(),
    })
}

// syn reads `-64` as one negative literal, and Rust's message for it, "invalid digit
// found in string", does not say what is wrong.
fn integer(lit: &LitInt) -> syn::Result<u64> {
    lit.base10_parse::<u64>().map_err(|_| {
        let message = if lit.base10_digits().starts_with('-') {
            format!("expected a non-negative integer, found `{lit}`")
        } else {
            format!("integer `{lit}` does not fit in 64 bits")
        };
        syn::Error::new(lit.span(), message)
    })
}

// stmt := IDENT '[' indices ']' '=' expr ';'
fn stmt(input: ParseStream) -> syn::Result<Stmt> {
    let output: Ident = input.parse()?;
    let indices = subscripts(input)?;
    input.parse::<Token![=]>()?;
    let value = expr(input, 0)?;
    input.parse::<Token![;]>()?;
    Ok(Stmt {
        output,
        indices,
        value,
    })
}

// subscripts := '[' index (',' index)* ']'     index := IDENT | INT
fn subscripts(input: ParseStream) -> syn::Result<Vec<Index>> {
    let content;
    bracketed!(content in input);
    let mut indices = Vec::new();
    while !content.is_empty() {
        let lookahead = content.lookahead1();
        if lookahead.peek(Ident) {
            indices.push(Index::Axis(content.parse()?));
        } else if lookahead.peek(LitInt) {
            indices.push(Index::Const(number(&content)?));
        } else {
            return Err(lookahead.error());
        }
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

// Precedence climbing. Binding powers, loosest first: comparisons, + -, * /, `as`.
// expr    := unary (binop unary)*
// unary   := '-' unary | primary ('as' IDENT)*
// primary := LIT | '(' expr ')' | IDENT subscripts | IDENT ('[' IDENT ']')? '(' args ')'
fn expr(input: ParseStream, min_power: u8) -> syn::Result<Expr> {
    let mut lhs = unary(input)?;
    while let Some((op, power)) = peek_binop(input) {
        if power < min_power {
            break;
        }
        let span = input.span();
        match op {
            BinOp::Le => drop(input.parse::<Token![<=]>()?),
            BinOp::Ge => drop(input.parse::<Token![>=]>()?),
            BinOp::Eq => drop(input.parse::<Token![==]>()?),
            BinOp::Ne => drop(input.parse::<Token![!=]>()?),
            BinOp::Lt => drop(input.parse::<Token![<]>()?),
            BinOp::Gt => drop(input.parse::<Token![>]>()?),
            BinOp::Add => drop(input.parse::<Token![+]>()?),
            BinOp::Sub => drop(input.parse::<Token![-]>()?),
            BinOp::Mul => drop(input.parse::<Token![*]>()?),
            BinOp::Div => drop(input.parse::<Token![/]>()?),
        }
        let rhs = expr(input, power + 1)?;
        lhs = Expr::Binary {
            op,
            span,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        };
    }
    Ok(lhs)
}

fn peek_binop(input: ParseStream) -> Option<(BinOp, u8)> {
    // Two-character operators first: `<=` also starts with `<`.
    let op = if input.peek(Token![<=]) {
        BinOp::Le
    } else if input.peek(Token![>=]) {
        BinOp::Ge
    } else if input.peek(Token![==]) {
        BinOp::Eq
    } else if input.peek(Token![!=]) {
        BinOp::Ne
    } else if input.peek(Token![<]) {
        BinOp::Lt
    } else if input.peek(Token![>]) {
        BinOp::Gt
    } else if input.peek(Token![+]) {
        BinOp::Add
    } else if input.peek(Token![-]) {
        BinOp::Sub
    } else if input.peek(Token![*]) {
        BinOp::Mul
    } else if input.peek(Token![/]) {
        BinOp::Div
    } else {
        return None;
    };
    let power = match op {
        BinOp::Add | BinOp::Sub => 2,
        BinOp::Mul | BinOp::Div => 3,
        _ => 1,
    };
    Some((op, power))
}

fn unary(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(Token![-]) {
        let span = input.parse::<Token![-]>()?.span;
        let arg = unary(input)?;
        return Ok(Expr::Neg {
            arg: Box::new(arg),
            span,
        });
    }
    let mut value = primary(input)?;
    while input.peek(Token![as]) {
        input.parse::<Token![as]>()?;
        let dtype: Ident = input.parse()?;
        value = Expr::Cast {
            arg: Box::new(value),
            dtype,
        };
    }
    Ok(value)
}

fn primary(input: ParseStream) -> syn::Result<Expr> {
    let lookahead = input.lookahead1();
    if lookahead.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        let value = integer(&lit)? as f64;
        Ok(Expr::Literal {
            value,
            is_float: false,
            span: lit.span(),
        })
    } else if lookahead.peek(LitFloat) {
        let lit: LitFloat = input.parse()?;
        let value = lit.base10_parse::<f64>()?;
        Ok(Expr::Literal {
            value,
            is_float: true,
            span: lit.span(),
        })
    } else if lookahead.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        let inner = expr(&content, 0)?;
        if !content.is_empty() {
            return Err(content.error("expected `)`"));
        }
        Ok(inner)
    } else if lookahead.peek(Ident) {
        let name: Ident = input.parse()?;
        if input.peek(syn::token::Paren) {
            return call(input, name, None);
        }
        let indices = subscripts_or_axis(input)?;
        match indices {
            Subscripted::Load(indices) => Ok(Expr::Load {
                tensor: name,
                indices,
            }),
            Subscripted::Reduction(axis) => call(input, name, Some(axis)),
        }
    } else {
        Err(lookahead.error())
    }
}

enum Subscripted {
    Load(Vec<Index>),
    Reduction(Ident),
}

// After a name, `[..]` is a tensor access unless a `(` follows, which makes the name a
// reduction over the bracketed axis: `sum[k](...)`.
fn subscripts_or_axis(input: ParseStream) -> syn::Result<Subscripted> {
    if !input.peek(syn::token::Bracket) {
        return Err(input
            .error("expected `[` subscripts after a tensor name, or `(` after a function name"));
    }
    let indices = subscripts(input)?;
    if input.peek(syn::token::Paren) {
        return match indices.as_slice() {
            [Index::Axis(axis)] => Ok(Subscripted::Reduction(axis.clone())),
            _ => Err(input.error("a reduction names one axis: `sum[k](...)`")),
        };
    }
    Ok(Subscripted::Load(indices))
}

// args := expr (',' expr)*
fn call(input: ParseStream, func: Ident, axis: Option<Ident>) -> syn::Result<Expr> {
    let content;
    parenthesized!(content in input);
    let mut args = Vec::new();
    while !content.is_empty() {
        args.push(expr(&content, 0)?);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(Expr::Call { func, axis, args })
}

// schedule_body := IDENT '{' item* '}'
fn schedule_body(input: ParseStream) -> syn::Result<Schedule> {
    let name: Ident = input.parse()?;
    let content;
    braced!(content in input);
    let mut items = Vec::new();
    while !content.is_empty() {
        if let Some(item) = item(&content)? {
            items.push(item);
        }
    }
    Ok(Schedule { name, items })
}

// item := 'parallel' IDENT 'over' INT 'cores' ';'
//       | 'split' IDENT 'by' INT ';'
//       | 'stage' IDENT (',' IDENT)* 'in' IDENT ('depth' INT)? ';'
//       | 'cube' IDENT 'by' INT (',' IDENT 'by' INT)* ';'
//       | 'tail' IDENT ';'
//       | 'order' IDENT (',' IDENT)* ';'
fn item(input: ParseStream) -> syn::Result<Option<Item>> {
    let keyword = input.span();
    let kind = if input.peek(kw::parallel) {
        input.parse::<kw::parallel>()?;
        let axis = input.parse()?;
        input.parse::<kw::over>()?;
        let cores = number(input)?;
        input.parse::<kw::cores>()?;
        ItemKind::Parallel { axis, cores }
    } else if input.peek(kw::split) {
        input.parse::<kw::split>()?;
        let axis = input.parse()?;
        input.parse::<kw::by>()?;
        ItemKind::Split {
            axis,
            tile: number(input)?,
        }
    } else if input.peek(kw::stage) {
        input.parse::<kw::stage>()?;
        let tensors = ident_list(input)?;
        input.parse::<Token![in]>()?;
        let level = input.parse()?;
        let depth = if input.peek(kw::depth) {
            input.parse::<kw::depth>()?;
            Some(number(input)?)
        } else {
            None
        };
        ItemKind::Stage {
            tensors,
            level,
            depth,
        }
    } else if input.peek(kw::cube) {
        input.parse::<kw::cube>()?;
        let mut tiles = Vec::new();
        loop {
            let axis: Ident = input.parse()?;
            input.parse::<kw::by>()?;
            tiles.push((axis, number(input)?));
            if !input.peek(Token![,]) {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        ItemKind::Cube { tiles }
    } else if input.peek(kw::tail) {
        input.parse::<kw::tail>()?;
        ItemKind::Tail {
            policy: input.parse()?,
        }
    } else if input.peek(kw::order) {
        input.parse::<kw::order>()?;
        ItemKind::Order {
            axes: ident_list(input)?,
        }
    } else if input.peek(Ident) {
        // An unknown word: report it with a suggestion and skip the item.
        let word: Ident = input.parse()?;
        let name = word.to_string();
        RECOVERED.with(|r| {
            r.borrow_mut().push(
                Diagnostic::new(
                    Code::E006,
                    word.span(),
                    format!("unknown schedule item `{name}`"),
                )
                .help(item_suggestion(&name)),
            )
        });
        while !input.is_empty() && !input.peek(Token![;]) {
            input.parse::<proc_macro2::TokenTree>()?;
        }
        input.parse::<Token![;]>()?;
        return Ok(None);
    } else {
        return Err(input.error(format!(
            "expected a schedule item: {}",
            crate::diag::list(ITEM_KEYWORDS)
        )));
    };
    input.parse::<Token![;]>()?;
    Ok(Some(Item { keyword, kind }))
}

fn ident_list(input: ParseStream) -> syn::Result<Vec<Ident>> {
    let mut list = vec![input.parse::<Ident>()?];
    while input.peek(Token![,]) {
        input.parse::<Token![,]>()?;
        list.push(input.parse()?);
    }
    Ok(list)
}

/// Words other scheduling languages use for our items (Halide, TVM, Triton, Ascend C).
const ITEM_SYNONYMS: &[(&str, &str)] = &[
    ("tile", "split"),
    ("block", "split"),
    ("chunk", "split"),
    ("reorder", "order"),
    ("multicore", "parallel"),
    ("cores", "parallel"),
    ("blockdim", "parallel"),
    ("buffer", "stage"),
    ("cache", "stage"),
    ("copy", "stage"),
    ("double_buffer", "stage"),
    ("mmad", "cube"),
    ("matmul", "cube"),
    ("pad", "tail"),
];

fn item_suggestion(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    match ITEM_SYNONYMS.iter().find(|(other, _)| *other == lower) {
        Some((_, ours)) => format!("did you mean `{ours}`? (`{word}` elsewhere is `{ours}` here)"),
        None => suggestion(word, ITEM_KEYWORDS),
    }
}
