//! The cube path: copies into L1, `load_l0a`/`load_l0b`, `mmad` and `fixpipe` as
//! `DataCopy` with `Nd2NzParams`, `LoadData` with `LoadData2DParams`, `Mmad` with
//! `MmadParams` and `Fixpipe` with `FixpipeParamsV220`.
//!
//! The simulator holds every cube buffer row-major: an L1 tile in rows of
//! `row_bytes`, an L0A block in rows of the cube's k, L0B and L0C in rows of its n.
//! The device's cube reads fractal layouts instead (the Ascend C reference's `Mmad`:
//! A in L0A as Zz, B in L0B as Zn, C in L0C as Nz), so the emitted code keeps every
//! buffer at the program's own offset and slot but lays out what is in it as the
//! API needs. An L1 tile of `rows` rows is Nz: element (r, c) at
//! `(c / 16) × rows × 32 B + r × 32 B + (c % 16) × 2 B`, where ND2NZ puts it; a
//! program address inside the tile names the element (r, c) it is row-major, and
//! its fractal is `(c / 16) × rows / 16 + r / 16`. `LoadData` takes the fractals of
//! an A block row by row as they are (Nz to Zz) and those of a B block transposed
//! (Nz to Zn); `Mmad` leaves C as Nz, and `Fixpipe` writes it to global memory as rows
//! (NZ2ND), cast by its `quantPre`. The outputs are therefore the simulator's byte
//! for byte, and the model checks the layouts' preconditions on the way.
//!
//! Written so far: f16 inputs (f32 accumulators, f32 or f16 results), fractal-aligned
//! tiles (rows and cube blocks in multiples of 16), on the Atlas A2 series
//! (ascend910b), whose Fixpipe writes global memory; everything else is an
//! "unsupported" error.

use npu_core::program::{CopyDim, Op, Placement, Program};
use npu_core::{Dtype, Level};

use super::copy::offset;
use super::names::unsupported;
use crate::order::Step;
use crate::output::Unsupported;
use crate::text::Text;

/// Elements of f16 in one 32-byte row of a fractal (C0), and rows in a fractal.
const C0: u64 = 16;
/// Bytes of one L0A/L0B fractal (16 × 16 f16).
const FRACTAL_BYTES: u64 = 512;
/// The most fractals one `LoadData` moves (`repeatTimes` is 8 bits).
const MAX_REPEAT: u64 = 255;
/// The most rows of one ND2NZ copy (`nValue`) and of an Nz column (`dstNzC0Stride`).
const MAX_ND_ROWS: u64 = 16384;
/// The cube path's memories: each level, its name in the kernel, and the
/// `TPosition` of the `TBuf` that holds it (the reference's A1 for L1, A2, B2, CO1).
pub(super) const MEMORIES: [(Level, &str, &str); 4] = [
    (Level::L1, "l1", "A1"),
    (Level::L0a, "l0a", "A2"),
    (Level::L0b, "l0b", "B2"),
    (Level::L0c, "l0c", "CO1"),
];

/// Whether the cube program can be written at all: the target's Fixpipe, the cube
/// block and the dtypes.
pub(super) fn check(program: &Program) -> Result<(), Unsupported> {
    let Some(block) = program.cube else {
        return Ok(());
    };
    if program.target != "ascend910b" {
        return Err(unsupported(
            &format!("the cube path on {}", program.target),
            "only the Atlas A2 series (ascend910b) has the Fixpipe from L0C to global memory; elsewhere C leaves through the UB, which the program does not stage",
        ));
    }
    if block.iter().any(|d| !d.is_multiple_of(C0)) {
        return Err(unsupported(
            &format!("a cube block of {}x{}x{}", block[0], block[1], block[2]),
            "the fractal layouts need m, n and k in multiples of 16",
        ));
    }
    Ok(())
}

/// The cube buffers' `TBuf`s of the entry point, one per memory the program uses.
pub(super) fn declare(text: &mut Text, program: &Program) {
    for (level, name, position) in used(program) {
        let bytes = program.peak(level).div_ceil(32) * 32;
        text.line(format!(
            "AscendC::TBuf<AscendC::TPosition::{position}> {name}_buffer;"
        ));
        text.line(format!("pipe.InitBuffer({name}_buffer, {bytes});"));
        text.line(format!(
            "const AscendC::LocalTensor<uint8_t> {name} = {name}_buffer.Get<uint8_t>();"
        ));
    }
}

