//! The expression grammar of kernel statements, and the limit on how deeply an
//! expression nests.
//!
//! Every pass after the parser (checker, printer, lowering, the reference
//! interpreters) recurses once per level of an expression, and dropping the tree does
//! too. So the parser refuses, with [`Code::E007`](crate::Code::E007) at the token
//! where the limit is passed, any expression deeper than [`MAX_EXPR_DEPTH`]: nested
//! parentheses, calls, unary `-` and `!` (which the parser recurses on), and chains of
//! casts or comparisons (which it builds in a loop into a tree as deep as the chain
//! is long). A run of other operators of one binding power, `a + b - c + ...`, is one
//! [`Expr::Chain`] node of any length up to [`MAX_CHAIN_TERMS`] operands, one level
//! above its tallest operand: the passes walk its operands in a loop.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::{Ident, LitFloat, LitInt, Token, bracketed, parenthesized};

use super::leaves::{integer, number, subscripts};
use crate::ast::*;

mod kw {
    syn::custom_keyword!(sat);
}

/// The deepest expression the parser accepts, in levels. In a debug build the
/// parser, checker and lowering take up to about 6 KiB of stack per level of nested
/// calls (a 2 MiB thread overflowed past 300 levels when this was measured), so 128
/// leaves more than half of such a thread to the caller. No kernel needs 20.
pub const MAX_EXPR_DEPTH: usize = 128;

/// The most operands one chain of operators may have (`a + b - c + ...` counts 3 and
/// up): a chain is one node that every pass walks in a loop, and it lowers to one
/// vector instruction per operator, so the limit bounds work, not stack. Longer sums
/// are split with `let` intermediates.
pub const MAX_CHAIN_TERMS: usize = 4096;

/// One expression, up to the next token that cannot continue it.
pub(super) fn expr(input: ParseStream) -> syn::Result<Expr> {
    Ok(binary(input, 0, 0)?.expr)
}

/// An expression with its height: 1 for a leaf, one more than its deepest operand
/// for anything else.
struct Parsed {
    expr: Expr,
    height: usize,
}

/// `expr`, one level above its deepest operand (`operand_height`), or the E007 error
/// at `span` when that is too deep.
fn above(expr: Expr, operand_height: usize, span: Span) -> syn::Result<Parsed> {
    let height = operand_height + 1;
    if height > MAX_EXPR_DEPTH {
        return Err(too_deep(span));
    }
    Ok(Parsed { expr, height })
}

/// Refuses to recurse into a level past the limit: `level` counts the parentheses,
/// calls and `-` around the token at `span`.
fn enter(level: usize, span: Span) -> syn::Result<usize> {
    if level >= MAX_EXPR_DEPTH {
        return Err(too_deep(span));
    }
    Ok(level + 1)
}

fn too_deep(span: Span) -> syn::Error {
    syn::Error::new(span, too_deep_message())
}

/// The message of the E007 error, by which the parser's driver tells it from the
/// syntax errors syn reports.
pub(super) fn too_deep_message() -> String {
    format!("expression nests deeper than {MAX_EXPR_DEPTH} levels")
}

pub(super) const TOO_DEEP_HELP: &str =
    "write it flatter: fewer nested parentheses, calls, `-`, `!` and casts";

/// The message of the E007 error for a chain of more than [`MAX_CHAIN_TERMS`] operands.
pub(super) fn too_long_message() -> String {
    format!("operator chain has more than {MAX_CHAIN_TERMS} operands")
}

pub(super) const TOO_LONG_HELP: &str =
    "compute parts of it in `let` intermediates and add those: `let s0[i] = a[i] + ...;`";

// Precedence climbing. Binding powers, loosest first, as in Rust (`BinOp::binding_power`):
// comparisons, |, ^, &, << >>, + -, * /, then `as`.
// expr    := unary (binop unary)*
// unary   := '-' unary | '!' unary | primary ('as' 'sat'? IDENT)*
// primary := LIT | 'inf' | 'nan' | '(' expr ')' | IDENT subscripts
//          | 'pad' '(' IDENT ',' expr ')' subscripts
//          | IDENT reduction? '(' args ')'
//          | IDENT                      (a scalar parameter, by bare name)
// `level` is how many parentheses, calls, `-` and `!` enclose the input.
fn binary(input: ParseStream, min_power: u8, level: usize) -> syn::Result<Parsed> {
    let mut chain = Chain::start(unary(input, level)?);
    loop {
        if let Some(error) = unsupported_operator(input) {
            return Err(error);
        }
        let Some((op, power)) = peek_binop(input) else {
            break;
        };
        if power < min_power {
            break;
        }
        let span = input.span();
        operator(input, op)?;
        // Recursion here is bounded by the seven binding powers, not by the input.
        let rhs = binary(input, power + 1, level)?;
        if !op.chains() || chain.power != Some(power) {
            chain = Chain::start(chain.close()?);
        }
        chain.push(
            Link {
                op,
                span,
                operand: rhs.expr,
            },
            power,
            rhs.height,
        )?;
    }
    chain.close()
}

