//! Classifying a checked kernel (elementwise, reduction, matmul) and checking that
//! the target's units can compute it.

use proc_macro2::Span;

use super::Checker;
use super::expr::{ast_preorder, expr_span};
use super::matmul::{matmul_input_dtype, matmul_shape, short_of_the_fractal};
use super::retype::Unsupported;
use crate::ast::{self, KernelDef};
use crate::diag::{Code, Diagnostic};
use crate::dtype::Dtype;
use crate::ir::*;
use crate::target::{Target, VectorOp};
use crate::words::list;

impl Checker<'_> {
    /// Sorts the kernel into a class and reports a matmul on a target without a cube.
    pub(super) fn classify(&mut self, body: &[Assign], axes: &[Axis]) -> Option<KernelClass> {
        let mut has_reduce = false;
        for assign in body {
            assign.value.walk(&mut |node| {
                has_reduce |= matches!(node, Expr::Reduce { .. } | Expr::Scan { .. })
            });
        }
        if !has_reduce {
            return Some(KernelClass::Elementwise);
        }
        if let [assign] = body
            && let Some(shape) = matmul_shape(assign, axes)
            && short_of_the_fractal(&shape, axes, self.target).is_none()
        {
            return Some(KernelClass::Matmul(shape));
        }
        Some(KernelClass::Reduction)
    }

    /// Reports dtypes or units the target cannot compute.
    pub(super) fn units(
        &mut self,
        def: &KernelDef,
        body: &[Assign],
        tensors: &[Tensor],
        class: &KernelClass,
    ) {
        let target = self.target;
        if let KernelClass::Matmul(mm) = class {
            self.matmul_units(def, body, mm);
            return;
        }
        let mut unsupported = Vec::new();
        for (statement, (assign, stmt)) in body.iter().zip(&def.body).enumerate() {
            let mut bad = None;
            assign.value.walk(&mut |node| {
                let dtype = match node {
                    Expr::Load { .. }
                    | Expr::Const { .. }
                    | Expr::Cast { .. }
                    | Expr::Param { .. } => return,
                    // Constants fold when the kernel is lowered: no instruction computes them.
                    other if crate::ir::constant_value(other).is_some() => return,
                    other => other.dtype(),
                };
                if bad.is_none() && !target.computes_in(dtype) {
                    bad = Some((dtype, node));
                }
            });
            // A reduction or scan accumulates in its accumulator dtype.
            assign.value.walk(&mut |node| {
                if let Expr::Reduce { accumulator, .. } | Expr::Scan { accumulator, .. } = node {
                    let accumulator = *accumulator;
                    if bad.is_none() && !target.accumulates_in(accumulator) {
                        bad = Some((accumulator, node));
                    }
                }
            });
            if let Some((dtype, node)) = bad {
                let op = op_name(node);
                // Reported once its help is known: the help is a rewrite checked
                // against every other diagnostic of the kernel.
                unsupported.push(Unsupported {
                    diagnostic: Diagnostic::new(
                        Code::E026,
                        node_span(stmt, assign, Some(node)),
                        format!(
                            "the vector unit of `{}` cannot compute `{op}` in {dtype}",
                            target.name
                        ),
                    ),
                    statement,
                    dtype,
                });
                continue;
            }
            self.missing_operation(stmt, assign);
        }
        if self.helps {
            self.retype_helps(def, tensors, unsupported);
        } else {
            for unsupported in unsupported {
                self.report(unsupported.diagnostic);
            }
        }
    }

    /// E026 for a matmul the target has no cube for, or whose cube does not multiply
    /// the inputs' dtype.
    fn matmul_units(&mut self, def: &KernelDef, body: &[Assign], mm: &MatmulShape) {
        let target = self.target;
        let (stmt, assign) = (&def.body[0], &body[0]);
        let mut reduce = None;
        assign.value.walk(&mut |node| {
            if let Expr::Reduce { .. } = node {
                reduce = reduce.or(Some(node));
            }
        });
        let span = node_span(stmt, assign, reduce);
        match &target.cube {
            None => {
                self.report(
                    Diagnostic::new(
                        Code::E026,
                        span,
                        format!(
                            "target `{}` has no cube unit, which a matmul needs",
                            target.name
                        ),
                    )
                    .help("use a target with a cube, such as `ascend910b`"),
                );
            }
            Some(cube) => {
                for tensor in [mm.a, mm.b] {
                    let dtype = matmul_input_dtype(&body[0].value, tensor).unwrap_or(Dtype::F32);
                    if !cube.dtypes.contains(&dtype) {
                        let names: Vec<&str> = cube.dtypes.iter().map(|d| d.name()).collect();
                        let mut load = None;
                        assign.value.walk(&mut |node| {
                            if let Expr::Load { tensor: t, .. } = node
                                && *t == tensor
                            {
                                load = load.or(Some(node));
                            }
                        });
                        let span = node_span(stmt, assign, load);
                        self.report(
                            Diagnostic::new(
                                Code::E026,
                                span,
                                format!(
                                    "the cube of `{}` multiplies {} but this matmul feeds it {dtype}",
                                    target.name,
                                    list(&names)
                                ),
                            )
                            .help(format!(
                                "declare the inputs as {}",
                                names.first().copied().unwrap_or("f16")
                            )),
                        );
                        break;
                    }
                }
            }
        }
    }

    /// E026 for the first operation of a statement the target's vector unit lacks (its
    /// cost table leaves it out), naming the presets that compute it.
    fn missing_operation(&mut self, stmt: &ast::Stmt, assign: &Assign) {
        let target = self.target;
        let mut missing = None;
        assign.value.walk(&mut |node| {
            if missing.is_none() && crate::ir::constant_value(node).is_none() {
                missing = node_ops(node)
                    .into_iter()
                    .find(|(op, _)| !target.computes(*op))
                    .map(|(op, name)| (op, name, node));
            }
        });
        if let Some((op, name, node)) = missing {
            let presets: Vec<&str> = Target::preset_names()
                .into_iter()
                .filter(|name| Target::preset(name).is_some_and(|t| t.computes(op)))
                .collect();
            self.report(
                Diagnostic::new(
                    Code::E026,
                    node_span(stmt, assign, Some(node)),
                    format!(
                        "the vector unit of `{}` has no `{}` operation (its `vector.cycles` gives it no cost)",
                        target.name, name
                    ),
                )
                .help(format!(
                    "use a target that computes it ({}), or give `vector.cycles.{}` a cost in the target file",
                    list(&presets),
                    op.name()
                )),
            );
        }
    }
}