/// The cube memories a program places buffers in.
/// Whether the program runs on the cube core alone: cube memories and no UB buffer.
pub(super) fn only(program: &Program) -> bool {
    used(program).next().is_some() && program.buffers.iter().all(|b| b.level != Level::Ub)
}

pub(super) fn used(program: &Program) -> impl Iterator<Item = (Level, &'static str, &'static str)> {
    MEMORIES
        .into_iter()
        .filter(|(level, _, _)| program.buffers.iter().any(|b| b.level == *level))
}

/// A tile of an L1 buffer: the slot's start, its rows, and where an address in it
/// is, as row and byte in the row.
struct Tile {
    slot: u64,
    rows: u64,
    row: u64,
    column_bytes: u64,
}

impl Tile {
    /// The Nz byte offset (from the slot) of the tile's element at the address.
    fn nz_offset(&self) -> u64 {
        self.column_bytes / 32 * self.rows * 32 + self.row * 32
    }
}

/// The L1 tile at `address` whose rows are `row_bytes` long.
fn tile(program: &Program, address: u64, row_bytes: u64) -> Result<Tile, Unsupported> {
    let within = |b: &&Placement| b.level == Level::L1 && (b.address..b.end()).contains(&address);
    let buffer = program.buffers.iter().find(within).ok_or_else(|| {
        unsupported(
            &format!("l1 address 0x{address:x}"),
            "it is in no buffer of the plan",
        )
    })?;
    let slot = buffer.address + (address - buffer.address) / buffer.slot_bytes * buffer.slot_bytes;
    let rows = buffer.slot_bytes / row_bytes.max(1);
    let offset = address - slot;
    let tile = Tile {
        slot,
        rows,
        row: offset / row_bytes.max(1),
        column_bytes: offset % row_bytes.max(1),
    };
    let fractal = row_bytes.is_multiple_of(32)
        && buffer.slot_bytes.is_multiple_of(row_bytes)
        && rows.is_multiple_of(C0)
        && tile.column_bytes.is_multiple_of(32);
    if fractal {
        Ok(tile)
    } else {
        Err(unsupported(
            &format!(
                "l1 buffer `{}` of {} B slots in rows of {row_bytes} B",
                buffer.name, buffer.slot_bytes
            ),
            "an Nz tile needs rows of whole 32-byte blocks, a multiple of 16 of them",
        ))
    }
}

/// A parameter struct filled field by field, then the call that takes it, in a
/// block of its own.
fn call(text: &mut Text, ty: &str, name: &str, fields: &[(&str, String)], call: &str) {
    text.open("");
    fill(text, ty, name, fields);
    text.line(call);
    text.close("");
}

/// A parameter struct declared and filled field by field (by name, so the text does
/// not depend on the order of the fields in the API's headers).
fn fill(text: &mut Text, ty: &str, name: &str, fields: &[(&str, String)]) {
    text.line(format!("AscendC::{ty} {name};"));
    for (field, value) in fields {
        text.line(format!("{name}.{field} = {value};"));
    }
}

/// `copy_in` into L1: one ND2NZ `DataCopy` of `rows` × `columns` elements.
pub(super) fn copy_in(
    text: &mut Text,
    program: &Program,
    step: &Step,
    iteration: Option<&str>,
) -> Result<(), Unsupported> {
    let Op::CopyIn {
        tensor,
        gm,
        address,
        shape,
        ..
    } = step.op
    else {
        return Ok(());
    };
    let declared = &program.signature[usize::from(tensor)];
    let copy = &program.copies[shape as usize];
    if declared.dtype != Dtype::F16 {
        return Err(operand_dtype(declared.dtype));
    }
    let (rows, row, columns) = matrix(&copy.dims, copy.element_bytes)?;
    let tile = tile(program, u64::from(address), row.buf_stride)?;
    if rows > MAX_ND_ROWS || tile.rows > MAX_ND_ROWS || columns > 65535 || row.gm_stride > 65535 {
        return Err(unsupported(
            &format!(
                "a copy into l1 of {rows}x{columns}, rows {} elements apart",
                row.gm_stride
            ),
            "Nd2NzParams holds at most 16384 rows and 65535 columns and elements between rows",
        ));
    }
    let fields = [
        ("ndNum", "1".to_string()),
        ("nValue", rows.to_string()),
        ("dValue", columns.to_string()),
        ("srcNdMatrixStride", "0".into()),
        ("srcDValue", row.gm_stride.to_string()),
        ("dstNzC0Stride", tile.rows.to_string()),
        ("dstNzNStride", "1".into()),
        ("dstNzMatrixStride", "0".into()),
    ];
    let dst = tile.slot + tile.nz_offset();
    let gm = offset(gm, step.gm_step, iteration);
    let name = &declared.name;
    let copy =
        format!("AscendC::DataCopy(l1[{dst}].ReinterpretCast<half>(), {name}_gm[{gm}], nd2nz);");
    call(text, "Nd2NzParams", "nd2nz", &fields, &copy);
    Ok(())
}

