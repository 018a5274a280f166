//! The tile loop order a schedule gets when it states none. A fact of the kernel alone:
//! the schedule checker and its scan rules both read it.

use crate::ir::{CheckedKernel, Expr};

/// The output axes any scan runs along, in order of appearance.
pub fn scan_axes(kernel: &CheckedKernel) -> Vec<usize> {
    let output_axes = kernel.output_axes();
    let mut axes = Vec::new();
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let Expr::Scan { axis, .. } = node
                && output_axes.contains(axis)
                && !axes.contains(axis)
            {
                axes.push(*axis);
            }
        });
    }
    axes
}

/// The tile loop order a schedule without `order` gets: the output axes as written,
/// scan axes moved innermost, so a split scan axis runs its tiles one after another.
pub(crate) fn default_order(kernel: &CheckedKernel) -> Vec<usize> {
    let scans = scan_axes(kernel);
    let mut order: Vec<usize> = kernel
        .output_axes()
        .iter()
        .copied()
        .filter(|a| !scans.contains(a))
        .collect();
    order.extend(kernel.output_axes().iter().filter(|a| scans.contains(a)));
    order
}
