//! `vreduce.argmax` and `argmin` along a contiguous row on the vector unit: "the first
//! index of the best, NaN first" (npu-core's `scalar::arg_takes`, stepped in index
//! order) found by compares, selects and order-free minima.
//!
//! For each output, the row is gathered into staging padded to whole 256-byte repeats
//! (the padding is the worst value, -inf for a max, +inf for a min, so it never comes
//! first), then:
//! - `Compare(.., NE)` of the row with itself marks its NaNs, `Select` puts each
//!   marked position (a float or half iota, exact up to the row's length) or +inf,
//!   and `WholeReduceMin`, a repeat at a time and then over the repeats, gives the
//!   first NaN's position;
//! - `WholeReduceMax` (`Min`) gives the best value (maximumNumber: NaN-free, and the
//!   same in any order), `Compares(.., EQ)` with it marks its equals (-0 equals +0,
//!   as the stepped fold sees them), and the same select and minimum give the first
//!   one's position.
//!
//! The scalar unit then reads the two positions and the element at the winning one
//! (the first NaN if there is one) and lets it take over the running best as the
//! stepped fold would: when the best is not NaN and the element is NaN or strictly
//! better; the index becomes the origin plus the position. Stepping a row in order
//! from a running best gives the same winner: the first NaN if any, else the first
//! element of the best value, unless the running best is NaN or no worse.
//!
//! `Select` writes the basic API's scratch at `TMP_UB_OFFSET`, so the program's
//! buffers and this form's scratch must end below it ([`Room::select`]).

use npu_core::Dtype;
use npu_core::ir::ReduceOp;
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::names::{c_type, infinity};
use super::offsets::{Room, Scratch, gather_calls_from, scratch_address, table_at};
use super::view::{barrier, ub_view as view};
use crate::text::Text;