/// A run of operators of one binding power while it is parsed: the operands so far
/// and the height of the tallest.
struct Chain {
    first: Parsed,
    rest: Vec<Link>,
    power: Option<u8>,
    height: usize,
}

impl Chain {
    fn start(first: Parsed) -> Chain {
        let height = first.height;
        Chain {
            first,
            rest: Vec::new(),
            power: None,
            height,
        }
    }

    /// Adds `link`, or the E007 error at its operator when the chain would pass
    /// [`MAX_CHAIN_TERMS`]. A comparison is never followed by another link.
    fn push(&mut self, link: Link, power: u8, height: usize) -> syn::Result<()> {
        if self.rest.len() + 1 >= MAX_CHAIN_TERMS {
            return Err(syn::Error::new(link.span, too_long_message()));
        }
        self.power = link.op.chains().then_some(power);
        self.height = self.height.max(height);
        self.rest.push(link);
        Ok(())
    }

    /// The chain as one expression: its first operand alone, a `Binary` of two, or a
    /// `Chain` of more, one level above its tallest operand.
    fn close(mut self) -> syn::Result<Parsed> {
        let span = match self.rest.first() {
            None => return Ok(self.first),
            Some(link) => link.span,
        };
        let first = Box::new(self.first.expr);
        let expr = if self.rest.len() == 1 {
            let link = self.rest.pop().expect("one link");
            Expr::Binary {
                op: link.op,
                span: link.span,
                lhs: first,
                rhs: Box::new(link.operand),
            }
        } else {
            Expr::Chain {
                first,
                rest: self.rest,
            }
        };
        above(expr, self.height, span)
    }
}

/// Takes the operator `peek_binop` saw.
fn operator(input: ParseStream, op: BinOp) -> syn::Result<()> {
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
        BinOp::Rem => drop(input.parse::<Token![%]>()?),
        BinOp::BitAnd => drop(input.parse::<Token![&]>()?),
        BinOp::BitOr => drop(input.parse::<Token![|]>()?),
        BinOp::BitXor => drop(input.parse::<Token![^]>()?),
        BinOp::Shl => drop(input.parse::<Token![<<]>()?),
        BinOp::Shr => drop(input.parse::<Token![>>]>()?),
    }
    Ok(())
}

/// An operator the language does not have, where a binary operator could stand: an
/// E001 at it that names the form and says what to write instead. Without this, syn
/// would report the `;` it expected before it.
fn unsupported_operator(input: ParseStream) -> Option<syn::Error> {
    let message = if input.peek(Token![&&]) {
        "`&&` (logical and) is not supported: nest `select` calls, or use `&` on integers"
    } else if input.peek(Token![||]) {
        "`||` (logical or) is not supported: nest `select` calls, or use `|` on integers"
    } else if input.peek(Token![.]) {
        "methods and fields (`.`) are not supported: call a function, as in `exp(x)`"
    } else if input.peek(syn::token::Bracket) {
        "chained subscripts `x[i][j]` are not supported: write `x[i, j]`"
    } else if input.peek(Token![?]) {
        "`?` is not supported in a kernel expression"
    } else {
        return None;
    };
    Some(input.error(message))
}

fn peek_binop(input: ParseStream) -> Option<(BinOp, u8)> {
    // Two-character operators first: `<=` and `<<` also start with `<`.
    let op = if input.peek(Token![<<]) {
        BinOp::Shl
    } else if input.peek(Token![>>]) {
        BinOp::Shr
    } else if input.peek(Token![<=]) {
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
    } else if input.peek(Token![%]) {
        BinOp::Rem
    } else if input.peek(Token![&]) {
        BinOp::BitAnd
    } else if input.peek(Token![|]) {
        BinOp::BitOr
    } else if input.peek(Token![^]) {
        BinOp::BitXor
    } else {
        return None;
    };
    Some((op, op.binding_power()))
}

