//! `vreduce.max` and `vreduce.min` along a contiguous run as `WholeReduceMax` and
//! `WholeReduceMin` on the vector unit.
//!
//! A max or a min is the same in any order (npu-core's `scalar::max`/`min` are
//! IEEE 754-2019's maximumNumber and minimumNumber, +0 above -0), so the vector unit
//! may fold a row as it likes. With `ORDER_ONLY_VALUE` each repeat (256 bytes) of a
//! row folds into one value; the rows of a box are the call's repeats, a source
//! repeat stride apart. A row longer than one repeat folds in two steps: every
//! 256-byte chunk into a partials table in scratch (a row of it per box row, padded
//! to whole blocks), then each row of the table into one value. The row values meet
//! the accumulators with one `Max`/`Min` where the accumulators are contiguous and
//! aligned, else on the scalar unit, one step per row (the census counts those).
//! Rows longer than 256 bytes × 64 chunks stay on the scalar fold of `reduce`.

use npu_core::ir::ReduceOp;
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::names::c_type;
use super::offsets::scratch_address;
use crate::text::Text;

/// Bytes of one vector repeat.
const REPEAT_BYTES: u64 = 256;

/// Rows one call folds at most (`repeatTime` is 8 bits).
const MAX_ROWS: u64 = 255;

/// The largest `srcRepStride`, in 32-byte blocks (16 bits).
const MAX_REPEAT_STRIDE: u64 = u16::MAX as u64;

/// How a fold runs: loops around the calls, the rows each call folds, and each row.
struct Plan {
    /// Extent, accumulator stride and source stride of each loop around the calls.
    outer: Vec<(u64, u64, u64)>,
    rows: u64,
    /// The accumulator's and the source's byte stride from row to row.
    dst_row: u64,
    src_row: u64,
    /// Elements one row folds, the 256-byte chunks they span, and the partials
    /// table's row length in elements (the chunks padded to whole blocks).
    length: u64,
    chunks: u64,
    padded: u64,
    size: u64,
}

impl Plan {
    /// Bytes of the partials table (none for rows of one chunk).
    fn table_bytes(&self) -> u64 {
        match self.chunks {
            1 => 0,
            _ => (self.rows * self.padded * self.size).div_ceil(32) * 32,
        }
    }

    fn scratch_bytes(&self) -> u64 {
        self.table_bytes() + (self.rows * self.size).div_ceil(32) * 32
    }
}

/// The plan of a max or min fold this module writes, or `None`.
fn plan(program: &Program, v: &VectorInstr) -> Option<Plan> {
    let VectorKind::Reduce(ReduceOp::Max | ReduceOp::Min, accumulator) = v.kind else {
        return None;
    };
    let (Operand::Ub { address, strides }, Operand::None) = (v.src[0], v.src[1]) else {
        return None;
    };
    let floats = v.dtype.is_float() && accumulator.is_float();
    if !floats
        || !accumulator.holds(v.dtype)
        || c_type(v.dtype).is_none()
        || c_type(accumulator).is_none()
    {
        return None;
    }
    let size = v.dtype.size();
    let extents = &program.boxes[v.shape as usize];
    let (dst_strides, src_strides) = (
        &program.strides[v.dst_strides as usize],
        &program.strides[strides as usize],
    );
    let mut dims: Vec<(u64, u64, u64)> = Vec::new();
    for (d, &len) in extents.iter().enumerate().filter(|(_, len)| **len > 1) {
        let dim = (len, dst_strides[d], src_strides[d]);
        match dims.last_mut() {
            // A reduced dimension whose run continues the previous one folds with it.
            Some(last) if last.1 == 0 && dim.1 == 0 && last.2 == dim.2 * len => {
                *last = (last.0 * len, 0, dim.2);
            }
            _ => dims.push(dim),
        }
    }
    let (length, 0, stride) = dims.pop().unwrap_or((1, 0, size)) else {
        return None;
    };
    let per_repeat = REPEAT_BYTES / size;
    let chunks = length.div_ceil(per_repeat);
    if stride != size || chunks > per_repeat || address % 32 != 0 {
        return None;
    }
    let (rows, dst_row, src_row) = match dims.last() {
        Some(&(len, dst, src)) if dst != 0 && src % 32 == 0 && src / 32 <= MAX_REPEAT_STRIDE => {
            dims.pop();
            (len, dst, src)
        }
        _ => (1, 0, 0),
    };
    if dims.iter().any(|(_, _, src)| src % 32 != 0) {
        return None;
    }
    let per_block = 32 / size;
    Some(Plan {
        outer: dims,
        rows,
        dst_row,
        src_row,
        length,
        chunks,
        padded: chunks.div_ceil(per_block) * per_block,
        size,
    })
}

/// The scratch a fold this module writes needs, in bytes.
pub(super) fn scratch(program: &Program, v: &VectorInstr) -> Option<u64> {
    plan(program, v).map(|plan| plan.scratch_bytes())
}

