//! Facts of a checked expression that the checker, the buffer plan and lowering share:
//! the value of a node made only of constants, which lowering folds into a scalar
//! operand, and the element width a node's vector instruction is charged for.

use super::Expr;
use crate::scalar;
use crate::target::{Implementation, Target, VectorOp};

/// The value of an expression made only of constants, unary and binary arithmetic and
/// casts, folded with the scalar semantics. Lowering gives such a node no instruction:
/// it becomes a scalar operand.
pub fn constant_value(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Const { value, dtype } => Some(dtype.round(*value)),
        Expr::Unary { op, arg, dtype } => Some(scalar::unary(*op, *dtype, constant_value(arg)?)),
        Expr::Binary {
            op,
            lhs,
            rhs,
            dtype,
        } => Some(scalar::binary(
            *op,
            *dtype,
            constant_value(lhs)?,
            constant_value(rhs)?,
        )),
        Expr::Chain { first, rest, dtype } => {
            let mut value = constant_value(first)?;
            for (op, term) in rest {
                value = scalar::binary(*op, *dtype, value, constant_value(term)?);
            }
            Some(value)
        }
        Expr::Cast {
            arg,
            dtype,
            saturate: false,
        } => Some(scalar::cast(*dtype, constant_value(arg)?)),
        Expr::Cast {
            arg,
            dtype,
            saturate: true,
        } => Some(scalar::cast_saturating(*dtype, constant_value(arg)?)),
        _ => None,
    }
}

/// Bytes per element an expression node's vector instruction is charged for (its
/// widest element; the accumulator's for a reduction), `None` for nodes that issue no
/// arithmetic (loads and constants). The checker's repeat limit uses the same rule.
pub fn vector_width(expr: &Expr) -> Option<u64> {
    let width = |e: &Expr| e.dtype().size();
    match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => None,
        _ if constant_value(expr).is_some() => None,
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => Some(width(expr).max(width(arg))),
        Expr::Binary { .. } | Expr::Chain { .. } | Expr::Compare { .. } | Expr::Select { .. } => {
            Some(width(expr))
        }
        // A fold reads its operands in the reduction's dtype and writes the
        // accumulator; an arg reduction touches its values and its index alike.
        Expr::Reduce {
            accumulator, dtype, ..
        } => Some(accumulator.size().max(dtype.size())),
        Expr::Scan {
            accumulator, dtype, ..
        } => Some(accumulator.size().max(dtype.size())),
    }
}

/// How `target` computes `node`, a unary or binary operation (or a chain of them) of
/// cost class `op`: correctly rounded when the node is made of constants only, since
/// every stage folds it at compile time; else the target's implementation of `op`.
pub fn implementation_of(target: &Target, node: &Expr, op: VectorOp) -> Implementation {
    match target.implementation(op) {
        Implementation::CorrectlyRounded => Implementation::CorrectlyRounded,
        _ if constant_value(node).is_some() => Implementation::CorrectlyRounded,
        implementation => implementation,
    }
}
