//! `vpairsum`: the lanes of a sum (docs/dsl.md, "The order of a fold") combined in the
//! adjacent-pair tree, each output's result in its first lane.
//!
//! On the vector unit, one `PairReduceSum` pass per level of the tree: a repeat per
//! output adds the adjacent pairs of its first `width` lanes and writes the `width / 2`
//! sums over the start of its own lanes (in place from the same start, as asc-devkit's
//! own `ReduceSum` reduces), and a `PipeBarrier<PIPE_V>` orders each pass after the
//! writes it reads. `PairReduceSum` keeps a NaN first element of a pair, as `FoldSum`
//! does. Where the lanes do not lie so (an output's lanes not one contiguous, aligned
//! run within a repeat, outputs not a whole number of 128-byte steps apart), `L - 1`
//! steps per output on the scalar unit between the `V_S` and `S_V` flags.

use npu_core::Dtype;
use npu_core::program::{Operand, Program, VectorInstr};

use super::names::{c_type, unsupported};
use crate::output::Unsupported;
use crate::text::Text;

/// Bytes of one vector repeat, and of the sums one `PairReduceSum` repeat writes (the
/// unit of its `dstRepStride`).
const REPEAT_BYTES: u64 = 256;
const SUMS_BYTES: u64 = 128;

/// Outputs one call combines at most (`repeatTime` is 8 bits).
const MAX_ROWS: u64 = 255;

/// How the vector form runs: loops around the calls (extent, byte stride), the
/// outputs each call combines and their byte stride, the lanes and their C++ type.
struct Tree {
    outer: Vec<(u64, u64)>,
    rows: u64,
    row: u64,
    lanes: u64,
    ty: &'static str,
}

/// The vector form of `v`, where its lanes lie as `PairReduceSum` reads them.
fn tree(program: &Program, v: &VectorInstr) -> Option<Tree> {
    let Operand::Ub { address, strides } = v.src[0] else {
        return None;
    };
    let ty = c_type(v.dtype).filter(|_| v.dtype.is_float())?;
    let size = v.dtype.size();
    let extents = &program.boxes[v.shape as usize];
    let (src_strides, dst_strides) = (
        &program.strides[strides as usize],
        &program.strides[v.dst_strides as usize],
    );
    let (&lanes, outer) = extents.split_last()?;
    let in_place = address == v.dst && src_strides[..outer.len()] == dst_strides[..outer.len()];
    let one_run = src_strides[outer.len()] == size && lanes * size <= REPEAT_BYTES;
    if !in_place || !one_run || lanes < 2 || !address.is_multiple_of(32) {
        return None;
    }
    let mut dims: Vec<(u64, u64)> = outer
        .iter()
        .zip(src_strides)
        .filter(|(len, _)| **len > 1)
        .map(|(&len, &stride)| (len, stride))
        .collect();
    let (rows, row) = match dims.pop() {
        Some((len, stride)) if stride.is_multiple_of(SUMS_BYTES) && stride >= lanes * size => {
            (len, stride)
        }
        Some(_) => return None,
        None => (1, SUMS_BYTES),
    };
    dims.iter()
        .all(|(_, stride)| stride.is_multiple_of(32))
        .then_some(Tree {
            outer: dims,
            rows,
            row,
            lanes,
            ty,
        })
}

/// Writes `v` as `PairReduceSum` passes, one per level of the tree.
fn vector_tree(text: &mut Text, v: &VectorInstr, tree: &Tree) {
    let levels = tree.lanes.trailing_zeros();
    text.comment(&format!(
        "vpairsum {}: {} lanes in the adjacent-pair tree, {levels} PairReduceSum passes on the vector unit",
        v.dtype.name(),
        tree.lanes
    ));
    let mut at = v.dst.to_string();
    for (depth, (len, stride)) in tree.outer.iter().enumerate() {
        text.open(format!(
            "for (uint64_t o{depth} = 0; o{depth} < {len}; ++o{depth})"
        ));
        at.push_str(&format!(" + o{depth} * {stride}"));
    }
    let (dst_rep, src_rep) = (tree.row / SUMS_BYTES, tree.row / 32);
    for level in 0..levels {
        let width = tree.lanes >> level;
        text.line("AscendC::PipeBarrier<PIPE_V>();");
        let mut first = 0;
        while first < tree.rows {
            let rows = MAX_ROWS.min(tree.rows - first);
            let start = match first {
                0 => at.clone(),
                _ => format!("{at} + {}", first * tree.row),
            };
            let view = format!("ub[{start}].ReinterpretCast<{}>()", tree.ty);
            text.line(format!(
                "AscendC::PairReduceSum({view}, {view}, {rows}, {width}, {dst_rep}, 1, {src_rep});"
            ));
            first += rows;
        }
    }
    for _ in &tree.outer {
        text.close("");
    }
}

/// Writes `v`, a `vpairsum` over the box's last dimension: on the vector unit where
/// its lanes allow, else on the scalar unit.
pub(super) fn pair_sum(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
) -> Result<(), Unsupported> {
    if let Some(tree) = tree(program, v) {
        vector_tree(text, v, &tree);
        return Ok(());
    }
    scalar_tree(text, program, v)
}

/// Writes `v` as `L - 1` scalar steps per output.
fn scalar_tree(text: &mut Text, program: &Program, v: &VectorInstr) -> Result<(), Unsupported> {
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
