//! A bf16 sum's lanes on the vector unit (docs/dsl.md, "The order of a fold"): the fold
//! of a box whose last dimension is the 16 f32 lanes of each output, contiguous in
//! both operands, and whose next dimension, the blocks, folds into them. Each output's
//! lanes are loaded into one `aie::accum<accfloat, 16>`, every block of 16 bf16
//! elements is added in order with `aie::add` (one fp32 add per lane, the simulator's
//! step: a bf16 value is exact in fp32), and the lanes are stored back.

use npu_core::Dtype;
use npu_core::ir::ReduceOp;
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::body::Body;
use super::layout::gcd;
use super::names::unsupported;
use crate::output::Unsupported;

/// The lanes of one `accfloat` register.
const LANES: u64 = 16;

/// Whether this module writes `v`: a bf16 sum into f32 lanes, as above.
pub(super) fn writes(program: &Program, v: &VectorInstr) -> bool {
    let (VectorKind::Reduce(ReduceOp::Sum, Dtype::F32), Dtype::Bf16) = (v.kind, v.dtype) else {
        return false;
    };
    let (Operand::Ub { strides, .. }, Operand::None) = (v.src[0], v.src[1]) else {
        return false;
    };
    let extents = &program.boxes[v.shape as usize];
    let rank = extents.len();
    if rank < 2 || extents[rank - 1] != LANES {
        return false;
    }
    let (dst, src) = (
        &program.strides[v.dst_strides as usize],
        &program.strides[strides as usize],
    );
    dst[rank - 1] == 4 && dst[rank - 2] == 0 && src[rank - 1] == 2
}

/// Writes the fold: loops over the outputs, each a register of lanes over the blocks.
pub(super) fn lanes(body: &mut Body, v: &VectorInstr) -> Result<(), Unsupported> {
    let Operand::Ub { address, strides } = v.src[0] else {
        return Err(unsupported(
            "vreduce.sum bf16",
            "its source is not a buffer view",
        ));
    };
    let extents = body.program.boxes[v.shape as usize].clone();
    let rank = extents.len();
    let (dst_strides, src_strides) = (
        body.program.strides[v.dst_strides as usize].clone(),
        body.program.strides[strides as usize].clone(),
    );
    let (dst_base, dst_offset) = body.pointer(v.dst, Dtype::F32)?;
    let (src_base, src_offset) = body.pointer(address, Dtype::Bf16)?;
    let (mut dst, mut src) = (dst_offset.to_string(), src_offset.to_string());
    let (mut dst_aligned, mut src_aligned) = (u64::from(v.dst), u64::from(address));
    let outer: Vec<usize> = (0..rank - 2).filter(|d| extents[*d] > 1).collect();
    for &d in &outer {
        body.text.open(format!(
            "for (int32_t r{d} = 0; r{d} < {}; ++r{d})",
            extents[d]
        ));
        dst.push_str(&format!(" + r{d} * {}", dst_strides[d] / 4));
        src.push_str(&format!(" + r{d} * {}", src_strides[d] / 2));
        dst_aligned = gcd(dst_aligned, dst_strides[d]);
        src_aligned = gcd(src_aligned, src_strides[d]);
    }
    let block = src_strides[rank - 2];
    src_aligned = gcd(src_aligned, block);
    let load = |aligned: u64| match aligned.is_multiple_of(32) {
        true => "load_v",
        false => "load_unaligned_v",
    };
    let (dst_load, src_load) = (load(dst_aligned), load(src_aligned));
    let store = dst_load.replace("load", "store");
    // A block of its own: a kernel may fold several sums in one scope.
    body.text.open("");
    body.text.line("aie::accum<accfloat, 16> lanes;");
    body.text.line(format!(
        "lanes.from_vector(aie::{dst_load}<16>({dst_base} + {dst}));"
    ));
    body.text.open(format!(
        "for (int32_t b = 0; b < {}; ++b)",
        extents[rank - 2]
    ));
    body.text.line(format!(
        "lanes = aie::add(lanes, aie::{src_load}<16>({src_base} + {src} + b * {}));",
        block / 2
    ));
    body.text.close("");
    body.text.line(format!(
        "aie::{store}({dst_base} + {dst}, lanes.to_vector<float>());"
    ));
    body.text.close("");
    for _ in &outer {
        body.text.close("");
    }
    Ok(())
}
