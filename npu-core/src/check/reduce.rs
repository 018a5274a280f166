//! Type-checking reductions: axis lists, window extents and accumulator dtypes.

use std::collections::HashMap;

use proc_macro2::Ident;

use super::{Checker, Scope, Ty};
use crate::ast;
use crate::diag::{Code, suggestion};
use crate::ir::*;

impl Checker<'_> {
    pub(super) fn reduce(
        &mut self,
        func: &Ident,
        reduction: &ast::Reduction,
        args: &[ast::Expr],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let name = func.to_string();
        let op = match name.as_str() {
            "sum" => ReduceOp::Sum,
            "max" => ReduceOp::Max,
            "min" => ReduceOp::Min,
            _ => {
                let help = suggestion(&name, &["sum", "max", "min"]);
                self.error(
                    Code::E003,
                    func.span(),
                    format!("unknown reduction `{name}`"),
                )
                .help = Some(help);
                return (None, Ty::Error);
            }
        };
        if args.len() != 1 {
            self.error(
                Code::E003,
                func.span(),
                format!("`{name}[..]` takes 1 argument but was given {}", args.len()),
            );
            return (None, Ty::Error);
        }
        if scope.reducing {
            self.error(Code::E003, func.span(), "reductions cannot be nested")
                .help = Some(format!(
                "reduce over several axes in one reduction, as in `{name}[kh, kw](...)`, or split the kernel in two"
            ));
            return (None, Ty::Error);
        }
        let accumulator = match &reduction.accumulator {
            Some(ident) => match self.dtype(ident) {
                Some(dtype) => Some((dtype, ident)),
                None => return (None, Ty::Error),
            },
            None => None,
        };
        let mut axes: Vec<usize> = Vec::with_capacity(reduction.axes.len());
        for (position, axis_ident) in reduction.axes.iter().enumerate() {
            let axis_name = axis_ident.to_string();
            if reduction.axes[..position].iter().any(|a| *a == axis_name) {
                self.error(
                    Code::E030,
                    axis_ident.span(),
                    format!(
                        "axis `{axis_name}` is named twice in `{name}{}`",
                        reduction.text()
                    ),
                )
                .help = Some("name each reduction axis once".into());
                return (None, Ty::Error);
            }
            if scope.live.iter().any(|a| scope.axes[*a].name == axis_name) {
                self.error(
                    Code::E030,
                    axis_ident.span(),
                    format!("axis `{axis_name}` is already in use here"),
                )
                .help = Some(format!(
                    "reduce over a new axis name, such as `k`, or reduce over `{axis_name}` in an intermediate over the other axes: `let s[i] = sum[{axis_name}](...);`"
                ));
                return (None, Ty::Error);
            }
            let stated_extent = reduction.extents[position];
            if let Some(stated) = stated_extent
                && stated.value == 0
            {
                self.error(
                    Code::E011,
                    stated.span,
                    format!("`{name}[{axis_name} < 0]` reduces over no elements"),
                )
                .help = Some(format!("give `{axis_name}` an extent of at least 1"));
                return (None, Ty::Error);
            }
            let found = stated_extent
                .map(|stated| stated.value)
                .or_else(|| reduction_extent(&args[0], &axis_name, &scope.tensors, tensors));
            let Some(extent) = found else {
                self.error(Code::E011, axis_ident.span(), format!("no tensor in the body of `{name}` is indexed by `{axis_name}`, so its extent is unknown"))
                    .help = Some(format!("index an input by `{axis_name}`, as in `{name}[{axis_name}](x[i, {axis_name}])`, or state its extent: `{name}[{axis_name} < 3](x[i + {axis_name}])`"));
                return (None, Ty::Error);
            };
            let axis = match scope.axes.iter().position(|a| a.name == axis_name) {
                // The same name is the same loop dimension in every statement: softmax's
                // `k` is reduced over by `let m[i] = max[k](x[i, k])` and runs along
                // `e[i, k]`.
                Some(existing) if scope.axes[existing].extent == extent => existing,
                Some(_) => {
                    self.error(
                        Code::E030,
                        axis_ident.span(),
                        format!("axis `{axis_name}` is already used with another meaning"),
                    )
                    .help = Some("give the reduction axis its own name".into());
                    return (None, Ty::Error);
                }
                None => {
                    scope.axes.push(Axis {
                        name: axis_name,
                        extent,
                        reduction: true,
                    });
                    scope.axes.len() - 1
                }
            };
            axes.push(axis);
        }
        // One reduction's axes are folded together, so an axis reduced elsewhere must be
        // reduced with the same list there.
        if let Some(other) = scope
            .reductions
            .iter()
            .find(|other| **other != axes && other.iter().any(|a| axes.contains(a)))
        {
            let shared = axes
                .iter()
                .position(|a| other.contains(a))
                .expect("the lists share an axis");
            let names: Vec<&str> = other.iter().map(|a| scope.axes[*a].name.as_str()).collect();
            let axis_name = &scope.axes[axes[shared]].name;
            self.error(
                Code::E030,
                reduction.axes[shared].span(),
                format!(
                    "axis `{axis_name}` is reduced together with `{}` elsewhere; an axis belongs to one axis list",
                    names.join(", ")
                ),
            )
            .help = Some(format!(
                "write the same list, `[{}]`, or give this reduction its own axis names",
                names.join(", ")
            ));
            return (None, Ty::Error);
        }
        if !scope.reductions.contains(&axes) {
            scope.reductions.push(axes.clone());
        }
        scope.live.extend_from_slice(&axes);
        scope.reducing = true;
        let (body, ty) = self.expr(&args[0], scope, tensors);
        scope.reducing = false;
        scope.live.truncate(scope.live.len() - axes.len());
        let dtype = match ty {
            Ty::Value(dtype) => dtype,
            Ty::Literal { .. } => {
                self.error(
                    Code::E010,
                    func.span(),
                    format!("`{name}` over a constant has no tensor to reduce"),
                );
                return (None, Ty::Error);
            }
            Ty::Mask(_) => {
                self.error(
                    Code::E010,
                    func.span(),
                    format!("`{name}` takes numbers, not a comparison's mask"),
                );
                return (None, Ty::Error);
            }
            Ty::Error => return (None, Ty::Error),
        };
        let accumulator = match accumulator {
            None => dtype.accumulator(),
            Some((accumulator, _)) if accumulator.is_float() == dtype.is_float() => accumulator,
            Some((accumulator, ident)) => {
                let (kind, other) = if dtype.is_float() {
                    ("a float", "f32")
                } else {
                    ("an integer", "i32")
                };
                self.error(
                    Code::E010,
                    ident.span(),
                    format!(
                        "`{name}` over {dtype} cannot accumulate in {accumulator}: {kind} reduction accumulates in {kind} dtype"
                    ),
                )
                .help = Some(format!(
                    "accumulate in {other}, or cast the body: `{name}[..: {accumulator}](x as {accumulator})`"
                ));
                return (None, Ty::Error);
            }
        };
        let body = body.map(Box::new);
        (
            body.map(|body| Expr::Reduce {
                op,
                axes,
                body,
                dtype,
                accumulator,
            }),
            Ty::Value(dtype),
        )
    }
}

/// The extent of a reduction axis: the extent of the first tensor dimension it indexes.
pub(super) fn reduction_extent(
    expr: &ast::Expr,
    axis: &str,
    names: &HashMap<String, usize>,
    tensors: &[Tensor],
) -> Option<u64> {
    match expr {
        ast::Expr::Load {
            tensor, indices, ..
        } => {
            let t = &tensors[*names.get(&tensor.to_string())?];
            indices
                .iter()
                .enumerate()
                .find_map(|(dim, index)| match index {
                    ast::Index::Axis(ident) if ident == axis => t.shape.get(dim).copied(),
                    _ => None,
                })
        }
        ast::Expr::Literal { .. } => None,
        ast::Expr::Neg { arg, .. } | ast::Expr::Cast { arg, .. } | ast::Expr::Not { arg, .. } => {
            reduction_extent(arg, axis, names, tensors)
        }
        ast::Expr::Binary { lhs, rhs, .. } => reduction_extent(lhs, axis, names, tensors)
            .or_else(|| reduction_extent(rhs, axis, names, tensors)),
        ast::Expr::Call { args, .. } => args
            .iter()
            .find_map(|a| reduction_extent(a, axis, names, tensors)),
    }
}