/// An arg reduction this module writes.
struct Plan {
    op: ReduceOp,
    /// The values' C++ type and size.
    value: (&'static str, u64),
    /// The row's length and its padded length (whole repeats).
    length: u64,
    padded: u64,
    /// Elements of one 256-byte repeat.
    per_repeat: u64,
    /// Each output dimension: extent and the byte strides of the index, the row and the
    /// running best along it.
    outputs: Vec<(u64, [u64; 3])>,
    /// Where the index, the row and the running best start.
    at: [u32; 3],
    origin: i64,
}

/// Where each part of the scratch starts.
struct Layout {
    table: u64,
    iota: u64,
    row: u64,
    positions: u64,
    mask: u64,
    partials: u64,
    /// The first NaN's position, the best value, the first best's position.
    results: [u64; 3],
    end: u64,
}

/// The scratch this form needs past the program's buffers, or `None` when it does not
/// write `v` (or its scratch would not end below the basic API's).
pub(super) fn scratch(program: &Program, v: &VectorInstr, room: Room) -> Option<u64> {
    let plan = plan(program, v)?;
    let layout = layout(program, &plan);
    let fits = layout.end <= room.select && program.peak(npu_core::Level::Ub) <= room.select;
    fits.then(|| layout.end - scratch_address(program))
}

/// Writes `v` if this form can; `false` leaves it to the scalar unit.
pub(super) fn arg(text: &mut Text, program: &Program, v: &VectorInstr, room: Room) -> bool {
    let (Some(plan), Some(_)) = (plan(program, v), scratch(program, v, room)) else {
        return false;
    };
    let layout = layout(program, &plan);
    let (ty, size) = plan.value;
    text.comment(&format!(
        "{} over rows of {}: compares, selects and minima on the vector unit, the winner taken on the scalar unit",
        v.kind.mnemonic(),
        plan.length
    ));
    let start = u64::from(plan.at[1] % 32);
    table_at(
        text,
        (layout.table, "offsets"),
        &[plan.length],
        (start, &|_| size),
        None,
    );
    text.line(format!(
        "AscendC::CreateVecIndex({}, static_cast<{ty}>(0), {});",
        view(layout.iota, ty),
        plan.padded
    ));
    barrier(text);
    for (d, (len, _)) in plan.outputs.iter().enumerate() {
        text.open(format!("for (uint64_t o{d} = 0; o{d} < {len}; ++o{d})"));
    }
    stage_row(text, &plan, &layout);
    first_nan(text, &plan, &layout);
    first_best(text, &plan, &layout);
    take(text, &plan, &layout);
    for _ in plan.outputs.iter().map(|_| ()).chain([()]) {
        text.close("");
    }
    true
}

/// The row of the current output into the padded staging.
fn stage_row(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (ty, size) = plan.value;
    let worst = infinity(
        ty,
        if plan.op == ReduceOp::ArgMax {
            -1.0
        } else {
            1.0
        },
    );
    text.line(format!(
        "AscendC::Duplicate({}, {worst}, {});",
        view(layout.row, ty),
        plan.padded
    ));
    barrier(text);
    let shift = moved(plan, 1);
    let place = (layout.row, plan.at[1] / 32 * 32, "offsets");
    gather_calls_from(
        text,
        (ty, size),
        place,
        &format!("static_cast<uint32_t>({shift})"),
        plan.length,
    );
    barrier(text);
}

/// The first NaN's position (+inf when there is none) into `results[0]`.
fn first_nan(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (ty, _) = plan.value;
    let row = view(layout.row, ty);
    text.line(format!(
        "AscendC::Compare({}, {row}, {row}, AscendC::CMPMODE::NE, {});",
        view(layout.mask, "uint8_t"),
        plan.padded
    ));
    barrier(text);
    first_marked(text, plan, layout, layout.results[0]);
}

/// The best value into `results[1]`, then its first position into `results[2]`.
fn first_best(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (ty, size) = plan.value;
    let call = if plan.op == ReduceOp::ArgMax {
        "WholeReduceMax"
    } else {
        "WholeReduceMin"
    };
    minimum(
        text,
        plan,
        (call, layout.row),
        layout.partials,
        layout.results[1],
    );
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    text.line(format!(
        "const {ty} best_value = ub.ReinterpretCast<{ty}>().GetValue({});",
        layout.results[1] / size
    ));
    text.line(format!(
        "AscendC::Compares({}, {}, best_value, AscendC::CMPMODE::EQ, {});",
        view(layout.mask, "uint8_t"),
        view(layout.row, ty),
        plan.padded
    ));
    barrier(text);
    first_marked(text, plan, layout, layout.results[2]);
}

/// The smallest position the mask marks (+inf when none) into `result`.
fn first_marked(text: &mut Text, plan: &Plan, layout: &Layout, result: u64) {
    let (ty, _) = plan.value;
    text.line(format!(
        "AscendC::Select({}, {}, {}, {}, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, {});",
        view(layout.positions, ty),
        view(layout.mask, "uint8_t"),
        view(layout.iota, ty),
        infinity(ty, 1.0),
        plan.padded
    ));
    barrier(text);
    minimum(
        text,
        plan,
        ("WholeReduceMin", layout.positions),
        layout.partials,
        result,
    );
}

/// `call` over the padded values at `from`: a value per repeat into `partials`, then
/// over those into `result`.
fn minimum(text: &mut Text, plan: &Plan, (call, from): (&str, u64), partials: u64, result: u64) {
    let (ty, _) = plan.value;
    let repeats = plan.padded / plan.per_repeat;
    let order = "AscendC::ReduceOrder::ORDER_ONLY_VALUE";
    let first = if repeats == 1 { result } else { partials };
    text.line(format!(
        "AscendC::{call}({}, {}, {}, {repeats}, 1, 1, 8, {order});",
        view(first, ty),
        view(from, ty),
        plan.per_repeat
    ));
    barrier(text);
    if repeats > 1 {
        text.line(format!(
            "AscendC::{call}({}, {}, {repeats}, 1, 1, 1, 8, {order});",
            view(result, ty),
            view(partials, ty)
        ));
        barrier(text);
    }
}

/// The scalar unit reads the winner and lets it take over the running best.
fn take(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (ty, size) = plan.value;
    let better = if plan.op == ReduceOp::ArgMax {
        ">"
    } else {
        "<"
    };
    let read = |at: String| format!("ub.ReinterpretCast<{ty}>().GetValue({at})");
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    text.line(format!(
        "const {ty} first_nan = {};",
        read((layout.results[0] / size).to_string())
    ));
    text.line(format!(
        "const {ty} first_best = {};",
        read((layout.results[2] / size).to_string())
    ));
    text.line(format!(
        "const int32_t at = static_cast<int32_t>(static_cast<float>(first_nan < {} ? first_nan : first_best));",
        infinity(ty, 1.0)
    ));
    text.line(format!(
        "const {ty} x = {};",
        read(format!("{} + at", layout.row / size))
    ));
    let (index, best) = (moved(plan, 0), moved(plan, 2));
    text.line(format!(
        "const {ty} best = {};",
        read(format!("({} + {best}) / {size}", plan.at[2]))
    ));
    text.open(format!("if (best == best && (x != x || x {better} best))"));
    text.line(format!(
        "ub.ReinterpretCast<{ty}>().SetValue(({} + {best}) / {size}, x);",
        plan.at[2]
    ));
    text.line(format!(
        "ub.ReinterpretCast<int32_t>().SetValue(({} + {index}) / 4, static_cast<int32_t>({} + at));",
        plan.at[0], plan.origin
    ));
    text.close("");
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
}

/// The bytes operand `operand` (0 the index, 1 the row, 2 the running best) moves on
/// by at the current output.
fn moved(plan: &Plan, operand: usize) -> String {
    let terms: Vec<String> = std::iter::once("0".to_string())
        .chain(
            plan.outputs
                .iter()
                .enumerate()
                .map(|(d, (_, strides))| format!("o{d} * {}", strides[operand])),
        )
        .collect();
    terms.join(" + ")
}

/// The plan of an arg reduction with an int32 index over half or float values, along
/// the box's last dimension, contiguous in the values, with a constant origin.
fn plan(program: &Program, v: &VectorInstr) -> Option<Plan> {
    let VectorKind::Reduce(op, accumulator) = v.kind else {
        return None;
    };
    let (
        [
            Operand::Ub {
                address: row,
                strides: row_strides,
            },
            Operand::Ub {
                address: best,
                strides: best_strides,
            },
            Operand::Scalar(origin),
        ],
        true,
        Dtype::I32,
    ) = (v.src, op.is_arg(), v.dtype)
    else {
        return None;
    };
    let ty = c_type(accumulator).filter(|_| accumulator.is_float())?;
    let size = accumulator.size();
    let extents = &program.boxes[v.shape as usize];
    let strides = [v.dst_strides, row_strides, best_strides].map(|s| &program.strides[s as usize]);
    let (&length, _) = extents.split_last()?;
    let last = extents.len() - 1;
    let along = [strides[0][last], strides[1][last], strides[2][last]];
    let per_repeat = 256 / size;
    let padded = length.div_ceil(per_repeat) * per_repeat;
    let exact = if size == 2 { 2048 } else { 1 << 24 };
    if along != [0, size, 0] || padded > per_repeat * per_repeat || padded > exact {
        return None;
    }
    let outputs = (0..last)
        .filter(|&d| extents[d] > 1)
        .map(|d| (extents[d], [strides[0][d], strides[1][d], strides[2][d]]))
        .collect();
    let origin = program.constants[origin as usize];
    Some(Plan {
        op,
        value: (ty, size),
        length,
        padded,
        per_repeat,
        outputs,
        at: [v.dst, row, best],
        origin: origin as i64,
    })
}

/// Where a plan's scratch goes, each part 32-byte aligned.
fn layout(program: &Program, plan: &Plan) -> Layout {
    let mut scratch = Scratch::of(program);
    let mut take = |bytes: u64| scratch.take(bytes);
    let (_, size) = plan.value;
    let values = plan.padded * size;
    Layout {
        table: take(plan.length * 4),
        iota: take(values),
        row: take(values),
        positions: take(values),
        mask: take(plan.padded / 8),
        partials: take(plan.padded / plan.per_repeat * size),
        results: [take(size), take(size), take(size)],
        end: scratch.end(),
    }
}
