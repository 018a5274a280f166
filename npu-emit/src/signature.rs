//! The program's symbol and arguments as every backend passes them: its function name
//! and which tensors are global-memory pointers and which scalar parameters. It is a
//! leaf, so both backends read the same facts without one depending on the other.

use npu_core::Program;
use npu_core::ir::Role;

/// The kernel's symbol: kernel and schedule, which together name a program.
pub(crate) fn function_name(program: &Program) -> String {
    format!("{}_{}", program.kernel, program.schedule)
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
