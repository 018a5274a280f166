//! The buffer plan: every on-chip buffer a schedule needs, with its size.
//!
//! The checker sums this plan per memory level for its capacity errors (E020), and
//! lowering places exactly these buffers, so the two can never disagree about what
//! fits. The rules:
//!
//! - A staged tensor gets one buffer per `depth` slot at its level, holding one tile:
//!   the product of the tiles of the axes that index it, times its dtype size, rounded
//!   up to the level's alignment. A padded view's tile keeps each innermost row at an
//!   aligned pitch ([`tile_strides`]), so its buffer holds rows × pitch.
//! - Vector kernels need a temporary in UB for each expression node that is neither the
//!   statement's result nor a leaf: leaves are loads that cover the whole iteration
//!   space (they are read from their staged buffer), constants (scalar operands,
//!   including whole subexpressions of constants, which fold) and scalar parameters
//!   (scalar registers; a scalar parameter is never staged). A load of a lower-rank
//!   tensor (a broadcast) needs a temporary to broadcast into.
//! - Temporaries share buffers by liveness, as a register allocator would, over the
//!   order lowering evaluates the nodes ([`evaluation_order`]): a temporary is live
//!   from the instruction that writes it to the instruction that reads it (its parent),
//!   both included, so an instruction never writes a buffer it reads. Temporaries are
//!   taken in evaluation order; each goes to the smallest free buffer that holds it,
//!   else grows the largest free one, else opens a new buffer. A broadcast's
//!   temporary keeps its rows from one tile to the next (lowering fills it again only
//!   when its source changed), so it is live for the whole kernel and has a buffer
//!   of its own.
//! - A `let` intermediate gets one buffer in UB holding its tile (depth 1): it is
//!   written and read within one tile and never copied. A broadcast of it is filled
//!   each time, so that temporary shares by liveness like any other.
//! - Each reduction needs an accumulator in UB of the output tile in its accumulator
//!   dtype (f32 for floats, i32 for integers, u32 for u32, or the one `sum[k: bf16]`
//!   names); it lives across the reduction's tiles, so it has a buffer of its own too.
//! - An arg reduction (`argmax[k]`) needs two accumulators of its own: the index so
//!   far (in the index dtype) and the value it points at (in the argument's dtype).
//! - A scan (`cumsum[k]`) needs a carry of its own in UB: the running value over the
//!   output tile without its axis, in the accumulator dtype; it lives from one tile
//!   of the scan axis to the next. The scan's result is a temporary like any node's.
//! - A sum of exact products, `sum[k]((x as f32) * (w as f32))` of bf16 (the checker
//!   writes a product summed in a wider accumulator so), is one multiply-accumulate
//!   ([`mac_operands`]): it reads `x` and `w` and folds their products, so the product
//!   and its two casts take no temporary, and the temporaries of its operands live
//!   until the fold.
//! - A comparison's mask takes one byte per element.
//! - A gathered tensor (`table[idx[i], d]`) is staged whole along its gathered
//!   dimension, which no axis splits: its tile is every row times the tiles of its
//!   other dimensions. The index tensor is staged like any input. A gather that is
//!   not the statement's result writes a temporary.

use crate::ir::{Buffer, BufferKind, CheckedKernel, Expr, KernelClass, Role, Stage, Subscript};
use crate::target::{Level, Target};

mod temps;

pub use temps::mac_operands;
pub(crate) use temps::{TempSpec, temps};

/// The nodes of an expression in pre-order (parents first), the numbering temporaries
/// use. A chain of n steps is n nodes, one per step, numbered as the left-deep tree of
/// its steps would be: the last step (the chain's value) first, then the one before
/// it, down to the first step, then the operands in order. Each of them is the chain
/// here; [`chain_step`] says which step a position is.
pub(crate) fn preorder(expr: &Expr) -> Vec<&Expr> {
    let mut nodes = Vec::new();
    push_preorder(expr, &mut nodes);
    nodes
}

fn push_preorder<'e>(expr: &'e Expr, nodes: &mut Vec<&'e Expr>) {
    let steps = match expr {
        Expr::Chain { rest, .. } => rest.len(),
        _ => 1,
    };
    nodes.extend(std::iter::repeat_n(expr, steps));
    for child in expr.children() {
        push_preorder(child, nodes);
    }
}

/// The step (1 for the first) that the `offset`-th of a chain's nodes in
/// [`preorder`] stands for, counted from the chain's first node; 0 for other nodes.
pub(crate) fn chain_step(expr: &Expr, offset: usize) -> usize {
    match expr {
        Expr::Chain { rest, .. } => rest.len() - offset,
        _ => 0,
    }
}

