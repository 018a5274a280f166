//! The help of an E026 "cannot compute `op` in DTYPE": the statement rewritten to
//! compute in a dtype the target's vector unit has, shown only when the kernel with
//! that statement checks without the error and without a new one.

use proc_macro2::Ident;

use super::Checker;
use crate::ast::{self, KernelDef};
use crate::diag::{Diagnostic, Diagnostics};
use crate::dtype::Dtype;
use crate::ir::Tensor;
use crate::target::Target;
use crate::words::list;

/// An E026 about a dtype the vector unit lacks: where it is and what it is about.
pub(super) struct Unsupported {
    /// The diagnostic, not yet reported: its help is chosen once every statement has
    /// been checked.
    pub diagnostic: Diagnostic,
    /// Index of the statement in the kernel's body.
    pub statement: usize,
    pub dtype: Dtype,
}

impl Checker<'_> {
    /// Reports each E026 of `found` with a help that rewrites its statement, when a
    /// rewrite clears it: an `argmax` whose index the unit cannot hold computes it in
    /// i32 and casts it (`argmax[k](..) as u32`); a statement over a dtype the unit
    /// lacks casts those reads to one it has and its value back. Each candidate is
    /// checked with the kernel before it is shown; without one, the help lists the
    /// dtypes.
    pub(super) fn retype_helps(
        &mut self,
        def: &KernelDef,
        tensors: &[Tensor],
        found: Vec<Unsupported>,
    ) {
        // Every diagnostic of the kernel, the E026s not yet reported included.
        let errors = self.diagnostics.len() + found.len();
        for unsupported in found {
            let stmt = &def.body[unsupported.statement];
            let help = rewrites(stmt, def, tensors, unsupported.dtype, self.target)
                .into_iter()
                .find(|(_, rewritten)| {
                    let mut edited = def.clone();
                    edited.body[unsupported.statement] = rewritten.clone();
                    recheck(&edited, self.target).len() + 1 == errors
                });
            let names: Vec<&str> = self.target.vector.dtypes.iter().map(|d| d.name()).collect();
            let help = match help {
                Some((how, rewritten)) => format!(
                    "it computes {}; {how}: `{}`",
                    list(&names),
                    crate::print::statement(&rewritten)
                ),
                None => format!("it computes {}", list(&names)),
            };
            self.report(unsupported.diagnostic.help(help));
        }
    }
}

/// The kernel's own diagnostics (no schedules), with no helps computed.
fn recheck(def: &KernelDef, target: &Target) -> Diagnostics {
    let mut checker = Checker {
        target,
        diagnostics: Diagnostics::default(),
        untyped: Vec::new(),
        helps: false,
        require_schedule: true,
        literals: Vec::new(),
    };
    let _ = checker.kernel(def);
    checker.diagnostics
}

/// Candidate rewrites of `stmt`, each with the words the help says it with.
fn rewrites(
    stmt: &ast::Stmt,
    def: &KernelDef,
    tensors: &[Tensor],
    dtype: Dtype,
    target: &Target,
) -> Vec<(String, ast::Stmt)> {
    let mut out = Vec::new();
    let output_dtype = def
        .outputs
        .iter()
        .find(|p| p.name == stmt.output)
        .map(|p| p.dtype.clone());
    let arg_root = matches!(&stmt.value, ast::Expr::Call { func, reduction: Some(r), .. }
        if (func == "argmax" || func == "argmin") && r.accumulator.is_none());
    if let (true, Some(out_dtype)) = (arg_root, &output_dtype) {
        let value = cast(stmt.value.clone(), out_dtype.clone());
        out.push((
            "compute the index in i32 and cast it".to_string(),
            ast::Stmt {
                value,
                ..stmt.clone()
            },
        ));
    }
    let Some(wider) = wider_dtype(dtype, target) else {
        return out;
    };
    let stmt_dtype = output_dtype.or_else(|| {
        tensors
            .iter()
            .find(|t| stmt.output == t.name)
            .map(|t| Ident::new(t.dtype.name(), stmt.output.span()))
    });
    let Some(stmt_dtype) = stmt_dtype else {
        return out;
    };
    let widened = widen(&stmt.value, dtype, wider, tensors);
    let rounds = if holds(wider, dtype) {
        ""
    } else {
        ", which rounds,"
    };
    let how = format!("compute in {wider}{rounds} and cast the result back");
    let back = match &widened {
        ast::Expr::Cast { dtype, .. } if *dtype == stmt_dtype => widened.clone(),
        _ => cast(widened.clone(), stmt_dtype.clone()),
    };
    out.push((
        how.clone(),
        ast::Stmt {
            value: back,
            ..stmt.clone()
        },
    ));
    // Literals take their context's dtype, so a value made of literals (a `select`
    // between constants) is computed in `wider` only when cast to it first.
    let in_wider = cast(widened, Ident::new(wider.name(), stmt.output.span()));
    out.push((
        how,
        ast::Stmt {
            value: cast(in_wider, stmt_dtype),
            ..stmt.clone()
        },
    ));
    out
}

