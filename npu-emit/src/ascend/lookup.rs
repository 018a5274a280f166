//! A `vgather`'s offsets on the vector unit: each element's position in the table's
//! view (the `offsets` module's vector table) plus its index times the table's row
//! bytes, every index checked first.
//!
//! The check needs only the smallest and the largest index: the indices (int32) are
//! cast to float, where the order of integers is kept and no index outside
//! `0..extent` (with `extent` below 2^24) rounds into it, and folded with
//! `WholeReduceMin` and `WholeReduceMax`, 64 a repeat, level by level, each level
//! padded with the in-range index 0. The scalar unit reads the two values and calls
//! `Trap()` when either is outside, as the scalar table does for each element; then
//! `Muls` scales the indices by the row bytes and `Add` adds them to the positions.
//! An index view that repeats one index along its innermost dimensions (a row of an
//! embedding) is first spread over the box by `Duplicate`s (the `broadcast` module).
//!
//! Scratch, from the offset table on: the table (int32, one per element), the spread
//! or scaled indices (int32), the indices as floats (padded to whole repeats) and two
//! buffers the levels alternate between.

use npu_core::Dtype;
use npu_core::program::{Gather, Operand, Program, VectorInstr};

use super::broadcast::{Strided, duplicate};
use super::offsets::{scratch_address, vector_table};
use crate::text::Text;

/// Elements of one repeat of 32-bit values.
const PER_REPEAT: u64 = 64;

/// The most repeats one call folds.
const MAX_REPEATS: u64 = 255;

/// Where each part of the scratch starts, from the program's scratch address.
struct Layout {
    count: u64,
    table: u64,
    indices: u64,
    floats: u64,
    /// Two buffers for the smallest index's levels, two for the largest's.
    levels: [u64; 4],
    end: u64,
}

fn layout(program: &Program, count: u64) -> Layout {
    let block = |bytes: u64| bytes.div_ceil(32) * 32;
    let padded = count.div_ceil(PER_REPEAT) * PER_REPEAT;
    let level = block(padded.div_ceil(PER_REPEAT).div_ceil(PER_REPEAT) * PER_REPEAT * 4);
    let table = scratch_address(program);
    let indices = table + block(count * 4);
    let floats = indices + block(count * 4);
    let first = floats + padded * 4;
    Layout {
        count,
        table,
        indices,
        floats,
        levels: [first, first + level, first + 2 * level, first + 3 * level],
        end: first + 4 * level,
    }
}

/// The scratch a `vgather` written here needs, in bytes past the scratch address;
/// `None` when it would not end by `room`, or a level would take more repeats than
/// a call has.
pub(super) fn scratch(program: &Program, v: &VectorInstr, room: u64) -> Option<u64> {
    let count = u64::from(v.elements);
    let layout = layout(program, count);
    (count.div_ceil(PER_REPEAT) <= MAX_REPEATS && layout.end <= room)
        .then_some(layout.end - layout.table)
}

/// Opens a block and writes the offsets of `v` (a `vgather` through `facts`) into the
/// table at the scratch address if the vector unit can: int32 indices, a position
/// table the vector unit builds, an index view laid out as the destination or
/// repeating along its innermost dimensions. Returns the table's name; `None` (with
/// nothing written) leaves the table to the scalar unit.
pub(super) fn table(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    facts: &Gather,
    (start, room): (u64, u64),
) -> Option<&'static str> {
    let extents = &program.boxes[v.shape as usize];
    let count: u64 = extents.iter().product();
    if facts.index_dtype != Dtype::I32
        || facts.extent >= 1 << 24
        || scratch(program, v, room).is_none()
    {
        return None;
    }
    let layout = layout(program, count);
    let (mut attempt, index_view) = positions(text, program, v, start)?;
    let indices = spread(&mut attempt, extents, &layout, index_view)?;
    attempt.comment("every index checked: the smallest and the largest, folded on the vector unit");
    let view = |at: u64, ty: &str| format!("ub[{at}].ReinterpretCast<{ty}>()");
    attempt.line(format!(
        "AscendC::Duplicate({}, 0.0f, {});",
        view(layout.floats, "float"),
        count.div_ceil(PER_REPEAT) * PER_REPEAT
    ));
    attempt.line(format!(
        "AscendC::Cast({}, {}, AscendC::RoundMode::CAST_RINT, {count});",
        view(layout.floats, "float"),
        view(indices, "int32_t")
    ));
    let low = fold(&mut attempt, &layout, "WholeReduceMin", 0);
    let high = fold(&mut attempt, &layout, "WholeReduceMax", 2);
    check(&mut attempt, (low, high), facts.extent);
    let (scaled, table) = (
        view(layout.indices, "int32_t"),
        view(layout.table, "int32_t"),
    );
    attempt.line(format!(
        "AscendC::Muls({scaled}, {}, static_cast<int32_t>({}), {count});",
        view(indices, "int32_t"),
        facts.row_bytes
    ));
    attempt.line(format!(
        "AscendC::Add({table}, {table}, {scaled}, {count});"
    ));
    text.append(attempt);
    Some("offsets")
}

