//! `vpairsum`: the lanes of a sum (docs/dsl.md, "The order of a fold") combined in the
//! adjacent-pair tree, `L - 1` steps per output on the scalar unit between the `V_S`
//! and `S_V` flags, each step `FoldSum`'s (a NaN on the left stays). The lane partials
//! themselves are the vector `Add`s before it; the tree is the scalar remainder
//! (`PairReduceSum` passes are the vector form, docs/emit.md).

use npu_core::Dtype;
use npu_core::program::{Operand, Program, VectorInstr};

use super::names::{c_type, unsupported};
use crate::output::Unsupported;
use crate::text::Text;

/// Writes `v`, a `vpairsum` over the box's last dimension.
pub(super) fn pair_sum(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
) -> Result<(), Unsupported> {
    let construct = format!("vpairsum {}", v.dtype.name());
    let (Operand::Ub { address, strides }, Dtype::F32) = (v.src[0], v.dtype) else {
        return Err(unsupported(&construct, "the lanes must be f32 in the UB"));
    };
    let ty = c_type(v.dtype).unwrap_or("float");
    let extents = &program.boxes[v.shape as usize];
    let Some((&lanes, outer)) = extents.split_last() else {
        return Err(unsupported(&construct, "its box has no dimension"));
    };
    let size = v.dtype.size();
    let (src_strides, dst_strides) = (
        &program.strides[strides as usize],
        &program.strides[v.dst_strides as usize],
    );
    text.comment(&format!(
        "{construct}: {lanes} lanes in the adjacent-pair tree on the scalar unit"
    ));
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    let (mut src, mut dst) = (address.to_string(), v.dst.to_string());
    for (d, len) in outer.iter().enumerate() {
        text.open(format!("for (uint64_t r{d} = 0; r{d} < {len}; ++r{d})"));
        src.push_str(&format!(" + r{d} * {}", src_strides[d]));
        dst.push_str(&format!(" + r{d} * {}", dst_strides[d]));
    }
    let lane_stride = src_strides[outer.len()];
    // A block of its own: a kernel may fold several sums in one scope.
    text.open("");
    text.line(format!("{ty} lanes[{lanes}];"));
    text.open(format!("for (uint64_t j = 0; j < {lanes}; ++j)"));
    text.line(format!(
        "lanes[j] = ub.ReinterpretCast<{ty}>().GetValue(({src} + j * {lane_stride}) / {size});"
    ));
    text.close("");
    text.open(format!(
        "for (uint64_t half = {}; half > 0; half /= 2)",
        lanes / 2
    ));
    text.open("for (uint64_t j = 0; j < half; ++j)");
    text.line(
        "lanes[j] = lanes[2 * j] != lanes[2 * j] ? lanes[2 * j] : lanes[2 * j] + lanes[2 * j + 1];",
    );
    text.close("");
    text.close("");
    text.line(format!(
        "ub.ReinterpretCast<{ty}>().SetValue(({dst}) / {size}, lanes[0]);"
    ));
    text.close("");
    for _ in outer {
        text.close("");
    }
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
    Ok(())
}
