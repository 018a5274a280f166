//! `vpairsum`: the lanes of a sum (docs/dsl.md, "The order of a fold") combined in the
//! adjacent-pair tree, `L - 1` `npu_fold_sum` steps per output on the scalar unit. The
//! lane partials are the folds before it; the tree is the scalar remainder
//! (`aie::filter_even`/`filter_odd` adds in an `accfloat` are the vector form,
//! docs/emit.md).

use npu_core::Dtype;
use npu_core::program::{Operand, VectorInstr};

use super::body::{Body, Helpers};
use super::names::unsupported;
use crate::output::Unsupported;

/// Writes `v`, a `vpairsum` over the box's last dimension.
pub(super) fn pair_sum(body: &mut Body, v: &VectorInstr) -> Result<(), Unsupported> {
    let (Operand::Ub { address, strides }, Dtype::F32) = (v.src[0], v.dtype) else {
        return Err(unsupported(
            "vpairsum",
            "the lanes must be f32 in the tile's memory",
        ));
    };
    let extents = body.program.boxes[v.shape as usize].clone();
    let Some((&lanes, outer)) = extents.split_last() else {
        return Err(unsupported("vpairsum", "its box has no dimension"));
    };
    let size = v.dtype.size();
    body.helpers.insert(Helpers::Steps);
    let (dst_base, dst_offset) = body.pointer(v.dst, v.dtype)?;
    let (src_base, src_offset) = body.pointer(address, v.dtype)?;
    let src_strides = body.program.strides[strides as usize].clone();
    let dst_strides = body.program.strides[v.dst_strides as usize].clone();
    let (mut dst, mut src) = (dst_offset.to_string(), src_offset.to_string());
    let open: Vec<usize> = (0..outer.len()).filter(|d| outer[*d] > 1).collect();
    for &d in &open {
        body.text.open(format!(
            "for (int32_t r{d} = 0; r{d} < {}; ++r{d})",
            outer[d]
        ));
        dst.push_str(&format!(" + r{d} * {}", dst_strides[d] / size));
        src.push_str(&format!(" + r{d} * {}", src_strides[d] / size));
    }
    let lane_stride = src_strides[outer.len()] / size;
    // A block of its own: a kernel may fold several sums in one scope.
    body.text.open("");
    body.text.line(format!("float lanes[{lanes}];"));
    body.text
        .open(format!("for (int32_t j = 0; j < {lanes}; ++j)"));
    body.text
        .line(format!("lanes[j] = {src_base}[{src} + j * {lane_stride}];"));
    body.text.close("");
    body.text.open(format!(
        "for (int32_t half = {}; half > 0; half /= 2)",
        lanes / 2
    ));
    body.text.open("for (int32_t j = 0; j < half; ++j)");
    body.text
        .line("lanes[j] = npu_fold_sum(lanes[2 * j], lanes[2 * j + 1]);");
    body.text.close("");
    body.text.close("");
    body.text.line(format!("{dst_base}[{dst}] = lanes[0];"));
    body.text.close("");
    for _ in &open {
        body.text.close("");
    }
    Ok(())
}
