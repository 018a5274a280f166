//! `copy_in` and `copy_out` as `DataCopyPad` with `DataCopyExtParams`.
//!
//! A copy's shape is nested runs (outermost first). Runs of length 1 are dropped and
//! a run that continues its inner one in both memories is merged into it. The
//! innermost run must be contiguous on both sides: it is one block of `blockLen`
//! bytes. The next run out becomes `blockCount` blocks, with the gap between blocks
//! in global memory in bytes and in the unified buffer in 32-byte data blocks (each
//! block there starts 32-byte aligned, after the previous block rounded up to 32
//! bytes). Runs further out become a bounded loop of calls.
//!
//! `DataCopyPad` is not available on the Atlas inference AI Core (ascend310p); there a
//! copy is a `DataCopy` with `DataCopyParams` in 32-byte blocks, which needs whole
//! blocks and whole-block gaps, and anything else is unsupported.

use npu_core::Level;
use npu_core::program::{CopyDim, Op, Program};

use super::names::{element_type, unsupported};
use crate::order::Step;
use crate::output::Unsupported;
use crate::text::Text;

/// The largest `blockCount` of one `DataCopyPad` (12 bits in the instruction).
const MAX_BLOCK_COUNT: u64 = 4095;

/// Which way a copy goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    In,
    Out,
}

/// A copy as calls: `loops` around one `DataCopyPad` of `blocks` × `block_bytes`.
struct Calls {
    loops: Vec<CopyDim>,
    blocks: u64,
    block_bytes: u64,
    gm_gap_bytes: u64,
    ub_gap_blocks: u64,
}

/// What a copy instruction names: direction, tensor, global offset, UB address and
/// shape index.
type Operands = (Direction, u16, u64, u32, u32);

pub(super) fn copy(
    text: &mut Text,
    program: &Program,
    step: &Step,
    iteration: Option<&str>,
) -> Result<(), Unsupported> {
    let Some((direction, tensor, gm, address, shape)) = operands(&step.op)? else {
        return Ok(());
    };
    let declared = &program.signature[usize::from(tensor)];
    let ty = element_type(declared.dtype);
    let copy = &program.copies[shape as usize];
    let left = address % 32;
    let calls = plan(&copy.dims, copy.element_bytes, u64::from(left))?;
    let padding = if left == 0 {
        None
    } else {
        Some(left_padding(
            program,
            direction,
            address,
            &calls,
            declared.dtype,
        )?)
    };
    let address = address - left;
    let gm_text = offset(gm, step.gm_step, iteration);
    for (depth, dim) in calls.loops.iter().enumerate() {
        text.open(format!(
            "for (uint64_t c{depth} = 0; c{depth} < {}; ++c{depth})",
            dim.len
        ));
    }
    let gm_moves: String = (0..calls.loops.len())
        .map(|d| format!(" + c{d} * {}", calls.loops[d].gm_stride))
        .collect();
    let ub_moves: String = (0..calls.loops.len())
        .map(|d| format!(" + c{d} * {}", calls.loops[d].buf_stride))
        .collect();
    let local = format!("ub[{address}{ub_moves}].ReinterpretCast<{ty}>()");
    let global = format!("{}_gm[{gm_text}{gm_moves}]", declared.name);
    let call = if has_data_copy_pad(program) {
        pad_call(direction, &local, &global, &calls, ty, padding.as_deref())
    } else {
        block_call(direction, &local, &global, &calls)?
    };
    text.line(call);
    for _ in &calls.loops {
        text.close("");
    }
    Ok(())
}

/// The operands of a copy between global memory and the UB; `None` for another
/// instruction.
fn operands(op: &Op) -> Result<Option<Operands>, Unsupported> {
    Ok(match *op {
        Op::CopyIn {
            tensor,
            gm,
            level,
            address,
            shape,
            ..
        } => {
            if level != Level::Ub {
                return Err(unsupported(
                    "copy_in to l1",
                    "the cube path is not emitted yet",
                ));
            }
            Some((Direction::In, tensor, gm, address, shape))
        }
        Op::CopyOut {
            tensor,
            gm,
            address,
            shape,
            ..
        } => Some((Direction::Out, tensor, gm, address, shape)),
        _ => None,
    })
}

/// Whether the target's AI core has `DataCopyPad` (all Ascend presets but the
/// Atlas inference series, ascend310p).
fn has_data_copy_pad(program: &Program) -> bool {
    program.target != "ascend310p"
}

/// The left padding of a copy in to an unaligned address: `leftPadding` and the
/// value, as the `pad` module finds it, for `DataCopyPadExtParams`.
fn left_padding(
    program: &Program,
    direction: Direction,
    address: u32,
    calls: &Calls,
    dtype: npu_core::Dtype,
) -> Result<String, Unsupported> {
    let construct = format!("a copy at ub 0x{address:x}, not 32-byte aligned");
    let left = u64::from(address % 32);
    if direction == Direction::Out || !has_data_copy_pad(program) || left % dtype.size() != 0 {
        return Err(unsupported(
            &construct,
            "DataCopyPad's local tensor starts on a 32-byte data block, and only a copy in pads on the left",
        ));
    }
    let pitch = (left + calls.block_bytes).div_ceil(32) * 32 + calls.ub_gap_blocks * 32;
    let mut starts: Vec<u64> = (0..calls.blocks)
        .map(|b| u64::from(address) + b * pitch)
        .collect();
    for dim in &calls.loops {
        starts = starts
            .iter()
            .flat_map(|start| (0..dim.len).map(move |i| start + i * dim.buf_stride))
            .collect();
    }
    let fill = super::pad::fill(program, &starts, left, dtype).ok_or_else(|| {
        unsupported(
            &construct,
            "the left padding would overwrite bytes no vdup of the pad value fills",
        )
    })?;
    Ok(format!("true, {}, 0, {fill}", left / dtype.size()))
}

