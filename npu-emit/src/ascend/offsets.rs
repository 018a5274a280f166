//! The offset table a `Gather` reads: where it lives (in scratch after the program's
//! buffers), how it is written (on the vector unit or the scalar unit), the lookup a `vgather` adds to
//! each offset, and what `Gather` requires of its destination. Both the strided moves
//! and `vgather` write through it, so it is a leaf neither depends on the other for.

use npu_core::program::Program;

use super::names::unsupported;
use super::view::View;
use crate::output::Unsupported;
use crate::text::Text;

/// How a `vgather` element finds its row: the index it reads, the extent the index
/// must lie in, and the bytes one row of the table moves it by.
pub(super) struct Lookup {
    pub(super) read: String,
    pub(super) extent: u64,
    pub(super) row_bytes: u64,
}

/// Where the scratch starts: the program's peak, rounded up to a 32-byte block.
pub(super) fn scratch_address(program: &Program) -> u64 {
    program.peak(npu_core::Level::Ub).div_ceil(32) * 32
}

/// Opens a block and writes the offset table of a box: on the vector unit where the
/// table is a sum of arithmetic runs (`vector_table`), else on the scalar unit
/// between the `V_S` and `S_V` flags; returns the table's name. The caller writes
/// the `Gather` and closes the block.
pub(super) fn table(
    text: &mut Text,
    program: &Program,
    extents: &[u64],
    start: u64,
    stride: impl Fn(usize) -> u64,
    lookup: Option<&Lookup>,
) -> &'static str {
    let place = (scratch_address(program), "offsets");
    table_at(text, place, extents, (start, &stride), lookup)
}

/// [`table`] at ub `at` under the name `name` (a kernel with two tables at once names
/// them apart).
pub(super) fn table_at(
    text: &mut Text,
    (at, name): (u64, &'static str),
    extents: &[u64],
    (start, stride): (u64, &dyn Fn(usize) -> u64),
    lookup: Option<&Lookup>,
) -> &'static str {
    text.open("");
    text.line(format!(
        "const AscendC::LocalTensor<uint32_t> {name} = ub[{at}].ReinterpretCast<uint32_t>();"
    ));
    if lookup.is_none() && vector_table_at(text, at, extents, start, stride) {
        return name;
    }
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    text.line("uint32_t n = 0;");
    let mut position = start.to_string();
    for (d, len) in extents.iter().enumerate() {
        text.open(format!("for (uint32_t g{d} = 0; g{d} < {len}; ++g{d})"));
        position.push_str(&format!(" + g{d} * {}", stride(d)));
    }
    match lookup {
        None => text.line(format!("{name}.SetValue(n, {position});")),
        Some(lookup) => {
            text.line(format!("const int64_t row = {};", lookup.read));
            text.open(format!("if (row < 0 || row >= {})", lookup.extent));
            text.line("AscendC::Trap();");
            text.close("");
            text.line(format!(
                "{name}.SetValue(n, static_cast<uint32_t>({position} + row * {}));",
                lookup.row_bytes
            ));
        }
    }
    text.line("++n;");
    for _ in extents {
        text.close("");
    }
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
    name
}

/// Writes the offset table of a box with no lookup on the vector unit, if every run
/// after the first starts 32-byte aligned: the innermost dimension as
/// `CreateVecIndex` times its stride plus `start` (a `Duplicate` of `start` where
/// the stride is 0), then each dimension further out
/// as that much of the table again, moved on by its stride (`Adds`), once per step.
/// The offsets are below the UB's size, so their int32 and uint32 bits agree.
pub(super) fn vector_table(
    text: &mut Text,
    program: &Program,
    extents: &[u64],
    start: u64,
    stride: &impl Fn(usize) -> u64,
) -> bool {
    vector_table_at(text, scratch_address(program), extents, start, stride)
}

