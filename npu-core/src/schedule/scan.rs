//! The schedule rules of scans (`cumsum[k]`, `cumprod[k]`): a scan carries its running
//! value from one tile of its axis to the next, in order, on one core.

use proc_macro2::{Ident, Span};

use super::ScheduleChecker;
use super::order::scan_axes;
use crate::diag::{Code, Diagnostic};
use crate::ir::{CheckedKernel, Expr};

/// The name of the scan that runs along `axis`, if one does.
fn scan_name(kernel: &CheckedKernel, axis: usize) -> Option<&'static str> {
    let mut name = None;
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let Expr::Scan { op, axis: a, .. } = node
                && *a == axis
            {
                name = name.or(Some(op.name()));
            }
        });
    }
    name
}

impl ScheduleChecker<'_> {
    /// Reports `parallel` over an axis a scan runs along; true when it did.
    pub(super) fn scanned_across_cores(&mut self, axis: usize, ident: &Ident) -> bool {
        let kernel = self.kernel;
        let Some(name) = scan_name(kernel, axis) else {
            return false;
        };
        let others: Vec<&str> = kernel
            .output_axes()
            .iter()
            .filter(|a| **a != axis)
            .map(|a| kernel.axes[*a].name.as_str())
            .collect();
        let help = match others.first() {
            Some(other) => format!(
                "split another axis across cores, as in `parallel {other} over 8 cores;`, and tile `{ident}` on one core with `split {ident} by N;`"
            ),
            None => format!(
                "run `{ident}` on one core and tile it with `split {ident} by N;`; a kernel of several independent rows can split the rows across cores"
            ),
        };
        self.error(
            Diagnostic::new(
                Code::E032,
                ident.span(),
                format!(
                    "`{name}[{ident}]` carries its running value along `{ident}` from tile to tile in order, so `{ident}` cannot be split across cores"
                ),
            )
            .help(help),
        );
        true
    }

    /// A scan axis split into several tiles must be the innermost tile loop with more
    /// than one tile: its carry holds one tile of the other axes.
    pub(super) fn scan_innermost(&mut self, order: &[usize], tiles: &[u64], span: Span) {
        let kernel = self.kernel;
        let axes = &kernel.axes;
        for axis in scan_axes(kernel) {
            if tiles[axis] >= axes[axis].extent {
                continue;
            }
            let Some(position) = order.iter().position(|a| *a == axis) else {
                continue;
            };
            let Some(inner) = order[position + 1..]
                .iter()
                .find(|a| tiles[**a] < axes[**a].extent)
            else {
                continue;
            };
            let name = scan_name(kernel, axis).unwrap_or("cumsum");
            let (scan, inner) = (&axes[axis].name, &axes[*inner].name);
            let mut suggested: Vec<&str> = order
                .iter()
                .filter(|a| **a != axis)
                .map(|a| axes[*a].name.as_str())
                .collect();
            suggested.push(scan);
            self.error(
                Diagnostic::new(
                    Code::E032,
                    span,
                    format!(
                        "`{scan}` is split and `{name}[{scan}]` carries its running value from one tile of `{scan}` to the next, but the tiles of `{inner}` run inside them"
                    ),
                )
                .help(format!(
                    "run the tiles of `{scan}` innermost with `order {};`, or leave `{inner}` whole",
                    suggested.join(", ")
                )),
            );
        }
    }
}