/// A copy's shape as a matrix: its rows, the run that steps from row to row (its
/// strides), and the elements of a row, which must be contiguous on both sides.
fn matrix(dims: &[CopyDim], element_bytes: u64) -> Result<(u64, CopyDim, u64), Unsupported> {
    let not_matrix = || {
        unsupported(
            "a copy into l1 that is not rows of contiguous elements",
            "ND2NZ moves one matrix of contiguous rows",
        )
    };
    let (inner, outer) = dims.split_last().ok_or_else(not_matrix)?;
    if inner.len > 1 && (inner.gm_stride != 1 || inner.buf_stride != element_bytes) {
        return Err(not_matrix());
    }
    let Some((row, further)) = outer.split_last() else {
        let row = CopyDim {
            len: 1,
            gm_stride: inner.len,
            buf_stride: inner.len * element_bytes,
        };
        return Ok((1, row, inner.len));
    };
    if further.iter().any(|d| d.len > 1) {
        return Err(not_matrix());
    }
    Ok((row.len, *row, inner.len))
}

/// The error for cube operands other than f16.
fn operand_dtype(dtype: Dtype) -> Unsupported {
    unsupported(
        &format!("a cube operand of {}", dtype.name()),
        "the cube path is written for f16 inputs so far (an i8 B needs LoadDataWithTranspose)",
    )
}

/// `load_l0a` or `load_l0b`: per 16 rows of the block, one `LoadData` of its
/// fractals along the row, as they are into L0A (Zz) or transposed into L0B (Zn).
pub(super) fn load(text: &mut Text, program: &Program, op: &Op) -> Result<(), Unsupported> {
    let Op::LoadL0 {
        level,
        source,
        source_row_bytes,
        dest,
        rows,
        cols,
        dtype,
        ..
    } = *op
    else {
        return Ok(());
    };
    if dtype != Dtype::F16 {
        return Err(operand_dtype(dtype));
    }
    let tile = tile(program, u64::from(source), u64::from(source_row_bytes))?;
    let (fractal_rows, across) = (u64::from(rows).div_ceil(C0), u64::from(cols).div_ceil(C0));
    let aligned = tile.row.is_multiple_of(C0) && tile.row + fractal_rows * C0 <= tile.rows;
    if !aligned || !u64::from(dest).is_multiple_of(FRACTAL_BYTES) || across > MAX_REPEAT {
        return Err(unsupported(
            &format!("a load of {rows}x{cols} from l1 0x{source:x} to {level} 0x{dest:x}"),
            "LoadData moves whole 512-byte fractals, at most 255 at a time, to 512-byte-aligned L0 addresses",
        ));
    }
    let first = tile.nz_offset() / FRACTAL_BYTES;
    let (name, transpose) = match level {
        Level::L0b => ("l0b", true),
        _ => ("l0a", false),
    };
    let fields = [
        ("startIndex", format!("{first} + f")),
        ("repeatTimes", across.to_string()),
        ("srcStride", (tile.rows / C0).to_string()),
        ("sid", "0".into()),
        ("dstGap", "0".into()),
        ("ifTranspose", transpose.to_string()),
        ("addrMode", "0".into()),
    ];
    let load = format!(
        "AscendC::LoadData({name}[{dest} + f * {}].ReinterpretCast<half>(), l1[{}].ReinterpretCast<half>(), load);",
        across * FRACTAL_BYTES,
        tile.slot
    );
    text.open(format!("for (uint32_t f = 0; f < {fractal_rows}; ++f)"));
    fill(text, "LoadData2DParams", "load", &fields);
    text.line(load);
    text.close("");
    Ok(())
}

