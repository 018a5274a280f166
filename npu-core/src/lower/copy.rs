//! The shapes of global-memory copies: how a tile's box splits into bursts, and when
//! a copy must be padded (DataCopyPad) because a plain DataCopy could not move it.

use super::gm_strides;
use crate::dtype::Dtype;
use crate::ir::Tail;
use crate::plan;
use crate::program::{CopyDim, CopyShape};

/// The copy of a box of `lens` out of a tensor of `shape` into a row-major buffer of
/// `tile` elements per dimension, and whether it is padded. Under `tail pad` a copy
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
    let size = dtype.size();
    let gm = gm_strides(shape);
    let buf = gm_strides(tile);
    let dims: Vec<CopyDim> = lens
        .iter()
        .zip(gm.iter().zip(&buf))
        .map(|(&len, (&gm_stride, &buf_stride))| CopyDim {
            len,
            gm_stride,
            buf_stride: buf_stride * size,
        })
        .collect();
    let rank = lens.len();
    // Merge inner dimensions that are whole in both global memory and the buffer.
    let mut inner = rank - 1;
    let mut run = lens[inner];
    while inner > 0 && lens[inner] == shape[inner] && lens[inner] == tile[inner] {
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
