//! `vpairsum`: the lanes of a sum combined in the adjacent-pair tree.

use npu_core::program::VectorInstr;
use npu_core::scalar;

use super::odometer::{next_row, row_base};
use super::operand::Source;
use crate::fault::Fault;
use crate::level::Level;
use crate::storage::Run;

/// Folds each row of the box (its last dimension, the lanes) with
/// [`scalar::pair_tree`] in the instruction's dtype into the destination's first
/// element of the row, the outer dimensions as an odometer.
pub(super) fn pair_sums(
    ub: &mut Level,
    v: &VectorInstr,
    extents: &[u64],
    dst_strides: &[u64],
    source: &Source,
) -> Result<(), Fault> {
    let Source::Ub {
        address,
        strides,
        dtype,
    } = *source
    else {
        return Err("folds no lanes in ub".into());
    };
    let rank = extents.len();
    let lanes = extents[rank - 1] as usize;
    if !lanes.is_power_of_two() {
        return Err(format!("folds {lanes} lanes, not a power of two").into());
    }
    let mut values = vec![0.0; lanes];
    let mut index = vec![0u64; rank - 1];
    let rows: u64 = extents[..rank - 1].iter().product();
    for _ in 0..rows {
        let run = Run {
            offset: row_base(address, &index, strides)?,
            stride: strides[rank - 1] as usize,
            len: lanes,
        };
        ub.load(dtype, run, &mut values)?;
        let total = scalar::pair_tree(v.dtype, &mut values);
        let dst = Run {
            offset: row_base(v.dst as usize, &index, dst_strides)?,
            stride: 0,
            len: 1,
        };
        ub.store(v.dtype, &[total], dst)?;
        next_row(&mut index, extents);
    }
    Ok(())
}
