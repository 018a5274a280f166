//! Literals take the dtype their context settled on: a literal, arithmetic on
//! literals, or a `select` between such values is given the dtype of the expression
//! around it. A literal that dtype cannot hold (a finite float that would round to an
//! infinity, an integer outside the dtype's range) is refused [E010]: it would not be
//! the number written.

use crate::dtype::Dtype;
use crate::ir::*;

/// Gives unresolved literals in `expr` the dtype their context settled on.
pub(in crate::check) fn resolve_literals(expr: Expr, dtype: Dtype) -> Expr {
    match expr {
        Expr::Const { value, .. } => Expr::Const {
            value: dtype.round(value),
            dtype,
        },
        Expr::Binary {
            op,
            lhs,
            rhs,
            dtype: d,
        } if is_literal_tree(&lhs) && is_literal_tree(&rhs) && d != dtype => Expr::Binary {
            op,
            lhs: Box::new(resolve_literals(*lhs, dtype)),
            rhs: Box::new(resolve_literals(*rhs, dtype)),
            dtype,
        },
        Expr::Chain {
            first,
            rest,
            dtype: d,
        } if is_literal_tree(&first)
            && rest.iter().all(|(_, t)| is_literal_tree(t))
            && d != dtype =>
        {
            Expr::Chain {
                first: Box::new(resolve_literals(*first, dtype)),
                rest: rest
                    .into_iter()
                    .map(|(op, term)| (op, resolve_literals(term, dtype)))
                    .collect(),
                dtype,
            }
        }
        Expr::Unary { op, arg, dtype: d } if is_literal_tree(&arg) && d != dtype => Expr::Unary {
            op,
            arg: Box::new(resolve_literals(*arg, dtype)),
            dtype,
        },
        Expr::Select {
            cond,
            then,
            otherwise,
            dtype: d,
        } if is_literal_tree(&then) && is_literal_tree(&otherwise) && d != dtype => Expr::Select {
            cond,
            then: Box::new(resolve_literals(*then, dtype)),
            otherwise: Box::new(resolve_literals(*otherwise, dtype)),
            dtype,
        },
        other => other,
    }
}

/// The first literal of the literal tree in `expr` that `dtype` cannot hold, as
/// written (a negated literal with its sign, so that `-128` fits i8): a finite float
/// that rounds to an infinity, or an integer outside the dtype's range.
pub(in crate::check) fn unfit_literal(expr: &Expr, dtype: Dtype) -> Option<f64> {
    let fits = |value: f64| {
        let (low, high) = dtype.range();
        match dtype.is_float() {
            true => !value.is_finite() || dtype.round(value).is_finite(),
            false => (low..=high).contains(&value),
        }
    };
    match expr {
        Expr::Const { value, .. } => (!fits(*value)).then_some(*value),
        Expr::Unary {
            op: UnaryOp::Neg,
            arg,
            ..
        } if matches!(**arg, Expr::Const { .. }) => {
            let Expr::Const { value, .. } = **arg else {
                return None;
            };
            (!fits(-value)).then_some(-value)
        }
        // resolve_literals gives a dtype to literal trees only.
        _ if !is_literal_tree(expr) => None,
        Expr::Binary { lhs, rhs, .. } => {
            unfit_literal(lhs, dtype).or_else(|| unfit_literal(rhs, dtype))
        }
        Expr::Chain { first, rest, .. } => unfit_literal(first, dtype)
            .or_else(|| rest.iter().find_map(|(_, term)| unfit_literal(term, dtype))),
        Expr::Unary { arg, .. } => unfit_literal(arg, dtype),
        Expr::Select {
            then, otherwise, ..
        } => unfit_literal(then, dtype).or_else(|| unfit_literal(otherwise, dtype)),
        _ => None,
    }
}

/// Whether the value of `expr` is built from literals only, so that its dtype is the
/// context's: arithmetic on literals, and a `select` between such values (its
/// condition compares in the dtype of its own operands and does not count).
fn is_literal_tree(expr: &Expr) -> bool {
    match expr {
        Expr::Const { .. } => true,
        Expr::Binary { lhs, rhs, .. } => is_literal_tree(lhs) && is_literal_tree(rhs),
        Expr::Chain { first, rest, .. } => {
            is_literal_tree(first) && rest.iter().all(|(_, term)| is_literal_tree(term))
        }
        Expr::Unary { arg, .. } => is_literal_tree(arg),
        Expr::Select {
            then, otherwise, ..
        } => is_literal_tree(then) && is_literal_tree(otherwise),
        _ => false,
    }
}