/// Writes `v` if it is a fold this module writes; `false` leaves it to the caller.
pub(super) fn whole_reduce(text: &mut Text, program: &Program, v: &VectorInstr) -> bool {
    let Some(plan) = plan(program, v) else {
        return false;
    };
    let VectorKind::Reduce(op, accumulator) = v.kind else {
        return false;
    };
    let (Operand::Ub { address, .. }, Some(ty), Some(acc_ty)) =
        (v.src[0], c_type(v.dtype), c_type(accumulator))
    else {
        return false;
    };
    let (call, combine) = match op {
        ReduceOp::Max => ("WholeReduceMax", "Max"),
        _ => ("WholeReduceMin", "Min"),
    };
    text.comment(&format!(
        "{} {}: {call} over each row on the vector unit, then {combine} into the accumulators",
        v.kind.mnemonic(),
        v.dtype.name()
    ));
    let table = scratch_address(program);
    let values = table + plan.table_bytes();
    let (mut dst, mut src) = (v.dst.to_string(), address.to_string());
    for (depth, (len, dst_stride, src_stride)) in plan.outer.iter().enumerate() {
        text.open(format!(
            "for (uint64_t o{depth} = 0; o{depth} < {len}; ++o{depth})"
        ));
        dst.push_str(&format!(" + o{depth} * {dst_stride}"));
        src.push_str(&format!(" + o{depth} * {src_stride}"));
    }
    let view = |at: String| format!("ub[{at}].ReinterpretCast<{ty}>()");
    let mut first = 0;
    while first < plan.rows {
        let rows = MAX_ROWS.min(plan.rows - first);
        let src = format!("{src} + {}", first * plan.src_row);
        let table = table + first * plan.padded * plan.size;
        let values = values + first * plan.size;
        let fold = |text: &mut Text, to: String, from: String, mask: u64, stride: u64, rep: u64| {
            text.line(format!(
                "AscendC::{call}({}, {}, {mask}, {rows}, {stride}, 1, {rep}, AscendC::ReduceOrder::ORDER_ONLY_VALUE);",
                view(to),
                view(from)
            ));
        };
        let rep = plan.src_row / 32;
        if plan.chunks == 1 {
            fold(text, values.to_string(), src, plan.length, 1, rep);
        } else {
            let per_repeat = REPEAT_BYTES / plan.size;
            let (whole, tail) = (plan.length / per_repeat, plan.length % per_repeat);
            text.open(format!("for (uint64_t c = 0; c < {whole}; ++c)"));
            let (to, from) = (
                format!("{table} + c * {}", plan.size),
                format!("{src} + c * {REPEAT_BYTES}"),
            );
            fold(text, to, from, per_repeat, plan.padded, rep);
            text.close("");
            if tail > 0 {
                let (to, from) = (
                    (table + whole * plan.size).to_string(),
                    format!("{src} + {}", whole * REPEAT_BYTES),
                );
                fold(text, to, from, tail, plan.padded, rep);
            }
            let table_rep = plan.padded * plan.size / 32;
            fold(
                text,
                values.to_string(),
                table.to_string(),
                plan.chunks,
                1,
                table_rep,
            );
        }
        first += rows;
    }
    combine_rows(text, v, &plan, (dst, values), (ty, acc_ty, combine));
    for _ in &plan.outer {
        text.close("");
    }
    true
}

/// Folds each row's value (at `values`, of C++ type `ty`) into its accumulator (at
/// `dst`, of type `acc_ty`, which holds every value of `ty`): one vector call where
/// the accumulators are of the same type and contiguous from an aligned start, else
/// one scalar step per row between the emitter's `V_S` and `S_V` flags.
fn combine_rows(
    text: &mut Text,
    v: &VectorInstr,
    plan: &Plan,
    (dst, values): (String, u64),
    (ty, acc_ty, combine): (&str, &str, &str),
) {
    let aligned = v.dst.is_multiple_of(32) && plan.outer.iter().all(|(_, d, _)| d % 32 == 0);
    if ty == acc_ty && aligned && (plan.rows == 1 || plan.dst_row == plan.size) {
        let acc = format!("ub[{dst}].ReinterpretCast<{ty}>()");
        text.line(format!(
            "AscendC::{combine}({acc}, {acc}, ub[{values}].ReinterpretCast<{ty}>(), {});",
            plan.rows
        ));
        return;
    }
    let VectorKind::Reduce(_, accumulator) = v.kind else {
        return;
    };
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    text.open(format!("for (uint64_t r = 0; r < {}; ++r)", plan.rows));
    text.line(format!(
        "const uint64_t at = ({dst} + r * {}) / {};",
        plan.dst_row,
        accumulator.size()
    ));
    let (acc, row) = (
        format!("ub.ReinterpretCast<{acc_ty}>()"),
        format!("ub.ReinterpretCast<{ty}>()"),
    );
    text.line(format!(
        "{acc}.SetValue(at, Fold{combine}({acc}.GetValue(at), static_cast<{acc_ty}>({row}.GetValue({} + r))));",
        values / plan.size
    ));
    text.close("");
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
}
