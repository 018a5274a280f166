//! npu: write NPU kernels as Rust code.
pub use npu_core::*;
