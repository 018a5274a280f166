//! `vreduce.max` and `vreduce.min` along a contiguous innermost run with
//! `aie::reduce_max`/`aie::reduce_min`: each 512-bit vector of the run reduces to one
//! value, folded into the accumulator in order. Integer max and min are exact in any
//! order; so are bf16 ones under npu-core's `scalar::max`/`min` (maximumNumber and
//! minimumNumber: a NaN gives the other operand, +0 is above -0), which the emitted
//! `aie::max` is taken to compute as well (docs/emit.md says what is assumed), so the
//! tree inside `aie::reduce_max` gives the simulator's result. Sums (rounding, and
//! `reduce_add` sums in the element type) stay on the scalar unit, in index order.

use npu_core::Dtype;
use npu_core::ir::ReduceOp;
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::body::{Body, Helpers};
use super::layout::gcd;
use super::names::{c_type, unsupported};
use crate::output::Unsupported;

/// Whether this module writes `v`: an integer or bf16 max or min into an accumulator that
/// holds the source, reduced along the innermost dimension, contiguous there, over a
/// whole number of 512-bit vectors.
pub(super) fn writes(program: &Program, v: &VectorInstr) -> bool {
    let VectorKind::Reduce(ReduceOp::Max | ReduceOp::Min, accumulator) = v.kind else {
        return false;
    };
    let (Operand::Ub { strides, .. }, Operand::None) = (v.src[0], v.src[1]) else {
        return false;
    };
    let extents = &program.boxes[v.shape as usize];
    let Some(inner) = extents.len().checked_sub(1) else {
        return false;
    };
    let size = v.dtype.size();
    (!v.dtype.is_float() || v.dtype == Dtype::Bf16)
        && accumulator.holds(v.dtype)
        && c_type(v.dtype).is_some()
        && program.strides[v.dst_strides as usize][inner] == 0
        && program.strides[strides as usize][inner] == size
        && extents[inner].is_multiple_of(64 / size)
}

/// Writes the reduction: loops over the outer dimensions and the run's vectors.
pub(super) fn reduce(body: &mut Body, v: &VectorInstr) -> Result<(), Unsupported> {
    let VectorKind::Reduce(op, accumulator) = v.kind else {
        return Err(unsupported("vreduce", "not a reduction"));
    };
    let Operand::Ub { address, strides } = v.src[0] else {
        return Err(unsupported("vreduce", "its source is not a buffer view"));
    };
    let (call, step) = match op {
        ReduceOp::Max => ("reduce_max", "npu_fold_max"),
        _ => ("reduce_min", "npu_fold_min"),
    };
    body.helpers.insert(Helpers::Steps);
    let extents = body.program.boxes[v.shape as usize].clone();
    let inner = extents.len() - 1;
    let (size, acc_size) = (v.dtype.size(), accumulator.size());
    let lanes = 64 / size;
    let (dst_base, dst_offset) = body.pointer(v.dst, accumulator)?;
    let (src_base, src_offset) = body.pointer(address, v.dtype)?;
    let dst_strides = body.program.strides[v.dst_strides as usize].clone();
    let src_strides = body.program.strides[strides as usize].clone();
    let (mut dst, mut src) = (dst_offset.to_string(), src_offset.to_string());
    let mut aligned_to = u64::from(address);
    let outer: Vec<usize> = (0..inner).filter(|d| extents[*d] > 1).collect();
    for d in &outer {
        body.text.open(format!(
            "for (int32_t r{d} = 0; r{d} < {}; ++r{d})",
            extents[*d]
        ));
        if dst_strides[*d] != 0 {
            dst.push_str(&format!(" + r{d} * {}", dst_strides[*d] / acc_size));
        }
        src.push_str(&format!(" + r{d} * {}", src_strides[*d] / size));
        aligned_to = gcd(aligned_to, src_strides[*d]);
    }
    let load = if aligned_to.is_multiple_of(32) {
        "load_v"
    } else {
        "load_unaligned_v"
    };
    let (ty, acc_ty) = (
        c_type(v.dtype).unwrap_or("int32_t"),
        c_type(accumulator).unwrap_or("int32_t"),
    );
    body.text.open(format!(
        "for (int32_t k = 0; k < {}; ++k)",
        extents[inner] / lanes
    ));
    body.text.line(format!(
        "const {ty} part = aie::{call}(aie::{load}<{lanes}>({src_base} + {src} + k * {lanes}));"
    ));
    body.text.line(format!(
        "{dst_base}[{dst}] = {step}({dst_base}[{dst}], {acc_ty}(part));"
    ));
    body.text.close("");
    for _ in &outer {
        body.text.close("");
    }
    Ok(())
}
