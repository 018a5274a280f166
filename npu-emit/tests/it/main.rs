//! npu-emit's one integration-test binary: the CPU models' own tests, the bundled
//! kernels bit for bit against the simulator (Ascend C and AIE C++), the census of
//! which unit does their element work, and the mutants that must fail; with
//! `NPU_ASC_DEVKIT`, the emitted kernels against the real Ascend C headers.

mod aie;
mod aie_functions;
mod aie_model;
mod aie_mutants;
mod census;
mod devkit;
mod kernels;
mod model;
mod mutants;
mod support;
