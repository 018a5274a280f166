//! What lowering knows about each tensor, and where its tiles lie in global memory
//! (the copy of a tile and its window are in `tile_copy`).

use super::constant_value;
use crate::dtype::Dtype;
use crate::ir::{CheckedKernel, CheckedSchedule, Expr, Subscript};
use crate::plan;
use crate::target::Level;

/// Row-major element strides of a shape.
pub(crate) fn gm_strides(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// What lowering needs to know about each tensor, computed once per program.
pub(crate) struct TensorInfo {
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    /// The subscripts it is read or written with: the output's axes, or its first load.
    pub subscripts: Vec<Subscript>,
    /// The axis of each dimension (`None` for a constant subscript; the first axis of
    /// an affine one).
    pub axes: Vec<Option<usize>>,
    /// Every axis that indexes it, once each.
    pub indexing: Vec<usize>,
    /// Row-major element strides in global memory.
    pub gm_strides: Vec<u64>,
    /// The tile's element strides in its buffer: row-major, a padded view's rows at
    /// an aligned pitch ([`plan::tile_strides`]).
    pub tile_strides: Vec<u64>,
    /// Whether any expression reads it (inputs) or any statement writes it (outputs).
    pub used: bool,
    /// Whether it is read through a padded view: its copies hold absolute offsets
    /// (its origin is 0 on every core) and clip at its ends.
    pub padded: bool,
    /// What a padded view reads outside the tensor (0 when it is not padded).
    pub pad_value: PadValue,
}

/// The value a padded view reads outside its tensor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadValue {
    /// A literal, as written in `pad(x, 0)`.
    Const(f64),
    /// A scalar parameter, by index into the kernel's tensors.
    Param(u16),
}

impl TensorInfo {
    /// Element offset of a core whose first tile along each axis is `start`.
    pub(super) fn origin(&self, schedule: &CheckedSchedule, start: &[u64]) -> u64 {
        if self.padded {
            return 0;
        }
        self.subscripts
            .iter()
            .zip(&self.gm_strides)
            .map(|(subscript, stride)| {
                let first: u64 = subscript
                    .terms()
                    .iter()
                    .map(|(a, c)| c * start[*a] * schedule.tiles[*a])
                    .sum();
                first * stride
            })
            .sum()
    }

    /// Bytes between consecutive elements along `axis` in the tile's buffer: the sum
    /// over the dimensions it indexes of its coefficient times the dimension's stride
    /// (0 when it indexes none), so a window `x[2*i + k]` is a strided view.
    pub(crate) fn buffer_stride(&self, axis: usize) -> u64 {
        let size = self.dtype.size();
        self.subscripts
            .iter()
            .zip(&self.tile_strides)
            .map(|(subscript, s)| subscript.coefficient(axis) * s * size)
            .sum()
    }
}

pub(super) fn tensor_infos(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> Vec<TensorInfo> {
    (0..kernel.tensors.len())
        .map(|tensor| {
            let mut used = false;
            let mut subscripts = None;
            for assign in &kernel.body {
                if assign.output == tensor {
                    used = true;
                    subscripts.get_or_insert_with(|| {
                        assign.axes.iter().map(|a| Subscript::Axis(*a)).collect()
                    });
                }
                assign.value.accesses(&mut |t, s| {
                    if t == tensor {
                        used = true;
                        subscripts.get_or_insert_with(|| s.to_vec());
                    }
                });
            }
            let t = &kernel.tensors[tensor];
            let subscripts = subscripts.unwrap_or_else(|| vec![Subscript::Const(0); t.shape.len()]);
            let axes: Vec<Option<usize>> = subscripts
                .iter()
                .map(|s| s.terms().first().map(|(a, _)| *a))
                .collect();
            TensorInfo {
                padded: plan::is_padded(kernel, tensor),
                pad_value: pad_value(kernel, tensor),
                indexing: plan::load_axes(&subscripts),
                dtype: t.dtype,
                shape: t.shape.clone(),
                gm_strides: gm_strides(&t.shape),
                tile_strides: plan::tile_strides(
                    kernel,
                    tensor,
                    &schedule.tiles,
                    staged_alignment(kernel, schedule, tensor),
                ),
                subscripts,
                axes,
                used,
            }
        })
        .collect()
}

/// The alignment of the level a tensor's tiles are copied to (ub when it is not
/// staged), which a padded view's rows are pitched at (see [`plan::tile_strides`]).
fn staged_alignment(kernel: &CheckedKernel, schedule: &CheckedSchedule, tensor: usize) -> u64 {
    let level = schedule
        .stages
        .iter()
        .find(|s| s.tensor == tensor)
        .map_or(Level::Ub, |s| s.level);
    kernel.target.alignment(level)
}

/// The value a padded view of `tensor` reads outside it (0 when there is none).
fn pad_value(kernel: &CheckedKernel, tensor: usize) -> PadValue {
    let mut value = None;
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let Expr::Load {
                tensor: t,
                pad: Some(pad),
                ..
            } = node
                && *t == tensor
            {
                value = value.or_else(|| match pad.as_ref() {
                    Expr::Param { tensor, .. } => Some(PadValue::Param(*tensor as u16)),
                    pad => constant_value(pad).map(PadValue::Const),
                });
            }
        });
    }
    value.unwrap_or(PadValue::Const(0.0))
}

/// A padded view's tile along one dimension: it starts at `start` (before 0 when it
/// reaches past the tensor's front) and spans `len` elements; `low..high` lies inside
/// the tensor (empty when none does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub start: i64,
    pub len: u64,
    pub low: i64,
    pub high: i64,
}
