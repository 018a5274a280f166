//! The offset table a `Gather` reads: where it lives (in scratch after the program's
//! buffers), how it is written on the scalar unit, the lookup a `vgather` adds to
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

/// Opens a block and writes the offset table of a box on the scalar unit, between
/// the `V_S` and `S_V` flags; returns the table's name. The caller writes the
/// `Gather` and closes the block.
pub(super) fn table(
    text: &mut Text,
    program: &Program,
    extents: &[u64],
    start: u64,
    stride: impl Fn(usize) -> u64,
    lookup: Option<&Lookup>,
) -> &'static str {
    text.open("");
    text.line(format!(
        "const AscendC::LocalTensor<uint32_t> offsets = ub[{}].ReinterpretCast<uint32_t>();",
        scratch_address(program)
    ));
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    text.line("uint32_t n = 0;");
    let mut position = start.to_string();
    for (d, len) in extents.iter().enumerate() {
        text.open(format!("for (uint32_t g{d} = 0; g{d} < {len}; ++g{d})"));
        position.push_str(&format!(" + g{d} * {}", stride(d)));
    }
    match lookup {
        None => text.line(format!("offsets.SetValue(n, {position});")),
        Some(lookup) => {
            text.line(format!("const int64_t row = {};", lookup.read));
            text.open(format!("if (row < 0 || row >= {})", lookup.extent));
            text.line("AscendC::Trap();");
            text.close("");
            text.line(format!(
                "offsets.SetValue(n, static_cast<uint32_t>({position} + row * {}));",
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
    "offsets"
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
    let limit = gather_limit(size);
    let mut done = 0;
    while done < count {
        let part = limit.min(count - done);
        let table = match done {
            0 => table.to_string(),
            _ => format!("{table}[{done}]"),
        };
        text.line(format!(
            "AscendC::Gather(ub[{}].ReinterpretCast<{ty}>(), ub[{base}].ReinterpretCast<{ty}>(), {table}, 0, {part});",
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
