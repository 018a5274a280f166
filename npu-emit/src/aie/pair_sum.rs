//! `vpairsum`: the lanes of a sum (docs/dsl.md, "The order of a fold") combined in the
//! adjacent-pair tree. The lane partials are the folds before it.
//!
//! Where each output's lanes are one `aie::vector<float, 16>` in memory (16 of them,
//! contiguous), the tree runs on the vector unit: per level, `aie::filter_even` and
//! `aie::filter_odd` take lanes `2i` and `2i + 1`, and an `aie::accum<accfloat, 8>`
//! adds each pair with one fp32 add (the level's sums rounded to f32, as
//! `scalar::pair_tree` rounds them; the accumulator holds the left operand, and a NaN
//! there is kept, as `FoldSum` keeps its accumulator's). `aie::concat` of the eight
//! sums with themselves is the next level's vector, so every level is a register of
//! the API's sizes (a vector of two floats is not one) and lanes `2i`, `2i + 1` of it
//! are still sums `2i`, `2i + 1`; after four levels lane 0 is the sum, stored as a
//! scalar. Any other box (lanes with a stride, or not 16 of them) takes the scalar
//! form: the lanes read into a local array, `L - 1` `npu_fold_sum` steps per output.

use npu_core::Dtype;
use npu_core::program::{Operand, VectorInstr};

use super::body::{Body, Helpers};
use super::layout::gcd;
use super::names::unsupported;
use crate::output::Unsupported;

/// The lanes of one `accfloat` register, which the vector form folds.
const LANES: u64 = 16;

/// One output's lanes and its destination, as C++ expressions inside the loops over
/// the outer dimensions.
struct Row {
    dst_base: String,
    dst: String,
    src_base: String,
    src: String,
    lanes: u64,
    /// Elements between two lanes.
    lane_stride: u64,
    /// Whether every output's lanes start on a 32-byte boundary (`load_v`'s).
    aligned: bool,
}

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
    let (dst_base, dst_offset) = body.pointer(v.dst, v.dtype)?;
    let (src_base, src_offset) = body.pointer(address, v.dtype)?;
    let src_strides = body.program.strides[strides as usize].clone();
    let dst_strides = body.program.strides[v.dst_strides as usize].clone();
    let (mut dst, mut src) = (dst_offset.to_string(), src_offset.to_string());
    let mut src_aligned = u64::from(address);
    let open: Vec<usize> = (0..outer.len()).filter(|d| outer[*d] > 1).collect();
    for &d in &open {
        body.text.open(format!(
            "for (int32_t r{d} = 0; r{d} < {}; ++r{d})",
            outer[d]
        ));
        dst.push_str(&format!(" + r{d} * {}", dst_strides[d] / size));
        src.push_str(&format!(" + r{d} * {}", src_strides[d] / size));
        src_aligned = gcd(src_aligned, src_strides[d]);
    }
    let row = Row {
        dst_base,
        dst,
        src_base,
        src,
        lanes,
        lane_stride: src_strides[outer.len()] / size,
        aligned: src_aligned.is_multiple_of(32),
    };
    // A block of its own: a kernel may fold several sums in one scope.
    body.text.open("");
    // The vector form loads an output's lanes as one register: 16 of them, contiguous.
    // Strided lanes, or another count, take the scalar form.
    if row.lanes == LANES && row.lane_stride == 1 {
        vector_tree(body, &row);
    } else {
        scalar_tree(body, &row);
    }
    body.text.close("");
    for _ in &open {
        body.text.close("");
    }
    Ok(())
}

/// The tree of one output's 16 contiguous lanes on the vector unit, four levels of
/// eight pair adds.
fn vector_tree(body: &mut Body, row: &Row) {
    let Row {
        dst_base,
        dst,
        src_base,
        src,
        ..
    } = row;
    let load = match row.aligned {
        true => "load_v",
        false => "load_unaligned_v",
    };
    let half = LANES / 2;
    body.text.line(format!(
        "aie::vector<float, {LANES}> lanes = aie::{load}<{LANES}>({src_base} + {src});"
    ));
    body.text.open(format!(
        "for (int32_t level = 0; level < {}; ++level)",
        LANES.ilog2()
    ));
    body.text
        .line(format!("aie::accum<accfloat, {half}> pairs;"));
    body.text
        .line("pairs.from_vector(aie::filter_even(lanes));");
    body.text
        .line("pairs = aie::add(pairs, aie::filter_odd(lanes));");
    body.text.line(format!(
        "aie::vector<float, {half}> sums = pairs.to_vector<float>();"
    ));
    body.text.line("lanes = aie::concat(sums, sums);");
    body.text.close("");
    body.text.line(format!("{dst_base}[{dst}] = lanes.get(0);"));
}

/// The tree of one output's lanes on the scalar unit, a level at a time in a local
/// array.
fn scalar_tree(body: &mut Body, row: &Row) {
    let Row {
        dst_base,
        dst,
        src_base,
        src,
        lanes,
        lane_stride,
        ..
    } = row;
    body.helpers.insert(Helpers::Steps);
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
}
