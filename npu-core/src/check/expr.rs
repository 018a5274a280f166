//! Type-checking the algorithm: expressions, unary and binary operations and calls;
//! loads are in `load`, reductions in `reduce`. Calls of the built-in functions are
//! in `call`; `literal` gives untyped literals the dtype of their context.

use proc_macro2::Span;

mod call;
mod literal;

pub(super) use literal::resolve_literals;
use literal::unfit_literal;

use super::{Checker, Scope, Ty};
use crate::ast::{self, BinOp};
use crate::diag::{Code, Diagnostic};
use crate::dtype::Dtype;
use crate::ir::*;

impl Checker<'_> {
    /// `expr` with its literal tree given `dtype` ([`resolve_literals`]), after
    /// refusing a literal that dtype cannot hold [E010].
    pub(super) fn typed(&mut self, expr: Expr, dtype: Dtype, span: Span) -> Expr {
        if let Some(value) = unfit_literal(&expr, dtype) {
            self.unfit_literal(value, dtype, span);
        }
        resolve_literals(expr, dtype)
    }

    /// Reports that the literal `value` does not fit `dtype`, at its token (or at
    /// `span`, the expression's, for one no token shows).
    fn unfit_literal(&mut self, value: f64, dtype: Dtype, span: Span) {
        let at = self
            .literals
            .iter()
            .rev()
            .find(|(written, _)| *written == value.abs())
            .map_or(span, |(_, at)| *at);
        let shown = |v: f64| match v.abs() >= 1e16 {
            true => format!("{v:e}"),
            false => format!("{v}"),
        };
        let (low, high) = dtype.range();
        let (wider, cast) = match dtype.is_float() {
            true => ("f32", "x as f32"),
            false => ("a wider dtype", "x as i32"),
        };
        self.report(
            Diagnostic::new(
                Code::E010,
                at,
                format!(
                    "the literal {} does not fit {dtype}: it would be {}",
                    shown(value),
                    shown(dtype.round(value))
                ),
            )
            .help(format!(
                "compute in {wider}, casting the other operand (`{cast}`), or write a value from {} to {}",
                shown(low),
                shown(high)
            )),
        );
    }

    pub(super) fn expr(
        &mut self,
        expr: &ast::Expr,
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        match expr {
            ast::Expr::Literal {
                value,
                is_float,
                span,
            } => {
                self.literals.push((*value, *span));
                (
                    Some(Expr::Const {
                        value: *value,
                        dtype: if *is_float { Dtype::F32 } else { Dtype::I32 },
                    }),
                    Ty::Literal {
                        is_float: *is_float,
                    },
                )
            }
            ast::Expr::Load {
                tensor,
                indices,
                pad,
            } => self.load(tensor, indices, pad.as_deref(), scope, tensors),
            ast::Expr::Neg { arg, .. } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                self.unary_result(UnaryOp::Neg, arg, ty, expr_span(expr))
            }
            ast::Expr::Cast {
                arg,
                dtype,
                saturating,
            } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                let to = self.dtype(dtype);
                match (arg, ty, to) {
                    (Some(arg), Ty::Value(_) | Ty::Literal { .. }, Some(to)) => {
                        // A cast wraps as written (`300 as i8` is 44), so a literal takes
                        // the cast's dtype unrefused; one a saturating cast clamps keeps
                        // its own (`1e6 as sat f16` is 65504, not the infinity 1e6 is
                        // in f16).
                        let arg = match ty {
                            Ty::Literal { is_float } if *saturating => {
                                let own = if is_float { Dtype::F32 } else { Dtype::I32 };
                                self.typed(arg, own, expr_span(expr))
                            }
                            _ => resolve_literals(arg, to),
                        };
                        (
                            Some(Expr::Cast {
                                arg: Box::new(arg),
                                dtype: to,
                                saturate: *saturating,
                            }),
                            Ty::Value(to),
                        )
                    }
                    (_, Ty::Mask(_), Some(_)) => {
                        self.report(
                            Diagnostic::new(
                                Code::E010,
                                dtype.span(),
                                "a comparison's mask cannot be cast",
                            )
                            .help("use `select(cond, 1.0, 0.0)` to turn a mask into numbers"),
                        );
                        (None, Ty::Error)
                    }
                    _ => (None, Ty::Error),
                }
            }
            ast::Expr::Binary { op, span, lhs, rhs } => {
                let (l, lt) = self.expr(lhs, scope, tensors);
                let (r, rt) = self.expr(rhs, scope, tensors);
                self.binary(*op, *span, (l, lt), (r, rt))
            }
            ast::Expr::Chain { first, rest } => self.chain(first, rest, scope, tensors),
            ast::Expr::Call {
                func,
                reduction,
                args,
            } => self.call(func, reduction.as_ref(), args, scope, tensors),
            ast::Expr::Not { arg, span } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                self.unary_result(UnaryOp::Not, arg, ty, *span)
            }
        }
    }

    fn unary_result(
        &mut self,
        op: UnaryOp,
        arg: Option<Expr>,
        ty: Ty,
        span: Span,
    ) -> (Option<Expr>, Ty) {
        let (Some(arg), Ty::Value(_) | Ty::Literal { .. }) = (arg, ty) else {
            if let Ty::Mask(_) = ty {
                self.error(
                    Code::E010,
                    span,
                    format!("`{}` takes a number, not a comparison's mask", op.name()),
                );
            }
            return (None, Ty::Error);
        };
        if let Ty::Literal { is_float } = ty {
            // A constant stays a literal and takes its dtype from its context, as `-1`
            // does in `max(x[i], -1)`.
            if is_float && op.integer_only() {
                self.report(
                    Diagnostic::new(
                        Code::E010,
                        span,
                        format!(
                            "`{}` works on integers but got a floating-point literal",
                            op.name()
                        ),
                    )
                    .help("write an integer literal"),
                );
                return (None, Ty::Error);
            }
            let is_float = is_float || op.float_only();
            let dtype = if is_float { Dtype::F32 } else { Dtype::I32 };
            let arg = self.typed(arg, dtype, span);
            return (
                Some(Expr::Unary {
                    op,
                    arg: Box::new(arg),
                    dtype,
                }),
                Ty::Literal { is_float },
            );
        }
        let dtype = match ty {
            Ty::Value(dtype) => dtype,
            _ => Dtype::F32,
        };
        if op.integer_only() && dtype.is_float() {
            let int = same_width_integer(dtype);
            let call = if op == UnaryOp::Not {
                format!("!(x as {int})")
            } else {
                format!("{}(x as {int})", op.name())
            };
            self.report(
                Diagnostic::new(
                    Code::E010,
                    span,
                    format!(
                        "`{}` works on the bits of integers but got {dtype}",
                        op.name()
                    ),
                )
                .help(format!("cast the operand to an integer first: `{call}`")),
            );
            return (None, Ty::Error);
        }
        if op.float_only() && !dtype.is_float() {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    span,
                    format!(
                        "`{}` needs a floating-point operand but got {dtype}",
                        op.name()
                    ),
                )
                .help(format!("cast the operand first: `{}(x as f32)`", op.name())),
            );
            return (None, Ty::Error);
        }
        let arg = self.typed(arg, dtype, span);
        (
            Some(Expr::Unary {
                op,
                arg: Box::new(arg),
                dtype,
            }),
            Ty::Value(dtype),
        )
    }

    pub(super) fn binary(
        &mut self,
        op: BinOp,
        span: Span,
        l: (Option<Expr>, Ty),
        r: (Option<Expr>, Ty),
    ) -> (Option<Expr>, Ty) {
        let Some((dtype, ty)) = self.binary_type(op, span, l.1, r.1) else {
            return (None, Ty::Error);
        };
        let (Some(lhs), Some(rhs)) = (l.0, r.0) else {
            return (None, Ty::Error);
        };
        let (lhs, rhs) = (
            Box::new(self.typed(lhs, dtype, span)),
            Box::new(self.typed(rhs, dtype, span)),
        );
        let expr = match arithmetic_op(op) {
            Some(op) => Expr::Binary {
                op,
                lhs,
                rhs,
                dtype,
            },
            None => Expr::Compare {
                op: compare_op(op),
                lhs,
                rhs,
                dtype,
            },
        };
        (Some(expr), ty)
    }

    /// The dtype `op` computes in and the type of its result, for operands of types
    /// `l` and `r`; `None` after reporting a mismatch (or when an operand was wrong).
    pub(super) fn binary_type(
        &mut self,
        op: BinOp,
        span: Span,
        l: Ty,
        r: Ty,
    ) -> Option<(Dtype, Ty)> {
        let dtype = self.unify(span, op.symbol(), l, r)?;
        let both_literals = matches!((l, r), (Ty::Literal { .. }, Ty::Literal { .. }));
        let bitwise = matches!(
            op,
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr
        );
        if bitwise && dtype.is_float() {
            let int = same_width_integer(dtype);
            let symbol = op.symbol();
            let (what, help) = if both_literals {
                (
                    "a floating-point literal".to_string(),
                    "write integer literals".to_string(),
                )
            } else {
                (
                    dtype.to_string(),
                    format!(
                        "cast both sides to an integer first: `(a as {int}) {symbol} (b as {int})`"
                    ),
                )
            };
            self.report(
                Diagnostic::new(
                    Code::E010,
                    span,
                    format!("`{symbol}` works on the bits of integers but got {what}"),
                )
                .help(help),
            );
            return None;
        }
        let ty = match (l, r) {
            _ if op.is_comparison() => Ty::Mask(dtype),
            (Ty::Literal { is_float: a }, Ty::Literal { is_float: b }) => {
                Ty::Literal { is_float: a || b }
            }
            _ => Ty::Value(dtype),
        };
        Some((dtype, ty))
    }

    /// The common dtype of two operands, or a type-mismatch error at `span`.
    fn unify(&mut self, span: Span, what: &str, l: Ty, r: Ty) -> Option<Dtype> {
        match (l, r) {
            (Ty::Error, _) | (_, Ty::Error) => None,
            (Ty::Mask(_), _) | (_, Ty::Mask(_)) => {
                self.report(
                    Diagnostic::new(
                        Code::E010,
                        span,
                        format!("`{what}` takes numbers, not a comparison's mask"),
                    )
                    .help("use the comparison as the first argument of `select`"),
                );
                None
            }
            (Ty::Value(a), Ty::Value(b)) if a == b => Some(a),
            (Ty::Value(a), Ty::Value(b)) => {
                let (wide, narrow) = match a.wider(b) {
                    wide if wide == a => (a, b),
                    _ => (b, a),
                };
                self.report(
                    Diagnostic::new(Code::E010, span, format!("`{what}` mixes {a} and {b}")).help(
                        format!("cast the {narrow} operand to {wide}: `(OPERAND as {wide})`"),
                    ),
                );
                None
            }
            (Ty::Value(d), Ty::Literal { is_float }) | (Ty::Literal { is_float }, Ty::Value(d)) => {
                if is_float && !d.is_float() {
                    self.report(
                        Diagnostic::new(
                            Code::E010,
                            span,
                            format!("`{what}` mixes {d} and a floating-point literal"),
                        )
                        .help(match what {
                            "&" | "|" | "^" | "<<" | ">>" => format!(
                                "`{what}` works on the bits of integers: write an integer literal (`0xF` is 15, `0b101` is 5)"
                            ),
                            _ => "write an integer literal, or cast the other side to a float dtype".into(),
                        }),
                    );
                    return None;
                }
                Some(d)
            }
            (Ty::Literal { is_float: a }, Ty::Literal { is_float: b }) => {
                Some(if a || b { Dtype::F32 } else { Dtype::I32 })
            }
        }
    }
}

