//! npu-emit's one integration-test binary: the CPU model's own tests, the bundled
//! kernels bit for bit against the simulator, and the mutants that must fail.

mod kernels;
mod model;
mod mutants;
mod support;