/// `mmad`: one `Mmad`, after a `PipeBarrier<PIPE_M>` when it accumulates onto a C
/// of fewer than 10 fractals (the reference's rule for back-to-back Mmads on one
/// L0C).
pub(super) fn mmad(text: &mut Text, op: &Op) -> Result<(), Unsupported> {
    let Op::Mmad {
        a,
        b,
        c,
        m,
        n,
        k,
        init,
        dtype,
    } = *op
    else {
        return Ok(());
    };
    if dtype != Dtype::F16 {
        return Err(operand_dtype(dtype));
    }
    if m == 1 || !c.is_multiple_of(1024) || !a.is_multiple_of(512) || !b.is_multiple_of(512) {
        return Err(unsupported(
            &format!("an mmad of {m}x{n}x{k} at l0c 0x{c:x}"),
            "Mmad reads a 1-row A as ND (GEMV) and needs L0A/L0B at 512-byte and L0C at 1024-byte boundaries",
        ));
    }
    if !init && (m / 16) * (n / 16) < 10 {
        text.line("AscendC::PipeBarrier<PIPE_M>();");
    }
    let fields = [
        ("m", m.to_string()),
        ("n", n.to_string()),
        ("k", k.to_string()),
        ("cmatrixInitVal", init.to_string()),
    ];
    let call_text = format!(
        "AscendC::Mmad(l0c[{c}].ReinterpretCast<float>(), l0a[{a}].ReinterpretCast<half>(), l0b[{b}].ReinterpretCast<half>(), mmad);"
    );
    call(text, "MmadParams", "mmad", &fields, &call_text);
    Ok(())
}

/// `fixpipe`: one `Fixpipe` from L0C's Nz block to rows in global memory.
pub(super) fn fixpipe(
    text: &mut Text,
    program: &Program,
    step: &Step,
    iteration: Option<&str>,
) -> Result<(), Unsupported> {
    let Op::Fixpipe {
        source,
        tensor,
        gm,
        gm_row_stride,
        rows,
        cols,
        dtype,
        ..
    } = step.op
    else {
        return Ok(());
    };
    let declared = &program.signature[usize::from(tensor)];
    let (ty, quant) = result_type(declared.dtype, dtype)?;
    if !cols.is_multiple_of(16) || !source.is_multiple_of(1024) {
        return Err(unsupported(
            &format!("a fixpipe of {rows}x{cols} from l0c 0x{source:x}"),
            "Fixpipe's nSize is a multiple of 16 and its source a block Mmad wrote",
        ));
    }
    let fields = [
        ("nSize", cols.to_string()),
        ("mSize", rows.to_string()),
        (
            "srcStride",
            u64::from(rows).div_ceil(C0).saturating_mul(C0).to_string(),
        ),
        ("dstStride", gm_row_stride.to_string()),
        ("quantPre", format!("QuantMode_t::{quant}")),
    ];
    let gm = offset(gm, step.gm_step, iteration);
    let call_text = format!(
        "AscendC::Fixpipe<{ty}, float, AscendC::CFG_ROW_MAJOR>({}_gm[{gm}], l0c[{source}].ReinterpretCast<float>(), fixpipe);",
        declared.name
    );
    call(text, "FixpipeParamsV220", "fixpipe", &fields, &call_text);
    Ok(())
}

/// The C++ type of a Fixpipe's result and the `quantPre` that casts the f32
/// accumulators to it.
fn result_type(
    declared: Dtype,
    rounded: Dtype,
) -> Result<(&'static str, &'static str), Unsupported> {
    match (declared, rounded) {
        (Dtype::F32, Dtype::F32) => Ok(("float", "NoQuant")),
        (Dtype::F16, Dtype::F16) => Ok(("half", "F322F16")),
        _ => Err(unsupported(
            &format!("a fixpipe to {} from f32", declared.name()),
            "Fixpipe is written for f32 and f16 results so far",
        )),
    }
}
