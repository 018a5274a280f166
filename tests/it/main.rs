//! The facade's integration tests, one binary: the macro through the real compiler
//! (`ui`), diagnostics' positions and determinism, fuzzing, and kernels of each family
//! run through the macro's references and the simulator. `NPU_FUZZ_ITERATIONS` sizes
//! the fuzzing.

mod determinism;
mod fused;
mod gather;
mod macro_fuzz;
mod math_and_bits;
mod ui;
mod ui_positions;
mod windows;
