//! What the code `npu_kernel!` generates calls: every path of an expansion starts at
//! `::npu::__private`, which the facade (and any crate that expands bundled kernels
//! itself, such as npu-tune) points here. Not public API.

pub use std::sync::OnceLock;

pub use half::{bf16, f16};

pub use crate::host::{Element, HostTensor};
pub use crate::ir::{BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp};
pub use crate::scalar::{self, IndexError, InputError, ShapeError};
pub use crate::target::Implementation;
pub use crate::{CheckedKernel, Dtype, Target};

/// The row a gather reads: `value`, the element of `index` at `position`, when it
/// lies in `0..extent` (dimension `dim` of `table`), else the error that names them.
pub fn gather_index(
    value: f64,
    extent: u64,
    index: &str,
    position: &[u64],
    table: &str,
    dim: usize,
) -> Result<usize, IndexError> {
    IndexError::check(value, extent, || IndexError {
        index: index.to_string(),
        position: position.to_vec(),
        value: value as i64,
        table: table.to_string(),
        dim,
        extent,
    })
    .map(|row| row as usize)
}

/// The checked kernel of a generated module, from its source and target text. Both
/// passed the checker when the crate compiled, so a failure is a bug in npu.
pub fn recheck(name: &str, source: &str, target_toml: &str) -> CheckedKernel {
    let checked = Target::from_toml(target_toml)
        .map_err(|error| error.to_string())
        .and_then(|target| crate::check_source(source, &target).map_err(|d| d.render(source)));
    match checked {
        Ok(kernel) => kernel,
        Err(error) => panic!(
            "npu bug: kernel `{name}` passed the checker at compile time but not at run time\n{error}"
        ),
    }
}

/// `Ok` when a slice has its tensor's element count.
pub fn check_length(tensor: &str, expected: usize, actual: usize) -> Result<(), ShapeError> {
    if expected == actual {
        Ok(())
    } else {
        Err(ShapeError {
            tensor: tensor.to_string(),
            expected,
            actual,
        })
    }
}

pub fn to_f64s<T: Element>(values: &[T]) -> Vec<f64> {
    values.iter().map(|value| value.to_f64()).collect()
}

pub fn from_f64s<T: Element>(values: &[f64]) -> Vec<T> {
    values.iter().map(|value| T::from_f64(*value)).collect()
}

/// The value of a 0-d output, which `evaluate` computes as one element.
pub fn from_f64<T: Element>(values: &[f64]) -> T {
    T::from_f64(values[0])
}

/// The values of `inputs` after checking them against the declared `(name, dtype,
/// elements)` of each input, rounded to the declared dtype.
pub fn host_inputs<const N: usize>(
    inputs: &[HostTensor],
    declared: [(&str, Dtype, usize); N],
) -> Result<[Vec<f64>; N], ShapeError> {
    check_length("inputs", N, inputs.len())?;
    let mut values: [Vec<f64>; N] = std::array::from_fn(|_| Vec::new());
    for ((slot, input), (name, dtype, elements)) in values.iter_mut().zip(inputs).zip(declared) {
        check_length(name, elements, input.len())?;
        *slot = input.values_as(dtype);
    }
    Ok(values)
}

/// Output values as tensors of the declared `(dtype, shape)`.
pub fn host_outputs<const N: usize>(
    values: [Vec<f64>; N],
    declared: [(Dtype, &[u64]); N],
) -> Vec<HostTensor> {
    values
        .into_iter()
        .zip(declared)
        .map(|(data, (dtype, shape))| HostTensor::from_values(dtype, shape, &data))
        .collect()
}
