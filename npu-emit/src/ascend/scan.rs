//! `vscan.sum` and `vscan.prod` vectorised across the rows a scan runs along: every
//! row steps in index order at once, one position along the scan at a time.
//!
//! The rows are the box's dimensions other than the scanned one. A running table
//! holds one line of the rows' running values per position, each line padded to a
//! whole 32-byte block so that every call starts aligned. For each position, in index
//! order:
//! - the rows' elements at it are gathered into contiguous staging (`Gather` through a
//!   table of the rows' offsets built once, moved on to the position by `srcBaseAddr`);
//! - f16 elements are cast to the f32 accumulator (exact);
//! - one `Add` of the line before (the running value the scan carries in, at the
//!   first position) and the staged elements writes the position's line: each running
//!   value steps as npu-core's `scalar::scan_step` steps it (the running value first,
//!   so a NaN running value stays as it is, as the CPU model's `Add` and the scalar
//!   loop keep it).
//!
//! Then the last line goes back to the carried running values (a `Gather`: a move of
//! the bits), the lines are rounded to the element's dtype where the accumulator is
//! wider (`Cast`, `CAST_RINT`), and `Gather`s write the destination: where the scan
//! runs along the innermost dimension and each row's outputs start 32-byte aligned,
//! one call per row through a table of one row's places in the lines (moved on to the
//! row by `srcBaseAddr`), else one call through a table of every output's place. Each call that reads what the call before
//! it wrote waits behind a `PipeBarrier<PIPE_V>`.
//!
//! Running products stay on the scalar loop: the product of a NaN running value and a
//! NaN element is the running value's NaN (`scalar::product_step`), and which of two
//! NaNs `Mul` returns is not specified (the model's, like the simulator's elementwise
//! product, is the host's).
//!
//! The tables, the staging and the lines live in scratch after the program's buffers
//! ([`scratch`]); a scan whose scratch would end past the room, whose destination is
//! not contiguous, or whose carried values are not contiguous over the rows is left to
//! the scalar loop (`stepwise`).

use npu_core::Dtype;
use npu_core::ir::ScanOp;
use npu_core::program::{Operand, Program, VectorInstr};

use super::names::{Chip, c_type};
use super::offsets::{Scratch, gather_calls_from, scratch_address, table_at};
use super::view::{barrier, contiguous, ub_view as view};
use crate::text::Text;

/// A scan this module writes: a running sum.
struct Plan {
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
    lines: u64,
    narrowed: u64,
    end: u64,
}

/// The scratch this form needs past the program's buffers, or `None` when it does not
/// write `v` (or its scratch would end past `room`).
pub(super) fn scratch(program: &Program, v: &VectorInstr, room: u64) -> Option<u64> {
    let plan = plan(program, v)?;
    let layout = layout(program, &plan);
    (layout.end <= room).then(|| layout.end - scratch_address(program))
}

/// Writes `v` if this form can and its scratch fits below `room`; `false` leaves it to
/// the scalar loop.
pub(super) fn scan(text: &mut Text, program: &Program, v: &VectorInstr, room: u64) -> bool {
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
    let line = |at: &str| format!("ub[{at}].ReinterpretCast<{acc_ty}>()");
    text.line(format!(
        "AscendC::Add({}, {}, {}, {});",
        line(&format!("{} + p * {line_bytes}", layout.lines)),
        line(&format!(
            "p == 0 ? {} : {} + (p - 1) * {line_bytes}",
            plan.carry, layout.lines
        )),
        view(staged, acc_ty),
        plan.count
    ));
    barrier(text);
    text.close("");
}

/// The last line into the carried values, the lines rounded to the element's dtype,
/// and the outputs gathered from them into the destination.
fn write_back(text: &mut Text, plan: &Plan, layout: &Layout) {
    let (element, ty) = plan.element;
    let (accumulator, acc_ty) = plan.accumulator;
    let (_, steps, _) = plan.scan;
    let last = format!("{}", (steps - 1) * plan.line * accumulator.size());
    let place = (u64::from(plan.carry), layout.lines as u32, "offsets_carry");
    gather_calls_from(text, (acc_ty, accumulator.size()), place, &last, plan.count);
    let mut lines = layout.lines;
    if accumulator != element {
        text.line(format!(
            "AscendC::Cast({}, {}, AscendC::RoundMode::CAST_RINT, {});",
            view(layout.narrowed, ty),
            view(layout.lines, acc_ty),
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

/// The plan of a float running sum whose accumulator is its dtype or f32 over f16, whose
/// destination is contiguous from an aligned start and whose carried values are
/// contiguous over the rows from an aligned start.
fn plan(program: &Program, v: &VectorInstr) -> Option<Plan> {
    let (ScanOp::Sum, accumulator) = v.kind.scan()? else {
        return None;
    };
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
    let lines = scratch.take(steps * plan.line * accumulator);
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
        lines,
        narrowed,
        end: scratch.end(),
    }
}