/// The axes that index a tensor (constant subscripts index none; an affine one
/// indexes each of its axes), each once, in subscript order.
pub(crate) fn load_axes(subscripts: &[Subscript]) -> Vec<usize> {
    let mut axes = Vec::new();
    for (axis, _) in subscripts.iter().flat_map(Subscript::terms) {
        if !axes.contains(&axis) {
            axes.push(axis);
        }
    }
    axes
}

/// The axis each dimension of `tensor` is indexed by, from the first load or store of
/// it: for an affine subscript its first axis (the one its tiles slide along).
pub fn tensor_axes(kernel: &CheckedKernel, tensor: usize) -> Vec<Option<usize>> {
    match tensor_subscripts(kernel, tensor) {
        Some(subscripts) => subscripts
            .iter()
            .map(|s| s.terms().first().map(|(axis, _)| *axis))
            .collect(),
        None => vec![None; kernel.tensors[tensor].shape.len()],
    }
}

/// The extent of a tile along a dimension with this subscript: one element for a
/// constant, the axis's tile for a plain axis, and for an affine form every element
/// between its first and last read, `Σ coefficient × (tile − 1) + 1`, the window's
/// halo included (`(tile − 1) × stride + window` for `stride*i + k`).
pub fn subscript_extent(subscript: &Subscript, tiles: &[u64]) -> u64 {
    if let Subscript::Gather { extent, .. } = subscript {
        return *extent;
    }
    subscript
        .terms()
        .iter()
        .map(|(axis, c)| c * tiles[*axis].saturating_sub(1))
        .sum::<u64>()
        + 1
}

/// Whether the algorithm reads `tensor` through a padded view (`pad(x, 0)[..]`).
pub(crate) fn is_padded(kernel: &CheckedKernel, tensor: usize) -> bool {
    kernel.body.iter().any(|assign| {
        let mut found = false;
        assign.value.walk(&mut |node| {
            found |= matches!(node, Expr::Load { tensor: t, pad: Some(_), .. } if *t == tensor);
        });
        found
    })
}

