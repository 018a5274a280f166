//! The buffer plan: every on-chip buffer a schedule needs, with its size.
//!
//! The checker sums this plan per memory level for its capacity errors (E020), and
//! lowering places exactly these buffers, so the two can never disagree about what
//! fits. The rules:
//!
//! - A staged tensor gets one buffer per `depth` slot at its level, holding one tile:
//!   the product of the tiles of the axes that index it, times its dtype size, rounded
//!   up to the level's alignment.
//! - Vector kernels need a temporary in UB for each expression node that is neither the
//!   statement's result nor a leaf: leaves are loads that cover the whole iteration
//!   space (they are read from their staged buffer) and constants (scalar operands).
//!   A load of a lower-rank tensor (a broadcast) needs a temporary to broadcast into.
//!   Temporaries are not reused: the plan is what a straightforward Ascend C kernel
//!   allocates, which keeps lowering simple and the accounting exact.
//! - Each reduction needs an accumulator in UB of the output tile in the accumulator
//!   dtype (f32 for floats, i32 for integers).
//! - A comparison's mask takes one byte per element.

use crate::dtype::Dtype;
use crate::ir::{Buffer, BufferKind, CheckedKernel, Expr, KernelClass, Stage, Subscript};
use crate::target::{Level, Target};

/// A temporary the plan gives to one expression node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TempSpec {
    /// Index of the statement in the kernel body.
    pub statement: usize,
    /// Pre-order index of the node within the statement's expression (see [`preorder`]).
    pub node: usize,
    pub kind: BufferKind,
    /// Elements the buffer holds (bytes per element in `dtype`, or 1 for masks).
    pub elements: u64,
    pub element_bytes: u64,
}

/// The nodes of an expression in pre-order (parents first), the numbering temporaries use.
pub fn preorder(expr: &Expr) -> Vec<&Expr> {
    let mut nodes = Vec::new();
    expr.walk(&mut |node| nodes.push(node));
    nodes
}

/// The axes a statement iterates over: its output axes, then the reduction axes in
/// the order they appear.
pub fn iteration_axes(kernel: &CheckedKernel, statement: usize) -> Vec<usize> {
    let assign = &kernel.body[statement];
    let mut axes = assign.axes.clone();
    assign.value.walk(&mut |node| {
        if let Expr::Reduce { axis, .. } = node
            && !axes.contains(axis)
        {
            axes.push(*axis);
        }
    });
    axes
}

/// The axes that index a tensor (constant subscripts index none; an affine one
/// indexes each of its axes), each once, in subscript order.
pub fn load_axes(subscripts: &[Subscript]) -> Vec<usize> {
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
    subscript
        .terms()
        .iter()
        .map(|(axis, c)| c * tiles[*axis].saturating_sub(1))
        .sum::<u64>()
        + 1
}

/// Whether the algorithm reads `tensor` through a padded view (`pad(x, 0)[..]`).
pub fn is_padded(kernel: &CheckedKernel, tensor: usize) -> bool {
    kernel.body.iter().any(|assign| {
        let mut found = false;
        assign.value.walk(&mut |node| {
            found |= matches!(node, Expr::Load { tensor: t, pad: Some(_), .. } if *t == tensor);
        });
        found
    })
}

/// The subscripts of the first store or load of `tensor`, if the algorithm has one.
pub fn tensor_subscripts(kernel: &CheckedKernel, tensor: usize) -> Option<Vec<Subscript>> {
    for assign in &kernel.body {
        if assign.output == tensor {
            return Some(assign.axes.iter().map(|a| Subscript::Axis(*a)).collect());
        }
        let mut found = None;
        assign.value.walk(&mut |node| {
            if let Expr::Load {
                tensor: t,
                subscripts,
                ..
            } = node
                && *t == tensor
                && found.is_none()
            {
                found = Some(subscripts.clone());
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
pub fn is_accessed(kernel: &CheckedKernel, tensor: usize) -> bool {
    kernel.body.iter().any(|assign| {
        let mut found = assign.output == tensor;
        assign.value.walk(&mut |node| {
            found |= matches!(node, Expr::Load { tensor: t, .. } if *t == tensor);
        });
        found
    })
}

/// The tile shape of a tensor: per dimension, the tile of the axis indexing it (1 for
/// a constant subscript; with the halo for an affine one, see [`subscript_extent`]).
pub fn tile_shape(kernel: &CheckedKernel, tensor: usize, tiles: &[u64]) -> Vec<u64> {
    match tensor_subscripts(kernel, tensor) {
        Some(subscripts) => subscripts
            .iter()
            .map(|s| subscript_extent(s, tiles))
            .collect(),
        None => vec![1; kernel.tensors[tensor].shape.len()],
    }
}

/// Elements of one tile of a tensor.
pub fn tile_elements(kernel: &CheckedKernel, tensor: usize, tiles: &[u64]) -> u64 {
    tile_shape(kernel, tensor, tiles).iter().product()
}

/// The temporaries and accumulators of a vector kernel, statement by statement.
pub fn temps(kernel: &CheckedKernel, tiles: &[u64]) -> Vec<TempSpec> {
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
        for (node_index, node) in nodes.iter().enumerate() {
            let is_root = node_index == 0;
            let elements = space[node_index];
            match node {
                Expr::Reduce { dtype, .. } => specs.push(TempSpec {
                    statement,
                    node: node_index,
                    kind: BufferKind::Accumulator,
                    elements,
                    element_bytes: dtype.accumulator().size(),
                }),
                Expr::Const { .. } => {}
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
                }),
                other if !is_root => {
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
    }
}

// Pre-order list of the element count each node is evaluated over.
fn fill_spaces(expr: &Expr, space: u64, tiles: &[u64], out: &mut Vec<u64>) {
    out.push(space);
    match expr {
        Expr::Load { .. } | Expr::Const { .. } => {}
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => fill_spaces(arg, space, tiles, out),
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            fill_spaces(lhs, space, tiles, out);
            fill_spaces(rhs, space, tiles, out);
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
        Expr::Reduce { axis, body, .. } => fill_spaces(body, space * tiles[*axis], tiles, out),
    }
}

/// Every buffer of a schedule: staged tiles first (in stage order), then temporaries.
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
            _ => tile_elements(kernel, stage.tensor, tiles),
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
    let (mut tmp, mut acc) = (0, 0);
    for spec in temps(kernel, tiles) {
        let name = match spec.kind {
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
            kind: spec.kind,
            bytes: align_up(spec.elements * spec.element_bytes, target.align.ub),
            depth: 1,
        });
    }
    list
}

/// `value` rounded up to a multiple of `align`.
pub fn align_up(value: u64, align: u64) -> u64 {
    value.div_ceil(align.max(1)) * align.max(1)
}