/// [`vector_table`] at ub `at`.
fn vector_table_at(
    text: &mut Text,
    at: u64,
    extents: &[u64],
    start: u64,
    stride: &dyn Fn(usize) -> u64,
) -> bool {
    let dims: Vec<(u64, u64)> = (0..extents.len())
        .filter(|&d| extents[d] > 1)
        .map(|d| (extents[d], stride(d)))
        .collect();
    let Some((&(inner, inner_stride), outer)) = dims.split_last() else {
        return false;
    };
    let mut run = inner;
    for &(len, _) in outer.iter().rev() {
        if run % 8 != 0 {
            return false;
        }
        run *= len;
    }
    let view = |offset: u64| format!("ub[{}].ReinterpretCast<int32_t>()", at + offset * 4);
    text.comment("the offset table, built on the vector unit");
    if inner_stride == 0 {
        text.line(format!(
            "AscendC::Duplicate({}, static_cast<int32_t>({start}), {inner});",
            view(0)
        ));
    } else {
        text.line(format!(
            "AscendC::CreateVecIndex({}, static_cast<int32_t>(0), {inner});",
            view(0)
        ));
        text.line(format!(
            "AscendC::Muls({0}, {0}, static_cast<int32_t>({inner_stride}), {inner});",
            view(0)
        ));
        text.line(format!(
            "AscendC::Adds({0}, {0}, static_cast<int32_t>({start}), {inner});",
            view(0)
        ));
    }
    let mut run = inner;
    for &(len, step) in outer.iter().rev() {
        text.open(format!("for (uint32_t g = 1; g < {len}; ++g)"));
        text.line(format!(
            "AscendC::Adds(ub[{at} + g * {}].ReinterpretCast<int32_t>(), {}, static_cast<int32_t>(g * {step}), {run});",
            run * 4,
            view(0)
        ));
        text.close("");
        run *= len;
    }
    true
}

/// Elements one `Gather` call moves at most: its repeat count is 8 bits, and a repeat
/// moves 256 bytes (64 32-bit or 128 16-bit elements).
fn gather_limit(size: u64) -> u64 {
    255 * (256 / size)
}

/// Writes the `Gather` calls that move `count` elements of `size` bytes (C++ type `ty`)
/// from the block at ub `base` to ub `dst` through the offset table `table`: one call per
/// [`gather_limit`] elements, each reading its part of the table.
pub(super) fn gather_calls(
    text: &mut Text,
    (ty, size): (&str, u64),
    (dst, base, table): (u64, u32, &str),
    count: u64,
) {
    gather_calls_from(text, (ty, size), (dst, base, table), "0", count);
}

/// [`gather_calls`] with every offset moved on by `shift` bytes (`srcBaseAddr`, an
/// expression a multiple of the element's size).
pub(super) fn gather_calls_from(
    text: &mut Text,
    (ty, size): (&str, u64),
    (dst, base, table): (u64, u32, &str),
    shift: &str,
    count: u64,
) {
    let limit = gather_limit(size);
    let mut done = 0;
    while done < count {
        let part = limit.min(count - done);
        let table = match done {
            0 => table.to_string(),
            _ => format!("{table}[{done}]"),
        };
        text.line(format!(
            "AscendC::Gather(ub[{}].ReinterpretCast<{ty}>(), ub[{base}].ReinterpretCast<{ty}>(), {table}, {shift}, {part});",
            dst + done * size
        ));
        done += part;
    }
}

/// Checks that a `Gather` can write the destination: contiguous over the box in its
/// order and starting 32-byte aligned.
pub(super) fn destination(
    program: &Program,
    construct: &str,
    extents: &[u64],
    (address, strides, _, size): View,
) -> Result<(), Unsupported> {
    let strides = &program.strides[strides as usize];
    let mut expected = size;
    for (len, stride) in extents.iter().zip(strides).rev() {
        if *len > 1 && *stride != expected {
            return Err(unsupported(
                construct,
                "Gather writes contiguous elements, and the destination is strided",
            ));
        }
        expected *= len;
    }
    if address % 32 != 0 {
        return Err(unsupported(
            construct,
            &format!("Gather's destination starts 32-byte aligned, not at ub 0x{address:x}"),
        ));
    }
    Ok(())
}
