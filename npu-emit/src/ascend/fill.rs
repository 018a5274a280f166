//! A `vdup` the count form cannot write: a pad's border, a column strided along its
//! innermost run, or a few elements at an unaligned address.
//!
//! `Duplicate`'s mask-and-repeat form writes, in each repeat, the elements of 8 data
//! blocks that a bit mask selects, block `j` of repeat `r` at
//! `(r × dstRepeatStride + j × dstBlockStride) × 32` bytes from the destination's
//! 32-byte-aligned start. A box whose elements touch blocks in an arithmetic
//! progression, the same positions in each block, is one call of whole repeats and
//! one call for the remaining blocks: a column of a padded tile is the first (or
//! last) element of every row's block, the rows a whole number of blocks apart.

use std::collections::BTreeMap;

use npu_core::program::{Program, VectorInstr, VectorKind};

use super::view::{View, aligned, flatten};
use crate::text::Text;

/// The most blocks one `dstRepeatStride` (8 bits) moves by, over 8 blocks a repeat.
const MAX_REPEAT_STRIDE: u64 = 255;

/// Writes `v` with the masked form if it is a `vdup` the count form cannot write and
/// the masked form can; `false` leaves it to the count form (which then writes it or
/// says why not).
pub(super) fn masked_fill(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    operands: &[View],
) -> bool {
    if v.kind != VectorKind::Dup {
        return false;
    }
    if let Ok((loops, _)) = flatten(program, v, operands)
        && aligned(operands, &loops)
    {
        return false;
    }
    let (_, _, ty, size) = operands[0];
    let Some(value) = super::pad::scalar(program, v.src[0], v.dtype) else {
        return false;
    };
    let Some(blocks) = progression(program, v, size) else {
        return false;
    };
    let per_block = 32 / size;
    let Blocks {
        first,
        stride,
        count,
        positions,
    } = blocks;
    let mask = |blocks: u64| {
        let mut words = [0u64; 2];
        for j in 0..blocks {
            for p in &positions {
                let bit = j * per_block + p;
                words[(bit / 64) as usize] |= 1 << (bit % 64);
            }
        }
        format!("{{{}ULL, {}ULL}}", words[0], words[1])
    };
    text.comment(&format!(
        "vdup {}: {count} blocks {stride} apart, the same elements of each, by mask",
        v.dtype.name()
    ));
    let mut done = 0;
    while done < count {
        let left = count - done;
        let (blocks, repeats) = if left >= 8 {
            (8, (left / 8).min(255))
        } else {
            (left, 1)
        };
        let at = first + done * stride * 32;
        text.open("");
        text.line(format!("uint64_t mask[2] = {};", mask(blocks)));
        text.line(format!(
            "AscendC::Duplicate(ub[{at}].ReinterpretCast<{ty}>(), {value}, mask, {repeats}, {stride}, {});",
            8 * stride
        ));
        text.close("");
        done += blocks * repeats;
    }
    true
}

/// The blocks a box writes: the first's address, the stride between them in blocks,
/// how many, and the element positions written in each.
struct Blocks {
    first: u64,
    stride: u64,
    count: u64,
    positions: Vec<u64>,
}

/// The box's blocks when they form an arithmetic progression with the same positions
/// written in each; `None` otherwise.
fn progression(program: &Program, v: &VectorInstr, size: u64) -> Option<Blocks> {
    let extents = &program.boxes[v.shape as usize];
    let strides = &program.strides[v.dst_strides as usize];
    let mut addresses = vec![u64::from(v.dst)];
    for (len, stride) in extents.iter().zip(strides) {
        addresses = addresses
            .iter()
            .flat_map(|start| (0..*len).map(move |i| start + i * stride))
            .collect();
    }
    let mut blocks: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for address in addresses {
        if address % size != 0 {
            return None;
        }
        let positions = blocks.entry(address / 32 * 32).or_default();
        positions.push(address % 32 / size);
    }
    for positions in blocks.values_mut() {
        positions.sort_unstable();
        positions.dedup();
    }
    let starts: Vec<u64> = blocks.keys().copied().collect();
    let stride = match starts.as_slice() {
        [a, b, ..] => (b - a) / 32,
        _ => 1,
    };
    let regular = starts
        .windows(2)
        .all(|pair| pair[1] - pair[0] == stride * 32);
    let positions = blocks.values().next()?.clone();
    let same = blocks.values().all(|p| *p == positions);
    (regular && same && 8 * stride <= MAX_REPEAT_STRIDE).then_some(Blocks {
        first: starts[0],
        stride,
        count: starts.len() as u64,
        positions,
    })
}
