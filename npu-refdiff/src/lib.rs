//! A fixed, seeded set of generated kernels (see build.rs), each compiled by
//! `npu_kernel!`, so that the test can compare every generated host reference (compiled
//! Rust) with the simulator's IR interpreter.

use npu::{CheckedKernel, HostTensor, InputError};

/// A kernel's name, its checked kernel and its generated host reference.
pub type Entry = (
    &'static str,
    fn() -> &'static CheckedKernel,
    fn(&[HostTensor]) -> Result<Vec<HostTensor>, InputError>,
);

include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
