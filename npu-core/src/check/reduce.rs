//! Type-checking reductions: axis lists, window extents and accumulator dtypes.

use std::collections::HashMap;

use proc_macro2::Ident;

use proc_macro2::Span;

use super::{Checker, Scope, Ty};
use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::dtype::Dtype;
use crate::ir::*;
use crate::words::suggestion;

/// Every function written with an axis bracket: reductions and scans.
pub(super) const REDUCTIONS: [&str; 7] =
    ["sum", "max", "min", "argmax", "argmin", "cumsum", "cumprod"];

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
            "argmax" => ReduceOp::ArgMax,
            "argmin" => ReduceOp::ArgMin,
            "cumsum" => return self.scan(func, ScanOp::Sum, reduction, args, scope, tensors),
            "cumprod" => return self.scan(func, ScanOp::Prod, reduction, args, scope, tensors),
            _ => {
                let help = suggestion(&name, &REDUCTIONS);
                self.report(
                    Diagnostic::new(
                        Code::E003,
                        func.span(),
                        format!("unknown reduction `{name}`"),
                    )
                    .help(help),
                );
                return (None, Ty::Error);
            }
        };
        if !self.reduction_form(func, op, reduction, args.len(), scope) {
            return (None, Ty::Error);
        }
        let Some(accumulator) = self.named_accumulator(&name, op, reduction) else {
            return (None, Ty::Error);
        };
        let Some(axes) = self.reduction_axes(&name, reduction, &args[0], scope, tensors) else {
            return (None, Ty::Error);
        };
        if !self.one_axis_list(reduction, &axes, scope) {
            return (None, Ty::Error);
        }
        if !scope.reductions.contains(&axes) {
            scope.reductions.push(axes.clone());
        }
        scope.live.extend_from_slice(&axes);
        scope.reducing = true;
        let (mut body, ty) = self.expr(&args[0], scope, tensors);
        scope.reducing = false;
        scope.live.truncate(scope.live.len() - axes.len());
        let Some(dtype) = self.folded_dtype(&name, func, (&mut body, ty), "reduce") else {
            return (None, Ty::Error);
        };
        if op.is_arg() {
            let extent = scope.axes[axes[0]].extent;
            let Some(index) = self.index_dtype(&name, accumulator, extent) else {
                return (None, Ty::Error);
            };
            return (
                body.map(|body| Expr::Reduce {
                    op,
                    axes,
                    body: Box::new(body),
                    dtype: index,
                    accumulator: dtype,
                }),
                Ty::Value(index),
            );
        }
        let Some(accumulator) = self.accumulator(&name, dtype, accumulator, "reduction", "..")
        else {
            return (None, Ty::Error);
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

    /// The accumulator dtype a reduction names, with its token: `Some(None)` when it
    /// names none, `None` when the one named is reported (unknown, or a float for an
    /// index).
    fn named_accumulator<'a>(
        &mut self,
        name: &str,
        op: ReduceOp,
        reduction: &'a ast::Reduction,
    ) -> Option<Option<(Dtype, &'a Ident)>> {
        let Some(ident) = &reduction.accumulator else {
            return Some(None);
        };
        let dtype = self.dtype(ident)?;
        if op.is_arg() && dtype.is_float() {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    ident.span(),
                    format!("`{name}` returns an index, which {dtype} cannot be"),
                )
                .help(format!(
                    "name an integer dtype for the index, as in `{name}[{}: i32]`, or leave it out",
                    reduction.axes[0]
                )),
            );
            return None;
        }
        Some(Some((dtype, ident)))
    }

    /// The axes a reduction introduces, each checked in turn; `None` at the first
    /// reported.
    fn reduction_axes(
        &mut self,
        name: &str,
        reduction: &ast::Reduction,
        body: &ast::Expr,
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> Option<Vec<usize>> {
        (0..reduction.axes.len())
            .map(|position| self.reduction_axis(name, reduction, position, body, scope, tensors))
            .collect()
    }

    /// The dtype of an argmax's or argmin's index: the one named, if it holds every
    /// position along the axis, else i32 (a statement's root `argmax` takes its output's
    /// dtype instead, see `Checker::arg_output`).
    fn index_dtype(
        &mut self,
        name: &str,
        named: Option<(Dtype, &Ident)>,
        extent: u64,
    ) -> Option<Dtype> {
        match named {
            Some((index, ident)) => self
                .holds_indices(index, extent, ident.span(), name)
                .then_some(index),
            None => Some(Dtype::I32),
        }
    }

    /// Whether a reduction is written as one: one argument, one axis for an argmax or
    /// argmin, and not inside a scan or another reduction; reports what is not.
    fn reduction_form(
        &mut self,
        func: &Ident,
        op: ReduceOp,
        reduction: &ast::Reduction,
        arguments: usize,
        scope: &Scope,
    ) -> bool {
        let name = func.to_string();
        if arguments != 1 {
            self.error(
                Code::E003,
                func.span(),
                format!("`{name}[..]` takes 1 argument but was given {arguments}"),
            );
            return false;
        }
        if op.is_arg() && reduction.axes.len() > 1 {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    reduction.axes[1].span(),
                    format!(
                        "`{name}` returns the index along one axis, but `{name}{}` names {}",
                        reduction.text(),
                        reduction.axes.len()
                    ),
                )
                .help(format!(
                    "reduce over one axis, as in `{name}[{}](...)`, or first reduce the others with `max`/`min` in an intermediate",
                    reduction.axes[0]
                )),
            );
            return false;
        }
        if scope.scanning {
            self.report(
                Diagnostic::new(
                    Code::E003,
                    func.span(),
                    format!("`{name}` cannot be inside a scan"),
                )
                .help(format!(
                    "compute the reduction in an intermediate first, as in `let r[..] = {name}{}(...);`, and scan that",
                    reduction.text()
                )),
            );
            return false;
        }
        if scope.reducing {
            self.report(
                Diagnostic::new(Code::E003, func.span(), "reductions cannot be nested")
                    .help(format!(
                        "reduce over several axes in one reduction, as in `{name}[kh, kw](...)`, or compute the inner reduction in an intermediate first, `let d[i, c] = {name}{}(...);`, and reduce that",
                        reduction.text()
                    )),
            );
            return false;
        }
        true
    }

    /// Reduction axis `position`: named once, not an axis in use, with an extent stated
    /// or found from a tensor the body reads over it, and the kernel's axis of that
    /// name when one has the same extent.
    fn reduction_axis(
        &mut self,
        name: &str,
        reduction: &ast::Reduction,
        position: usize,
        body: &ast::Expr,
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> Option<usize> {
        let axis_ident = &reduction.axes[position];
        let axis_name = axis_ident.to_string();
        if reduction.axes[..position].iter().any(|a| *a == axis_name) {
            self.report(
                Diagnostic::new(
                    Code::E030,
                    axis_ident.span(),
                    format!(
                        "axis `{axis_name}` is named twice in `{name}{}`",
                        reduction.text()
                    ),
                )
                .help("name each reduction axis once"),
            );
            return None;
        }
        if scope.live.iter().any(|a| scope.axes[*a].name == axis_name) {
            self.report(
                Diagnostic::new(
                    Code::E030,
                    axis_ident.span(),
                    format!("axis `{axis_name}` is already in use here"),
                )
                .help(in_use_help(&axis_name, scope)),
            );
            return None;
        }
        let stated_extent = reduction.extents[position];
        if let Some(stated) = stated_extent
            && stated.value == 0
        {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    stated.span,
                    format!("`{name}[{axis_name} < 0]` reduces over no elements"),
                )
                .help(format!("give `{axis_name}` an extent of at least 1")),
            );
            return None;
        }
        let found = stated_extent
            .map(|stated| stated.value)
            .or_else(|| reduction_extent(body, &axis_name, &scope.tensors, tensors));
        let Some(extent) = found else {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    axis_ident.span(),
                    format!("no tensor in the body of `{name}` is indexed by `{axis_name}`, so its extent is unknown"),
                )
                .help(
                    format!("index an input by `{axis_name}`, as in `{name}[{axis_name}](x[i, {axis_name}])`, or state its extent: `{name}[{axis_name} < 3](x[i + {axis_name}])`"),
                ),
            );
            return None;
        };
        let axis = match scope.axes.iter().position(|a| a.name == axis_name) {
            // The same name is the same loop dimension in every statement: softmax's
            // `k` is reduced over by `let m[i] = max[k](x[i, k])` and runs along
            // `e[i, k]`.
            Some(existing) if scope.axes[existing].extent == extent => existing,
            Some(_) => {
                self.report(
                    Diagnostic::new(
                        Code::E030,
                        axis_ident.span(),
                        format!("axis `{axis_name}` is already used with another meaning"),
                    )
                    .help("give the reduction axis its own name"),
                );
                return None;
            }
            None => {
                scope.axes.push(Axis {
                    name: axis_name,
                    extent,
                    reduction: true,
                });
                if stated_extent.is_none() {
                    scope.found.push(scope.axes.len() - 1);
                }
                scope.axes.len() - 1
            }
        };
        Some(axis)
    }

    /// One reduction's axes are folded together, so an axis reduced elsewhere must be
    /// reduced with the same list there; reports one that is not.
    fn one_axis_list(&mut self, reduction: &ast::Reduction, axes: &[usize], scope: &Scope) -> bool {
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
            self.report(
                Diagnostic::new(
                    Code::E030,
                    reduction.axes[shared].span(),
                    format!(
                        "axis `{axis_name}` is reduced together with `{}` elsewhere; an axis belongs to one axis list",
                        names.join(", ")
                    ),
                )
                .help(format!(
                    "write the same list, `[{}]`, or give this reduction its own axis names",
                    names.join(", ")
                )),
            );
            return false;
        }
        true
    }
}

