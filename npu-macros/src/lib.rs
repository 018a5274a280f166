//! The `npu_kernel!` procedural macro.
