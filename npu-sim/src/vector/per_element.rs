//! Instructions that step through their box one element at a time, in index order:
//! gathers, arg reductions and scans.

use npu_core::Dtype;
use npu_core::ir::ScanOp;
use npu_core::program::{Gather, Program, VectorKind};
use npu_core::scalar::{self, IndexError};

use super::operand::Source;
use crate::fault::Fault;
use crate::level::Level;

/// What an instruction that steps element by element needs besides its operands.
pub(super) struct Step<'p> {
    pub kind: VectorKind,
    pub dtype: Dtype,
    pub gather: Option<&'p Gather>,
    pub origins: &'p [u64],
    pub program: &'p Program,
}

/// Runs a gather, an arg reduction or a scan over the box one element at a time, in
/// index order, innermost dimension fastest, as `scalar` defines them:
/// - a gather checks the index (second source) against its extent before it reads the
///   table (first source) moved by that many rows;
/// - an arg reduction's element takes over the value so far (second source) when
///   [`scalar::arg_takes`] says so, and its position along the last dimension, counted
///   from the third source, becomes the index (the destination);
/// - a scan's running value (second source) takes [`scalar::scan_step`] in the
///   accumulator dtype, and the element gets it rounded to the instruction's dtype.
pub(super) fn per_element(
    ub: &mut Level,
    step: &Step,
    extents: &[u64],
    dst: (usize, &[u64]),
    sources: &[Source; 3],
) -> Result<(), Fault> {
    let rank = extents.len();
    let mut views: [(usize, &[u64]); 4] = [dst, (0, &[]), (0, &[]), (0, &[])];
    let mut dtypes = [step.dtype; 3];
    let mut scalars = [f64::NAN; 3];
    for (slot, source) in sources.iter().enumerate() {
        match *source {
            Source::None => {}
            Source::Scalar(value) => scalars[slot] = value,
            Source::Ub {
                address,
                strides,
                dtype,
            } => {
                views[slot + 1] = (address, strides);
                dtypes[slot] = dtype;
            }
        }
    }
    let is_view = |slot: usize| matches!(sources[slot], Source::Ub { .. });
    let mut index = vec![0u64; rank];
    let mut offsets = views.map(|(address, _)| address);
    loop {
        let mut read = scalars;
        for slot in 0..3 {
            // A gather reads its table only once the index is checked.
            if is_view(slot) && !(step.gather.is_some() && slot == 0) {
                read[slot] = ub.element(dtypes[slot], offsets[slot + 1])?;
            }
        }
        match step.kind {
            VectorKind::Gather(_) => {
                let gather = step.gather.ok_or("names no gather")?;
                let row = IndexError::check(read[1], gather.extent, || {
                    let flat = step.origins.get(offsets[2]).copied().unwrap_or(u64::MAX);
                    IndexError {
                        index: tensor_name(step.program, gather.index),
                        position: IndexError::position_of(flat, &gather.index_shape),
                        value: read[1] as i64,
                        table: tensor_name(step.program, gather.table),
                        dim: gather.dim as usize,
                        extent: gather.extent,
                    }
                })
                .map_err(Fault::Index)?;
                let at = usize::try_from(row * gather.row_bytes)
                    .ok()
                    .and_then(|moved| offsets[1].checked_add(moved))
                    .ok_or("reads past the end of ub")?;
                let value = ub.element(dtypes[0], at)?;
                ub.set_element(step.dtype, offsets[0], value)?;
            }
            VectorKind::Reduce(op, accumulator) => {
                if scalar::arg_takes(op, read[1], read[0]) {
                    let position = read[2] + index[rank - 1] as f64;
                    ub.set_element(accumulator, offsets[2], read[0])?;
                    ub.set_element(step.dtype, offsets[0], position)?;
                }
            }
            VectorKind::Cumsum(accumulator) | VectorKind::Cumprod(accumulator) => {
                let op = step.kind.scan().map_or(ScanOp::Sum, |(op, _)| op);
                let carry = scalar::scan_step(op, accumulator, read[1], read[0]);
                ub.set_element(accumulator, offsets[2], carry)?;
                ub.set_element(step.dtype, offsets[0], step.dtype.round(carry))?;
            }
            _ => return Err("steps element by element only to gather, arg-reduce or scan".into()),
        }
        // Advance the odometer, innermost dimension fastest.
        let mut dim = rank;
        loop {
            if dim == 0 {
                return Ok(());
            }
            dim -= 1;
            index[dim] += 1;
            for (offset, (_, strides)) in offsets.iter_mut().zip(&views) {
                if let Some(stride) = strides.get(dim) {
                    *offset = offset.wrapping_add(*stride as usize);
                }
            }
            if index[dim] < extents[dim] {
                break;
            }
            for (offset, (_, strides)) in offsets.iter_mut().zip(&views) {
                if let Some(stride) = strides.get(dim) {
                    *offset = offset.wrapping_sub((*stride * extents[dim]) as usize);
                }
            }
            index[dim] = 0;
        }
    }
}

fn tensor_name(program: &Program, tensor: u16) -> String {
    program
        .tensors
        .get(usize::from(tensor))
        .cloned()
        .unwrap_or_else(|| format!("t{tensor}"))
}
