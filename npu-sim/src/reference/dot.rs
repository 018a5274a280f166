//! Sums of products of two loads, as matmuls and convolutions have, folded over a
//! statement's whole space at once: each element's fold runs in the same order with
//! the same roundings as the general interpreter's, but a row of elements along the
//! statement's innermost axis advances together, reading each operand at an offset
//! that moves by a fixed step along every axis instead of evaluating subscripts at
//! every point. Rows make the reads sequential (a matmul's `b[k, n]` along `n`) and
//! the row's folds independent of one another, which the general loop's one fold at
//! a time is not: a 512³ matmul takes a fraction of a second instead of many.

use npu_core::Dtype;
use npu_core::ir::{BinaryOp, CheckedKernel, Expr, ReduceOp};
use npu_core::scalar;

/// The values of `node`, a reduction in a statement over `axes` (extents
/// `extents`), at every point of the statement's space in row-major order; `None`
/// unless it is a sum of a product of two loads (each perhaps cast) that the steps
/// can read: no padded view, no gather, every read inside its tensor.
pub(super) fn whole(
    kernel: &CheckedKernel,
    node: &Expr,
    axes: &[usize],
    extents: &[u64],
    data: &[Vec<f64>],
    strides: &[Vec<u64>],
    env: &mut [u64],
) -> Option<Vec<f64>> {
    let Expr::Reduce {
        op: ReduceOp::Sum,
        axes: folded,
        body,
        dtype,
        accumulator,
    } = node
    else {
        return None;
    };
    // A sum in lanes folds in the general interpreter's `LaneSum`.
    if kernel.fold_lanes(node) > 1 {
        return None;
    }
    let (lhs, rhs, product) = body.product()?;
    // Every axis the reads move along: the statement's, then the folded ones.
    let all: Vec<usize> = axes.iter().chain(folded).copied().collect();
    let all_extents: Vec<u64> = extents
        .iter()
        .copied()
        .chain(folded.iter().map(|a| kernel.axes[*a].extent))
        .collect();
    let operands = [
        Stepped::new(kernel, lhs, &all, &all_extents, strides, env)?,
        Stepped::new(kernel, rhs, &all, &all_extents, strides, env)?,
    ];
    let (row, outer) = match extents.split_last() {
        Some((row, outer)) => (*row as usize, outer),
        None => (1, &[][..]),
    };
    let row_axis = axes.len().checked_sub(1);
    let row_steps = operands.each(|o| row_axis.map_or(0, |axis| o.steps[axis]));
    let folded_extents = &all_extents[axes.len()..];
    let folds: u64 = folded_extents.iter().product();
    let rows: u64 = outer.iter().product();
    let mut values = Vec::with_capacity(rows as usize * row);
    let mut accs = vec![0.0; row];
    for outer_flat in 0..rows {
        let start = operands.each(|o| o.base + o.offset(outer_flat, outer, 0));
        accs.fill(scalar::reduce_init(ReduceOp::Sum));
        for fold in 0..folds {
            let at = operands.each(|o| o.offset(fold, folded_extents, axes.len()));
            let (mut x_at, mut y_at) = (start[0] + at[0], start[1] + at[1]);
            for acc in accs.iter_mut() {
                let x = operands[0].read(data, x_at);
                let y = operands[1].read(data, y_at);
                let value = scalar::binary(BinaryOp::Mul, product, x, y);
                *acc = scalar::reduce_step_in(ReduceOp::Sum, *accumulator, *acc, value);
                x_at += row_steps[0];
                y_at += row_steps[1];
            }
        }
        values.extend(accs.iter().map(|acc| dtype.round(*acc)));
    }
    Some(values)
}

/// The same per-operand figure for both operands.
trait Each {
    fn each(&self, f: impl Fn(&Stepped) -> usize) -> [usize; 2];
}

impl Each for [Stepped; 2] {
    fn each(&self, f: impl Fn(&Stepped) -> usize) -> [usize; 2] {
        [f(&self[0]), f(&self[1])]
    }
}

/// A load, under any casts, whose offset moves by a fixed step along each axis:
/// `base + Σ steps[a] × position[a]`.
struct Stepped {
    tensor: usize,
    base: usize,
    steps: Vec<usize>,
    /// The casts around the load, innermost first.
    casts: Vec<(Dtype, bool)>,
}

impl Stepped {
    /// `None` unless `expr` is a load (under casts) without a padded view or a
    /// gather whose reads over the axes all lie inside its tensor.
    fn new(
        kernel: &CheckedKernel,
        mut expr: &Expr,
        axes: &[usize],
        extents: &[u64],
        strides: &[Vec<u64>],
        env: &mut [u64],
    ) -> Option<Stepped> {
        let mut casts = Vec::new();
        while let Expr::Cast {
            arg,
            dtype,
            saturate,
        } = expr
        {
            casts.push((*dtype, *saturate));
            expr = arg;
        }
        casts.reverse();
        let Expr::Load {
            tensor,
            subscripts,
            pad: None,
            ..
        } = expr
        else {
            return None;
        };
        let shape = &kernel.tensors[*tensor].shape;
        // The offset with the axes at `positions`, if every subscript is affine and
        // lands inside the tensor.
        let mut offset = |positions: &[u64]| -> Option<usize> {
            for (axis, position) in axes.iter().zip(positions) {
                env[*axis] = *position;
            }
            let mut offset = 0;
            for ((subscript, stride), extent) in subscripts.iter().zip(&strides[*tensor]).zip(shape)
            {
                let position = u64::try_from(subscript.at(env)?).ok()?;
                if position >= *extent {
                    return None;
                }
                offset += position * stride;
            }
            usize::try_from(offset).ok()
        };
        // A subscript grows with every axis (coefficients are positive), so the
        // first and the last point bound every read.
        let last: Vec<u64> = extents.iter().map(|e| e.saturating_sub(1)).collect();
        offset(&last)?;
        let first = vec![0; axes.len()];
        let base = offset(&first)?;
        let steps = (0..axes.len())
            .map(|axis| {
                let mut unit = first.clone();
                unit[axis] = last[axis].min(1);
                offset(&unit)?.checked_sub(base)
            })
            .collect::<Option<Vec<usize>>>()?;
        Some(Stepped {
            tensor: *tensor,
            base,
            steps,
            casts,
        })
    }

    /// The offset, from the base, of the point `flat` (row-major) of the axes
    /// `first..` with `extents`.
    fn offset(&self, flat: u64, extents: &[u64], first: usize) -> usize {
        let mut rest = flat;
        let mut offset = 0;
        for (axis, extent) in extents.iter().enumerate().rev() {
            offset += (rest % extent) as usize * self.steps[first + axis];
            rest /= extent;
        }
        offset
    }

    /// The operand's value at `offset`, cast as the expression casts it.
    fn read(&self, data: &[Vec<f64>], offset: usize) -> f64 {
        let mut value = data[self.tensor].get(offset).copied().unwrap_or(f64::NAN);
        for (dtype, saturate) in &self.casts {
            value = if *saturate {
                scalar::cast_saturating(*dtype, value)
            } else {
                scalar::cast(*dtype, value)
            };
        }
        value
    }
}
