//! Moves inside the unified buffer that `DataCopy`'s whole blocks cannot write, and
//! `vgather`.
//!
//! - A contiguous move whose length is not whole 32-byte blocks, every call starting
//!   32-byte aligned, is `Copy` in its mask-and-repeat form: whole repeats of 256
//!   bytes, then one repeat whose continuous mask covers the tail. `Copy` moves bits,
//!   so -0.0 and NaN payloads arrive as they left (`Adds` 0 or `Muls` 1 would not).
//! - A broadcast along the innermost dimensions is one `Duplicate` per value (the
//!   `broadcast` module).
//! - Any other move into a contiguous, 32-byte-aligned destination (a transpose, a
//!   window, a run at an unaligned start) is `Gather` from the source's
//!   32-byte block with a table of byte offsets, one per element in the box's order.
//! - `vgather` (the `gather` module) is `Gather` with a table whose offsets are each
//!   element's position in the table's view plus its index times the table's row
//!   bytes.
//!
//! The table (the `offsets` module) lives in scratch after the program's buffers
//! (`scratch_bytes` says how much the kernel reserves). The vector unit builds it where
//! it is a sum of arithmetic runs, from a first block of whole 32-byte blocks (the
//! scalar unit writes that block where the innermost run is shorter);
//! otherwise it is written on the scalar unit between a `V_S` flag (earlier vector
//! calls, the last `Gather` among them, are done with it) and an `S_V` flag (the
//! `Gather` waits for it): the emitter's own flags, id 0 of pipe pairs the program
//! does not use, as `reduce` uses them.
use npu_core::program::{Op, Operand, Pipe, Program, VectorInstr, VectorKind};

use super::broadcast::{duplicate, strided};
use super::names::unsupported;
use super::offsets::{Room, destination, gather_calls, scratch_address, table};
use super::view::{Dim, View, aligned, contiguous};
use crate::output::Unsupported;
use crate::text::Text;

/// Bytes of one vector repeat.
const REPEAT_BYTES: u64 = 256;

/// The most repeats of one call (`repeatTime` is 8 bits).
const MAX_REPEATS: u64 = 255;

