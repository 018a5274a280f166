//! A host reference that interprets the checked kernel's expressions with plain loops.
//!
//! It is a second implementation, independent of lowering and of the typed loops the
//! `npu_kernel!` macro generates: each output element is the expression evaluated at
//! its index, every operation rounded with [`npu_core::scalar`], each reduction folded
//! in index order (over several axes, the first outermost; a float sum along a
//! contiguous axis in lanes, see [`scalar::LaneSum`]) in its accumulator dtype
//! and rounded once at the end; an arg reduction keeps the first greatest (least)
//! value's index, a NaN beating every number. Statements run in order, so a `let`
//! intermediate is whole before any later statement reads it. A scan is computed
//! whole before its statement, running along its axis over the statement's space. A
//! gather's index is read and checked before the element it names: one out of range
//! is an [`IndexError`], never a read.

use npu_core::Dtype;
use npu_core::host::HostTensor;
use npu_core::ir;
use npu_core::ir::{CheckedKernel, Expr, ReduceOp, Role, Subscript};
use npu_core::scalar::{self, IndexError};

mod dot;

/// The outputs of `kernel` on `inputs` (given in signature order). Inputs are rounded
/// to their declared dtypes first. Tensors of the wrong length are read as far as they
/// go and as NaN beyond; [`crate::evaluate`] checks inputs before it gets here.
///
/// # Errors
///
/// The first gather index (in the order the outputs are computed) that lies outside
/// the dimension it indexes.
pub fn reference(
    kernel: &CheckedKernel,
    inputs: &[HostTensor],
) -> Result<Vec<HostTensor>, IndexError> {
    interpret(kernel, inputs, true)
}

/// [`reference`], folding sums of products row by row ([`dot`]) when `rows`, else
/// every reduction one element at a time (the two agree exactly; a test compares).
fn interpret(
    kernel: &CheckedKernel,
    inputs: &[HostTensor],
    rows: bool,
) -> Result<Vec<HostTensor>, IndexError> {
    let mut data: Vec<Vec<f64>> = Vec::with_capacity(kernel.tensors.len());
    let mut next_input = inputs.iter();
    for tensor in &kernel.tensors {
        data.push(match tensor.role {
            Role::Input => {
                let mut values = next_input
                    .next()
                    .map(|input| input.values_as(tensor.dtype))
                    .unwrap_or_default();
                values.resize(tensor.elements() as usize, f64::NAN);
                values
            }
            // Intermediates are computed in order like outputs, and not returned.
            Role::Output | Role::Local => vec![f64::NAN; tensor.elements() as usize],
        });
    }
    let strides: Vec<Vec<u64>> = kernel.tensors.iter().map(|t| row_major(&t.shape)).collect();
    let mut env = vec![0u64; kernel.axes.len()];
    for assign in &kernel.body {
        let extents: Vec<u64> = assign.axes.iter().map(|a| kernel.axes[*a].extent).collect();
        let total: u64 = extents.iter().product();
        let mut scans = Whole {
            axes: &assign.axes,
            extents: extents.clone(),
            values: Vec::new(),
        };
        let (mut found, mut sums) = (Vec::new(), Vec::new());
        assign.value.walk(&mut |node| match node {
            Expr::Scan { .. } => found.push(node),
            Expr::Reduce { .. } => sums.push(node),
            _ => {}
        });
        for node in found {
            let values = scan(kernel, node, &scans, &data, &strides, &mut env)?;
            scans.values.push((node, values));
        }
        for node in sums.into_iter().filter(|_| rows) {
            if let Some(values) = dot::whole(
                kernel,
                node,
                &assign.axes,
                &extents,
                &data,
                &strides,
                &mut env,
            ) {
                scans.values.push((node, values));
            }
        }
        let output_strides = &strides[assign.output];
        for flat in 0..total {
            let mut rest = flat;
            let mut offset = 0;
            for (dim, axis) in assign.axes.iter().enumerate().rev() {
                env[*axis] = rest % extents[dim];
                rest /= extents[dim];
                offset += env[*axis] * output_strides[dim];
            }
            let value = eval(kernel, &assign.value, &data, &strides, &scans, &mut env)?;
            data[assign.output][offset as usize] = value;
        }
    }
    Ok(kernel
        .tensors
        .iter()
        .zip(data)
        .filter(|(t, _)| t.role == Role::Output)
        .map(|(t, data)| HostTensor::from_values(t.dtype, &t.shape, &data))
        .collect())
}

/// The values of a statement's scans, and of its sums of products (see [`dot`]),
/// computed over its whole space before it runs (row-major over its axes).
struct Whole<'a> {
    axes: &'a [usize],
    extents: Vec<u64>,
    values: Vec<(&'a Expr, Vec<f64>)>,
}

