//! A kernel's statements checked: each assignment's output and subscripts, each
//! `let` intermediate's name, shape and dtype.

use std::collections::HashMap;

use proc_macro2::{Ident, Span};

use super::expr::subscripts;
use super::reduce::reduction_extent;
use super::{Checker, MAX_ELEMENTS, Scope, Ty, too_many_elements};
use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::ir::*;
use crate::words::suggestion;

impl Checker<'_> {
    /// A statement whose value is a comparison's mask, which no tensor holds.
    fn mask_held(&mut self, output: Span, name: &str) {
        self.report(
            Diagnostic::new(
                Code::E010,
                output,
                format!("`{name}` cannot hold a comparison's mask"),
            )
            .help("use the comparison in `select(cond, a, b)`"),
        );
    }

    pub(super) fn statement(
        &mut self,
        stmt: &ast::Stmt,
        tensors: &[Tensor],
        scope: &mut Scope,
        assigned: &mut HashMap<usize, Span>,
        body: &[Assign],
    ) -> Option<Assign> {
        let name = stmt.output.to_string();
        let output = self.output_tensor(stmt, tensors, scope, assigned)?;
        let tensor = &tensors[output];
        let mut axes = Vec::new();
        for (dim, index) in stmt.indices.iter().enumerate() {
            let axis = self.output_axis(stmt, dim, index, tensor, scope, &axes)?;
            axes.push(axis);
        }
        self.same_output_axes(stmt, &axes, tensors, scope, body)?;
        scope.live = axes.clone();
        let (value, ty) = self.expr(&stmt.value, scope, tensors);
        let value = value?;
        let (value, ty) = self.arg_output(stmt, value, ty, tensor, scope);
        let ty = if self.untyped.contains(&name) {
            Ty::Error
        } else {
            ty
        };
        match ty {
            Ty::Value(dtype) if dtype != tensor.dtype => {
                let (span, what) = (stmt.output.span(), tensor.dtype);
                self.report(
                    Diagnostic::new(
                        Code::E010,
                        span,
                        format!("`{name}` is {what} but the expression is {dtype}"),
                    )
                    .help(format!("cast the expression with `as {what}`")),
                );
                None
            }
            Ty::Mask(_) => {
                self.mask_held(stmt.output.span(), &name);
                None
            }
            Ty::Error => None,
            Ty::Value(_) | Ty::Literal { .. } => {
                let value = self.typed(value, tensor.dtype, stmt.output.span());
                let mut space_axes = axes.clone();
                value.walk(&mut |node| {
                    if let Expr::Reduce { axes, .. } = node {
                        for axis in axes {
                            if !space_axes.contains(axis) {
                                space_axes.push(*axis);
                            }
                        }
                    }
                });
                let space: Vec<u64> = space_axes.iter().map(|a| scope.axes[*a].extent).collect();
                // A tensor too large is reported already, and makes its loops too large.
                if too_many_elements(&space) && !tensors.iter().any(|t| too_many_elements(&t.shape))
                {
                    self.report(
                        Diagnostic::new(
                            Code::E011,
                            stmt.output.span(),
                            format!("`{name}` is computed over more than {MAX_ELEMENTS} elements (2^48), output and reduction axes together"),
                        )
                        .help("give the kernel a smaller part of the work"),
                    );
                    return None;
                }
                Some(Assign {
                    output,
                    axes,
                    value,
                })
            }
        }
    }

    /// The output a statement writes: declared, not an input, assigned once, and
    /// written with one subscript per dimension.
    fn output_tensor(
        &mut self,
        stmt: &ast::Stmt,
        tensors: &[Tensor],
        scope: &Scope,
        assigned: &mut HashMap<usize, Span>,
    ) -> Option<usize> {
        let name = stmt.output.to_string();
        let Some(&output) = scope.tensors.get(&name) else {
            let outputs: Vec<&str> = tensors
                .iter()
                .filter(|t| t.role == Role::Output)
                .map(|t| t.name.as_str())
                .collect();
            let help = suggestion(&name, &outputs);
            self.report(
                Diagnostic::new(
                    Code::E002,
                    stmt.output.span(),
                    format!("unknown output `{name}`"),
                )
                .help(help),
            );
            return None;
        };
        let tensor = &tensors[output];
        if tensor.role == Role::Input {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    stmt.output.span(),
                    format!("`{name}` is an input and cannot be assigned"),
                )
                .help("assign to an output declared after `->`"),
            );
            return None;
        }
        if let Some(_first) = assigned.insert(output, stmt.output.span()) {
            self.report(
                Diagnostic::new(
                    Code::E030,
                    stmt.output.span(),
                    format!("output `{name}` is assigned twice"),
                )
                .help("assign each output in one statement"),
            );
            return None;
        }
        if stmt.indices.len() != tensor.shape.len() {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    stmt.output.span(),
                    format!(
                        "`{name}` has rank {} but is written with {}",
                        tensor.shape.len(),
                        subscripts(stmt.indices.len())
                    ),
                )
                .help(
                    if tensor.shape.is_empty() {
                        format!(
                            "`{name}` is 0-d: write it without subscripts, `{name} = ...;`, or declare it with a shape"
                        )
                    } else {
                        format!(
                            "write `{name}` with {}, one per dimension",
                            subscripts(tensor.shape.len())
                        )
                    },
                ),
            );
            return None;
        }
        Some(output)
    }

    /// The axis subscript `dim` of an output writes over: a plain axis, once, with the
    /// extent of the output's dimension; a new axis of the kernel when none has its name.
    fn output_axis(
        &mut self,
        stmt: &ast::Stmt,
        dim: usize,
        index: &ast::Index,
        tensor: &Tensor,
        scope: &mut Scope,
        axes: &[usize],
    ) -> Option<usize> {
        let name = stmt.output.to_string();
        let ident = match index {
            ast::Index::Axis(ident) => ident,
            ast::Index::Const(number) => {
                self.report(
                    Diagnostic::new(
                        Code::E011,
                        number.span,
                        format!(
                            "output `{name}` must be written over axes, not at a fixed position"
                        ),
                    )
                    .help("name an axis, such as `i`"),
                );
                return None;
            }
            ast::Index::Gather(gather) => {
                self.report(
                    Diagnostic::new(
                        Code::E037,
                        gather.tensor.span(),
                        format!(
                            "output `{name}` is written through `{}[..]`: scatter is not supported",
                            gather.tensor
                        ),
                    )
                    .help(format!(
                        "write the output over plain axes and gather on the right: `{name}[i] = x[{}[i]]`",
                        gather.tensor
                    )),
                );
                return None;
            }
            ast::Index::Affine(affine) => {
                self.report(
                    Diagnostic::new(
                        Code::E011,
                        affine.span,
                        format!("output `{name}` must be written over plain axes, not an affine form"),
                    )
                    .help(
                        "name one axis per output dimension and move the arithmetic into the loads, as in `y[i] = x[2*i + 1]`",
                    ),
                );
                return None;
            }
        };
        let axis_name = ident.to_string();
        let extent = tensor.shape[dim];
        match scope.axes.iter().position(|a| a.name == axis_name) {
            Some(existing) => {
                if axes.contains(&existing) {
                    self.error(
                        Code::E030,
                        ident.span(),
                        format!("axis `{axis_name}` indexes `{name}` twice"),
                    );
                    return None;
                }
                if scope.axes[existing].extent != extent {
                    let message = format!(
                        "axis `{axis_name}` has extent {} elsewhere but `{name}` has {extent} along dimension {dim}",
                        scope.axes[existing].extent
                    );
                    self.error(Code::E011, ident.span(), message);
                    return None;
                }
                // The output declares the extent an intermediate found first.
                scope.found.retain(|found| *found != existing);
                Some(existing)
            }
            None => {
                scope.axes.push(Axis {
                    name: axis_name,
                    extent,
                    reduction: false,
                });
                Some(scope.axes.len() - 1)
            }
        }
    }

    /// Every output of a kernel is written over the axes of the first.
    fn same_output_axes(
        &mut self,
        stmt: &ast::Stmt,
        axes: &[usize],
        tensors: &[Tensor],
        scope: &Scope,
        body: &[Assign],
    ) -> Option<()> {
        if let Some(first) = body.iter().find(|a| tensors[a.output].role == Role::Output)
            && first.axes != axes
        {
            let expected: Vec<&str> = first
                .axes
                .iter()
                .map(|a| scope.axes[*a].name.as_str())
                .collect();
            self.report(
                Diagnostic::new(
                    Code::E011,
                    stmt.output.span(),
                    format!(
                        "every output must be written over the same axes, `{}`",
                        expected.join(", ")
                    ),
                )
                .help("give all outputs the same shape and subscripts"),
            );
            return None;
        }
        Some(())
    }

    /// `let m[i] = expr;`: an intermediate over named axes, its dtype the expression's
    /// and each axis's extent the one it already has, or else the one an output
    /// statement gives it, or else that of the first tensor the expression (or a later
    /// statement) indexes with it.
    ///
    /// A `let` that fails still declares its name, so that its readers are not
    /// reported as unknown tensors: one mistake, one error.
    pub(super) fn let_statement(
        &mut self,
        stmt: &ast::Stmt,
        def: &ast::KernelDef,
        tensors: &mut Vec<Tensor>,
        scope: &mut Scope,
    ) -> Option<Assign> {
        let name = stmt.output.to_string();
        if scope.tensors.contains_key(&name) || scope.constants.contains_key(&name) {
            let what = match scope.constants.contains_key(&name) {
                true => "a named constant",
                false => "a tensor of this kernel",
            };
            self.report(
                Diagnostic::new(
                    Code::E030,
                    stmt.output.span(),
                    format!("`{name}` is already {what}"),
                )
                .help("give the intermediate its own name"),
            );
            return None;
        }
        if self.named_constant(stmt, scope) {
            return None;
        }
        let assign = self.let_body(stmt, def, tensors, scope);
        if assign.is_none() {
            let index = tensors.len();
            scope.tensors.insert(name.clone(), index);
            scope.failed.push(index);
            tensors.push(Tensor {
                name,
                dtype: crate::dtype::Dtype::F32,
                shape: Vec::new(),
                role: Role::Local,
            });
        }
        assign
    }

    fn let_body(
        &mut self,
        stmt: &ast::Stmt,
        def: &ast::KernelDef,
        tensors: &mut Vec<Tensor>,
        scope: &mut Scope,
    ) -> Option<Assign> {
        let name = stmt.output.to_string();
        let mut axes = Vec::new();
        for index in &stmt.indices {
            let (axis, ident) = self.let_axis(stmt, def, index, scope, tensors)?;
            let axis_name = ident.to_string();
            if axes.contains(&axis) {
                self.error(
                    Code::E030,
                    ident.span(),
                    format!("axis `{axis_name}` indexes `{name}` twice"),
                );
                return None;
            }
            axes.push(axis);
        }
        scope.live = axes.clone();
        let (value, ty) = self.expr(&stmt.value, scope, tensors);
        let value = value?;
        let dtype = match ty {
            Ty::Value(dtype) => dtype,
            Ty::Literal { .. } => {
                self.report(
                    Diagnostic::new(
                        Code::E010,
                        stmt.output.span(),
                        format!("`{name}` holds only literals, so it has no dtype"),
                    )
                    .help("name a constant without subscripts, `let scale = 127.0;`, which takes the dtype of its use as a literal does; or write the constant where it is used, or cast it, as in `0.5 as f32`"),
                );
                return None;
            }
            Ty::Mask(_) => {
                self.mask_held(stmt.output.span(), &name);
                return None;
            }
            Ty::Error => return None,
        };
        let value = self.typed(value, dtype, stmt.output.span());
        let shape: Vec<u64> = axes.iter().map(|a| scope.axes[*a].extent).collect();
        let index = tensors.len();
        scope.tensors.insert(name.clone(), index);
        // An intermediate holds one tile over its own axes: it is read as written.
        scope
            .loads
            .insert(index, axes.iter().map(|a| Subscript::Axis(*a)).collect());
        tensors.push(Tensor {
            name,
            dtype,
            shape,
            role: Role::Local,
        });
        Some(Assign {
            output: index,
            axes,
            value,
        })
    }

    /// The axis one subscript of an intermediate's `let` writes over: an axis of the
    /// kernel, or a new one whose extent a tensor read over it gives. A fixed position,
    /// a gather or an affine subscript is reported.
    fn let_axis<'s>(
        &mut self,
        stmt: &'s ast::Stmt,
        def: &ast::KernelDef,
        index: &'s ast::Index,
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> Option<(usize, &'s Ident)> {
        let name = stmt.output.to_string();
        let ident = match index {
            ast::Index::Axis(ident) => ident,
            ast::Index::Const(number) => {
                self.report(
                    Diagnostic::new(
                        Code::E011,
                        number.span,
                        format!(
                            "intermediate `{name}` must be written over axes, not at a fixed position"
                        ),
                    )
                    .help("name an axis, such as `i`"),
                );
                return None;
            }
            ast::Index::Gather(gather) => {
                self.report(
                    Diagnostic::new(
                        Code::E037,
                        gather.tensor.span(),
                        format!("intermediate `{name}` is written through `{}[..]`: scatter is not supported", gather.tensor),
                    )
                    .help("write it over plain axes and gather on the right"),
                );
                return None;
            }
            ast::Index::Affine(affine) => {
                self.report(
                    Diagnostic::new(
                        Code::E011,
                        affine.span,
                        format!("intermediate `{name}` must be written over plain axes"),
                    )
                    .help("name an axis, such as `i`; read shifted windows of it instead"),
                );
                return None;
            }
        };
        let axis_name = ident.to_string();
        let axis = match scope.axes.iter().position(|a| a.name == axis_name) {
            Some(existing) => existing,
            None => {
                let Some((extent, found)) =
                    let_axis_extent(stmt, def, &axis_name, &scope.tensors, tensors)
                else {
                    self.report(
                        Diagnostic::new(
                            Code::E011,
                            ident.span(),
                            format!("no output and no tensor in the kernel is indexed by `{axis_name}`, so the extent of `{name}` along it is unknown"),
                        )
                        .help(
                            format!("read a tensor over `{axis_name}` in the expression, or use an axis of an output"),
                        ),
                    );
                    return None;
                };
                scope.axes.push(Axis {
                    name: axis_name.clone(),
                    extent,
                    reduction: false,
                });
                if found {
                    scope.found.push(scope.axes.len() - 1);
                }
                scope.axes.len() - 1
            }
        };
        Some((axis, ident))
    }
}

/// The extent of a `let`'s new axis `axis`, and whether it was found from a tensor
/// read rather than declared: the extent an output statement's output gives it
/// (declared), else that of the first tensor the `let`'s own expression indexes with
/// it, else that of the first tensor any statement of the kernel reads with it.
fn let_axis_extent(
    stmt: &ast::Stmt,
    def: &ast::KernelDef,
    axis: &str,
    names: &HashMap<String, usize>,
    tensors: &[Tensor],
) -> Option<(u64, bool)> {
    let declared = def
        .body
        .iter()
        .filter(|s| s.let_token.is_none())
        .find_map(|s| {
            let output = def.outputs.iter().find(|p| p.name == s.output)?;
            let dim = s
                .indices
                .iter()
                .position(|i| matches!(i, ast::Index::Axis(a) if a == axis))?;
            output.shape.get(dim).map(|n| n.value)
        });
    if let Some(extent) = declared {
        return Some((extent, false));
    }
    std::iter::once(stmt)
        .chain(&def.body)
        .find_map(|s| reduction_extent(&s.value, axis, names, tensors))
        .map(|extent| (extent, true))
}