/// Bytes of scratch the kernel reserves after the program's buffers: the largest
/// offset table one of its moves or gathers may need (4 bytes an element), or what
/// a vector form needs that fits below `room`.
pub(super) fn scratch_bytes(program: &Program, room: Room) -> u64 {
    program
        .classes
        .iter()
        .flat_map(|code| &code.streams[Pipe::V.index()])
        .filter_map(|instr| match instr.op {
            Op::Vector(v) => scratch_of(program, &v, room),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A contiguous move of `count` elements a call, inside `loops`, that is not whole
/// 32-byte blocks: `Copy` where every call starts 32-byte aligned, else `Gather`.
pub(super) fn short_move(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    operands: &[View],
    loops: &[Dim],
    count: u64,
) -> Result<(), Unsupported> {
    if !aligned(operands, loops) || !has_copy(program) {
        return gather_move(text, program, v, operands);
    }
    for (depth, dim) in loops.iter().enumerate() {
        text.open(format!(
            "for (uint64_t v{depth} = 0; v{depth} < {}; ++v{depth})",
            dim.len
        ));
    }
    let view = |operand: usize, elements: u64| {
        let (address, _, ty, size) = operands[operand];
        let moves: String = loops
            .iter()
            .enumerate()
            .map(|(d, dim)| format!(" + v{d} * {}", dim.strides[operand]))
            .collect();
        format!(
            "ub[{address}{moves} + {}].ReinterpretCast<{ty}>()",
            elements * size
        )
    };
    let per_repeat = REPEAT_BYTES / v.dtype.size();
    let mut done = 0;
    while done < count {
        let left = count - done;
        let (mask, repeats) = if left >= per_repeat {
            (per_repeat, (left / per_repeat).min(MAX_REPEATS))
        } else {
            (left, 1)
        };
        text.line(format!(
            "AscendC::Copy({}, {}, {mask}, {repeats}, AscendC::CopyRepeatParams{{1, 1, 8, 8}});",
            view(0, done),
            view(1, done)
        ));
        done += mask * repeats;
    }
    for _ in loops {
        text.close("");
    }
    Ok(())
}

/// Sources of an elementwise instruction that the count form cannot read (strided
/// along the innermost run, or left unaligned by the box's steps) are gathered into
/// contiguous staging after the offset table, and `operands` names the staging
/// instead, so that the call runs over the destination's contiguous box. Nothing
/// happens where the instruction needs no staging or staging cannot help (the
/// caller then reports why the call cannot be written).
pub(super) fn stage(text: &mut Text, program: &Program, v: &VectorInstr, operands: &mut [View]) {
    let Some(staged) = staged_sources(program, v, operands) else {
        return;
    };
    let extents = &program.boxes[v.shape as usize];
    let count: u64 = extents.iter().product();
    let mut at = staging_address(program, v);
    for operand in staged {
        let (src, src_strides, ty, size) = operands[operand];
        let staging = (at, v.dst_strides, ty, size);
        let from = strided(program, operands[operand]);
        if !duplicate(text, extents, strided(program, staging), from) {
            let strides = &program.strides[src_strides as usize];
            let base = src / 32 * 32;
            text.comment(&format!(
                "source {operand} of {} {} staged contiguous: gathered from ub {src}",
                v.kind.mnemonic(),
                v.dtype.name()
            ));
            let table = table(
                text,
                program,
                extents,
                u64::from(src - base),
                |d| strides[d],
                None,
            );
            gather_calls(text, (ty, size), (u64::from(at), base, table), count);
            text.close("");
        }
        operands[operand] = staging;
        at += u32::try_from((count * size).div_ceil(32) * 32).unwrap_or(u32::MAX);
    }
}

/// The sources `stage` gathers: for a unary or binary instruction whose box the
/// count form cannot cover as it stands, into a contiguous, aligned destination,
/// each source not laid out as the destination is; `None` when there is nothing to
/// stage or staging would not help.
fn staged_sources(program: &Program, v: &VectorInstr, operands: &[View]) -> Option<Vec<usize>> {
    if !matches!(v.kind, VectorKind::Unary(_) | VectorKind::Binary(_)) {
        return None;
    }
    if let Ok((loops, _)) = super::view::flatten(program, v, operands)
        && aligned(operands, &loops)
    {
        return None;
    }
    let extents = &program.boxes[v.shape as usize];
    if !contiguous(program, extents, operands[0]) {
        return None;
    }
    let staged: Vec<usize> = (1..operands.len())
        .filter(|&operand| !contiguous(program, extents, operands[operand]))
        .collect();
    (!staged.is_empty()).then_some(staged)
}

/// Where an instruction's staged sources start: after its offset table.
fn staging_address(program: &Program, v: &VectorInstr) -> u32 {
    let table = (u64::from(v.elements) * 4).div_ceil(32) * 32;
    u32::try_from(scratch_address(program) + table).unwrap_or(u32::MAX)
}

/// A move the count form cannot write: a broadcast along the innermost dimensions
/// as `Duplicate`s, any other as `Gather`.
pub(super) fn strided_move(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    operands: &[View],
) -> Result<(), Unsupported> {
    let extents = &program.boxes[v.shape as usize];
    let (dst, src) = (strided(program, operands[0]), strided(program, operands[1]));
    if duplicate(text, extents, dst, src) {
        return Ok(());
    }
    gather_move(text, program, v, operands)
}

/// A move of any source view into a contiguous, aligned destination, as `Gather`.
fn gather_move(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    operands: &[View],
) -> Result<(), Unsupported> {
    let construct = format!(
        "{} {} over a strided box",
        v.kind.mnemonic(),
        v.dtype.name()
    );
    let (&(dst, dst_strides, ty, size), &(src, src_strides, _, src_size)) =
        (&operands[0], &operands[1]);
    if size != src_size {
        return Err(unsupported(&construct, "a move keeps the element's size"));
    }
    let extents = &program.boxes[v.shape as usize];
    destination(program, &construct, extents, (dst, dst_strides, ty, size))?;
    let src_strides = &program.strides[src_strides as usize];
    let base = src / 32 * 32;
    let offset = |d: usize| src_strides[d];
    let count: u64 = extents.iter().product();
    let span = span(extents, src_strides) + size;
    if u64::from(src) < u64::from(dst) + count * size && u64::from(dst) < u64::from(src) + span {
        return Err(unsupported(
            &construct,
            "Gather's source and destination may not share memory",
        ));
    }
    text.comment(&format!(
        "{} {}: gathered element by element from ub {src}",
        v.kind.mnemonic(),
        v.dtype.name()
    ));
    let table = table(text, program, extents, u64::from(src - base), offset, None);
    gather_calls(text, (ty, size), (u64::from(dst), base, table), count);
    text.close("");
    Ok(())
}

/// The bytes from a view's first element to its last one's start.
fn span(extents: &[u64], strides: &[u64]) -> u64 {
    extents
        .iter()
        .zip(strides)
        .map(|(len, stride)| len.saturating_sub(1) * stride)
        .sum()
}

/// The scratch one instruction needs: its offset table, and after it its staged
/// sources; or a max or min fold's partials (`whole_reduce`).
fn scratch_of(program: &Program, v: &VectorInstr, room: Room) -> Option<u64> {
    let fold = [
        super::whole_reduce::scratch(program, v),
        super::window::scratch(program, v, room.any),
        super::arg::scratch(program, v, room),
        super::scan::scratch(program, v, room),
    ];
    if let Some(bytes) = fold.into_iter().flatten().max() {
        return Some(bytes);
    }
    let table = u64::from(v.elements) * 4;
    if let VectorKind::Gather(_) = v.kind {
        return Some(
            super::lookup::scratch(program, v, room.any).map_or(table, |bytes| bytes.max(table)),
        );
    }
    if needs_table(program, v) {
        return Some(table);
    }
    let size = v.dtype.size();
    let operands: Vec<View> = std::iter::once((v.dst, v.dst_strides, "", size))
        .chain(v.src.iter().filter_map(|operand| match *operand {
            Operand::Ub { address, strides } => Some((address, strides, "", size)),
            _ => None,
        }))
        .collect();
    let staged = staged_sources(program, v, &operands)?;
    let staging = (u64::from(v.elements) * size).div_ceil(32) * 32;
    Some(table.div_ceil(32) * 32 + staging * staged.len() as u64)
}

/// Whether an instruction may need an offset table: every `vgather`, and every move
/// that is not one contiguous run of whole blocks from aligned starts (an
/// over-estimate: some of those are `Copy` calls, which need none).
fn needs_table(program: &Program, v: &VectorInstr) -> bool {
    match v.kind {
        VectorKind::Gather(_) => true,
        VectorKind::Copy | VectorKind::Cast => {
            let extents = &program.boxes[v.shape as usize];
            let size = v.dtype.size();
            let whole_blocks = (extents.iter().product::<u64>() * size).is_multiple_of(32);
            let plain = |address: u32, strides: u32| {
                whole_blocks && contiguous(program, extents, (address, strides, "", size))
            };
            let sources_plain = v.src.iter().all(|operand| match *operand {
                Operand::Ub { address, strides } => plain(address, strides),
                _ => true,
            });
            !(plain(v.dst, v.dst_strides) && sources_plain)
        }
        _ => false,
    }
}

/// Whether the target's AI core has `Copy` inside the UB (not the Atlas inference
/// AI Core, ascend310p, whose reference lists no `Copy`).
fn has_copy(program: &Program) -> bool {
    program.target != "ascend310p"
}