/// The vector operations a node issues, each with its name in diagnostics: one, or
/// one per step of a chain.
fn node_ops(node: &Expr) -> Vec<(VectorOp, &'static str)> {
    match node {
        Expr::Chain { rest, .. } => rest
            .iter()
            .map(|(op, _)| (op.vector_op(), op.symbol()))
            .collect(),
        _ => vector_op(node)
            .map(|op| (op, op_name(node)))
            .into_iter()
            .collect(),
    }
}

fn op_name(node: &Expr) -> &'static str {
    match node {
        Expr::Unary { op, .. } => op.name(),
        Expr::Binary { op, .. } => op.symbol(),
        Expr::Chain { rest, .. } => rest.first().map_or("+", |(op, _)| op.symbol()),
        Expr::Compare { .. } => "comparison",
        Expr::Select { .. } => "select",
        Expr::Reduce { op, .. } => op.name(),
        Expr::Scan { op, .. } => op.name(),
        Expr::Load { .. } | Expr::Const { .. } | Expr::Cast { .. } | Expr::Param { .. } => "load",
    }
}

/// The vector operation (for costs) an expression node issues.
pub fn vector_op(node: &Expr) -> Option<VectorOp> {
    Some(match node {
        Expr::Unary { op, .. } => op.vector_op(),
        Expr::Binary { op, .. } => op.vector_op(),
        // The first step's; each step issues its own (see `node_ops`).
        Expr::Chain { rest, .. } => rest.first()?.0.vector_op(),
        Expr::Compare { .. } => VectorOp::Cmp,
        Expr::Select { .. } => VectorOp::Select,
        Expr::Cast { .. } => VectorOp::Cast,
        Expr::Reduce { op, .. } => op.vector_op(),
        Expr::Scan { op, .. } => op.vector_op(),
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => return None,
    })
}

/// The token a diagnostic about a node of a checked statement points at, or the
/// statement's output when there is no node.
///
/// Checking turns every syntax node into one checked node with its children in the same
/// order (parentheses make no node), so the n-th node of the checked expression in
/// pre-order is the n-th of the syntax tree.
fn node_span(stmt: &ast::Stmt, assign: &Assign, node: Option<&Expr>) -> Span {
    let mut checked = Vec::new();
    assign.value.walk(&mut |n| checked.push(n));
    let mut syntax = Vec::new();
    ast_preorder(&stmt.value, &mut syntax);
    node.and_then(|node| checked.iter().position(|n| std::ptr::eq(*n, node)))
        .filter(|_| checked.len() == syntax.len())
        .and_then(|index| syntax.get(index))
        .map_or(stmt.output.span(), |expr| expr_span(expr))
}
