//! Facts about a kernel's axes that both a spec and its space depend on: the second
//! axis a matmul's core grid spreads over, and the elements that make an aligned copy.

use npu_core::ir::{CheckedKernel, KernelClass, Role};

/// The second output axis of a matmul (n), the one a core grid spreads beside m;
/// `None` for other kernels, whose cores go over their first output axis only.
pub fn second_axis(kernel: &CheckedKernel) -> Option<usize> {
    match &kernel.class {
        KernelClass::Matmul(mm) => Some(mm.n),
        _ => None,
    }
}

/// Elements of `axis` that make an aligned UB copy for every tensor it is innermost in.
pub fn align_elements(kernel: &CheckedKernel, axis: usize) -> u64 {
    let align = kernel.target.align.ub;
    let mut step = 1;
    for (t, tensor) in kernel.tensors.iter().enumerate() {
        let axes = npu_core::internal::tensor_axes(kernel, t);
        if axes.last().copied().flatten() == Some(axis)
            && (tensor.role == Role::Input || tensor.role == Role::Output)
        {
            let need = align / gcd(align, tensor.dtype.size());
            step = lcm(step, need);
        }
    }
    step
}

/// Whether some axis's extent is not a whole number of aligned elements, or some 0-d
/// output's one element is less than an aligned copy: a row of it is copied unaligned
/// unless padded.
pub fn unaligned_rows(kernel: &CheckedKernel) -> bool {
    short_output(kernel)
        || (0..kernel.axes.len()).any(|axis| {
            !kernel.axes[axis]
                .extent
                .is_multiple_of(align_elements(kernel, axis))
        })
}

/// Whether some 0-d output's one element is less than an aligned copy: every
/// schedule of the kernel needs `tail pad`.
pub(super) fn short_output(kernel: &CheckedKernel) -> bool {
    let align = kernel.target.align.ub;
    kernel.tensors.iter().any(|t| {
        t.role == Role::Output && t.shape.is_empty() && !t.dtype.size().is_multiple_of(align)
    })
}

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}
