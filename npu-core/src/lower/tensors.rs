//! What lowering knows about each tensor, and where its tiles lie in global memory:
//! the copy of a tile, and the window of a padded view's tile that lies inside the
//! tensor.

use super::{Lowering, constant_value, copy};
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
    pub fn buffer_stride(&self, axis: usize) -> u64 {
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

impl Lowering<'_> {
    /// The copy of `tensor`'s tile at `coords` between global memory and a buffer of
    /// `level`: the interned shape, the element offset relative to the core's origin,
    /// and whether it is padded.
    pub fn copy(&mut self, tensor: usize, level: Level, coords: &[u64]) -> (u32, u64, bool) {
        let info = &self.tensors[tensor];
        if info.padded {
            let window = self.window(tensor, coords);
            return self.clipped_copy(tensor, level, &window);
        }
        let mut offset = 0;
        let mut mask = 0u64;
        for (subscript, stride) in info.subscripts.iter().zip(&info.gm_strides) {
            let mut first = subscript.offset();
            for (a, c) in subscript.terms() {
                first += (c * coords[a] * self.schedule.tiles[a]) as i64;
                if self.ranges[a].is_tail(coords[a]) {
                    mask |= 1 << a;
                }
            }
            // The checker proved every unpadded read in range, so no start is negative.
            offset += first.max(0) as u64 * stride;
        }
        let (index, padded) = match self
            .tables
            .copies
            .iter()
            .find(|(k, _)| *k == (tensor, mask))
        {
            Some((_, entry)) => *entry,
            None => {
                let extents: Vec<u64> = (0..self.ranges.len())
                    .map(|a| self.extent(a, coords))
                    .collect();
                let lens: Vec<u64> = info
                    .subscripts
                    .iter()
                    .map(|s| plan::subscript_extent(s, &extents))
                    .collect();
                let align = self.kernel.target.alignment(level);
                // Where a copy of this tensor can start: its tiles (and so every core's
                // origin) step by `tile × stride` along each axis it is split on.
                let size = info.dtype.size();
                let start_misaligned =
                    info.subscripts
                        .iter()
                        .zip(&info.gm_strides)
                        .any(|(subscript, stride)| {
                            let offset = subscript.offset().unsigned_abs() * stride * size;
                            let steps = subscript.terms().into_iter().filter_map(|(a, c)| {
                                let tile = self.schedule.tiles[a];
                                (self.kernel.axes[a].extent > tile)
                                    .then_some(c * tile * stride * size)
                            });
                            std::iter::once(offset)
                                .chain(steps)
                                .any(|step| !step.is_multiple_of(align))
                        });
                let (copy, padded) = copy::copy_shape(
                    &lens,
                    &info.shape,
                    &info.tile_strides,
                    info.dtype,
                    self.schedule.tail,
                    align,
                    start_misaligned,
                );
                self.program.copies.push(copy);
                let index = (self.program.copies.len() - 1) as u32;
                self.tables.copies.push(((tensor, mask), (index, padded)));
                (index, padded)
            }
        };
        (index, offset, padded)
    }

    /// The window of a padded view's tile at `coords` along each dimension: where it
    /// starts in the tensor (possibly before 0), its length, and the part inside
    /// the tensor.
    pub fn window(&self, tensor: usize, coords: &[u64]) -> Vec<Window> {
        let info = &self.tensors[tensor];
        let extents: Vec<u64> = (0..self.ranges.len())
            .map(|a| self.extent(a, coords))
            .collect();
        info.subscripts
            .iter()
            .zip(&info.shape)
            .map(|(subscript, extent)| {
                let mut start = subscript.offset();
                for (a, c) in subscript.terms() {
                    start += (c * (self.start[a] + coords[a]) * self.schedule.tiles[a]) as i64;
                }
                let len = plan::subscript_extent(subscript, &extents) as i64;
                let low = start.clamp(0, *extent as i64);
                let high = (start + len).clamp(low, *extent as i64);
                Window {
                    start,
                    len: len as u64,
                    low,
                    high,
                }
            })
            .collect()
    }

    /// The copy of the part of a padded view's window inside the tensor: its shape,
    /// its absolute element offset, and that it is padded (always DataCopyPad; a
    /// clipped copy's first element may land past the start of an alignment block on
    /// chip, which DataCopyPad's left padding allows). The caller adds
    /// [`Lowering::clipped_offset`] to the slot's address.
    fn clipped_copy(&mut self, tensor: usize, level: Level, window: &[Window]) -> (u32, u64, bool) {
        let info = &self.tensors[tensor];
        let lens: Vec<u64> = window.iter().map(|w| (w.high - w.low) as u64).collect();
        let offset: u64 = window
            .iter()
            .zip(&info.gm_strides)
            .map(|(w, stride)| w.low as u64 * stride)
            .sum();
        let align = self.kernel.target.alignment(level);
        let (mut copy, _) = copy::copy_shape(
            &lens,
            &info.shape,
            &info.tile_strides,
            info.dtype,
            self.schedule.tail,
            align,
            false,
        );
        // Every copy of a padded view is a DataCopyPad: the clipped ones need it, and
        // the rest then need no rule of their own, however the view's offset aligns.
        // Each burst is padded from the alignment block it starts in to the end of the
        // block it ends in.
        let lead = self.clipped_offset(tensor, window) % align;
        let burst = copy.bytes / copy.bursts.max(1);
        copy.moved = if copy.bytes == 0 {
            0
        } else {
            copy.bursts * plan::align_up(lead + burst, align)
        };
        let index = match self.program.copies.iter().position(|c| *c == copy) {
            Some(index) => index as u32,
            None => {
                self.program.copies.push(copy);
                (self.program.copies.len() - 1) as u32
            }
        };
        (index, offset, true)
    }

    /// Bytes from the start of a padded view's tile to its first element inside the
    /// tensor.
    pub fn clipped_offset(&self, tensor: usize, window: &[Window]) -> u64 {
        let info = &self.tensors[tensor];
        if window.iter().any(|w| w.high <= w.low) {
            return 0;
        }
        window
            .iter()
            .zip(&info.tile_strides)
            .map(|(w, stride)| (w.low - w.start) as u64 * stride * info.dtype.size())
            .sum()
    }
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
