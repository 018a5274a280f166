//! The facade's integration tests, one binary: fuzzing, and kernels of each family run
//! through the macro's references and the simulator. `NPU_FUZZ_ITERATIONS` sizes the
//! fuzzing. The macro's diagnostics through rustc are tested in npu-ui.

mod fused;
mod gather;
mod macro_fuzz;
mod math_and_bits;
mod windows;
