//! A vector instruction's source operand, resolved: what `execute` reads its lanes from
//! and what the per-element instructions read theirs from.

use npu_core::Dtype;

/// A source operand, resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source<'p> {
    None,
    Scalar(f64),
    Ub {
        address: usize,
        strides: &'p [u64],
        dtype: Dtype,
    },
}
