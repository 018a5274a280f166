//! Classifying a checked kernel (elementwise, reduction, matmul) and checking that
//! the target's units can compute it.

use proc_macro2::Span;

use super::Checker;
use super::expr::{ast_preorder, expr_span};
use super::retype::Unsupported;
use crate::ast::{self, KernelDef};
use crate::diag::{Code, list};
use crate::dtype::Dtype;
use crate::ir::*;
use crate::target::{Target, VectorOp};

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
                    self.error(
                        Code::E026,
                        span,
                        format!(
                            "target `{}` has no cube unit, which a matmul needs",
                            target.name
                        ),
                    )
                    .help = Some("use a target with a cube, such as `ascend910b`".into());
                }
                Some(cube) => {
                    for tensor in [mm.a, mm.b] {
                        let dtype =
                            matmul_input_dtype(&body[0].value, tensor).unwrap_or(Dtype::F32);
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
                            self.error(Code::E026, span, format!("the cube of `{}` multiplies {} but this matmul feeds it {dtype}", target.name, list(&names)))
                                .help = Some(format!("declare the inputs as {}", names.first().copied().unwrap_or("f16")));
                            break;
                        }
                    }
                }
            }
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
                    other if crate::lower::constant_value(other).is_some() => return,
                    other => other.dtype(),
                };
                if bad.is_none() && !target.vector.dtypes.contains(&dtype) {
                    bad = Some((dtype, node));
                }
            });
            // A reduction or scan accumulates in its accumulator dtype.
            assign.value.walk(&mut |node| {
                if let Expr::Reduce { accumulator, .. } | Expr::Scan { accumulator, .. } = node {
                    let accumulator = *accumulator;
                    if bad.is_none()
                        && !target.vector.dtypes.contains(&accumulator)
                        && !target.vector.accumulators.contains(&accumulator)
                    {
                        bad = Some((accumulator, node));
                    }
                }
            });
            if let Some((dtype, node)) = bad {
                let op = op_name(node);
                self.error(
                    Code::E026,
                    node_span(stmt, assign, Some(node)),
                    format!(
                        "the vector unit of `{}` cannot compute `{op}` in {dtype}",
                        target.name
                    ),
                );
                unsupported.push(Unsupported {
                    diagnostic: self.diagnostics.len() - 1,
                    statement,
                    dtype,
                });
                continue;
            }
            // An operation the target's cost table leaves out is one its unit lacks.
            let mut missing = None;
            assign.value.walk(&mut |node| {
                if missing.is_none() && crate::lower::constant_value(node).is_none() {
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
                self.error(
                    Code::E026,
                    node_span(stmt, assign, Some(node)),
                    format!(
                        "the vector unit of `{}` has no `{}` operation (its `vector.cycles` gives it no cost)",
                        target.name, name
                    ),
                )
                .help = Some(format!(
                    "use a target that computes it ({}), or give `vector.cycles.{}` a cost in the target file",
                    list(&presets),
                    op.name()
                ));
            }
        }
        if self.helps {
            self.retype_helps(def, tensors, &unsupported);
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

/// Recognises `c[m, n] = sum[k](a[m, k] * b[k, n])`, with casts allowed around the
/// operands and around the sum, and its batched form `c[t, m, n] = sum[k](a[t, m, k] *
/// b[t, k, n])`, where one operand may leave out the leading batch axis `t` (a matrix
/// the whole batch shares). An operand with its batch axis elsewhere, or neither with
/// one, is not a batched matmul: the kernel is a reduction on the vector unit.
fn matmul_shape(assign: &Assign, axes: &[Axis]) -> Option<MatmulShape> {
    let shape = matmul_form(assign, axes)?;
    cube_mismatch(assign, &[]).is_none().then_some(shape)
}

/// The reduction of a statement of the matmul form, under its casts.
fn matmul_sum(assign: &Assign) -> &Expr {
    let mut value = &assign.value;
    // A saturating cast is not one the cube's output conversion does.
    while let Expr::Cast {
        arg,
        saturate: false,
        ..
    } = value
    {
        value = arg;
    }
    value
}

/// Why the cube cannot compute a statement of the matmul form as the algorithm says,
/// in words for a diagnostic (`tensors` names the operands; without them, `a` and
/// `b`), or `None` when it can. The cube multiplies two operands of one dtype read as
/// they are, exactly, and accumulates in that dtype's accumulator (f32 for floats, i32
/// for integers): a product of two dtypes, an operand rounded or wrapped by a cast,
/// or a sum in another accumulator is the vector unit's work.
fn cube_mismatch(assign: &Assign, tensors: &[Tensor]) -> Option<String> {
    let Expr::Reduce {
        body, accumulator, ..
    } = matmul_sum(assign)
    else {
        return None;
    };
    let (lhs, rhs, product) = body.product()?;
    let name = |expr: &Expr, fallback: &str| match strip_casts_to_load(expr) {
        Some((tensor, _)) if tensor < tensors.len() => tensors[tensor].name.clone(),
        _ => fallback.to_string(),
    };
    let (a_name, b_name) = (name(lhs, "a"), name(rhs, "b"));
    let (Some(a), Some(b)) = (cube_operand(lhs), cube_operand(rhs)) else {
        let rounded = if cube_operand(lhs).is_none() {
            a_name
        } else {
            b_name
        };
        return Some(format!(
            "a cast of `{rounded}` changes its values before the product, and the cube multiplies the values a tensor holds"
        ));
    };
    if a != b {
        return Some(format!(
            "the cube multiplies two operands of one dtype, but `{a_name}` is {a} and `{b_name}` is {b}"
        ));
    }
    if a.accumulator() != *accumulator {
        return Some(format!(
            "the cube accumulates products of {a} in {}, but this sum accumulates in {accumulator}",
            a.accumulator()
        ));
    }
    (!product.holds_products(a)).then(|| {
        format!("the cube's products of {a} are exact, but this one is rounded to {product}")
    })
}

/// The shape of `c[m, n] = sum[k](a[m, k] * b[k, n])` and its batched form, whatever
/// the dtypes (see [`matmul_shape`]).
fn matmul_form(assign: &Assign, axes: &[Axis]) -> Option<MatmulShape> {
    let value = matmul_sum(assign);
    // A sum over several axes, or in an accumulator the cube does not have, is a
    // reduction on the vector unit.
    let Expr::Reduce {
        op: ReduceOp::Sum,
        axes: reduced,
        body,
        dtype,
        accumulator,
    } = value
    else {
        return None;
    };
    let ([k], true) = (&reduced[..], *accumulator == dtype.accumulator()) else {
        return None;
    };
    let Expr::Binary {
        op: BinaryOp::Mul,
        lhs,
        rhs,
        ..
    } = &**body
    else {
        return None;
    };
    let (a, a_subs) = strip_casts_to_load(lhs)?;
    let (b, b_subs) = strip_casts_to_load(rhs)?;
    let (batch, m, n) = match assign.axes[..] {
        [m, n] => (None, m, n),
        [t, m, n] => (Some(t), m, n),
        _ => return None,
    };
    // The operand's subscripts: `[x, y]`, or `[t, x, y]` in a batched matmul.
    let is = |subs: &[Subscript], x: usize, y: usize| -> Option<bool> {
        let plain = [Subscript::Axis(x), Subscript::Axis(y)];
        if subs == plain {
            return Some(false);
        }
        let t = batch?;
        (subs.len() == 3 && subs[0] == Subscript::Axis(t) && subs[1..] == plain).then_some(true)
    };
    let a_batched = is(a_subs, m, *k)?;
    let b_batched = is(b_subs, *k, n)?;
    if (batch.is_some() && !a_batched && !b_batched) || axes[*k].extent == 0 {
        return None;
    }
    Some(MatmulShape {
        a,
        b,
        c: assign.output,
        m,
        n,
        k: *k,
        batch,
    })
}

/// The axis of a matmul that is shorter than the target's cube fractal along it, and
/// that fractal: no cube block fits such a product, so it is a reduction on the vector
/// unit, the only unit that can run it.
fn short_of_the_fractal(
    shape: &MatmulShape,
    axes: &[Axis],
    target: &Target,
) -> Option<(usize, u64)> {
    let cube = target.cube.as_ref()?;
    [(shape.m, cube.m), (shape.n, cube.n), (shape.k, cube.k)]
        .into_iter()
        .find(|(axis, unit)| axes[*axis].extent < *unit)
}

/// Why a kernel of the matmul form runs on the vector unit, in words for a
/// diagnostic: an axis shorter than the target's cube fractal (see
/// [`short_of_the_fractal`]), or operands and a sum the cube does not compute as the
/// algorithm says (see [`cube_mismatch`]).
pub(crate) fn vector_matmul(kernel: &CheckedKernel, target: &Target) -> Option<String> {
    let [assign] = &kernel.body[..] else {
        return None;
    };
    let shape = matmul_form(assign, &kernel.axes)?;
    if let Some(reason) = cube_mismatch(assign, &kernel.tensors) {
        return Some(reason);
    }
    let (axis, unit) = short_of_the_fractal(&shape, &kernel.axes, target)?;
    let (name, extent) = (&kernel.axes[axis].name, kernel.axes[axis].extent);
    Some(format!(
        "`{name}` has {extent} element{}, fewer than the {unit}-element cube fractal of `{}`, so no cube block fits it",
        if extent == 1 { "" } else { "s" },
        target.name
    ))
}

/// Whether a kernel the cube cannot run was meant as a matmul: one statement that sums
/// a product of two tensors over one axis, with operands the cube's form does not
/// name (a batch axis not first, a transposed operand, a missing batch).
pub(crate) fn near_matmul(kernel: &CheckedKernel) -> bool {
    let [assign] = &kernel.body[..] else {
        return false;
    };
    let mut value = &assign.value;
    while let Expr::Cast { arg, .. } = value {
        value = arg;
    }
    let Expr::Reduce {
        op: ReduceOp::Sum,
        axes,
        body,
        ..
    } = value
    else {
        return false;
    };
    matches!(&**body, Expr::Binary { op: BinaryOp::Mul, lhs, rhs, .. }
        if axes.len() == 1 && strip_casts_to_load(lhs).is_some() && strip_casts_to_load(rhs).is_some())
}

fn strip_casts_to_load(expr: &Expr) -> Option<(usize, &[Subscript])> {
    match expr {
        Expr::Cast {
            arg,
            saturate: false,
            ..
        } => strip_casts_to_load(arg),
        Expr::Load {
            tensor, subscripts, ..
        } => Some((*tensor, subscripts)),
        _ => None,
    }
}

/// The dtype a matmul operand reaches the cube in, when the operand is a load under
/// casts that each keep every value (`a[m, k] as f32` of f16): the cube reads the
/// tensor's own values and converts nothing.
fn cube_operand(expr: &Expr) -> Option<Dtype> {
    match expr {
        Expr::Cast {
            arg,
            dtype,
            saturate: false,
        } if dtype.holds(arg.dtype()) => cube_operand(arg),
        Expr::Load { dtype, .. } => Some(*dtype),
        _ => None,
    }
}

/// The dtype a matmul operand reaches the cube in: the tensor's own dtype.
fn matmul_input_dtype(expr: &Expr, tensor: usize) -> Option<Dtype> {
    let mut found = None;
    expr.walk(&mut |node| {
        if let Expr::Load {
            tensor: t, dtype, ..
        } = node
            && *t == tensor
        {
            found = Some(*dtype);
        }
    });
    found
}
