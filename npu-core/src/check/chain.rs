//! Type-checking a chain of operators, `a + b - c + ...`, in one loop over its
//! operands: each step is typed as the binary operation of the value so far and the
//! next operand, as the left-deep tree `((a + b) - c) + ...` would be, and the
//! checked chain is one [`Expr::Chain`] node in source order.

use super::expr::arithmetic_op;
use super::{Checker, Scope, Ty};
use proc_macro2::Span;

use crate::ast;
use crate::dtype::Dtype;
use crate::ir::*;

impl Checker<'_> {
    pub(super) fn chain(
        &mut self,
        first: &ast::Expr,
        rest: &[ast::Link],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        if rest.iter().any(|link| arithmetic_op(link.op).is_none()) {
            // The parser never chains a comparison; a tree built by hand may.
            return self.chain_by_pairs(first, rest, scope, tensors);
        }
        let (first, mut ty) = self.expr(first, scope, tensors);
        let mut dtype = Dtype::F32;
        let mut terms = Vec::with_capacity(rest.len());
        let mut complete = first.is_some();
        for link in rest {
            let (term, term_ty) = self.expr(&link.operand, scope, tensors);
            match self.binary_type(link.op, link.span, ty, term_ty) {
                Some((step_dtype, step_ty)) => (dtype, ty) = (step_dtype, step_ty),
                None => ty = Ty::Error,
            }
            let op = arithmetic_op(link.op).unwrap_or(BinaryOp::Add);
            match term {
                Some(term) => terms.push((op, term)),
                None => complete = false,
            }
        }
        let (Some(first), true) = (first, complete && ty != Ty::Error) else {
            return (None, Ty::Error);
        };
        // Every step computes in the dtype the first typed operand settles: literals
        // before it take that dtype, as they would from their parent in the tree.
        let span = rest.first().map_or_else(Span::call_site, |link| link.span);
        let first = self.typed(first, dtype, span);
        let rest = terms
            .into_iter()
            .map(|(op, term)| (op, self.typed(term, dtype, span)))
            .collect();
        (Some(constant_prefix_nested(first, rest, dtype)), ty)
    }

    /// `first op1 t1 op2 t2 ...` folded pair by pair, for a chain holding a comparison.
    fn chain_by_pairs(
        &mut self,
        first: &ast::Expr,
        rest: &[ast::Link],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let mut value = self.expr(first, scope, tensors);
        for link in rest {
            let operand = self.expr(&link.operand, scope, tensors);
            value = self.binary(link.op, link.span, value, operand);
        }
        value
    }
}

/// The chain of `first` and `rest`, with a leading run of two or more constant
/// operands (`1.0 + 2.0 + x[i]`) nested as a chain of its own: lowering folds a
/// constant step into a scalar operand, and a step of a chain is folded only when the
/// whole chain is, so the constant steps must form a node of their own, as they did
/// in the tree.
fn constant_prefix_nested(first: Expr, mut rest: Vec<(BinaryOp, Expr)>, dtype: Dtype) -> Expr {
    let constant = std::iter::once(&first)
        .chain(rest.iter().map(|(_, term)| term))
        .take_while(|term| term.is_constant())
        .count();
    if constant < 2 || constant > rest.len() {
        return Expr::chain(first, rest, dtype);
    }
    let tail = rest.split_off(constant - 1);
    Expr::chain(Expr::chain(first, rest, dtype), tail, dtype)
}