impl Checker<'_> {
    /// The dtype of a reduction's or scan's body (`what` is the verb: reduce, scan),
    /// with the body's literals resolved to it; `None` after reporting a constant or a
    /// mask (E010). A literal tree that reads a tensor (a count, `sum[k](select(x[k] >
    /// t, 1, 0))`) is i32, or f32 if a literal has a fraction: a fold has no context
    /// to take a dtype from, so it takes the defaults (`as` converts the result).
    pub(super) fn folded_dtype(
        &mut self,
        name: &str,
        func: &Ident,
        (body, ty): (&mut Option<Expr>, Ty),
        what: &str,
    ) -> Option<Dtype> {
        let reads = |body: &Expr| {
            let mut found = false;
            body.walk(&mut |node| found |= matches!(node, Expr::Load { .. }));
            found
        };
        let message = match ty {
            Ty::Value(dtype) => return Some(dtype),
            Ty::Error => return None,
            Ty::Literal { is_float } if body.as_ref().is_some_and(reads) => {
                let dtype = if is_float { Dtype::F32 } else { Dtype::I32 };
                *body = body.take().map(|b| self.typed(b, dtype, func.span()));
                return Some(dtype);
            }
            Ty::Literal { .. } => format!("`{name}` over a constant has no tensor to {what}"),
            Ty::Mask(_) => format!("`{name}` takes numbers, not a comparison's mask"),
        };
        self.error(Code::E010, func.span(), message);
        None
    }

    /// The dtype a reduction or scan (`what`) of `name` over `dtype` accumulates in: the
    /// one the source names (`sum[k: bf16]`), of the same kind as `dtype`, else
    /// `dtype`'s default. `None` after reporting a named one of the other kind (E010);
    /// `axes` is how the help writes the bracket.
    pub(super) fn accumulator(
        &mut self,
        name: &str,
        dtype: Dtype,
        named: Option<(Dtype, &Ident)>,
        what: &str,
        axes: &str,
    ) -> Option<Dtype> {
        let Some((accumulator, ident)) = named else {
            return Some(dtype.accumulator());
        };
        if accumulator.is_float() == dtype.is_float() {
            return Some(accumulator);
        }
        let (kind, other) = if dtype.is_float() {
            ("a float", "f32")
        } else {
            ("an integer", "i32")
        };
        self.report(
            Diagnostic::new(
                Code::E010,
                ident.span(),
                format!("`{name}` over {dtype} cannot accumulate in {accumulator}"),
            )
            .note(format!("{kind} {what} accumulates in {kind} dtype"))
            .help(format!(
                "accumulate in {other}, or cast the body: `{name}[{axes}: {accumulator}](x as {accumulator})`"
            )),
        );
        None
    }

    /// Reports an index dtype that cannot hold every index of an axis of `extent`.
    pub(super) fn holds_indices(
        &mut self,
        index: Dtype,
        extent: u64,
        span: Span,
        name: &str,
    ) -> bool {
        let (_, largest) = index.range();
        // An extent of 0 is reported with its tensor; it has no index to hold.
        let last = extent.saturating_sub(1);
        if last as f64 <= largest {
            return true;
        }
        let fits = [Dtype::I16, Dtype::I32]
            .into_iter()
            .find(|d| last as f64 <= d.range().1)
            .unwrap_or(Dtype::I32);
        self.report(
            Diagnostic::new(
                Code::E010,
                span,
                format!(
                    "{index} holds indices up to {largest}, but `{name}` over {extent} elements returns up to {last}"
                ),
            )
            .help(format!("use {fits} for the index")),
        );
        false
    }

    /// A statement whose value is an `argmax`/`argmin` with no index dtype named
    /// returns its index in the output's dtype, which must be an integer dtype that
    /// holds every index.
    pub(super) fn arg_output(
        &mut self,
        stmt: &ast::Stmt,
        value: Expr,
        ty: Ty,
        output: &Tensor,
        scope: &Scope,
    ) -> (Expr, Ty) {
        let ast::Expr::Call {
            func,
            reduction: Some(reduction),
            ..
        } = &stmt.value
        else {
            return (value, ty);
        };
        let Expr::Reduce {
            op,
            axes,
            body,
            accumulator,
            dtype,
        } = value
        else {
            return (value, ty);
        };
        if !op.is_arg() || reduction.accumulator.is_some() {
            let value = Expr::Reduce {
                op,
                axes,
                body,
                dtype,
                accumulator,
            };
            return (value, ty);
        }
        let name = op.name();
        let index = output.dtype;
        let ty = if index.is_float() {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    stmt.output.span(),
                    format!(
                        "`{}` is {index} but `{name}` returns an integer index",
                        output.name
                    ),
                )
                .help(format!(
                    "declare `{}` as i32, or convert the index with `{name}{}(...) as {index}`",
                    output.name,
                    reduction.text()
                )),
            );
            Ty::Error
        } else if self.holds_indices(index, scope.axes[axes[0]].extent, func.span(), name) {
            Ty::Value(index)
        } else {
            Ty::Error
        };
        let value = Expr::Reduce {
            op,
            axes,
            body,
            dtype: if index.is_float() { dtype } else { index },
            accumulator,
        };
        (value, ty)
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
        ast::Expr::Chain { first, rest } => {
            reduction_extent(first, axis, names, tensors).or_else(|| {
                rest.iter()
                    .find_map(|link| reduction_extent(&link.operand, axis, names, tensors))
            })
        }
        ast::Expr::Call { args, .. } => args
            .iter()
            .find_map(|a| reduction_extent(a, axis, names, tensors)),
    }
}

/// The help for a reduction over `axis`, an axis already in use: a name that is not,
/// or the reduction in an intermediate over the other live axes.
fn in_use_help(axis: &str, scope: &Scope) -> String {
    let fresh = fresh_axis(&scope.axes);
    let others: Vec<&str> = scope
        .live
        .iter()
        .map(|a| scope.axes[*a].name.as_str())
        .filter(|name| *name != axis)
        .collect();
    let intermediate = match others.is_empty() {
        true => "s".to_string(),
        false => format!("s[{}]", others.join(", ")),
    };
    format!(
        "reduce over a new axis name, such as `{fresh}`, or reduce over `{axis}` in an intermediate over the other axes: `let {intermediate} = sum[{axis}](...);`"
    )
}

/// A name for a new axis that no axis of `axes` has, for help text.
pub(super) fn fresh_axis(axes: &[Axis]) -> String {
    const NAMES: [&str; 4] = ["k", "l", "r", "kk"];
    let taken = |name: &str| axes.iter().any(|a| a.name == name);
    match NAMES.into_iter().find(|n| !taken(n)) {
        Some(name) => name.to_string(),
        None => (1..)
            .map(|n| format!("k{n}"))
            .find(|n| !taken(n))
            .unwrap_or_default(),
    }
}
