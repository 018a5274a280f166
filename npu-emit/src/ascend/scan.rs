//! `vscan.sum` and `vscan.prod` vectorised across the rows a scan runs along: every
//! row steps in index order at once, one position along the scan at a time.
//!
//! The rows are the box's dimensions other than the scanned one. A table of lines
//! holds the rows' running values: line 0 the ones the scan carries in (gathered from
//! the carried values, a move of the bits), line `p + 1` those after position `p`, each
//! line padded to a whole 32-byte block so that every call starts aligned. For each
//! position, in index order:
//! - the rows' elements at it are gathered into contiguous staging (`Gather` through a
//!   table of the rows' offsets built once, moved on to the position by `srcBaseAddr`);
//! - f16 elements are cast to the f32 accumulator (exact);
//! - one `Add` (`Mul`) of the line before and the staged elements writes the
//!   position's line: each running value steps as npu-core's `scalar::scan_step` steps
//!   it. A NaN running value stays as it is: `Add` keeps its first source's NaN (as the
//!   CPU model's does), and after a `Mul`, whose choice between two NaNs is not
//!   specified, `Compare(.., NE)` marks the NaN running values of the line before and
//!   `Select` puts them back.
//!
//! Then the last line goes back to the carried running values (a `Gather`: a move of
//! the bits), the lines are rounded to the element's dtype where the accumulator is
//! wider (`Cast`, `CAST_RINT`), and `Gather`s write the destination: where the scan
//! runs along the innermost dimension and each row's outputs start 32-byte aligned,
//! one call per row through a table of one row's places in the lines (moved on to the
//! row by `srcBaseAddr`), else one call through a table of every output's place. Each
//! call that reads what the call before it wrote waits behind a `PipeBarrier<PIPE_V>`.
//!
//! `Select` writes the basic API's scratch at `TMP_UB_OFFSET`, so a product's buffers
//! and scratch must end below it (`Room::select`).
//!
//! The tables, the staging and the lines live in scratch after the program's buffers
//! ([`scratch`]); a scan whose scratch would end past the room, whose destination is
//! not contiguous, or whose carried values are not contiguous over the rows is left to
//! the scalar loop (`stepwise`).

use npu_core::Dtype;
use npu_core::ir::ScanOp;
use npu_core::program::{Operand, Program, VectorInstr};

use super::names::{Chip, c_type};
use super::offsets::{Room, Scratch, gather_calls_from, scratch_address, table_at};
use super::view::{barrier, contiguous, ub_view as view};
use crate::text::Text;

