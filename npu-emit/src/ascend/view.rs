//! How a vector instruction's box reads as Ascend C calls: each UB operand's view, the
//! loops of calls around one contiguous run, and whether the calls start aligned. It
//! is a leaf, so every writer of vector calls (`vector`, `math`, `compare`, `integer`,
//! `strided`, `fill`) shares the same frame without depending on one another.

use npu_core::program::{Operand, Program, VectorInstr};

use super::names::unsupported;
use crate::output::Unsupported;
use crate::text::Text;

/// A box dimension: its extent and each UB operand's byte stride along it.
#[derive(Clone)]
pub(super) struct Dim {
    pub(super) len: u64,
    pub(super) strides: Vec<u64>,
}

/// A UB operand: address, stride table, element type and size.
pub(super) type View<'t> = (u32, u32, &'t str, u64);

/// The loops around one call and the call's element count.
pub(super) fn flatten(
    program: &Program,
    v: &VectorInstr,
    operands: &[View],
) -> Result<(Vec<Dim>, u64), Unsupported> {
    let extents = &program.boxes[v.shape as usize];
    let mut dims: Vec<Dim> = Vec::new();
    for (d, len) in extents.iter().enumerate().rev() {
        if *len == 1 {
            continue;
        }
        let strides: Vec<u64> = operands
            .iter()
            .map(|(_, t, _, _)| program.strides[*t as usize][d])
            .collect();
        match dims.first_mut() {
            Some(inner)
                if strides
                    .iter()
                    .zip(&inner.strides)
                    .all(|(s, i)| *s == i * inner.len) =>
            {
                inner.len *= len;
            }
            _ => dims.insert(0, Dim { len: *len, strides }),
        }
    }
    let Some(inner) = dims.pop() else {
        return Ok((Vec::new(), 1));
    };
    if inner
        .strides
        .iter()
        .zip(operands)
        .any(|(s, (_, _, _, size))| s != size)
    {
        return Err(unsupported(
            &format!(
                "{} {} over a box strided along its innermost run",
                v.kind.mnemonic(),
                v.dtype.name()
            ),
            "the count form of the vector API reads and writes contiguous elements",
        ));
    }
    Ok((dims, inner.len))
}

/// The loops of calls over an instruction's box, each call's element count, and each
/// operand's view as text (the destination first, then the UB sources): the frame
/// the calls written by `vector`, `math`, `compare` and `integer` share.
pub(super) struct Layout {
    loops: Vec<Dim>,
    pub(super) views: Vec<String>,
    pub(super) count: u64,
}

impl Layout {
    /// Opens the loops around the calls.
    pub(super) fn open(&self, text: &mut Text) {
        for (depth, dim) in self.loops.iter().enumerate() {
            text.open(format!(
                "for (uint64_t v{depth} = 0; v{depth} < {}; ++v{depth})",
                dim.len
            ));
        }
    }

    /// Closes what `open` opened.
    pub(super) fn close(&self, text: &mut Text) {
        for _ in &self.loops {
            text.close("");
        }
    }

    /// The loops' extents with operand `operand`'s byte stride along each, and the
    /// count: two instructions with the same frame for an operand touch its
    /// elements call by call in the same order.
    pub(super) fn frame(&self, operand: usize) -> (Vec<(u64, u64)>, u64) {
        let loops = self
            .loops
            .iter()
            .map(|dim| (dim.len, dim.strides[operand]))
            .collect();
        (loops, self.count)
    }
}

/// The layout of `v` with its UB operands viewed as `types` (C++ type and element
/// size, the destination's first); a box the count form cannot express is
/// unsupported, as in `vector`.
pub(super) fn layout(
    program: &Program,
    v: &VectorInstr,
    types: &[(&str, u64)],
) -> Result<Layout, Unsupported> {
    let sources = v.src.iter().filter_map(|operand| match operand {
        Operand::Ub { address, strides } => Some((*address, *strides)),
        _ => None,
    });
    let operands: Vec<View> = std::iter::once((v.dst, v.dst_strides))
        .chain(sources)
        .zip(types)
        .map(|((address, strides), (ty, size))| (address, strides, *ty, *size))
        .collect();
    let (loops, count) = flatten(program, v, &operands)?;
    let views = operands
        .iter()
        .enumerate()
        .map(|(operand, (address, _, ty, _))| {
            let moves: String = loops
                .iter()
                .enumerate()
                .map(|(d, dim)| format!(" + v{d} * {}", dim.strides[operand]))
                .collect();
            format!("ub[{address}{moves}].ReinterpretCast<{ty}>()")
        })
        .collect();
    Ok(Layout {
        loops,
        views,
        count,
    })
}

/// Whether every call inside `loops` finds each operand 32-byte aligned, as the
/// vector calls require.
pub(super) fn aligned(operands: &[View], loops: &[Dim]) -> bool {
    operands.iter().enumerate().all(|(index, (address, ..))| {
        address % 32 == 0 && loops.iter().all(|dim| dim.strides[index] % 32 == 0)
    })
}

/// Whether a view covers the box contiguously in its order from an aligned start.
pub(super) fn contiguous(
    program: &Program,
    extents: &[u64],
    (address, strides, _, size): View,
) -> bool {
    let strides = &program.strides[strides as usize];
    let mut expected = size;
    let laid_out = extents.iter().zip(strides).rev().all(|(len, stride)| {
        let fits = *len == 1 || *stride == expected;
        expected *= len;
        fits
    });
    laid_out && address.is_multiple_of(32)
}

/// A UB view at byte `at` as C++ type `ty`.
pub(super) fn ub_view(at: u64, ty: &str) -> String {
    format!("ub[{at}].ReinterpretCast<{ty}>()")
}

/// Orders the next vector call after the ones before it (a call that reads what the
/// one before it wrote).
pub(super) fn barrier(text: &mut Text) {
    text.line("AscendC::PipeBarrier<PIPE_V>();");
}