/// The checked operation of an arithmetic or bitwise operator; `None` for a comparison.
pub(super) fn arithmetic_op(op: BinOp) -> Option<BinaryOp> {
    Some(match op {
        BinOp::Add => BinaryOp::Add,
        BinOp::Sub => BinaryOp::Sub,
        BinOp::Mul => BinaryOp::Mul,
        BinOp::Div => BinaryOp::Div,
        BinOp::Rem => BinaryOp::Rem,
        BinOp::BitAnd => BinaryOp::And,
        BinOp::BitOr => BinaryOp::Or,
        BinOp::BitXor => BinaryOp::Xor,
        BinOp::Shl => BinaryOp::Shl,
        BinOp::Shr => BinaryOp::Shr,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => return None,
    })
}

fn compare_op(op: BinOp) -> CompareOp {
    match op {
        BinOp::Lt => CompareOp::Lt,
        BinOp::Le => CompareOp::Le,
        BinOp::Gt => CompareOp::Gt,
        BinOp::Ge => CompareOp::Ge,
        BinOp::Eq => CompareOp::Eq,
        _ => CompareOp::Ne,
    }
}

/// The span a diagnostic about a whole expression points at.
pub(super) fn expr_span(expr: &ast::Expr) -> Span {
    match expr {
        ast::Expr::Load { tensor, .. } => tensor.span(),
        ast::Expr::Literal { span, .. }
        | ast::Expr::Neg { span, .. }
        | ast::Expr::Binary { span, .. } => *span,
        ast::Expr::Chain { rest, first } => {
            rest.first().map_or_else(|| expr_span(first), |l| l.span)
        }
        ast::Expr::Call { func, .. } => func.span(),
        ast::Expr::Cast { dtype, .. } => dtype.span(),
        ast::Expr::Not { span, .. } => *span,
    }
}

pub(super) fn ast_preorder<'a>(expr: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    out.push(expr);
    match expr {
        ast::Expr::Load { .. } | ast::Expr::Literal { .. } => {}
        ast::Expr::Neg { arg, .. } | ast::Expr::Cast { arg, .. } | ast::Expr::Not { arg, .. } => {
            ast_preorder(arg, out)
        }
        ast::Expr::Binary { lhs, rhs, .. } => {
            ast_preorder(lhs, out);
            ast_preorder(rhs, out);
        }
        ast::Expr::Chain { first, rest } => {
            ast_preorder(first, out);
            for link in rest {
                ast_preorder(&link.operand, out);
            }
        }
        ast::Expr::Call { args, .. } => args.iter().for_each(|arg| ast_preorder(arg, out)),
    }
}

/// The integer dtype of the same width as a float, for a cast the bit operations need.
fn same_width_integer(dtype: Dtype) -> Dtype {
    if dtype.size() >= 4 {
        Dtype::I32
    } else {
        Dtype::I16
    }
}

/// "1 subscript", "2 subscripts".
pub(super) fn subscripts(count: usize) -> String {
    if count == 1 {
        "1 subscript".into()
    } else {
        format!("{count} subscripts")
    }
}
