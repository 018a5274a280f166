//! Inputs made for a checked kernel: the one place the tools (the tuner, the build
//! helper, `npu::testing`, the examples) and the tests get data to run a kernel on,
//! so that every input they make is valid for the kernel: a gather index tensor holds
//! only indices its table has, whatever its dtype.

use super::{CheckedKernel, Role};
use crate::host::HostTensor;

impl CheckedKernel {
    /// Seeded random inputs in signature order (input `i` drawn from `seed + i` by
    /// [`HostTensor::random`]), made valid by [`CheckedKernel::fit_inputs`].
    pub fn random_inputs(&self, seed: u64) -> Vec<HostTensor> {
        let mut inputs: Vec<HostTensor> = self
            .tensors
            .iter()
            .filter(|t| t.role == Role::Input)
            .enumerate()
            .map(|(i, t)| HostTensor::random(t.dtype, &t.shape, seed.wrapping_add(i as u64)))
            .collect();
        self.fit_inputs(&mut inputs);
        inputs
    }

    /// Inputs of edge values: every other element from [`HostTensor::edges`] (zeros of
    /// both signs, ±1, halves, the dtype's extremes and, for floats, ±infinity and
    /// NaN), each input starting at another edge so that the two operands of an
    /// elementwise operation meet different pairs; the rest as in
    /// [`CheckedKernel::random_inputs`]. Made valid by [`CheckedKernel::fit_inputs`].
    pub fn edge_inputs(&self, seed: u64) -> Vec<HostTensor> {
        let mut inputs: Vec<HostTensor> = self
            .tensors
            .iter()
            .filter(|t| t.role == Role::Input)
            .enumerate()
            .map(|(i, t)| {
                let mut values =
                    HostTensor::random(t.dtype, &t.shape, seed.wrapping_add(i as u64)).values();
                let edges = HostTensor::edges(t.dtype, &t.shape, i).values();
                for (value, edge) in values.iter_mut().zip(&edges).step_by(2) {
                    *value = *edge;
                }
                HostTensor::from_values(t.dtype, &t.shape, &values)
            })
            .collect();
        self.fit_inputs(&mut inputs);
        inputs
    }

    /// Makes generated inputs (in signature order) valid for the kernel: the values of
    /// each gather index tensor are wrapped into the indices it can both hold and use,
    /// `0..min(extent, largest value of its dtype + 1)` (`v mod` that count), so that
    /// random and edge data exercise the first and last rows instead of stopping at an
    /// out-of-range index, and an `i8` index into 1,024 rows stays in `0..128` rather
    /// than wrapping to a negative index when stored. Other inputs are left alone.
    pub fn fit_inputs(&self, inputs: &mut [HostTensor]) {
        for (tensor, input) in inputs.iter_mut().enumerate() {
            if let Some(extent) = self.index_extent(tensor) {
                let (_, largest) = input.dtype().range();
                let count = (extent.max(1) as f64).min(largest + 1.0);
                *input = input.map(|value| {
                    if value.is_finite() {
                        value.trunc().rem_euclid(count)
                    } else {
                        0.0
                    }
                });
            }
        }
    }
}