/// `value as dtype`.
fn cast(value: ast::Expr, dtype: Ident) -> ast::Expr {
    ast::Expr::Cast {
        arg: Box::new(value),
        dtype,
        saturating: false,
    }
}

/// A dtype of the same kind as `dtype` that the vector unit computes: the narrowest
/// that holds every value of `dtype`, else the widest it has.
fn wider_dtype(dtype: Dtype, target: &Target) -> Option<Dtype> {
    let mut same_kind: Vec<Dtype> = target
        .vector
        .dtypes
        .iter()
        .copied()
        .filter(|d| *d != dtype && d.is_float() == dtype.is_float())
        .collect();
    same_kind.sort_by_key(|d| d.size());
    same_kind
        .iter()
        .copied()
        .find(|d| holds(*d, dtype))
        .or_else(|| same_kind.last().copied())
}

/// Whether every value of `from` is one of `to`.
fn holds(to: Dtype, from: Dtype) -> bool {
    let ((low, high), (from_low, from_high)) = (to.range(), from.range());
    let float_ok = !from.is_float() || to == Dtype::F32;
    float_ok && low <= from_low && high >= from_high
}

/// `expr` with every read of a tensor or scalar parameter of `from` cast to `to`, and
/// every cast to `from` and accumulator named `from` turned into `to`.
fn widen(expr: &ast::Expr, from: Dtype, to: Dtype, tensors: &[Tensor]) -> ast::Expr {
    let again = |e: &ast::Expr| Box::new(widen(e, from, to, tensors));
    let retype = |ident: &Ident| {
        if *ident == from.name() {
            Ident::new(to.name(), ident.span())
        } else {
            ident.clone()
        }
    };
    match expr {
        ast::Expr::Load { tensor, .. } => {
            let read = tensors.iter().find(|t| *tensor == t.name);
            if read.is_some_and(|t| t.dtype == from) {
                cast(expr.clone(), Ident::new(to.name(), tensor.span()))
            } else {
                expr.clone()
            }
        }
        ast::Expr::Literal { .. } => expr.clone(),
        ast::Expr::Neg { arg, span } => ast::Expr::Neg {
            arg: again(arg),
            span: *span,
        },
        ast::Expr::Not { arg, span } => ast::Expr::Not {
            arg: again(arg),
            span: *span,
        },
        ast::Expr::Binary { op, span, lhs, rhs } => ast::Expr::Binary {
            op: *op,
            span: *span,
            lhs: again(lhs),
            rhs: again(rhs),
        },
        ast::Expr::Chain { first, rest } => ast::Expr::Chain {
            first: again(first),
            rest: rest
                .iter()
                .map(|link| ast::Link {
                    operand: widen(&link.operand, from, to, tensors),
                    ..link.clone()
                })
                .collect(),
        },
        ast::Expr::Call {
            func,
            reduction,
            args,
        } => ast::Expr::Call {
            func: func.clone(),
            reduction: reduction.clone().map(|r| ast::Reduction {
                accumulator: r.accumulator.as_ref().map(retype),
                ..r
            }),
            args: args.iter().map(|a| widen(a, from, to, tensors)).collect(),
        },
        ast::Expr::Cast {
            arg,
            dtype,
            saturating,
        } => ast::Expr::Cast {
            arg: again(arg),
            dtype: retype(dtype),
            saturating: *saturating,
        },
    }
}
