//! Named constants: a 0-d `let` whose value holds only literals (`let scale = 127.0;`,
//! `let half = scale / 2.0;`) computes nothing on chip. It names its literal tree, and
//! each bare read of the name is checked as that tree written in its place, so it
//! takes the dtype of its use as a literal does: `x[i] * scale` on f16 reads 127 as
//! f16. A `let` with subscripts that holds only literals still has no dtype [E010].
//!
//! A constant may read earlier ones, so its tree in place can be far larger and deeper
//! than its text (`let c1 = c0 + c0; let c2 = c1 + c1; ...` doubles at each step): one
//! that would put more than [`MAX_CONSTANT_NODES`] nodes or [`MAX_CONSTANT_DEPTH`]
//! levels in place of a read is refused [E007], so that checking stays small and its
//! recursion shallow whatever a reply writes.

use super::expr::{arithmetic_op, ast_preorder};
use super::{Checker, Constant, Scope, Ty};
use proc_macro2::Ident;

use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::ir::{Expr, Tensor};

/// The most nodes a named constant's tree holds in place of a read, constants it
/// reads expanded: as many as one operator chain may have.
pub(super) const MAX_CONSTANT_NODES: usize = crate::parse::MAX_CHAIN_TERMS;
/// The most levels a named constant's tree nests, constants it reads expanded: a
/// quarter of what one expression may, so that a read deep in a statement stays well
/// inside the checker's stack.
pub(super) const MAX_CONSTANT_DEPTH: usize = crate::parse::MAX_EXPR_DEPTH / 4;

impl Checker<'_> {
    /// Whether `stmt` is a named constant, which it records in `scope`: a `let`
    /// without subscripts whose value is literals, arithmetic on them and other named
    /// constants.
    pub(super) fn named_constant(&mut self, stmt: &ast::Stmt, scope: &mut Scope) -> bool {
        if !stmt.indices.is_empty() || !literal_tree(&stmt.value, scope) {
            return false;
        }
        let name = stmt.output.to_string();
        let (nodes, depth) = expanded(&stmt.value, scope);
        let fits = nodes <= MAX_CONSTANT_NODES && depth <= MAX_CONSTANT_DEPTH;
        // One refused constant is one error, not one more for each that reads it.
        let mut read = Vec::new();
        ast_preorder(&stmt.value, &mut read);
        let reads_refused = read.iter().any(|node| match node {
            ast::Expr::Load { tensor, .. } => scope
                .constants
                .get(&tensor.to_string())
                .is_some_and(|c| c.value.is_none()),
            _ => false,
        });
        if !fits && !reads_refused {
            self.report(
                Diagnostic::new(
                    Code::E007,
                    stmt.output.span(),
                    format!("`{name}` stands for {nodes} nodes {depth} levels deep, with the constants it reads in place; a constant holds at most {MAX_CONSTANT_NODES} nodes {MAX_CONSTANT_DEPTH} levels deep"),
                )
                .help("write the value itself, or compute it in a `let` over the axes"),
            );
        }
        let constant = Constant {
            ident: stmt.output.clone(),
            value: fits.then(|| stmt.value.clone()),
            nodes,
            depth,
        };
        scope.constants.insert(name, constant);
        true
    }

    /// Reports each named constant whose name is also an axis [E030]: subscripts
    /// name axes, so `let i = 0; y[i] = x[i];` reads `x` over the axis `i`, not at 0,
    /// which a reader of the text may well take it to mean.
    pub(super) fn constants_named_as_axes(&mut self, scope: &Scope) {
        for (name, constant) in &scope.constants {
            if scope.axes.iter().any(|axis| &axis.name == name) {
                self.report(
                    Diagnostic::new(
                        Code::E030,
                        constant.ident.span(),
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
        let value = scope.constants.get(&name)?.value.clone();
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
        match value {
            Some(value) => Some(self.expr(&value, scope, tensors)),
            None => Some((None, Ty::Error)),
        }
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

/// The nodes and levels of `expr`, a literal tree, with the named constants it reads
/// in place.
fn expanded(expr: &ast::Expr, scope: &Scope) -> (usize, usize) {
    let combine = |parts: &[(usize, usize)]| {
        let nodes = parts
            .iter()
            .fold(1usize, |sum, part| sum.saturating_add(part.0));
        let depth = parts.iter().map(|part| part.1).max().unwrap_or(0);
        (nodes, depth.saturating_add(1))
    };
    match expr {
        ast::Expr::Neg { arg, .. } => combine(&[expanded(arg, scope)]),
        ast::Expr::Binary { lhs, rhs, .. } => {
            combine(&[expanded(lhs, scope), expanded(rhs, scope)])
        }
        ast::Expr::Chain { first, rest } => {
            let operands = std::iter::once(&**first).chain(rest.iter().map(|link| &link.operand));
            combine(&operands.map(|e| expanded(e, scope)).collect::<Vec<_>>())
        }
        ast::Expr::Load { tensor, .. } => scope
            .constants
            .get(&tensor.to_string())
            .map_or((1, 1), |constant| (constant.nodes, constant.depth)),
        _ => (1, 1),
    }
}
