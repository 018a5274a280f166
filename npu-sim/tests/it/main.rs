//! npu-sim's integration tests, one binary: values on data against the reference,
//! cycles, the cube, errors, properties, the example kernels in tests/kernels, and the
//! kernel-level differential test (sized by `NPU_DIFF_KERNELS`).

mod advice;
mod batched;
mod collapse;
mod cube;
mod cycles;
mod depth_limit;
mod double_buffering;
mod errors;
mod examples;
mod kernels_differential;
mod language;
mod outputs;
mod properties;
mod reductions;
mod scalar_params;
mod scans;
mod support;
mod values;
