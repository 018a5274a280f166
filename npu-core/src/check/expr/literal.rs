//! Literals take the dtype their context settled on: a literal, arithmetic on
//! literals, or a `select` between such values is given the dtype of the expression
//! around it.

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
