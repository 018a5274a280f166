//! The left padding of a `copy_in` to an unaligned UB address.
//!
//! `DataCopyPad`'s local tensor starts on a 32-byte block, but a padded input's copy
//! lands a few elements past one (a window's halo, a pad's border), and the program
//! fills those few elements with a `vdup` of the pad value after the copy. The copy is
//! written from the block's start with `leftPadding` elements of that same value
//! (`isPad`, `paddingValue`): the bytes before the data get the value the program
//! fills them with, so whatever reads them sees what the simulator shows. Where no
//! `vdup` of a constant or parameter covers every block's left padding, the copy is
//! unsupported: the padding would overwrite bytes the program may still read.

use std::collections::BTreeSet;

use npu_core::Dtype;
use npu_core::program::{Op, Operand, Pipe, Program, VectorKind};

use super::names::{c_type, infinity};

/// The left padding of a copy whose blocks start at `starts` (UB byte addresses) with
/// `left` bytes before each: the value to pad with, as C++ text; `None` if no `vdup`
/// of `dtype` in the program covers every padding byte.
pub(super) fn fill(program: &Program, starts: &[u64], left: u64, dtype: Dtype) -> Option<String> {
    let needed: Vec<u64> = starts
        .iter()
        .flat_map(|start| start - left..*start)
        .collect();
    program
        .classes
        .iter()
        .flat_map(|code| &code.streams[Pipe::V.index()])
        .find_map(|instr| {
            let Op::Vector(v) = instr.op else {
                return None;
            };
            if v.kind != VectorKind::Dup || v.dtype != dtype {
                return None;
            }
            let value = scalar(program, v.src[0], dtype)?;
            let written = bytes(program, v.dst, v.dst_strides, v.shape, v.dtype.size());
            needed
                .iter()
                .all(|byte| written.contains(byte))
                .then_some(value)
        })
}

/// The value of a fill's scalar operand as C++ text of `dtype`: a constant the
/// element type holds exactly (infinities too), or a scalar parameter.
pub(super) fn scalar(program: &Program, operand: Operand, dtype: Dtype) -> Option<String> {
    let ty = c_type(dtype)?;
    match operand {
        Operand::Scalar(index) => {
            let value = *program.constants.get(index as usize)?;
            if value.is_infinite() && dtype.is_float() {
                return Some(infinity(ty, value));
            }
            if value.is_nan() || dtype.round(value).to_bits() != value.to_bits() {
                return None;
            }
            Some(format!("static_cast<{ty}>({value:?})"))
        }
        Operand::Param(tensor) => Some(program.signature.get(usize::from(tensor))?.name.clone()),
        _ => None,
    }
}

/// The UB bytes a box writes from `address` with the stride table `strides`.
fn bytes(program: &Program, address: u32, strides: u32, shape: u32, size: u64) -> BTreeSet<u64> {
    let extents = &program.boxes[shape as usize];
    let strides = &program.strides[strides as usize];
    let mut starts = vec![u64::from(address)];
    for (len, stride) in extents.iter().zip(strides) {
        starts = starts
            .iter()
            .flat_map(|start| (0..*len).map(move |i| start + i * stride))
            .collect();
    }
    starts
        .iter()
        .flat_map(|start| *start..start + size)
        .collect()
}
