//! The shapes of global-memory copies: how a tile's box splits into bursts, and when
//! a copy must be padded (DataCopyPad) because a plain DataCopy could not move it.

use super::{Lowering, PadValue, Window, gm_strides};
use crate::dtype::Dtype;
use crate::ir::Tail;
use crate::plan;
use crate::program::{CopyDim, CopyShape, Operand, VectorInstr, VectorKind};

/// The copy of a box of `lens` out of a tensor of `shape` into a buffer whose tile
/// has the element strides `tile` (row-major, a padded view's rows at an aligned
/// pitch: [`plan::tile_strides`]), and whether it is padded. Under `tail pad` a copy
/// is padded (DataCopyPad) when a plain DataCopy could not do it: its bursts are not a
/// multiple of the alignment, the bursts start a misaligned stride apart on chip or
/// in global memory, or (`start_misaligned`) some copy of the tensor starts at a
/// misaligned global-memory address. A padded copy whose bursts are already aligned
/// moves no extra bytes but still pays the pad penalty.
pub(super) fn copy_shape(
    lens: &[u64],
    shape: &[u64],
    tile: &[u64],
    dtype: Dtype,
    tail: Tail,
    align: u64,
    start_misaligned: bool,
) -> (CopyShape, bool) {
    if lens.is_empty() {
        // A 0-d tensor (`-> y: f32`) is copied as the one element of a [1] tensor.
        return copy_shape(&[1], &[1], &[1], dtype, tail, align, start_misaligned);
    }
    let size = dtype.size();
    let gm = gm_strides(shape);
    let buf = tile;
    let dims: Vec<CopyDim> = lens
        .iter()
        .zip(gm.iter().zip(buf))
        .map(|(&len, (&gm_stride, &buf_stride))| CopyDim {
            len,
            gm_stride,
            buf_stride: buf_stride * size,
        })
        .collect();
    let rank = lens.len();
    // Merge inner dimensions that are whole in global memory and dense in the buffer.
    let mut inner = rank - 1;
    let mut run = lens[inner];
    while inner > 0 && lens[inner] == shape[inner] && buf[inner - 1] == lens[inner] * buf[inner] {
        inner -= 1;
        run *= lens[inner];
    }
    let bursts: u64 = lens[..inner].iter().product();
    let bytes = lens.iter().product::<u64>() * size;
    let burst_bytes = run * size;
    // The strides between bursts: every dimension outside the run that repeats it.
    let stride_misaligned = (0..inner).any(|d| {
        lens[d] > 1
            && !((buf[d] * size).is_multiple_of(align) && (gm[d] * size).is_multiple_of(align))
    });
    let padded = tail == Tail::Pad
        && (!burst_bytes.is_multiple_of(align) || stride_misaligned || start_misaligned);
    let moved = if padded {
        bursts * plan::align_up(burst_bytes, align)
    } else {
        bytes
    };
    let copy = CopyShape {
        dims,
        element_bytes: size,
        bytes,
        moved,
        bursts,
    };
    (copy, padded)
}

/// The `vdup`s that give the part of a padded view's tile outside its tensor the pad
/// value, once the in-range part has landed in the slot at `address`: per dimension,
/// the slabs before and after the in-range part (within the in-range part of the
/// dimensions before it), or the whole tile when nothing of it is inside. Each `vdup`
/// stays within the repeat limit: a slab too large for one is split along its outer
/// dimensions.
pub(super) fn pad_fills(
    lowering: &mut Lowering,
    tensor: usize,
    window: &[Window],
    address: u32,
) -> Vec<VectorInstr> {
    let info = &lowering.tensors[tensor];
    let (dtype, value) = (info.dtype, info.pad_value);
    let size = dtype.size();
    let strides: Vec<u64> = info.tile_strides.iter().map(|s| s * size).collect();
    let rank = window.len();
    // Slabs as (first element, extent) per dimension, relative to the tile.
    let mut slabs: Vec<Vec<(u64, u64)>> = Vec::new();
    if window.iter().any(|w| w.high <= w.low) {
        slabs.push(window.iter().map(|w| (0, w.len)).collect());
    } else {
        for d in 0..rank {
            let inside = |w: &Window| ((w.low - w.start) as u64, (w.high - w.low) as u64);
            let whole = |w: &Window| (0, w.len);
            let mut before: Vec<(u64, u64)> = window[..d].iter().map(inside).collect();
            before.push((0, (window[d].low - window[d].start) as u64));
            before.extend(window[d + 1..].iter().map(whole));
            let mut after: Vec<(u64, u64)> = window[..d].iter().map(inside).collect();
            let end = (window[d].high - window[d].start) as u64;
            after.push((end, window[d].len - end));
            after.extend(window[d + 1..].iter().map(whole));
            slabs.push(before);
            slabs.push(after);
        }
    }
    let limit = (lowering.kernel.target.vector.max_repeat
        * lowering.kernel.target.vector.repeat_bytes
        / size)
        .max(1);
    let mut pieces = Vec::new();
    for slab in slabs {
        if slab.iter().any(|(_, extent)| *extent == 0) {
            continue;
        }
        split(&slab, 0, limit, &mut pieces);
    }
    let fill = match value {
        PadValue::Const(value) => Operand::Scalar(lowering.constant(value)),
        PadValue::Param(tensor) => Operand::Param(tensor),
    };
    let stride_index = lowering.strides(strides.clone());
    pieces
        .into_iter()
        .map(|piece| {
            let first: u64 = piece.iter().zip(&strides).map(|((f, _), s)| f * s).sum();
            let extents: Vec<u64> = piece.iter().map(|(_, e)| *e).collect();
            let elements: u64 = extents.iter().product();
            VectorInstr {
                kind: VectorKind::Dup,
                dtype,
                width: size as u8,
                elements: elements as u32,
                shape: lowering.raw_box(extents),
                dst: address + first as u32,
                dst_strides: stride_index,
                src: [fill, Operand::None, Operand::None],
            }
        })
        .collect()
}

/// Splits a box along dimension `d` and inward until each piece holds at most
/// `limit` elements.
fn split(slab: &[(u64, u64)], d: usize, limit: u64, out: &mut Vec<Vec<(u64, u64)>>) {
    let elements: u64 = slab.iter().map(|(_, e)| e).product();
    if elements <= limit || d >= slab.len() {
        out.push(slab.to_vec());
        return;
    }
    let inner: u64 = slab[d + 1..].iter().map(|(_, e)| e).product();
    let (first, extent) = slab[d];
    if inner > limit {
        for row in 0..extent {
            let mut piece = slab.to_vec();
            piece[d] = (first + row, 1);
            split(&piece, d + 1, limit, out);
        }
        return;
    }
    let rows = (limit / inner).max(1);
    let mut row = 0;
    while row < extent {
        let mut piece = slab.to_vec();
        piece[d] = (first + row, rows.min(extent - row));
        out.push(piece);
        row += rows;
    }
}