/// The `DataCopyPad` call of a copy; `padding` is the `DataCopyPadExtParams` of a
/// copy in with left padding.
fn pad_call(
    direction: Direction,
    local: &str,
    global: &str,
    calls: &Calls,
    ty: &str,
    padding: Option<&str>,
) -> String {
    match direction {
        Direction::In => format!(
            "AscendC::DataCopyPad({local}, {global}, AscendC::DataCopyExtParams{{{}, {}, {}, {}, 0}}, AscendC::DataCopyPadExtParams<{ty}>{{{}}});",
            calls.blocks,
            calls.block_bytes,
            calls.gm_gap_bytes,
            calls.ub_gap_blocks,
            padding.unwrap_or("false, 0, 0, 0")
        ),
        Direction::Out => format!(
            "AscendC::DataCopyPad({global}, {local}, AscendC::DataCopyExtParams{{{}, {}, {}, {}, 0}});",
            calls.blocks, calls.block_bytes, calls.ub_gap_blocks, calls.gm_gap_bytes
        ),
    }
}

/// The `DataCopy` call of a copy in whole 32-byte blocks.
fn block_call(
    direction: Direction,
    local: &str,
    global: &str,
    calls: &Calls,
) -> Result<String, Unsupported> {
    if !calls.block_bytes.is_multiple_of(32) || !calls.gm_gap_bytes.is_multiple_of(32) {
        return Err(unsupported(
            &format!(
                "a copy of {} B blocks, {} B apart in global memory, on ascend310p",
                calls.block_bytes, calls.gm_gap_bytes
            ),
            "the Atlas inference AI Core has no DataCopyPad, and DataCopy moves whole 32-byte blocks",
        ));
    }
    let (blocks, length, gm_gap) = (
        calls.blocks,
        calls.block_bytes / 32,
        calls.gm_gap_bytes / 32,
    );
    let ub_gap = calls.ub_gap_blocks;
    Ok(match direction {
        Direction::In => format!(
            "AscendC::DataCopy({local}, {global}, AscendC::DataCopyParams{{{blocks}, {length}, {gm_gap}, {ub_gap}}});"
        ),
        Direction::Out => format!(
            "AscendC::DataCopy({global}, {local}, AscendC::DataCopyParams{{{blocks}, {length}, {ub_gap}, {gm_gap}}});"
        ),
    })
}

/// A global-memory offset, moved on by `step` per iteration inside a run's loop.
pub(super) fn offset(gm: u64, step: i64, iteration: Option<&str>) -> String {
    match iteration {
        Some(j) if step > 0 => format!("{gm} + {step} * {j}"),
        Some(j) if step < 0 => format!("{gm} - {} * {j}", step.unsigned_abs()),
        _ => gm.to_string(),
    }
}

/// The runs of a copy without those of length 1, each run that continues its inner
/// one (its stride is the inner run's whole extent on both sides) merged into it.
fn merged_runs(dims: &[CopyDim]) -> Vec<CopyDim> {
    let mut merged: Vec<CopyDim> = Vec::new();
    for dim in dims.iter().rev().filter(|d| d.len != 1) {
        match merged.first_mut() {
            Some(inner)
                if dim.gm_stride == inner.len * inner.gm_stride
                    && dim.buf_stride == inner.len * inner.buf_stride =>
            {
                inner.len *= dim.len;
            }
            _ => merged.insert(0, *dim),
        }
    }
    merged
}

/// The calls of a copy of `dims` with `element_bytes`-byte elements, each block
/// after `left` bytes of padding in the unified buffer.
fn plan(dims: &[CopyDim], element_bytes: u64, left: u64) -> Result<Calls, Unsupported> {
    let mut merged = merged_runs(dims);
    let inner = merged.pop().unwrap_or(CopyDim {
        len: 1,
        gm_stride: 1,
        buf_stride: element_bytes,
    });
    if inner.len > 1 && (inner.gm_stride != 1 || inner.buf_stride != element_bytes) {
        return Err(unsupported(
            "a copy whose innermost run is strided",
            "DataCopyPad moves contiguous blocks",
        ));
    }
    let block_bytes = inner.len * element_bytes;
    let Some(outer) = merged.pop() else {
        return Ok(Calls {
            loops: Vec::new(),
            blocks: 1,
            block_bytes,
            gm_gap_bytes: 0,
            ub_gap_blocks: 0,
        });
    };
    let padded_block = (left + block_bytes).div_ceil(32) * 32;
    let gm_gap = outer
        .gm_stride
        .checked_sub(inner.len)
        .map(|g| g * element_bytes);
    let ub_gap = outer.buf_stride.checked_sub(padded_block);
    match (gm_gap, ub_gap) {
        (Some(gm_gap), Some(ub_gap)) if ub_gap % 32 == 0 && outer.len <= MAX_BLOCK_COUNT => {
            Ok(Calls {
                loops: merged,
                blocks: outer.len,
                block_bytes,
                gm_gap_bytes: gm_gap,
                ub_gap_blocks: ub_gap / 32,
            })
        }
        _ => Err(unsupported(
            &format!(
                "a copy of {} blocks of {block_bytes} B, {} elements apart in global memory and {} B in the unified buffer",
                outer.len, outer.gm_stride, outer.buf_stride
            ),
            "DataCopyPad's blocks do not overlap, start 32-byte aligned on chip and number at most 4095",
        )),
    }
}
