//! The matmul form of a checked statement: whether the cube can run it, and why not.
//! The class rule and the schedule checker both ask; this module asks nothing of them.

use crate::dtype::Dtype;
use crate::ir::*;
use crate::target::Target;

/// Recognises `c[m, n] = sum[k](a[m, k] * b[k, n])`, with casts allowed around the
/// operands and around the sum, and its batched form `c[t, m, n] = sum[k](a[t, m, k] *
/// b[t, k, n])`, where one operand may leave out the leading batch axis `t` (a matrix
/// the whole batch shares). An operand with its batch axis elsewhere, or neither with
/// one, is not a batched matmul: the kernel is a reduction on the vector unit.
pub(super) fn matmul_shape(assign: &Assign, axes: &[Axis]) -> Option<MatmulShape> {
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
pub(super) fn short_of_the_fractal(
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
pub(super) fn matmul_input_dtype(expr: &Expr, tensor: usize) -> Option<Dtype> {
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
