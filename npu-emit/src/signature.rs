//! The program's symbol and arguments as every backend passes them: its function name
//! and which tensors are global-memory pointers and which scalar parameters. It is a
//! leaf, so both backends read the same facts without one depending on the other.

use npu_core::ir::Role;
use npu_core::{CheckedKernel, Program};

/// The emitted files' stem: kernel and schedule, which together name a program, as a
/// person reads them (`vmla_hand.cpp`).
pub(crate) fn file_stem(program: &Program) -> String {
    format!("{}_{}", program.kernel, program.schedule)
}

/// The kernel's symbol: the file stem and [`schedule_hash`] of the program's kernel,
/// target and schedule (`vmla_hand_1b2c3d4e`). A profiler names its rows by the symbol
/// (msprof's `Op Name`), so a row maps back to the schedule that produced it even when
/// two runs tuned the same kernel to different schedules under one name.
pub(crate) fn function_name(program: &Program, kernel: &CheckedKernel) -> String {
    let hash = schedule_hash(kernel, &program.target, &program.schedule);
    format!("{}_{hash}", file_stem(program))
}

/// Eight hex digits (the high half of FNV-1a 64) of the kernel's canonical text without
/// schedules, the target's name and the canonical text of schedule `schedule` of
/// `kernel` (empty when it has none by that name), each ended by a NUL byte: stable
/// across runs, machines and Rust versions, and changed by any edit of the three.
pub fn schedule_hash(kernel: &CheckedKernel, target: &str, schedule: &str) -> String {
    let source = kernel
        .schedules
        .iter()
        .find(|s| s.name == schedule)
        .map_or("", |s| s.source.as_str());
    let bytes = [kernel.header.as_str(), target, source]
        .into_iter()
        .flat_map(|part| part.bytes().chain([0]));
    let hash = npu_core::variants::fnv1a64_hash(bytes);
    format!("{:08x}", hash >> 32)
}

/// The tensors passed to the kernel in global memory (inputs and outputs, not
/// rank-0 parameters or on-chip intermediates), with their index in the signature.
pub(crate) fn gm_tensors(
    program: &Program,
) -> impl Iterator<Item = (usize, &npu_core::ir::Tensor)> {
    program
        .signature
        .iter()
        .enumerate()
        .filter(|(_, t)| t.role != Role::Local && !(t.role == Role::Input && t.shape.is_empty()))
}

/// The scalar parameters, passed by value.
pub(crate) fn parameters(
    program: &Program,
) -> impl Iterator<Item = (usize, &npu_core::ir::Tensor)> {
    program
        .signature
        .iter()
        .enumerate()
        .filter(|(_, t)| t.role == Role::Input && t.shape.is_empty())
}
