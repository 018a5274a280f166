//! Type-checking scans: `cumsum[k](x)` and `cumprod[k](x)` along an axis of the
//! statement, with the accumulator rule of reductions (`cumsum[k: f32](x)`).

use proc_macro2::Ident;

use super::{Checker, Scope, Ty};
use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::ir::*;

impl Checker<'_> {
    pub(super) fn scan(
        &mut self,
        func: &Ident,
        op: ScanOp,
        reduction: &ast::Reduction,
        args: &[ast::Expr],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let name = op.name();
        if !self.scan_form(func, name, reduction, args.len(), scope) {
            return (None, Ty::Error);
        }
        let axis_ident = &reduction.axes[0];
        let axis_name = axis_ident.to_string();
        // The scan keeps its axis: it is one the statement writes.
        let Some(axis) = scope
            .live
            .iter()
            .copied()
            .find(|a| scope.axes[*a].name == axis_name)
        else {
            let written: Vec<&str> = scope
                .live
                .iter()
                .map(|a| scope.axes[*a].name.as_str())
                .collect();
            self.report(
                Diagnostic::new(
                    Code::E011,
                    axis_ident.span(),
                    format!(
                        "`{name}[{axis_name}]` runs along `{axis_name}`, which the statement does not write (it writes over `{}`)",
                        written.join(", ")
                    ),
                )
                .help(format!(
                    "a scan keeps its axis: write the output over it, as in `y[.., {axis_name}] = {name}[{axis_name}](x[.., {axis_name}])`; to fold the axis away use `sum[{axis_name}]`"
                )),
            );
            return (None, Ty::Error);
        };
        let accumulator = match &reduction.accumulator {
            Some(ident) => match self.dtype(ident) {
                Some(dtype) => Some((dtype, ident)),
                None => return (None, Ty::Error),
            },
            None => None,
        };
        scope.scanning = true;
        let (mut body, ty) = self.expr(&args[0], scope, tensors);
        scope.scanning = false;
        let Some(dtype) = self.folded_dtype(name, func, (&mut body, ty), "scan") else {
            return (None, Ty::Error);
        };
        let Some(accumulator) = self.accumulator(name, dtype, accumulator, "scan", &axis_name)
        else {
            return (None, Ty::Error);
        };
        (
            body.map(|body| Expr::Scan {
                op,
                axis,
                body: Box::new(body),
                dtype,
                accumulator,
            }),
            Ty::Value(dtype),
        )
    }

    /// Whether a scan is written as one: one argument, along one axis, with no extent,
    /// and not inside a reduction or another scan; reports what is not.
    fn scan_form(
        &mut self,
        func: &Ident,
        name: &str,
        reduction: &ast::Reduction,
        arguments: usize,
        scope: &Scope,
    ) -> bool {
        if arguments != 1 {
            self.error(
                Code::E003,
                func.span(),
                format!("`{name}[..]` takes 1 argument but was given {arguments}"),
            );
            return false;
        }
        if let [_, second, ..] = reduction.axes.as_slice() {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    second.span(),
                    format!(
                        "`{name}` runs along one axis, but `{name}{}` names {}",
                        reduction.text(),
                        reduction.axes.len()
                    ),
                )
                .help(format!(
                    "scan along one axis, as in `{name}[{}](...)`",
                    reduction.axes[0]
                )),
            );
            return false;
        }
        let axis_ident = &reduction.axes[0];
        let axis_name = axis_ident.to_string();
        if let Some(extent) = reduction.extents[0] {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    extent.span,
                    format!(
                        "`{name}` runs along the whole of `{axis_name}`, so it takes no extent"
                    ),
                )
                .help(format!("write `{name}[{axis_name}](...)`")),
            );
            return false;
        }
        if scope.reducing || scope.scanning {
            let outer = if scope.reducing {
                "a reduction"
            } else {
                "a scan"
            };
            self.report(
                Diagnostic::new(
                    Code::E003,
                    func.span(),
                    format!("`{name}` cannot be inside {outer}"),
                )
                .help(format!(
                    "compute the scan in an intermediate first: `let c[.., {axis_name}] = {name}[{axis_name}](...);`"
                )),
            );
            return false;
        }
        true
    }
}