impl Whole<'_> {
    /// The row-major position of the element at `env` in the statement's space,
    /// leaving out dimension `skip` if given.
    fn flat(&self, env: &[u64], skip: Option<usize>) -> usize {
        let mut flat = 0;
        for (dim, axis) in self.axes.iter().enumerate() {
            if Some(dim) != skip {
                flat = flat * self.extents[dim] + env[*axis];
            }
        }
        flat as usize
    }

    /// The value of `node`, computed whole, at the statement's point `env`.
    fn at(&self, node: &Expr, env: &[u64]) -> Option<f64> {
        self.values
            .iter()
            .find(|(computed, _)| std::ptr::eq(*computed, node))
            .and_then(|(_, values)| values.get(self.flat(env, None)).copied())
    }
}

/// Every element of a scan over the statement's space: the points in row-major
/// order, which visits each line along the scan axis in index order, one running
/// value per line.
fn scan(
    kernel: &CheckedKernel,
    node: &Expr,
    scans: &Whole,
    data: &[Vec<f64>],
    strides: &[Vec<u64>],
    env: &mut [u64],
) -> Result<Vec<f64>, IndexError> {
    let Expr::Scan {
        op,
        axis,
        body,
        dtype,
        accumulator,
    } = node
    else {
        return Ok(Vec::new());
    };
    let dim = scans.axes.iter().position(|a| a == axis);
    let total: u64 = scans.extents.iter().product();
    let along = dim.map_or(1, |d| scans.extents[d]).max(1);
    let mut carry = vec![scalar::scan_init(*op); (total / along) as usize];
    let mut values = vec![f64::NAN; total as usize];
    for flat in 0..total {
        let mut rest = flat;
        for (d, a) in scans.axes.iter().enumerate().rev() {
            env[*a] = rest % scans.extents[d];
            rest /= scans.extents[d];
        }
        let x = eval(kernel, body, data, strides, scans, env)?;
        let line = &mut carry[scans.flat(env, dim)];
        *line = scalar::scan_step(*op, *accumulator, *line, x);
        values[flat as usize] = dtype.round(*line);
    }
    Ok(values)
}

fn eval(
    kernel: &CheckedKernel,
    expr: &Expr,
    data: &[Vec<f64>],
    strides: &[Vec<u64>],
    scans: &Whole,
    env: &mut [u64],
) -> Result<f64, IndexError> {
    Ok(match expr {
        Expr::Load {
            tensor,
            subscripts,
            pad,
            ..
        } => load(
            kernel,
            *tensor,
            subscripts,
            pad.as_deref(),
            data,
            strides,
            scans,
            env,
        )?,
        Expr::Const { value, dtype } => dtype.round(*value),
        Expr::Param { tensor, .. } => data[*tensor].first().copied().unwrap_or(f64::NAN),
        // Each operation as the target computes it (`ir::implementation_of`).
        Expr::Unary { op, arg, dtype } => {
            let implementation = ir::implementation_of(&kernel.target, expr, op.vector_op());
            let x = eval(kernel, arg, data, strides, scans, env)?;
            scalar::unary_by(implementation, *op, *dtype, x)
        }
        Expr::Binary {
            op,
            lhs,
            rhs,
            dtype,
        } => {
            let implementation = ir::implementation_of(&kernel.target, expr, op.vector_op());
            let a = eval(kernel, lhs, data, strides, scans, env)?;
            let b = eval(kernel, rhs, data, strides, scans, env)?;
            scalar::binary_by(implementation, *op, *dtype, a, b)
        }
        // Step by step in source order, each rounded to the chain's dtype.
        Expr::Chain { first, rest, dtype } => {
            let mut value = eval(kernel, first, data, strides, scans, env)?;
            for (op, term) in rest {
                let implementation = ir::implementation_of(&kernel.target, expr, op.vector_op());
                let b = eval(kernel, term, data, strides, scans, env)?;
                value = scalar::binary_by(implementation, *op, *dtype, value, b);
            }
            value
        }
        Expr::Compare { op, lhs, rhs, .. } => {
            let a = eval(kernel, lhs, data, strides, scans, env)?;
            let b = eval(kernel, rhs, data, strides, scans, env)?;
            f64::from(u8::from(scalar::compare(*op, a, b)))
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            if eval(kernel, cond, data, strides, scans, env)? != 0.0 {
                eval(kernel, then, data, strides, scans, env)?
            } else {
                eval(kernel, otherwise, data, strides, scans, env)?
            }
        }
        Expr::Cast {
            arg,
            dtype,
            saturate: false,
        } => scalar::cast(*dtype, eval(kernel, arg, data, strides, scans, env)?),
        Expr::Cast {
            arg,
            dtype,
            saturate: true,
        } => scalar::cast_saturating(*dtype, eval(kernel, arg, data, strides, scans, env)?),
        Expr::Reduce { op, axes, body, .. } if op.is_arg() => {
            arg_reduce(kernel, *op, axes[0], body, data, strides, scans, env)?
        }
        Expr::Scan { .. } => scans.at(expr, env).unwrap_or(f64::NAN),
        Expr::Reduce { .. } if let Some(value) = scans.at(expr, env) => value,
        Expr::Reduce {
            op,
            axes,
            body,
            dtype,
            accumulator,
        } => {
            let types = (*dtype, *accumulator, kernel.fold_lanes(expr));
            fold(kernel, *op, axes, body, types, data, strides, scans, env)?
        }
    })
}

