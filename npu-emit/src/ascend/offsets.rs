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

/// Where the UB ends for the emitter's scratch: for any call, and in a kernel whose
/// emitted code calls `Select` where its program has none (the basic API's own scratch
/// at `TMP_UB_OFFSET`, which `Select` writes, must stay clear).
#[derive(Clone, Copy, Debug)]
pub(super) struct Room {
    pub(super) any: u64,
    pub(super) select: u64,
}

impl Room {
    pub(super) fn of(program: &Program, target: &npu_core::Target) -> Room {
        Room {
            any: target.ub_planned(program.selects),
            select: target.ub_planned(true),
        }
    }
}

/// The parts of one instruction's scratch, handed out in order from the scratch's start,
/// each starting 32-byte aligned.
pub(super) struct Scratch {
    next: u64,
}

impl Scratch {
    /// An empty scratch at the program's scratch address.
    pub(super) fn of(program: &Program) -> Scratch {
        Scratch {
            next: scratch_address(program),
        }
    }

    /// Where the next `bytes` go.
    pub(super) fn take(&mut self, bytes: u64) -> u64 {
        let start = self.next;
        self.next += bytes.div_ceil(32) * 32;
        start
    }

    /// Where the parts handed out so far end.
    pub(super) fn end(&self) -> u64 {
        self.next
    }
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
    if lookup.is_none() && vector_table_at(text, (at, name), extents, start, stride) {
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

/// Writes the offset table of a box with no lookup on the vector unit where it can:
/// the innermost dimension as `CreateVecIndex` times its stride plus `start` (a
/// `Duplicate` of `start` where the stride is 0), then each dimension further out as
/// that much of the table again, moved on by its stride (`Adds`), once per step. Every
/// repeat must start 32-byte aligned: where the innermost run is not whole blocks of 8
/// entries, the first block is the dimensions (or the part of one) that make it so,
/// written on the scalar unit ([`first_block`]); `false` when that block would be the
/// whole table. The offsets are below the UB's size, so their int32 and uint32 bits
/// agree.
pub(super) fn vector_table(
    text: &mut Text,
    program: &Program,
    extents: &[u64],
    start: u64,
    stride: &impl Fn(usize) -> u64,
) -> bool {
    vector_table_at(
        text,
        (scratch_address(program), "offsets"),
        extents,
        start,
        stride,
    )
}

/// [`vector_table`] at ub `at`, under the name `name`.
fn vector_table_at(
    text: &mut Text,
    (at, name): (u64, &str),
    extents: &[u64],
    start: u64,
    stride: &dyn Fn(usize) -> u64,
) -> bool {
    let dims: Vec<(u64, u64)> = (0..extents.len())
        .filter(|&d| extents[d] > 1)
        .map(|d| (extents[d], stride(d)))
        .collect();
    let Some((block, outer)) = first_block(&dims) else {
        return false;
    };
    let view = |offset: u64| format!("ub[{}].ReinterpretCast<int32_t>()", at + offset * 4);
    let mut run = match block[..] {
        [(inner, inner_stride)] => {
            text.comment("the offset table, built on the vector unit");
            index_run(text, &view(0), (inner, inner_stride), start);
            inner
        }
        _ => scalar_block(text, name, &block, start),
    };
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

/// A dimension of a table: its extent and the offset one step along it adds.
type Run = (u64, u64);

/// The first block of a table (its dimensions, outermost first) and the dimensions
/// that repeat it with `Adds`: the innermost dimension, and further out as much as it
/// takes for the block to be whole 32-byte blocks of offsets (8 entries) so that every
/// repeat starts aligned, a dimension split where a part of it is enough. `None` when
/// the block would be the whole table and more than one dimension.
fn first_block(dims: &[Run]) -> Option<(Vec<Run>, Vec<Run>)> {
    let (&inner, rest) = dims.split_last()?;
    let (mut block, mut outer, mut run) = (vec![inner], rest.to_vec(), inner.0);
    while run % 8 != 0 && !outer.is_empty() {
        let (len, step) = outer.pop()?;
        let part = 8 / gcd(run, 8);
        if len % part == 0 && len > part {
            block.insert(0, (part, step));
            outer.push((len / part, step * part));
            run *= part;
        } else {
            block.insert(0, (len, step));
            run *= len;
        }
    }
    (block.len() == 1 || !outer.is_empty()).then_some((block, outer))
}

/// The greatest common divisor of two positive numbers.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// One run of offsets on the vector unit: `start + i * stride` for `i < len` (a
/// `Duplicate` of `start` where the stride is 0).
fn index_run(text: &mut Text, view: &str, (len, stride): (u64, u64), start: u64) {
    if stride == 0 {
        text.line(format!(
            "AscendC::Duplicate({view}, static_cast<int32_t>({start}), {len});"
        ));
        return;
    }
    text.line(format!(
        "AscendC::CreateVecIndex({view}, static_cast<int32_t>(0), {len});"
    ));
    text.line(format!(
        "AscendC::Muls({view}, {view}, static_cast<int32_t>({stride}), {len});"
    ));
    text.line(format!(
        "AscendC::Adds({view}, {view}, static_cast<int32_t>({start}), {len});"
    ));
}

/// A table's first block on the scalar unit, between the `V_S` and `S_V` flags (a
/// run too short to start every repeat aligned); returns its entries.
fn scalar_block(text: &mut Text, name: &str, block: &[(u64, u64)], start: u64) -> u64 {
    let entries: u64 = block.iter().map(|(len, _)| len).product();
    text.comment(&format!(
        "the offset table: its first {entries} entries on the scalar unit, repeated on the vector unit"
    ));
    text.open("");
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    text.line("uint32_t n = 0;");
    let mut position = start.to_string();
    for (d, (len, step)) in block.iter().enumerate() {
        text.open(format!("for (uint32_t b{d} = 0; b{d} < {len}; ++b{d})"));
        position.push_str(&format!(" + b{d} * {step}"));
    }
    text.line(format!("{name}.SetValue(n, {position});"));
    text.line("++n;");
    for _ in block {
        text.close("");
    }
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
    text.close("");
    entries
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
