//! A vector kernel's temporaries and accumulators, and the buffers liveness gives
//! them (the rules are in the module doc of [`crate::plan`]).

use super::{align_up, evaluation_order, load_axes, preorder};
use crate::dtype::Dtype;
use crate::ir::{BufferKind, CheckedKernel, Expr, KernelClass, ReduceOp, Role};

/// A temporary the plan gives to one expression node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TempSpec {
    /// Index of the statement in the kernel body.
    pub statement: usize,
    /// Pre-order index of the node within the statement's expression (see [`preorder`]).
    pub node: usize,
    pub kind: BufferKind,
    /// Elements the buffer holds (bytes per element in `dtype`, or 1 for masks).
    pub elements: u64,
    pub element_bytes: u64,
    /// The plan buffer holding it, counted from the first temporary buffer (the plan's
    /// buffers list the staged tiles and the intermediates first).
    pub buffer: usize,
}

/// The temporaries and accumulators of a vector kernel, statement by statement, each
/// with the buffer liveness gives it.
pub(crate) fn temps(kernel: &CheckedKernel, tiles: &[u64], align: u64) -> Vec<TempSpec> {
    let mut specs = temp_specs(kernel, tiles);
    allocate(kernel, &mut specs, align);
    specs
}

/// The two operands of a multiply-accumulate: for a sum whose body is the exact
/// product of two values of the reduction's dtype cast up to its accumulator
/// (`(x as f32) * (w as f32)` of bf16), `x` and `w`. Such a fold reads them as they
/// are and sums their products, exact in the accumulator, as the AIE2 MAC does.
pub fn mac_operands(reduction: &Expr) -> Option<[&Expr; 2]> {
    let Expr::Reduce {
        op: ReduceOp::Sum,
        body,
        dtype,
        accumulator,
        ..
    } = reduction
    else {
        return None;
    };
    let (lhs, rhs, product) = body.product()?;
    let exact =
        product == *accumulator && dtype != accumulator && accumulator.holds_products(*dtype);
    let operands = [
        mac_operand(lhs, *dtype, *accumulator)?,
        mac_operand(rhs, *dtype, *accumulator)?,
    ];
    exact.then_some(operands)
}

/// `x` of `x as accumulator`, when `x` is of `dtype`.
fn mac_operand(expr: &Expr, dtype: Dtype, accumulator: Dtype) -> Option<&Expr> {
    match expr {
        Expr::Cast {
            arg,
            dtype: to,
            saturate: false,
        } if *to == accumulator && arg.dtype() == dtype => Some(arg),
        _ => None,
    }
}

/// Per pre-order node of `expr`, whether a multiply-accumulate folds it in (the product
/// and the casts of [`mac_operands`]), so that no instruction computes it.
pub(crate) fn folded_into_macs(expr: &Expr) -> Vec<bool> {
    let nodes = preorder(expr);
    let mut folded = vec![false; nodes.len()];
    for node in &nodes {
        let (Some(_), Expr::Reduce { body, .. }) = (mac_operands(node), node) else {
            continue;
        };
        let Expr::Binary { lhs, rhs, .. } = &**body else {
            continue;
        };
        for part in [&**body, &**lhs, &**rhs] {
            if let Some(index) = nodes.iter().position(|n| std::ptr::eq(*n, part)) {
                folded[index] = true;
            }
        }
    }
    folded
}