/// A scan this module writes.
struct Plan {
    op: ScanOp,
    /// The elements' dtype and C++ type.
    element: (Dtype, &'static str),
    /// The running values' dtype and C++ type.
    accumulator: (Dtype, &'static str),
    /// The scanned dimension, its extent and the source's byte stride along it.
    scan: (usize, u64, u64),
    /// The box with the scanned dimension 1: the rows.
    rows: Vec<u64>,
    /// The rows' count, and a line's length padded to whole 32-byte blocks of the
    /// accumulator.
    count: u64,
    line: u64,
    /// The source's address and byte strides, the carried values' address, the
    /// destination's address.
    source: (u32, Vec<u64>),
    carry: u32,
    dst: u32,
    /// The destination's box.
    extents: Vec<u64>,
    /// Whether the outputs are gathered a row at a time.
    per_row: bool,
}

/// Where each piece of the scratch starts.
struct Layout {
    rows_table: u64,
    out_table: u64,
    carry_table: u64,
    staged: u64,
    cast: u64,
    /// The NaN marks of a product's line before (bits).
    mask: u64,
    lines: u64,
    narrowed: u64,
    end: u64,
}

/// The scratch this form needs past the program's buffers, or `None` when it does not
/// write `v` (or its scratch would end past the room: below the basic API's scratch
/// for a product, whose `Select` writes it).
pub(super) fn scratch(program: &Program, v: &VectorInstr, room: Room) -> Option<u64> {
    let plan = plan(program, v)?;
    let layout = layout(program, &plan);
    let fits = match plan.op {
        ScanOp::Prod => {
            layout.end <= room.select && program.peak(npu_core::Level::Ub) <= room.select
        }
        _ => layout.end <= room.any,
    };
    fits.then(|| layout.end - scratch_address(program))
}

/// Writes `v` if this form can and its scratch fits the room; `false` leaves it to the
/// scalar loop.
pub(super) fn scan(text: &mut Text, program: &Program, v: &VectorInstr, room: Room) -> bool {
    let (Some(plan), Some(_)) = (plan(program, v), scratch(program, v, room)) else {
        return false;
    };
    let layout = layout(program, &plan);
    text.comment(&format!(
        "{} {} in {}: across {} rows, one position at a time in index order",
        v.kind.mnemonic(),
        v.dtype.name(),
        plan.accumulator.0.name(),
        plan.count
    ));
    tables(text, &plan, &layout);
    barrier(text);
    let place = (layout.lines, plan.carry, "offsets_carry");
    let (_, acc_ty) = plan.accumulator;
    gather_calls_from(
        text,
        (acc_ty, plan.accumulator.0.size()),
        place,
        "0",
        plan.count,
    );
    barrier(text);
    steps(text, &plan, &layout);
    write_back(text, &plan, &layout);
    for _ in 0..3 {
        text.close("");
    }
    true
}

/// The three offset tables: the rows' elements at the first position, every output's
/// place in the lines, the last line's running values.
fn tables(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (dim, _, _) = plan.scan;
    let (address, strides) = &plan.source;
    let start = u64::from(address % 32);
    let rows_stride = |d: usize| strides[d];
    let rows = (layout.rows_table, "offsets");
    table_at(text, rows, &plan.rows, (start, &rows_stride), None);
    let narrow = plan.element.0.size();
    let inner = row_strides(&plan.rows, narrow);
    let out_stride = |d: usize| match d == dim {
        true => plan.line * narrow,
        false => inner[d],
    };
    let out = (layout.out_table, "offsets_out");
    let one_row = [plan.scan.1];
    let extents = if plan.per_row {
        &one_row[..]
    } else {
        &plan.extents
    };
    let out_stride = |d: usize| match plan.per_row {
        true => plan.line * narrow,
        false => out_stride(d),
    };
    table_at(text, out, extents, (0, &out_stride), None);
    let wide = plan.accumulator.0.size();
    let carry = (layout.carry_table, "offsets_carry");
    table_at(text, carry, &[plan.count], (0, &|_| wide), None);
}

/// Each dimension's byte stride in a line of contiguous rows of `size`-byte values.
fn row_strides(rows: &[u64], size: u64) -> Vec<u64> {
    let mut strides = vec![0; rows.len()];
    let mut stride = size;
    for (d, len) in rows.iter().enumerate().rev() {
        strides[d] = stride;
        stride *= len;
    }
    strides
}

/// The loop over the scan's positions: gather, cast, step.
fn steps(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (element, ty) = plan.element;
    let (accumulator, acc_ty) = plan.accumulator;
    let (_, steps, stride) = plan.scan;
    let line_bytes = plan.line * accumulator.size();
    text.open(format!("for (uint32_t p = 0; p < {steps}; ++p)"));
    let (address, _) = &plan.source;
    let place = (layout.staged, address / 32 * 32, "offsets");
    let shift = format!("p * {stride}");
    gather_calls_from(text, (ty, element.size()), place, &shift, plan.count);
    barrier(text);
    if accumulator != element {
        text.line(format!(
            "AscendC::Cast({}, {}, AscendC::RoundMode::CAST_NONE, {});",
            view(layout.cast, acc_ty),
            view(layout.staged, ty),
            plan.count
        ));
        barrier(text);
    }
    let staged = match accumulator == element {
        true => layout.staged,
        false => layout.cast,
    };
    let line = |next: u64| {
        let at = layout.lines + next * line_bytes;
        format!("ub[{at} + p * {line_bytes}].ReinterpretCast<{acc_ty}>()")
    };
    let (before, after) = (line(0), line(1));
    let count = plan.count;
    match plan.op {
        ScanOp::Prod => {
            text.line(format!(
                "AscendC::Mul({after}, {before}, {}, {count});",
                view(staged, acc_ty)
            ));
            // Compare counts whole 256-byte repeats: the lines run on past the last.
            let marked = compared(plan);
            let mask = view(layout.mask, "uint8_t");
            text.line(format!(
                "AscendC::Compare({mask}, {before}, {before}, AscendC::CMPMODE::NE, {marked});"
            ));
            barrier(text);
            text.line(format!(
                "AscendC::Select({after}, {mask}, {before}, {after}, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, {count});"
            ));
        }
        _ => text.line(format!(
            "AscendC::Add({after}, {before}, {}, {count});",
            view(staged, acc_ty)
        )),
    }
    barrier(text);
    text.close("");
}

/// The elements a product's `Compare` marks: the rows, rounded up to whole 256-byte
/// repeats of the accumulator.
fn compared(plan: &Plan) -> u64 {
    let per_repeat = 256 / plan.accumulator.0.size();
    plan.count.div_ceil(per_repeat) * per_repeat
}

/// The last line into the carried values, the lines rounded to the element's dtype,
/// and the outputs gathered from them into the destination.
fn write_back(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (element, ty) = plan.element;
    let (accumulator, acc_ty) = plan.accumulator;
    let (_, steps, _) = plan.scan;
    let line_bytes = plan.line * accumulator.size();
    let last = format!("{}", steps * line_bytes);
    let place = (u64::from(plan.carry), layout.lines as u32, "offsets_carry");
    gather_calls_from(text, (acc_ty, accumulator.size()), place, &last, plan.count);
    let mut lines = layout.lines + line_bytes;
    if accumulator != element {
        text.line(format!(
            "AscendC::Cast({}, {}, AscendC::RoundMode::CAST_RINT, {});",
            view(layout.narrowed, ty),
            view(lines, acc_ty),
            steps * plan.line
        ));
        barrier(text);
        lines = layout.narrowed;
    }
    if plan.per_row {
        let row_bytes = steps * element.size();
        text.open(format!("for (uint32_t r = 0; r < {}; ++r)", plan.count));
        text.line(format!(
            "AscendC::Gather(ub[{} + r * {row_bytes}].ReinterpretCast<{ty}>(), {}, offsets_out, r * {}, {steps});",
            plan.dst,
            view(lines, ty),
            element.size()
        ));
        text.close("");
    } else {
        let place = (u64::from(plan.dst), lines as u32, "offsets_out");
        gather_calls_from(text, (ty, element.size()), place, "0", steps * plan.count);
    }
    barrier(text);
}

/// The plan of a float scan whose accumulator is its dtype or f32 over f16, whose
/// destination is contiguous from an aligned start and whose carried values are
/// contiguous over the rows from an aligned start.
fn plan(program: &Program, v: &VectorInstr) -> Option<Plan> {
    let (op, accumulator) = v.kind.scan()?;
    let widening = accumulator == Dtype::F32 && v.dtype == Dtype::F16;
    if !(accumulator == v.dtype || widening) || !v.dtype.is_float() {
        return None;
    }
    if widening && Chip::named(&program.target) == Chip::AtlasInference {
        return None;
    }
    let (
        Operand::Ub { address, strides },
        Operand::Ub {
            address: carry,
            strides: carry_strides,
        },
    ) = (v.src[0], v.src[1])
    else {
        return None;
    };
    let dim = program.scan_dimension(v)?;
    let extents = program.boxes[v.shape as usize].clone();
    let mut rows = extents.clone();
    rows[dim] = 1;
    let count: u64 = rows.iter().product();
    let destination = (v.dst, v.dst_strides, "", v.dtype.size());
    let carried = (carry, carry_strides, "", accumulator.size());
    if !contiguous(program, &extents, destination) || !contiguous(program, &rows, carried) {
        return None;
    }
    // Each line's `Add` starts 32-byte aligned; the narrowed lines are only gathered
    // from.
    let block = 32 / accumulator.size();
    let source = program.strides[strides as usize].clone();
    let row_bytes = extents[dim] * v.dtype.size();
    // One `Gather` moves at most 255 repeats of 256 bytes.
    let one_call = row_bytes <= 255 * 256;
    let per_row =
        dim + 1 == extents.len() && one_call && (count == 1 || row_bytes.is_multiple_of(32));
    Some(Plan {
        op,
        element: (v.dtype, c_type(v.dtype)?),
        accumulator: (accumulator, c_type(accumulator)?),
        scan: (dim, extents[dim], source[dim]),
        rows,
        count,
        line: count.div_ceil(block) * block,
        source: (address, source),
        carry,
        dst: v.dst,
        extents,
        per_row,
    })
}

/// Where a plan's tables, staging and lines go, each 32-byte aligned, from the
/// scratch's start.
fn layout(program: &Program, plan: &Plan) -> Layout {
    let mut scratch = Scratch::of(program);
    let (element, accumulator) = (plan.element.0.size(), plan.accumulator.0.size());
    let widening = accumulator != element;
    let (_, steps, _) = plan.scan;
    let rows_table = scratch.take(plan.count * 4);
    let outputs = if plan.per_row {
        steps
    } else {
        steps * plan.count
    };
    let out_table = scratch.take(outputs * 4);
    let carry_table = scratch.take(plan.count * 4);
    let staged = scratch.take(plan.count * element);
    let cast = if widening {
        scratch.take(plan.count * accumulator)
    } else {
        0
    };
    let mask = match plan.op {
        ScanOp::Prod => scratch.take(compared(plan) / 8),
        _ => 0,
    };
    // Line 0 is the carried values; a product's `Compare` reads whole repeats past
    // the last line it marks.
    let tail = match plan.op {
        ScanOp::Prod => compared(plan) * accumulator,
        _ => 0,
    };
    let lines = scratch.take((steps + 1) * plan.line * accumulator + tail);
    let narrowed = if widening {
        scratch.take(steps * plan.line * element)
    } else {
        0
    };
    Layout {
        rows_table,
        out_table,
        carry_table,
        staged,
        cast,
        mask,
        lines,
        narrowed,
        end: scratch.end(),
    }
}
