//! Named constants: a 0-d `let` whose value holds only literals (`let scale = 127.0;`,
//! `let half = scale / 2.0;`) computes nothing on chip. It names its literal tree, and
//! each bare read of the name is checked as that tree written in its place, so it
//! takes the dtype of its use as a literal does: `x[i] * scale` on f16 reads 127 as
//! f16. A `let` with subscripts that holds only literals still has no dtype [E010].

use super::expr::{arithmetic_op, ast_preorder};
use super::{Checker, Scope, Ty};
use proc_macro2::Ident;

use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::ir::{Expr, Tensor};

impl Checker<'_> {
    /// Whether `stmt` is a named constant, which it records in `scope`: a `let`
    /// without subscripts whose value is literals, arithmetic on them and other named
    /// constants.
    pub(super) fn named_constant(&mut self, stmt: &ast::Stmt, scope: &mut Scope) -> bool {
        if !stmt.indices.is_empty() || !literal_tree(&stmt.value, scope) {
            return false;
        }
        let name = stmt.output.to_string();
        scope
            .constants
            .insert(name, (stmt.output.clone(), stmt.value.clone()));
        true
    }

    /// Reports each named constant whose name is also an axis [E030]: subscripts
    /// name axes, so `let i = 0; y[i] = x[i];` reads `x` over the axis `i`, not at 0,
    /// which a reader of the text may well take it to mean.
    pub(super) fn constants_named_as_axes(&mut self, scope: &Scope) {
        for (name, (ident, _)) in &scope.constants {
            if scope.axes.iter().any(|axis| &axis.name == name) {
                self.report(
                    Diagnostic::new(
                        Code::E030,
                        ident.span(),
                        format!("`{name}` names a constant and an axis"),
                    )
                    .help("subscripts name axes, not constants: give the constant another name, or write its value in the subscript"),
                );
            }
        }
    }

    /// The read of a named constant: its literal tree, checked where it is read; an
    /// error [E011] when it is read with subscripts; `None` when `name` is no constant.
    pub(super) fn constant_read(
        &mut self,
        ident: &Ident,
        indices: &[ast::Index],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> Option<(Option<Expr>, Ty)> {
        let name = ident.to_string();
        let value = scope.constants.get(&name)?.1.clone();
        if !indices.is_empty() {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    ident.span(),
                    format!("`{name}` is a named constant and has no subscripts"),
                )
                .help(format!("read it by its bare name, `{name}`")),
            );
            return Some((None, Ty::Error));
        }
        Some(self.expr(&value, scope, tensors))
    }
}

/// Whether every node of `expr` is a literal, a negation, an arithmetic operation or a
/// bare read of a named constant of `scope`.
fn literal_tree(expr: &ast::Expr, scope: &Scope) -> bool {
    let mut nodes = Vec::new();
    ast_preorder(expr, &mut nodes);
    nodes.iter().all(|node| match node {
        ast::Expr::Literal { .. } | ast::Expr::Neg { .. } | ast::Expr::Chain { .. } => true,
        ast::Expr::Binary { op, .. } => arithmetic_op(*op).is_some(),
        ast::Expr::Load {
            tensor,
            indices,
            pad: None,
        } => indices.is_empty() && scope.constants.contains_key(&tensor.to_string()),
        _ => false,
    })
}