fn unary(input: ParseStream, level: usize) -> syn::Result<Parsed> {
    if input.peek(Token![-]) {
        let span = input.parse::<Token![-]>()?.span;
        let arg = unary(input, enter(level, span)?)?;
        let expr = Expr::Neg {
            arg: Box::new(arg.expr),
            span,
        };
        return above(expr, arg.height, span);
    }
    if input.peek(Token![!]) {
        let span = input.parse::<Token![!]>()?.span;
        let arg = unary(input, enter(level, span)?)?;
        let expr = Expr::Not {
            arg: Box::new(arg.expr),
            span,
        };
        return above(expr, arg.height, span);
    }
    if input.peek(Token![&]) || input.peek(Token![*]) {
        let what = if input.peek(Token![&]) {
            "references (`&x`) are not supported: write the value itself"
        } else {
            "`*` cannot start an operand (`**` is not supported): write `pow(x, e)` for a power"
        };
        return Err(input.error(what));
    }
    casts(input, primary(input, level)?)
}

// ('as' 'sat'? IDENT)*
fn casts(input: ParseStream, mut value: Parsed) -> syn::Result<Parsed> {
    while input.peek(Token![as]) {
        input.parse::<Token![as]>()?;
        // `sat` is a keyword only before a dtype: `x as sat` casts to a dtype `sat`.
        let saturating = input.peek(kw::sat) && input.peek2(Ident);
        if saturating {
            input.parse::<kw::sat>()?;
        }
        let dtype: Ident = input.parse()?;
        let span = dtype.span();
        let expr = Expr::Cast {
            arg: Box::new(value.expr),
            dtype,
            saturating,
        };
        value = above(expr, value.height, span)?;
    }
    Ok(value)
}

// The branches that recurse are functions of their own: in a debug build every local
// of a function takes stack space, and only these frames repeat per level.
fn primary(input: ParseStream, level: usize) -> syn::Result<Parsed> {
    if input.peek(syn::token::Paren) {
        group(input, level)
    } else if input.peek(Ident) {
        named(input, level)
    } else if let Some(error) = super::keyword_as_name(input) {
        Err(error)
    } else {
        literal(input)
    }
}

// '(' expr ')'
fn group(input: ParseStream, level: usize) -> syn::Result<Parsed> {
    let level = enter(level, input.span())?;
    let content;
    parenthesized!(content in input);
    let inner = binary(&content, 0, level)?;
    if !content.is_empty() {
        return Err(content.error("expected `)`"));
    }
    Ok(inner)
}

// IDENT subscripts | IDENT reduction? '(' args ')' | IDENT
fn named(input: ParseStream, level: usize) -> syn::Result<Parsed> {
    let name: Ident = input.parse()?;
    let bare = !input.peek(syn::token::Paren) && !input.peek(syn::token::Bracket);
    if bare && (name == "inf" || name == "nan") {
        let value = if name == "inf" {
            f64::INFINITY
        } else {
            f64::NAN
        };
        let expr = Expr::Literal {
            value,
            is_float: true,
            span: name.span(),
        };
        return Ok(Parsed { expr, height: 1 });
    }
    if name == "pad" && input.peek(syn::token::Paren) && padded_view_follows(input) {
        return padded_view(input, name, level);
    }
    if input.peek(syn::token::Paren) {
        return call(input, name, None, level);
    }
    if !input.peek(syn::token::Bracket) {
        // A bare name: a scalar parameter. A load with no subscripts; the checker
        // tells a scalar from a tensor written without its subscripts.
        return Ok(Parsed {
            expr: Expr::Load {
                tensor: name,
                indices: Vec::new(),
                pad: None,
            },
            height: 1,
        });
    }
    match subscripts_or_axis(input)? {
        Subscripted::Load(indices) => Ok(Parsed {
            expr: Expr::Load {
                tensor: name,
                indices,
                pad: None,
            },
            height: 1,
        }),
        Subscripted::Reduction(reduction) => call(input, name, Some(reduction), level),
    }
}

/// Whether `pad(..)` is followed by subscripts, which makes it a padded view rather
/// than a call of a function called `pad`.
fn padded_view_follows(input: ParseStream) -> bool {
    let fork = input.fork();
    let skipped: syn::Result<proc_macro2::TokenTree> = fork.parse();
    skipped.is_ok() && fork.peek(syn::token::Bracket)
}