/// `argmax`/`argmin` over one axis: the first position whose value beats every
/// earlier one.
#[allow(clippy::too_many_arguments)] // The evaluation's context, as `eval` takes it.
fn arg_reduce(
    kernel: &CheckedKernel,
    op: ReduceOp,
    axis: usize,
    body: &Expr,
    data: &[Vec<f64>],
    strides: &[Vec<u64>],
    scans: &Whole,
    env: &mut [u64],
) -> Result<f64, IndexError> {
    let (mut best, mut at) = (scalar::reduce_init(op), 0u64);
    for position in 0..kernel.axes[axis].extent {
        env[axis] = position;
        let x = eval(kernel, body, data, strides, scans, env)?;
        if scalar::arg_takes(op, best, x) {
            (best, at) = (x, position);
        }
    }
    Ok(at as f64)
}

/// The element a load reads. A padded view reads its pad value wherever a subscript
/// leaves the tensor; the checker proved the unpadded reads inside it.
#[allow(clippy::too_many_arguments)] // The interpreter's state, passed through.
fn load(
    kernel: &CheckedKernel,
    tensor: usize,
    subscripts: &[Subscript],
    pad: Option<&Expr>,
    data: &[Vec<f64>],
    strides: &[Vec<u64>],
    scans: &Whole,
    env: &mut [u64],
) -> Result<f64, IndexError> {
    let shape = &kernel.tensors[tensor].shape;
    let mut offset = 0u64;
    for (dim, ((subscript, stride), extent)) in subscripts
        .iter()
        .zip(&strides[tensor])
        .zip(shape)
        .enumerate()
    {
        let position = match subscript {
            Subscript::Gather {
                tensor: index,
                subscripts: inner,
                ..
            } => gathered(kernel, *index, inner, data, strides, env, tensor, dim)?,
            _ => subscript.at(env).unwrap_or(-1),
        };
        if position < 0 || position as u64 >= *extent {
            return match pad {
                Some(pad) => eval(kernel, pad, data, strides, scans, env),
                None => Ok(f64::NAN),
            };
        }
        offset += position as u64 * stride;
    }
    Ok(data[tensor][offset as usize])
}

/// A fold over `axes`: every point of the axes in index order, the first axis
/// outermost, accumulated in the accumulator (in lanes when there are several, see
/// [`scalar::LaneSum`]) and rounded to the dtype.
#[allow(clippy::too_many_arguments)] // The interpreter's state, passed through.
fn fold(
    kernel: &CheckedKernel,
    op: ReduceOp,
    axes: &[usize],
    body: &Expr,
    (dtype, accumulator, lanes): (Dtype, Dtype, u32),
    data: &[Vec<f64>],
    strides: &[Vec<u64>],
    scans: &Whole,
    env: &mut [u64],
) -> Result<f64, IndexError> {
    let extents: Vec<u64> = axes.iter().map(|a| kernel.axes[*a].extent).collect();
    let total: u64 = extents.iter().product();
    let mut acc = scalar::reduce_init(op);
    let mut in_lanes = (lanes > 1).then(|| scalar::LaneSum::new(lanes, accumulator));
    for flat in 0..total {
        let mut rest = flat;
        for (axis, extent) in axes.iter().zip(&extents).rev() {
            env[*axis] = rest % extent;
            rest /= extent;
        }
        let x = eval(kernel, body, data, strides, scans, env)?;
        match &mut in_lanes {
            Some(sum) => sum.add(x),
            None => acc = scalar::reduce_step_in(op, accumulator, acc, x),
        }
    }
    Ok(dtype.round(in_lanes.map_or(acc, scalar::LaneSum::total)))
}

/// The position a gather subscript reads: the value of `index` at `subscripts`,
/// checked against dimension `dim` of `table`.
#[allow(clippy::too_many_arguments)] // The interpreter's state, passed through.
fn gathered(
    kernel: &CheckedKernel,
    index: usize,
    subscripts: &[Subscript],
    data: &[Vec<f64>],
    strides: &[Vec<u64>],
    env: &[u64],
    table: usize,
    dim: usize,
) -> Result<i64, IndexError> {
    let position: Vec<u64> = subscripts
        .iter()
        .map(|s| s.at(env).unwrap_or(0).max(0) as u64)
        .collect();
    let flat: u64 = position
        .iter()
        .zip(&strides[index])
        .map(|(p, s)| p * s)
        .sum();
    let value = data[index].get(flat as usize).copied().unwrap_or(f64::NAN);
    let extent = kernel.tensors[table].shape[dim];
    let row = IndexError::check(value, extent, || IndexError {
        index: kernel.tensors[index].name.clone(),
        position,
        value: value as i64,
        table: kernel.tensors[table].name.clone(),
        dim,
        extent,
    })?;
    Ok(row as i64)
}

fn row_major(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

#[cfg(test)]
mod tests;