/// The subscripts of the first store or load of `tensor`, if the algorithm has one.
pub(crate) fn tensor_subscripts(kernel: &CheckedKernel, tensor: usize) -> Option<Vec<Subscript>> {
    for assign in &kernel.body {
        if assign.output == tensor {
            return Some(assign.axes.iter().map(|a| Subscript::Axis(*a)).collect());
        }
        let mut found = None;
        assign.value.accesses(&mut |t, subscripts| {
            if t == tensor && found.is_none() {
                found = Some(subscripts.to_vec());
            }
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Whether the algorithm reads or writes `tensor` at all. An input nothing reads is
/// never copied, so it needs no staging and has no copies to align.
pub(crate) fn is_accessed(kernel: &CheckedKernel, tensor: usize) -> bool {
    kernel.body.iter().any(|assign| {
        let mut found = assign.output == tensor;
        assign.value.accesses(&mut |t, _| found |= t == tensor);
        found
    })
}

/// The tile shape of a tensor: per dimension, the tile of the axis indexing it (1 for
/// a constant subscript; with the halo for an affine one, see [`subscript_extent`]).
pub(crate) fn tile_shape(kernel: &CheckedKernel, tensor: usize, tiles: &[u64]) -> Vec<u64> {
    match tensor_subscripts(kernel, tensor) {
        Some(subscripts) => subscripts
            .iter()
            .map(|s| subscript_extent(s, tiles))
            .collect(),
        None => vec![1; kernel.tensors[tensor].shape.len()],
    }
}

/// Elements of one tile of a tensor.
pub(crate) fn tile_elements(kernel: &CheckedKernel, tensor: usize, tiles: &[u64]) -> u64 {
    tile_shape(kernel, tensor, tiles).iter().product()
}

/// The row-major element strides of a tensor's tile in its buffer at a level of
/// alignment `align`. A tile is dense, except that a padded view's rows start at an
/// aligned pitch: its copies are DataCopyPad bursts of one row each, which start on
/// chip at the alignment, so each row takes its length rounded up to `align` bytes
/// (a 100-element f16 row takes 224 B on a 32-byte level, not 200 B).
pub(crate) fn tile_strides(
    kernel: &CheckedKernel,
    tensor: usize,
    tiles: &[u64],
    align: u64,
) -> Vec<u64> {
    let shape = tile_shape(kernel, tensor, tiles);
    let size = kernel.tensors[tensor].dtype.size();
    let mut strides = vec![1u64; shape.len()];
    let pitched = is_padded(kernel, tensor)
        && kernel.tensors[tensor].role != Role::Local
        && size > 0
        && align.is_multiple_of(size);
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
        if pitched && d + 2 == shape.len() {
            strides[d] = align_up(strides[d] * size, align) / size;
        }
    }
    strides
}

/// Elements a tensor's tile spans in its buffer: the outermost extent times its
/// stride (see [`tile_strides`]).
pub(crate) fn tile_span(kernel: &CheckedKernel, tensor: usize, tiles: &[u64], align: u64) -> u64 {
    let shape = tile_shape(kernel, tensor, tiles);
    let strides = tile_strides(kernel, tensor, tiles, align);
    match (shape.first(), strides.first()) {
        (Some(extent), Some(stride)) => extent * stride,
        _ => 1,
    }
}

/// Every buffer of a schedule: staged tiles first (in stage order), then the tiles of
/// `let` intermediates (in tensor order), then temporaries.
pub fn buffers(
    kernel: &CheckedKernel,
    target: &Target,
    tiles: &[u64],
    cube: Option<[u64; 3]>,
    stages: &[Stage],
) -> Vec<Buffer> {
    let mut list = Vec::new();
    for stage in stages {
        let tensor = &kernel.tensors[stage.tensor];
        let elements = match (&kernel.class, cube, stage.level) {
            // The L0 levels hold one cube base block, not the L1 tile.
            (KernelClass::Matmul(mm), Some([cm, cn, ck]), Level::L0a | Level::L0b | Level::L0c) => {
                match stage.level {
                    Level::L0a if stage.tensor == mm.a => cm * ck,
                    Level::L0b if stage.tensor == mm.b => ck * cn,
                    _ => cm * cn,
                }
            }
            _ => tile_span(kernel, stage.tensor, tiles, target.alignment(stage.level)),
        };
        // L0C accumulates in the accumulator dtype whatever the output's dtype is.
        let element_bytes = if stage.level == Level::L0c {
            tensor.dtype.accumulator().size()
        } else {
            tensor.dtype.size()
        };
        list.push(Buffer {
            name: tensor.name.clone(),
            level: stage.level,
            kind: BufferKind::Tensor(stage.tensor),
            bytes: align_up(elements * element_bytes, target.alignment(stage.level)),
            depth: stage.depth,
        });
    }
    if !matches!(kernel.class, KernelClass::Matmul(_)) {
        list.extend(local_buffers(kernel, target, tiles));
    }
    let specs = temps(kernel, tiles, target.align.ub);
    let count = specs.iter().map(|t| t.buffer + 1).max().unwrap_or(0);
    let (mut tmp, mut acc) = (0, 0);
    for buffer in 0..count {
        let members = specs.iter().filter(|t| t.buffer == buffer);
        let bytes = members
            .clone()
            .map(|t| align_up(t.elements * t.element_bytes, target.align.ub))
            .max()
            .unwrap_or(0);
        let kind = members.map(|t| t.kind).next().unwrap_or(BufferKind::Temp);
        let name = match kind {
            BufferKind::Accumulator => {
                acc += 1;
                format!("acc{}", acc - 1)
            }
            _ => {
                tmp += 1;
                format!("tmp{}", tmp - 1)
            }
        };
        list.push(Buffer {
            name,
            level: Level::Ub,
            kind,
            bytes,
            depth: 1,
        });
    }
    list
}

/// The buffers of the `let` intermediates, in tensor order: each holds one tile over
/// its axes in UB, for the whole tile.
///
/// An intermediate's first access is its own `let`, which writes it over plain axes,
/// so its tile is read off that statement: one pass over the body, where
/// [`tile_elements`] per intermediate would walk the body once for each (24,000
/// chained `let`s took seconds to check).
fn local_buffers<'a>(
    kernel: &'a CheckedKernel,
    target: &'a Target,
    tiles: &'a [u64],
) -> impl Iterator<Item = Buffer> + 'a {
    let mut defined: Vec<Option<&[usize]>> = vec![None; kernel.tensors.len()];
    for assign in &kernel.body {
        defined[assign.output].get_or_insert(&assign.axes);
    }
    kernel
        .tensors
        .iter()
        .enumerate()
        .filter(|(_, tensor)| tensor.role == Role::Local)
        .map(move |(index, tensor)| {
            let elements: u64 = match defined[index] {
                Some(axes) => axes.iter().map(|a| tiles[*a]).product(),
                None => tile_elements(kernel, index, tiles),
            };
            Buffer {
                name: tensor.name.clone(),
                level: Level::Ub,
                kind: BufferKind::Tensor(index),
                bytes: align_up(elements * tensor.dtype.size(), target.align.ub),
                depth: 1,
            }
        })
}

/// The order lowering evaluates the nodes of a vector kernel, as (statement, pre-order
/// node) pairs: per reduction axis, in order of appearance, the body of every reduction
/// over it (children before parents) and then its fold, statement by statement; then
/// each statement's nodes outside its reductions, children before parents, ending at
/// its root. Each loop iteration of lowering runs a subsequence of this order, so two
/// temporaries whose spans in it do not overlap are never live together.
pub(crate) fn evaluation_order(kernel: &CheckedKernel) -> Vec<(usize, usize)> {
    let mut order = Vec::new();
    if kernel.is_fused() {
        // Statements run in order, each its reductions (by axis list, in order of
        // appearance in it) and then the rest.
        for (statement, assign) in kernel.body.iter().enumerate() {
            for group in statement_reduction_groups(assign) {
                reductions_over(assign, statement, &group, &mut order);
            }
            post_order(&assign.value, statement, 0, &mut order);
        }
        return order;
    }
    for group in reduction_groups(kernel) {
        for (statement, assign) in kernel.body.iter().enumerate() {
            reductions_over(assign, statement, &group, &mut order);
        }
    }
    for (statement, assign) in kernel.body.iter().enumerate() {
        post_order(&assign.value, statement, 0, &mut order);
    }
    order
}

/// The axes a fused kernel keeps whole in every tile: those any statement reduces
/// over (none for a kernel without `let` intermediates).
pub fn whole_axes(kernel: &CheckedKernel) -> Vec<usize> {
    if !kernel.is_fused() {
        return Vec::new();
    }
    let mut axes = Vec::new();
    for group in reduction_groups(kernel) {
        for axis in group {
            if !axes.contains(&axis) {
                axes.push(axis);
            }
        }
    }
    axes
}

/// The axis list of every reduction of the kernel, in the order they first appear.
/// The checker keeps them disjoint: an axis belongs to one list.
pub(crate) fn reduction_groups(kernel: &CheckedKernel) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for assign in &kernel.body {
        for group in statement_reduction_groups(assign) {
            if !groups.contains(&group) {
                groups.push(group);
            }
        }
    }
    groups
}