/// The offsets of a `vgather` whose index repeats along the box's innermost dimensions
/// (a row of an embedding) when the scratch holds the table and nothing more: the
/// positions on the vector unit, then for each row the scalar unit reads the index and
/// checks it (`Trap()` outside the extent), and one `Adds` moves the row's positions
/// on by the index's rows. Opens a block and returns the table's name; `None` (with
/// nothing written) when the positions are no vector table or a row's offsets are not
/// whole 32-byte blocks.
pub(super) fn per_row(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    facts: &Gather,
    start: u64,
) -> Option<&'static str> {
    let extents = &program.boxes[v.shape as usize];
    let (mut attempt, (address, index_strides)) = positions(text, program, v, start)?;
    let rows = (0..extents.len())
        .rposition(|d| extents[d] > 1 && index_strides[d] != 0)
        .map_or(0, |d| d + 1);
    let run: u64 = extents[rows..].iter().product();
    let index_ty = super::names::c_type(facts.index_dtype)?;
    if !run.is_multiple_of(8) {
        return None;
    }
    let table = scratch_address(program);
    attempt.comment("each row's index read and checked on the scalar unit, its offsets moved on by the vector unit");
    attempt.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    attempt.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    let (mut index_at, mut row) = (address.to_string(), String::from("0"));
    for d in 0..rows {
        let below: u64 = extents[d + 1..rows].iter().product();
        attempt.open(format!(
            "for (uint32_t g{d} = 0; g{d} < {}; ++g{d})",
            extents[d]
        ));
        index_at.push_str(&format!(" + g{d} * {}", index_strides[d]));
        row.push_str(&format!(" + g{d} * {below}"));
    }
    let size = facts.index_dtype.size();
    attempt.line(format!(
        "const int64_t index = ub.ReinterpretCast<{index_ty}>().GetValue(({index_at}) / {size});"
    ));
    attempt.open(format!("if (index < 0 || index >= {})", facts.extent));
    attempt.line("AscendC::Trap();");
    attempt.close("");
    attempt.line(format!(
        "AscendC::Adds(ub[{table} + ({row}) * {}].ReinterpretCast<int32_t>(), ub[{table} + ({row}) * {}].ReinterpretCast<int32_t>(), static_cast<int32_t>(index * {}), {run});",
        run * 4,
        run * 4,
        facts.row_bytes
    ));
    for _ in 0..rows {
        attempt.close("");
    }
    attempt.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    attempt.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
    text.append(attempt);
    Some("offsets")
}

/// Opens a block in a new attempt and writes a `vgather`'s positions in the table's
/// view into the offset table at the scratch address, on the vector unit; returns the
/// attempt and the index view (address and byte strides), or `None` when the positions
/// are no vector table.
fn positions<'p>(
    text: &Text,
    program: &'p Program,
    v: &VectorInstr,
    start: u64,
) -> Option<(Text, (u32, &'p [u64]))> {
    let (
        Operand::Ub { strides, .. },
        Operand::Ub {
            address,
            strides: index,
        },
    ) = (v.src[0], v.src[1])
    else {
        return None;
    };
    let extents = &program.boxes[v.shape as usize];
    let mut attempt = text.nested();
    attempt.open("");
    attempt.line(format!(
        "const AscendC::LocalTensor<uint32_t> offsets = ub[{}].ReinterpretCast<uint32_t>();",
        scratch_address(program)
    ));
    let position = &program.strides[strides as usize];
    vector_table(&mut attempt, program, extents, start, &|d| position[d]).then(|| {
        (
            attempt,
            (address, program.strides[index as usize].as_slice()),
        )
    })
}

/// Where the indices lie laid out as the box: in place when the view already is, else
/// spread into the indices' scratch by `Duplicate`s; `None` when neither.
fn spread(
    text: &mut Text,
    extents: &[u64],
    layout: &Layout,
    (address, strides): (u32, &[u64]),
) -> Option<u64> {
    let mut dense = vec![0; extents.len()];
    let mut step = 4;
    for d in (0..extents.len()).rev() {
        dense[d] = step;
        step *= extents[d];
    }
    let laid_out = (0..extents.len()).all(|d| extents[d] == 1 || strides[d] == dense[d]);
    if laid_out && address % 32 == 0 {
        return Some(u64::from(address));
    }
    let target = u32::try_from(layout.indices).ok()?;
    let to: Strided = (target, &dense, "int32_t", 4);
    let from: Strided = (address, strides, "int32_t", 4);
    duplicate(text, extents, to, from).then_some(layout.indices)
}

/// Folds the float indices to one value with `call`, level by level (64 a repeat,
/// each level padded with 0 to whole repeats) in the level buffers `first` and
/// `first + 1`; returns where the value lies.
fn fold(text: &mut Text, layout: &Layout, call: &str, first: usize) -> u64 {
    let mut n = layout.count.div_ceil(PER_REPEAT) * PER_REPEAT;
    let mut from = layout.floats;
    let mut level = 0;
    loop {
        let repeats = n / PER_REPEAT;
        let to = layout.levels[first + level % 2];
        let padded = repeats.div_ceil(PER_REPEAT) * PER_REPEAT;
        if repeats > 1 {
            text.line(format!(
                "AscendC::Duplicate(ub[{to}].ReinterpretCast<float>(), 0.0f, {padded});"
            ));
        }
        text.line(format!(
            "AscendC::{call}(ub[{to}].ReinterpretCast<float>(), ub[{from}].ReinterpretCast<float>(), {PER_REPEAT}, {repeats}, 1, 1, 8, AscendC::ReduceOrder::ORDER_ONLY_VALUE);"
        ));
        if repeats == 1 {
            return to;
        }
        (n, from, level) = (padded, to, level + 1);
    }
}

/// The scalar unit reads the smallest and the largest index and stops the kernel
/// when either lies outside `0..extent`.
fn check(text: &mut Text, (low, high): (u64, u64), extent: u64) {
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    let value = |at: u64| format!("ub.ReinterpretCast<float>().GetValue({})", at / 4);
    text.open(format!(
        "if ({} < 0.0f || {} >= {extent}.0f)",
        value(low),
        value(high)
    ));
    text.line("AscendC::Trap();");
    text.close("");
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
}