// 'pad' '(' IDENT ',' expr ')' subscripts: `tensor` read with out-of-range elements
// taking the pad value.
fn padded_view(input: ParseStream, keyword: Ident, level: usize) -> syn::Result<Parsed> {
    let level = enter(level, keyword.span())?;
    let content;
    parenthesized!(content in input);
    let tensor: Ident = content.parse()?;
    content.parse::<Token![,]>()?;
    let value = binary(&content, 0, level)?;
    if !content.is_empty() {
        return Err(content.error("expected `)` after the pad value: `pad(x, 0)[i - 1]`"));
    }
    let indices = subscripts(input)?;
    let expr = Expr::Load {
        tensor,
        indices,
        pad: Some(Box::new(value.expr)),
    };
    above(expr, value.height, keyword.span())
}

// LIT, or the error that lists everything a primary expression may start with.
fn literal(input: ParseStream) -> syn::Result<Parsed> {
    let lookahead = input.lookahead1();
    let expr = if lookahead.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        Expr::Literal {
            value: integer(&lit)? as f64,
            is_float: false,
            span: lit.span(),
        }
    } else if lookahead.peek(LitFloat) {
        let lit: LitFloat = input.parse()?;
        Expr::Literal {
            value: lit.base10_parse::<f64>()?,
            is_float: true,
            span: lit.span(),
        }
    } else {
        // Peeked so that the error lists them; `primary` has taken them already.
        lookahead.peek(syn::token::Paren);
        lookahead.peek(Ident);
        return Err(lookahead.error());
    };
    Ok(Parsed { expr, height: 1 })
}

enum Subscripted {
    Load(Vec<Index>),
    Reduction(Reduction),
}

// After a name, `[..]` is a tensor access unless a `(` follows, which makes the name a
// reduction over the bracketed axes: `sum[k](...)`, `sum[kh, kw: bf16](...)`.
fn subscripts_or_axis(input: ParseStream) -> syn::Result<Subscripted> {
    if !input.peek(syn::token::Bracket) {
        return Err(input
            .error("expected `[` subscripts after a tensor name, or `(` after a function name"));
    }
    if input.peek2(syn::token::Paren) {
        return reduction(input).map(Subscripted::Reduction);
    }
    Ok(Subscripted::Load(subscripts(input)?))
}

// reduction := '[' axis (',' axis)* (':' IDENT)? ']'
// axis      := IDENT ('<' INT)?          (a window states its extent: `k < 3`)
fn reduction(input: ParseStream) -> syn::Result<Reduction> {
    let content;
    bracketed!(content in input);
    let mut axes = Vec::new();
    let mut extents = Vec::new();
    let mut accumulator = None;
    while !content.is_empty() {
        if !content.peek(Ident) {
            return Err(content.error(
                "a reduction names axes, then optionally its accumulator dtype: `sum[k](...)`, `sum[kh, kw: f32](...)`, `max[k < 3](...)`",
            ));
        }
        axes.push(content.parse::<Ident>()?);
        extents.push(if content.peek(Token![<]) {
            content.parse::<Token![<]>()?;
            Some(number(&content)?)
        } else {
            None
        });
        if content.peek(Token![:]) {
            content.parse::<Token![:]>()?;
            if !content.peek(Ident) {
                return Err(content
                    .error("expected the accumulator dtype after `:`, as in `sum[k: f32](...)`"));
            }
            accumulator = Some(content.parse::<Ident>()?);
            if !content.is_empty() {
                return Err(content.error(
                    "the accumulator dtype comes after the last axis: `sum[kh, kw: f32](...)`",
                ));
            }
            break;
        }
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if axes.is_empty() {
        return Err(content.error("a reduction names at least one axis: `sum[k](...)`"));
    }
    Ok(Reduction {
        axes,
        extents,
        accumulator,
    })
}

// args := expr (',' expr)*
fn call(
    input: ParseStream,
    func: Ident,
    reduction: Option<Reduction>,
    level: usize,
) -> syn::Result<Parsed> {
    let span = func.span();
    let level = enter(level, span)?;
    let content;
    parenthesized!(content in input);
    let mut args = Vec::new();
    let mut height = 0;
    while !content.is_empty() {
        let arg = binary(&content, 0, level)?;
        height = height.max(arg.height);
        args.push(arg.expr);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    above(
        Expr::Call {
            func,
            reduction,
            args,
        },
        height,
        span,
    )
}