/// The axis lists a statement reduces over, in order of appearance.
pub(crate) fn statement_reduction_groups(assign: &crate::ir::Assign) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    assign.value.walk(&mut |node| {
        if let Expr::Reduce { axes, .. } = node
            && !groups.contains(axes)
        {
            groups.push(axes.clone());
        }
    });
    groups
}

/// The bodies and folds of a statement's reductions over the axis list `group`, in
/// pre-order.
fn reductions_over(
    assign: &crate::ir::Assign,
    statement: usize,
    group: &[usize],
    order: &mut Vec<(usize, usize)>,
) {
    for (index, node) in preorder(&assign.value).into_iter().enumerate() {
        if let Expr::Reduce { axes, body, .. } = node
            && axes.as_slice() == group
        {
            post_order(body, statement, index + 1, order);
            order.push((statement, index));
        }
    }
}

/// Appends the nodes of `expr` (pre-order index `index`) children first, stopping at
/// reductions (their bodies run in the reduction loop); returns the subtree's size.
fn post_order(
    expr: &Expr,
    statement: usize,
    index: usize,
    order: &mut Vec<(usize, usize)>,
) -> usize {
    let children: Vec<&Expr> = match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => vec![],
        Expr::Reduce { .. } => {
            order.push((statement, index));
            return preorder(expr).len();
        }
        Expr::Chain { .. } => return chain_post_order(expr, statement, index, order),
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::Scan { body: arg, .. } => {
            vec![arg]
        }
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => vec![lhs, rhs],
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => vec![cond, then, otherwise],
    };
    let mut size = 1;
    for child in children {
        size += post_order(child, statement, index + size, order);
    }
    order.push((statement, index));
    size
}

/// A chain's steps and operands children first, as the tree of its steps runs: the
/// first operand, then each operand followed by its step (see [`preorder`] for the
/// numbering); returns the number of nodes.
fn chain_post_order(
    expr: &Expr,
    statement: usize,
    index: usize,
    order: &mut Vec<(usize, usize)>,
) -> usize {
    let operands = expr.children();
    let steps = operands.len() - 1;
    let mut size = steps;
    for (step, operand) in operands.into_iter().enumerate() {
        size += post_order(operand, statement, index + size, order);
        if step > 0 {
            order.push((statement, index + steps - step));
        }
    }
    size
}

/// `value` rounded up to a multiple of `align`.
pub(crate) fn align_up(value: u64, align: u64) -> u64 {
    value.div_ceil(align.max(1)) * align.max(1)
}