fn temp_specs(kernel: &CheckedKernel, tiles: &[u64]) -> Vec<TempSpec> {
    let mut specs = Vec::new();
    if matches!(kernel.class, KernelClass::Matmul(_)) {
        return specs;
    }
    for (statement, assign) in kernel.body.iter().enumerate() {
        let outer: u64 = assign.axes.iter().map(|a| tiles[*a]).product();
        let nodes = preorder(&assign.value);
        // The space each node is evaluated over: inside a reduction's body, the output
        // tile times the reduction axis tile.
        let mut space = Vec::with_capacity(nodes.len());
        fill_spaces(&assign.value, outer, tiles, &mut space);
        let folded = folded_into_macs(&assign.value);
        for (node_index, node) in nodes.iter().enumerate() {
            if folded[node_index] {
                continue;
            }
            let is_root = node_index == 0;
            let elements = space[node_index];
            let accumulator = |element_bytes: u64, elements: u64| TempSpec {
                statement,
                node: node_index,
                kind: BufferKind::Accumulator,
                elements,
                element_bytes,
                buffer: 0,
            };
            match node {
                // The index first, where the parent reads the result; then the value.
                Expr::Reduce {
                    op,
                    dtype,
                    accumulator: value,
                    ..
                } if op.is_arg() => {
                    specs.push(accumulator(dtype.size(), elements));
                    specs.push(accumulator(value.size(), elements));
                }
                // A sum in lanes keeps each lane's partial.
                Expr::Reduce {
                    accumulator: dtype, ..
                } => {
                    let lanes = u64::from(kernel.fold_lanes(node));
                    specs.push(accumulator(dtype.size(), elements * lanes));
                }
                // The scan's own result (unless it is the root), then its carry over
                // the tile without the scan axis.
                Expr::Scan {
                    axis,
                    dtype,
                    accumulator: carry,
                    ..
                } => {
                    if !is_root {
                        specs.push(temp(statement, node_index, elements, *dtype));
                    }
                    specs.push(accumulator(carry.size(), elements / tiles[*axis]));
                }
                // A scalar operand, from the program's constants or a scalar register.
                Expr::Const { .. } | Expr::Param { .. } => {}
                _ if crate::ir::constant_value(node).is_some() => {}
                // A gather writes its rows into a temporary, or straight into the
                // output tile at the root.
                Expr::Load { dtype, .. } if node.is_gather() && !is_root => {
                    specs.push(temp(statement, node_index, elements, *dtype));
                }
                Expr::Load { .. } if node.is_gather() => {}
                Expr::Load {
                    subscripts, dtype, ..
                } => {
                    let covered: u64 = load_axes(subscripts).iter().map(|a| tiles[*a]).product();
                    if covered != elements {
                        specs.push(temp(statement, node_index, elements, *dtype));
                    }
                }
                Expr::Compare { .. } => specs.push(TempSpec {
                    statement,
                    node: node_index,
                    kind: BufferKind::Temp,
                    elements,
                    element_bytes: 1,
                    buffer: 0,
                }),
                // A constant subtree such as `-1` folds into a scalar operand.
                other if !is_root && crate::ir::constant_value(other).is_none() => {
                    specs.push(temp(statement, node_index, elements, other.dtype()))
                }
                _ => {}
            }
        }
    }
    specs
}

fn temp(statement: usize, node: usize, elements: u64, dtype: Dtype) -> TempSpec {
    TempSpec {
        statement,
        node,
        kind: BufferKind::Temp,
        elements,
        element_bytes: dtype.size(),
        buffer: 0,
    }
}

// Pre-order list of the element count each node is evaluated over.
fn fill_spaces(expr: &Expr, space: u64, tiles: &[u64], out: &mut Vec<u64>) {
    out.push(space);
    match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => {}
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => fill_spaces(arg, space, tiles, out),
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            fill_spaces(lhs, space, tiles, out);
            fill_spaces(rhs, space, tiles, out);
        }
        // Its steps after the first (pushed above), then its operands.
        Expr::Chain { rest, .. } => {
            out.extend(std::iter::repeat_n(space, rest.len() - 1));
            for operand in expr.children() {
                fill_spaces(operand, space, tiles, out);
            }
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            fill_spaces(cond, space, tiles, out);
            fill_spaces(then, space, tiles, out);
            fill_spaces(otherwise, space, tiles, out);
        }
        Expr::Reduce { axes, body, .. } => {
            let inner: u64 = axes.iter().map(|a| tiles[*a]).product();
            fill_spaces(body, space * inner, tiles, out)
        }
        Expr::Scan { body, .. } => fill_spaces(body, space, tiles, out),
    }
}

/// Gives each temporary its buffer (see the module doc): accumulators and broadcasts
/// get their own, the rest share by liveness over [`evaluation_order`].
fn allocate(kernel: &CheckedKernel, specs: &mut [TempSpec], align: u64) {
    // Per statement and node: where it is evaluated and which node reads it.
    let mut position: Vec<Vec<usize>> = Vec::with_capacity(kernel.body.len());
    let mut parent: Vec<Vec<usize>> = Vec::with_capacity(kernel.body.len());
    let mut is_load: Vec<Vec<bool>> = Vec::with_capacity(kernel.body.len());
    for assign in &kernel.body {
        let nodes = preorder(&assign.value);
        position.push(vec![usize::MAX; nodes.len()]);
        // A broadcast of a staged input keeps its rows across tiles; one of an
        // intermediate, and a gather, are filled anew each time.
        is_load.push(
            nodes
                .iter()
                .map(|n| {
                    matches!(n, Expr::Load { tensor, .. }
                        if kernel.tensors[*tensor].role != Role::Local)
                        && !n.is_gather()
                })
                .collect(),
        );
        let mut parents = vec![usize::MAX; nodes.len()];
        let mut next = 0;
        fill_parents(&assign.value, usize::MAX, &mut next, &mut parents);
        // A multiply-accumulate's operands are read by the fold itself.
        let folded = folded_into_macs(&assign.value);
        for node in 0..parents.len() {
            while parents[node] != usize::MAX && folded[parents[node]] {
                parents[node] = parents[parents[node]];
            }
        }
        parent.push(parents);
    }
    for (at, (statement, node)) in evaluation_order(kernel).into_iter().enumerate() {
        position[statement][node] = at;
    }
    // Per buffer: its bytes, the last position it is busy to (`usize::MAX` if for
    // ever), and the first spec it holds (buffers are numbered in spec order).
    let mut buffers: Vec<(u64, usize, usize)> = Vec::new();
    let span = |spec: &TempSpec| {
        let start = position[spec.statement][spec.node];
        let reader = parent[spec.statement][spec.node];
        let pinned = spec.kind == BufferKind::Accumulator
            || is_load[spec.statement][spec.node]
            || reader == usize::MAX
            || start == usize::MAX
            || position[spec.statement][reader] == usize::MAX;
        if pinned {
            None
        } else {
            Some((start, position[spec.statement][reader]))
        }
    };
    let mut by_start: Vec<usize> = (0..specs.len()).collect();
    by_start.sort_by_key(|i| span(&specs[*i]).map_or(0, |(start, _)| start));
    let mut assigned = vec![0usize; specs.len()];
    for i in by_start {
        let bytes = align_up(specs[i].elements * specs[i].element_bytes, align);
        let Some((start, end)) = span(&specs[i]) else {
            buffers.push((bytes, usize::MAX, i));
            assigned[i] = buffers.len() - 1;
            continue;
        };
        let free = |b: &(u64, usize, usize)| b.1 < start;
        let fits = (0..buffers.len())
            .filter(|b| free(&buffers[*b]) && buffers[*b].0 >= bytes)
            .min_by_key(|b| buffers[*b].0);
        let grows = (0..buffers.len())
            .filter(|b| free(&buffers[*b]))
            .max_by_key(|b| (buffers[*b].0, std::cmp::Reverse(*b)));
        let chosen = match fits.or(grows) {
            Some(b) => {
                buffers[b].0 = buffers[b].0.max(bytes);
                buffers[b].1 = end;
                buffers[b].2 = buffers[b].2.min(i);
                b
            }
            None => {
                buffers.push((bytes, end, i));
                buffers.len() - 1
            }
        };
        assigned[i] = chosen;
    }
    // Number the buffers by the first temporary each holds, in plan order.
    let mut numbering: Vec<usize> = (0..buffers.len()).collect();
    numbering.sort_by_key(|b| buffers[*b].2);
    let mut rank = vec![0usize; buffers.len()];
    for (r, b) in numbering.into_iter().enumerate() {
        rank[b] = r;
    }
    for (spec, buffer) in specs.iter_mut().zip(assigned) {
        spec.buffer = rank[buffer];
    }
}

// Pre-order list of each node's parent.
fn fill_parents(expr: &Expr, parent: usize, next: &mut usize, out: &mut [usize]) {
    let index = *next;
    out[index] = parent;
    *next += 1;
    match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => {}
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Reduce { body: arg, .. }
        | Expr::Scan { body: arg, .. } => fill_parents(arg, index, next, out),
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            fill_parents(lhs, index, next, out);
            fill_parents(rhs, index, next, out);
        }
        // Step s (of n) is node index + n - s; each reads the step before it and its
        // own operand, the first step the first two operands.
        Expr::Chain { rest, .. } => {
            let steps = rest.len();
            for below in 1..steps {
                out[index + below] = index + below - 1;
                *next += 1;
            }
            for (step, operand) in expr.children().into_iter().enumerate() {
                let reader = index + steps - step.max(1);
                fill_parents(operand, reader, next, out);
            }
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            fill_parents(cond, index, next, out);
            fill_parents(then, index, next, out);
            fill_parents(otherwise, index, next, out);
        }
    }
}
