//! The checker: a [`KernelDef`] and a [`Target`] in, a [`CheckedKernel`] or every
//! problem out.
//!
//! Checking runs in two halves. This module checks the kernel itself (names, dtypes,
//! shapes and subscripts, the algorithm's types, what the target's units can compute)
//! and classifies it as elementwise, reduction or matmul. [`crate::schedule`] then
//! checks each schedule against the machine (tiles, staging, capacity, alignment,
//! repeats, cores, events, tails). Both halves push into one [`Diagnostics`], so a run
//! reports everything it found, in source order.

use std::collections::HashMap;

use proc_macro2::{Ident, Span};

use crate::ast::{self, BinOp, KernelDef, TargetRef};
use crate::diag::{Code, Diagnostic, Diagnostics, list, suggestion};
use crate::dtype::Dtype;
use crate::ir::*;
use crate::target::{Target, VectorOp};

/// The functions of the algorithm language, for "did you mean" suggestions.
pub const FUNCTIONS: &[&str] = &[
    "exp", "log", "sqrt", "rsqrt", "tanh", "recip", "sigmoid", "abs", "neg", "relu", "min", "max",
    "select", "sum",
];

/// The most elements a tensor or a statement's loop nest may have: 2^48, more than any
/// NPU's memory holds, and few enough that no tile, buffer or repeat count of the plan
/// can overflow a `u64`.
pub const MAX_ELEMENTS: u64 = 1 << 48;

fn too_many_elements(extents: &[u64]) -> bool {
    let elements = extents
        .iter()
        .try_fold(1u64, |n, extent| n.checked_mul((*extent).max(1)));
    elements.is_none_or(|elements| elements > MAX_ELEMENTS)
}

/// The most generated variants a kernel may ask for: each is compiled and simulated.
pub const MAX_VARIANTS: u64 = 64;

/// Checks a parsed kernel against `target`.
pub fn check(def: &KernelDef, target: &Target) -> Result<CheckedKernel, Diagnostics> {
    let mut cx = Checker {
        target,
        diagnostics: Diagnostics::default(),
        untyped: Vec::new(),
    };
    let kernel = cx.kernel(def);
    let mut diagnostics = cx.diagnostics;
    let kernel = kernel.map(|mut kernel| {
        crate::schedule::check_all(def, &mut kernel, &mut diagnostics);
        kernel
    });
    diagnostics.sort();
    match kernel {
        Some(kernel) if diagnostics.is_empty() => Ok(kernel),
        _ => Err(diagnostics),
    }
}

/// Finds the kernel's target: a preset by name, or a file read by `read_file` (the
/// caller's I/O; the path is as written). Reports a missing, repeated or unknown target.
pub fn resolve_target(
    def: &KernelDef,
    read_file: impl FnOnce(&str) -> Result<String, String>,
) -> Result<Target, Diagnostics> {
    let mut diagnostics = Diagnostics::default();
    for extra in def.targets.iter().skip(1) {
        diagnostics.push(
            Diagnostic::new(Code::E030, extra.span(), "a kernel has one target")
                .help("remove this `target` line, or check the kernel once per target with `npu::check_source`"),
        );
    }
    let target = match def.targets.first() {
        None => {
            diagnostics.push(
                Diagnostic::new(
                    Code::E031,
                    def.kernel_span,
                    format!("kernel `{}` names no target", def.name),
                )
                .help(format!(
                    "add a line such as `target npueval_demo;` after the kernel body; presets: {}",
                    list(&Target::preset_names())
                )),
            );
            None
        }
        Some(TargetRef::Preset(name)) => {
            let text = name.to_string();
            let target = Target::preset(&text);
            if target.is_none() {
                diagnostics.push(
                    Diagnostic::new(Code::E005, name.span(), format!("unknown target `{text}`"))
                        .help(format!(
                            "{} or give a target file as `target \"path/to/target.toml\";`",
                            suggestion(&text, &Target::preset_names())
                        )),
                );
            }
            target
        }
        Some(TargetRef::File { path, span }) => match read_file(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Target::from_toml(&text).map_err(|e| e.to_string()))
        {
            Ok(target) => Some(target),
            Err(error) => {
                diagnostics.push(Diagnostic::new(
                    Code::E005,
                    *span,
                    format!("cannot use target file `{path}`: {}", first_line(&error)),
                ));
                None
            }
        },
    };
    match target {
        Some(target) if diagnostics.is_empty() => Ok(target),
        _ => Err(diagnostics),
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The type of an expression while checking.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Value(Dtype),
    /// A comparison's result, only usable as `select`'s condition.
    Mask(Dtype),
    /// A literal whose dtype comes from the other operand.
    Literal {
        is_float: bool,
    },
    /// Already reported; stay quiet about it.
    Error,
}

struct Checker<'a> {
    target: &'a Target,
    diagnostics: Diagnostics,
    /// Tensors whose dtype is unknown (already reported): their loads and stores are
    /// not type-checked, so that one unknown dtype is one error.
    untyped: Vec<String>,
}

/// Names in scope while checking the body.
struct Scope {
    tensors: HashMap<String, usize>,
    axes: Vec<Axis>,
    /// Axes usable at the current point: output axes plus enclosing reduction axes.
    live: Vec<usize>,
    /// The subscripts of each input's first load: a staged input holds one tile per
    /// iteration, so every load of it must read the same elements.
    loads: HashMap<usize, Vec<Subscript>>,
}

impl Checker<'_> {
    fn error(&mut self, code: Code, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.diagnostics.push(Diagnostic::new(code, span, message));
        self.diagnostics.list.last_mut().expect("just pushed")
    }

    fn kernel(&mut self, def: &KernelDef) -> Option<CheckedKernel> {
        let mut tensors = Vec::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        let params = def
            .inputs
            .iter()
            .map(|p| (p, Role::Input))
            .chain(def.outputs.iter().map(|p| (p, Role::Output)));
        for (param, role) in params {
            let name = param.name.to_string();
            if names.contains_key(&name) {
                self.error(
                    Code::E030,
                    param.name.span(),
                    format!("tensor `{name}` is declared twice"),
                )
                .help = Some("give each tensor its own name".into());
                continue;
            }
            let dtype = self.dtype(&param.dtype).unwrap_or_else(|| {
                self.untyped.push(name.clone());
                Dtype::F32
            });
            for dim in &param.shape {
                if dim.value == 0 {
                    self.error(
                        Code::E011,
                        dim.span,
                        format!("tensor `{name}` has an extent of 0"),
                    )
                    .help = Some("every extent must be at least 1".into());
                }
            }
            let shape: Vec<u64> = param.shape.iter().map(|dim| dim.value).collect();
            if too_many_elements(&shape) {
                self.error(
                    Code::E011,
                    param.name.span(),
                    format!("tensor `{name}` has more than {MAX_ELEMENTS} elements (2^48)"),
                )
                .help = Some(
                    "no NPU memory holds it; give the kernel a smaller part of the work".into(),
                );
            }
            names.insert(name.clone(), tensors.len());
            tensors.push(Tensor {
                name,
                dtype,
                shape: param.shape.iter().map(|d| d.value).collect(),
                role,
            });
        }
        let mut scope = Scope {
            tensors: names,
            axes: Vec::new(),
            live: Vec::new(),
            loads: HashMap::new(),
        };
        let mut body = Vec::new();
        let mut assigned: HashMap<usize, Span> = HashMap::new();
        for stmt in &def.body {
            if let Some(assign) = self.statement(stmt, &tensors, &mut scope, &mut assigned, &body) {
                body.push(assign);
            }
        }
        for param in &def.outputs {
            let name = param.name.to_string();
            if let Some(&index) = scope.tensors.get(&name)
                && !assigned.contains_key(&index)
            {
                self.error(
                    Code::E031,
                    param.name.span(),
                    format!("output `{name}` is never assigned"),
                )
                .help = Some(format!(
                    "add a statement such as `{name}[i] = ...;` to the kernel body"
                ));
            }
        }
        if def.schedules.is_empty() {
            self.error(Code::E031, def.name.span(), format!("kernel `{}` has no schedule", def.name))
                .help = Some("add a block such as `schedule hand { split i by 2048; stage a, y in ub depth 2; }`".into());
        }
        self.variants(def);
        let class = self.classify(&body, &tensors, &scope.axes);
        if !self.diagnostics.is_empty() {
            return None;
        }
        let class = class?;
        self.units(def, &body, &class);
        if !self.diagnostics.is_empty() {
            return None;
        }
        Some(CheckedKernel {
            name: def.name.to_string(),
            doc: def.doc.join("\n"),
            target: self.target.clone(),
            tensors,
            axes: scope.axes,
            body,
            class,
            schedules: Vec::new(),
            source: crate::print::kernel(def),
        })
    }

    /// At most one `variants` line, asking for between 1 and [`MAX_VARIANTS`] schedules.
    fn variants(&mut self, def: &KernelDef) {
        for repeated in def.variants.iter().skip(1) {
            self.error(Code::E030, repeated.keyword, "duplicate `variants` line")
                .help = Some("keep one `variants N from \"FILE\";` line per kernel".into());
        }
        for variants in &def.variants {
            let count = variants.count.value;
            if count == 0 || count > MAX_VARIANTS {
                self.error(
                    Code::E012,
                    variants.count.span,
                    format!("`variants {count}` is outside 1..={MAX_VARIANTS}"),
                )
                .help = Some(format!("ask for between 1 and {MAX_VARIANTS} variants"));
            }
        }
    }

    fn dtype(&mut self, ident: &Ident) -> Option<Dtype> {
        let name = ident.to_string();
        let dtype = Dtype::from_name(&name);
        if dtype.is_none() {
            let help = suggestion(&name, &Dtype::NAMES);
            self.error(Code::E004, ident.span(), format!("unknown dtype `{name}`"))
                .help = Some(help);
        }
        dtype
    }

    fn statement(
        &mut self,
        stmt: &ast::Stmt,
        tensors: &[Tensor],
        scope: &mut Scope,
        assigned: &mut HashMap<usize, Span>,
        body: &[Assign],
    ) -> Option<Assign> {
        let name = stmt.output.to_string();
        let Some(&output) = scope.tensors.get(&name) else {
            let outputs: Vec<&str> = tensors
                .iter()
                .filter(|t| t.role == Role::Output)
                .map(|t| t.name.as_str())
                .collect();
            let help = suggestion(&name, &outputs);
            self.error(
                Code::E002,
                stmt.output.span(),
                format!("unknown output `{name}`"),
            )
            .help = Some(help);
            return None;
        };
        let tensor = &tensors[output];
        if tensor.role == Role::Input {
            self.error(
                Code::E010,
                stmt.output.span(),
                format!("`{name}` is an input and cannot be assigned"),
            )
            .help = Some("assign to an output declared after `->`".into());
            return None;
        }
        if let Some(_first) = assigned.insert(output, stmt.output.span()) {
            self.error(
                Code::E030,
                stmt.output.span(),
                format!("output `{name}` is assigned twice"),
            )
            .help = Some("assign each output in one statement".into());
            return None;
        }
        if stmt.indices.len() != tensor.shape.len() {
            self.error(
                Code::E011,
                stmt.output.span(),
                format!(
                    "`{name}` has rank {} but is written with {}",
                    tensor.shape.len(),
                    subscripts(stmt.indices.len())
                ),
            )
            .help = Some(format!(
                "write `{name}` with {}, one per dimension",
                subscripts(tensor.shape.len())
            ));
            return None;
        }
        let mut axes = Vec::new();
        for (dim, index) in stmt.indices.iter().enumerate() {
            let ast::Index::Axis(ident) = index else {
                let ast::Index::Const(number) = index else {
                    unreachable!()
                };
                self.error(
                    Code::E011,
                    number.span,
                    format!("output `{name}` must be written over axes, not at a fixed position"),
                )
                .help = Some("name an axis, such as `i`".into());
                return None;
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
                    axes.push(existing);
                }
                None => {
                    scope.axes.push(Axis {
                        name: axis_name,
                        extent,
                        reduction: false,
                    });
                    axes.push(scope.axes.len() - 1);
                }
            }
        }
        if let Some(first) = body.first()
            && first.axes != axes
        {
            let expected: Vec<&str> = first
                .axes
                .iter()
                .map(|a| scope.axes[*a].name.as_str())
                .collect();
            self.error(
                Code::E011,
                stmt.output.span(),
                format!(
                    "every output must be written over the same axes, `{}`",
                    expected.join(", ")
                ),
            )
            .help = Some("give all outputs the same shape and subscripts".into());
            return None;
        }
        scope.live = axes.clone();
        let (value, ty) = self.expr(&stmt.value, scope, tensors);
        let value = value?;
        let ty = if self.untyped.contains(&name) {
            Ty::Error
        } else {
            ty
        };
        match ty {
            Ty::Value(dtype) if dtype != tensor.dtype => {
                let (span, what) = (stmt.output.span(), tensor.dtype);
                self.error(
                    Code::E010,
                    span,
                    format!("`{name}` is {what} but the expression is {dtype}"),
                )
                .help = Some(format!("cast the expression with `as {what}`"));
                None
            }
            Ty::Mask(_) => {
                self.error(
                    Code::E010,
                    stmt.output.span(),
                    format!("`{name}` cannot hold a comparison's mask"),
                )
                .help = Some("use the comparison in `select(cond, a, b)`".into());
                None
            }
            Ty::Error => None,
            Ty::Value(_) | Ty::Literal { .. } => {
                let value = resolve_literals(value, tensor.dtype);
                let mut space_axes = axes.clone();
                value.walk(&mut |node| {
                    if let Expr::Reduce { axis, .. } = node
                        && !space_axes.contains(axis)
                    {
                        space_axes.push(*axis);
                    }
                });
                let space: Vec<u64> = space_axes.iter().map(|a| scope.axes[*a].extent).collect();
                // A tensor too large is reported already, and makes its loops too large.
                if too_many_elements(&space) && !tensors.iter().any(|t| too_many_elements(&t.shape))
                {
                    self.error(
                        Code::E011,
                        stmt.output.span(),
                        format!("`{name}` is computed over more than {MAX_ELEMENTS} elements (2^48), output and reduction axes together"),
                    )
                    .help = Some("give the kernel a smaller part of the work".into());
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

    fn expr(
        &mut self,
        expr: &ast::Expr,
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        match expr {
            ast::Expr::Literal {
                value, is_float, ..
            } => (
                Some(Expr::Const {
                    value: *value,
                    dtype: if *is_float { Dtype::F32 } else { Dtype::I32 },
                }),
                Ty::Literal {
                    is_float: *is_float,
                },
            ),
            ast::Expr::Load { tensor, indices } => self.load(tensor, indices, scope, tensors),
            ast::Expr::Neg { arg, .. } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                self.unary_result(UnaryOp::Neg, arg, ty, expr_span(expr))
            }
            ast::Expr::Cast { arg, dtype } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                let to = self.dtype(dtype);
                match (arg, ty, to) {
                    (Some(arg), Ty::Value(_) | Ty::Literal { .. }, Some(to)) => {
                        let arg = resolve_literals(arg, to);
                        (
                            Some(Expr::Cast {
                                arg: Box::new(arg),
                                dtype: to,
                            }),
                            Ty::Value(to),
                        )
                    }
                    (_, Ty::Mask(_), Some(_)) => {
                        self.error(
                            Code::E010,
                            dtype.span(),
                            "a comparison's mask cannot be cast",
                        )
                        .help =
                            Some("use `select(cond, 1.0, 0.0)` to turn a mask into numbers".into());
                        (None, Ty::Error)
                    }
                    _ => (None, Ty::Error),
                }
            }
            ast::Expr::Binary { op, span, lhs, rhs } => {
                let (l, lt) = self.expr(lhs, scope, tensors);
                let (r, rt) = self.expr(rhs, scope, tensors);
                self.binary(*op, *span, (l, lt), (r, rt))
            }
            ast::Expr::Call { func, axis, args } => {
                self.call(func, axis.as_ref(), args, scope, tensors)
            }
        }
    }

    fn load(
        &mut self,
        ident: &Ident,
        indices: &[ast::Index],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let name = ident.to_string();
        let Some(&index) = scope.tensors.get(&name) else {
            let mut candidates: Vec<&str> = tensors.iter().map(|t| t.name.as_str()).collect();
            candidates.sort();
            let help = suggestion(&name, &candidates);
            self.error(Code::E002, ident.span(), format!("unknown tensor `{name}`"))
                .help = Some(help);
            return (None, Ty::Error);
        };
        let tensor = &tensors[index];
        if tensor.role == Role::Output {
            self.error(
                Code::E010,
                ident.span(),
                format!("`{name}` is an output and cannot be read"),
            )
            .help = Some("read inputs only; compute the value again or make it an input".into());
            return (None, Ty::Error);
        }
        if indices.len() != tensor.shape.len() {
            self.error(
                Code::E011,
                ident.span(),
                format!(
                    "`{name}` has rank {} ({:?}) but is read with {}",
                    tensor.shape.len(),
                    tensor.shape,
                    subscripts(indices.len())
                ),
            )
            .help = Some(format!(
                "read `{name}` with {}, one per dimension",
                subscripts(tensor.shape.len())
            ));
            return (None, Ty::Error);
        }
        let mut subscripts = Vec::new();
        let mut ok = true;
        for (dim, index) in indices.iter().enumerate() {
            let extent = tensor.shape[dim];
            match index {
                ast::Index::Const(number) => {
                    if number.value >= extent {
                        self.error(Code::E012, number.span, format!("index {} is out of range for `{name}`, which has {extent} elements along dimension {dim}", number.value))
                            .help = Some(format!("use an index below {extent}"));
                        ok = false;
                    }
                    subscripts.push(Subscript::Const(number.value));
                }
                ast::Index::Axis(axis_ident) => {
                    let axis_name = axis_ident.to_string();
                    let found = scope
                        .live
                        .iter()
                        .copied()
                        .find(|a| scope.axes[*a].name == axis_name);
                    let Some(axis) = found else {
                        let live: Vec<&str> = scope
                            .live
                            .iter()
                            .map(|a| scope.axes[*a].name.as_str())
                            .collect();
                        let help = if scope.axes.iter().any(|a| a.name == axis_name) {
                            format!(
                                "`{axis_name}` is a reduction axis and only exists inside its `sum[{axis_name}](...)`"
                            )
                        } else {
                            suggestion(&axis_name, &live)
                        };
                        self.error(
                            Code::E002,
                            axis_ident.span(),
                            format!("unknown axis `{axis_name}`"),
                        )
                        .help = Some(help);
                        ok = false;
                        continue;
                    };
                    let axis_extent = scope.axes[axis].extent;
                    if axis_extent > extent {
                        self.error(
                            Code::E012,
                            axis_ident.span(),
                            format!("axis `{axis_name}` runs to {axis_extent} but `{name}` has {extent} elements along dimension {dim}"),
                        )
                        .help = Some(format!("give `{name}` extent {axis_extent} along dimension {dim}"));
                        ok = false;
                    } else if axis_extent < extent {
                        self.error(
                            Code::E011,
                            axis_ident.span(),
                            format!("`{name}` has {extent} elements along dimension {dim} but axis `{axis_name}` covers {axis_extent}"),
                        )
                        .help = Some(format!("give `{name}` extent {axis_extent} along dimension {dim}"));
                        ok = false;
                    }
                    subscripts.push(Subscript::Axis(axis));
                }
            }
        }
        if !ok {
            return (None, Ty::Error);
        }
        if let Some(first) = scope.loads.get(&index)
            && *first != subscripts
        {
            let show = |subscripts: &[Subscript]| {
                let parts: Vec<String> = subscripts
                    .iter()
                    .map(|s| match s {
                        Subscript::Axis(a) => scope.axes[*a].name.clone(),
                        Subscript::Const(c) => c.to_string(),
                    })
                    .collect();
                format!("{name}[{}]", parts.join(", "))
            };
            let message = format!(
                "`{name}` is read as `{}` here but as `{}` before",
                show(&subscripts),
                show(first)
            );
            self.error(Code::E011, ident.span(), message).help = Some(format!(
                "a staged tensor holds one tile at a time: read `{name}` with the same subscripts everywhere, or pass the other view as another input"
            ));
            return (None, Ty::Error);
        }
        scope
            .loads
            .entry(index)
            .or_insert_with(|| subscripts.clone());
        let ty = if self.untyped.contains(&tensor.name) {
            Ty::Error
        } else {
            Ty::Value(tensor.dtype)
        };
        (
            Some(Expr::Load {
                tensor: index,
                subscripts,
                dtype: tensor.dtype,
            }),
            ty,
        )
    }

    fn unary_result(
        &mut self,
        op: UnaryOp,
        arg: Option<Expr>,
        ty: Ty,
        span: Span,
    ) -> (Option<Expr>, Ty) {
        let (Some(arg), Ty::Value(_) | Ty::Literal { .. }) = (arg, ty) else {
            if let Ty::Mask(_) = ty {
                self.error(
                    Code::E010,
                    span,
                    format!("`{}` takes a number, not a comparison's mask", op.name()),
                );
            }
            return (None, Ty::Error);
        };
        let dtype = match ty {
            Ty::Value(dtype) => dtype,
            _ => Dtype::F32,
        };
        if op.float_only() && !dtype.is_float() {
            self.error(
                Code::E010,
                span,
                format!(
                    "`{}` needs a floating-point operand but got {dtype}",
                    op.name()
                ),
            )
            .help = Some(format!("cast the operand first: `{}(x as f32)`", op.name()));
            return (None, Ty::Error);
        }
        let arg = resolve_literals(arg, dtype);
        (
            Some(Expr::Unary {
                op,
                arg: Box::new(arg),
                dtype,
            }),
            Ty::Value(dtype),
        )
    }

    fn binary(
        &mut self,
        op: BinOp,
        span: Span,
        l: (Option<Expr>, Ty),
        r: (Option<Expr>, Ty),
    ) -> (Option<Expr>, Ty) {
        let dtype = match self.unify(span, op.symbol(), l.1, r.1) {
            Some(dtype) => dtype,
            None => return (None, Ty::Error),
        };
        let (Some(lhs), Some(rhs)) = (l.0, r.0) else {
            return (None, Ty::Error);
        };
        let (lhs, rhs) = (
            Box::new(resolve_literals(lhs, dtype)),
            Box::new(resolve_literals(rhs, dtype)),
        );
        let both_literals = matches!((l.1, r.1), (Ty::Literal { .. }, Ty::Literal { .. }));
        let arithmetic = |op| {
            let ty = if both_literals { l.1 } else { Ty::Value(dtype) };
            (
                Some(Expr::Binary {
                    op,
                    lhs: lhs.clone(),
                    rhs: rhs.clone(),
                    dtype,
                }),
                ty,
            )
        };
        let compare = |op| {
            (
                Some(Expr::Compare {
                    op,
                    lhs: lhs.clone(),
                    rhs: rhs.clone(),
                    dtype,
                }),
                Ty::Mask(dtype),
            )
        };
        match op {
            BinOp::Add => arithmetic(BinaryOp::Add),
            BinOp::Sub => arithmetic(BinaryOp::Sub),
            BinOp::Mul => arithmetic(BinaryOp::Mul),
            BinOp::Div => arithmetic(BinaryOp::Div),
            BinOp::Lt => compare(CompareOp::Lt),
            BinOp::Le => compare(CompareOp::Le),
            BinOp::Gt => compare(CompareOp::Gt),
            BinOp::Ge => compare(CompareOp::Ge),
            BinOp::Eq => compare(CompareOp::Eq),
            BinOp::Ne => compare(CompareOp::Ne),
        }
    }

    /// The common dtype of two operands, or a type-mismatch error at `span`.
    fn unify(&mut self, span: Span, what: &str, l: Ty, r: Ty) -> Option<Dtype> {
        match (l, r) {
            (Ty::Error, _) | (_, Ty::Error) => None,
            (Ty::Mask(_), _) | (_, Ty::Mask(_)) => {
                self.error(
                    Code::E010,
                    span,
                    format!("`{what}` takes numbers, not a comparison's mask"),
                )
                .help = Some("use the comparison as the first argument of `select`".into());
                None
            }
            (Ty::Value(a), Ty::Value(b)) if a == b => Some(a),
            (Ty::Value(a), Ty::Value(b)) => {
                self.error(Code::E010, span, format!("`{what}` mixes {a} and {b}"))
                    .help = Some(format!("cast one side, e.g. `(x as {})`", wider(a, b)));
                None
            }
            (Ty::Value(d), Ty::Literal { is_float }) | (Ty::Literal { is_float }, Ty::Value(d)) => {
                if is_float && !d.is_float() {
                    self.error(
                        Code::E010,
                        span,
                        format!("`{what}` mixes {d} and a floating-point literal"),
                    )
                    .help = Some(
                        "write an integer literal, or cast the other side to a float dtype".into(),
                    );
                    return None;
                }
                Some(d)
            }
            (Ty::Literal { is_float: a }, Ty::Literal { is_float: b }) => {
                Some(if a || b { Dtype::F32 } else { Dtype::I32 })
            }
        }
    }

    fn call(
        &mut self,
        func: &Ident,
        axis: Option<&Ident>,
        args: &[ast::Expr],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let name = func.to_string();
        if let Some(axis) = axis {
            return self.reduce(func, axis, args, scope, tensors);
        }
        let unary = UnaryOp::ALL.into_iter().find(|op| op.name() == name);
        let arity = match name.as_str() {
            _ if unary.is_some() => 1,
            "min" | "max" => 2,
            "select" => 3,
            "sum" => {
                self.error(
                    Code::E003,
                    func.span(),
                    "`sum` needs the axis it reduces over",
                )
                .help = Some("write `sum[k](x[i, k])`".into());
                return (None, Ty::Error);
            }
            _ => {
                let help = suggestion(&name, FUNCTIONS);
                self.error(
                    Code::E003,
                    func.span(),
                    format!("unknown function `{name}`"),
                )
                .help = Some(help);
                // The arguments may hold mistakes of their own: report those too.
                for arg in args {
                    self.expr(arg, scope, tensors);
                }
                return (None, Ty::Error);
            }
        };
        if args.len() != arity {
            let plural = if arity == 1 { "" } else { "s" };
            self.error(
                Code::E003,
                func.span(),
                format!(
                    "`{name}` takes {arity} argument{plural} but was given {}",
                    args.len()
                ),
            );
            return (None, Ty::Error);
        }
        let mut typed: Vec<(Option<Expr>, Ty)> =
            args.iter().map(|a| self.expr(a, scope, tensors)).collect();
        if let Some(op) = unary {
            let (arg, ty) = typed.remove(0);
            return self.unary_result(op, arg, ty, func.span());
        }
        if name == "select" {
            let otherwise = typed.pop().expect("arity 3");
            let then = typed.pop().expect("arity 3");
            let cond = typed.pop().expect("arity 3");
            if !matches!(cond.1, Ty::Mask(_) | Ty::Error) {
                self.error(
                    Code::E010,
                    expr_span(&args[0]),
                    "`select` needs a comparison as its condition",
                )
                .help = Some("write `select(a[i] > b[i], a[i], b[i])`".into());
                return (None, Ty::Error);
            }
            let Some(dtype) = self.unify(func.span(), "select", then.1, otherwise.1) else {
                return (None, Ty::Error);
            };
            let (Some(c), Some(t), Some(o)) = (cond.0, then.0, otherwise.0) else {
                return (None, Ty::Error);
            };
            let ty = if matches!(
                (then.1, otherwise.1),
                (Ty::Literal { .. }, Ty::Literal { .. })
            ) {
                then.1
            } else {
                Ty::Value(dtype)
            };
            let expr = Expr::Select {
                cond: Box::new(c),
                then: Box::new(resolve_literals(t, dtype)),
                otherwise: Box::new(resolve_literals(o, dtype)),
                dtype,
            };
            return (Some(expr), ty);
        }
        let rhs = typed.pop().expect("arity 2");
        let lhs = typed.pop().expect("arity 2");
        let Some(dtype) = self.unify(func.span(), &name, lhs.1, rhs.1) else {
            return (None, Ty::Error);
        };
        let (Some(l), Some(r)) = (lhs.0, rhs.0) else {
            return (None, Ty::Error);
        };
        let op = if name == "min" {
            BinaryOp::Min
        } else {
            BinaryOp::Max
        };
        let expr = Expr::Binary {
            op,
            lhs: Box::new(resolve_literals(l, dtype)),
            rhs: Box::new(resolve_literals(r, dtype)),
            dtype,
        };
        (Some(expr), Ty::Value(dtype))
    }

    fn reduce(
        &mut self,
        func: &Ident,
        axis_ident: &Ident,
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
        let axis_name = axis_ident.to_string();
        if scope.live.iter().any(|a| scope.axes[*a].name == axis_name) {
            self.error(
                Code::E030,
                axis_ident.span(),
                format!("axis `{axis_name}` is already in use here"),
            )
            .help = Some("reduce over a new axis name, such as `k`".into());
            return (None, Ty::Error);
        }
        if scope.live.iter().any(|a| scope.axes[*a].reduction) {
            self.error(Code::E003, func.span(), "reductions cannot be nested")
                .help = Some("reduce over one axis per expression; split the kernel in two".into());
            return (None, Ty::Error);
        }
        let Some(extent) = reduction_extent(&args[0], &axis_name, &scope.tensors, tensors) else {
            self.error(Code::E011, axis_ident.span(), format!("no tensor in the body of `{name}` is indexed by `{axis_name}`, so its extent is unknown"))
                .help = Some(format!("index an input by `{axis_name}`, as in `{name}[{axis_name}](x[i, {axis_name}])`"));
            return (None, Ty::Error);
        };
        let axis = match scope.axes.iter().position(|a| a.name == axis_name) {
            Some(existing)
                if scope.axes[existing].reduction && scope.axes[existing].extent == extent =>
            {
                existing
            }
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
        scope.live.push(axis);
        let (body, ty) = self.expr(&args[0], scope, tensors);
        scope.live.pop();
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
        let body = body.map(Box::new);
        (
            body.map(|body| Expr::Reduce {
                op,
                axis,
                body,
                dtype,
            }),
            Ty::Value(dtype),
        )
    }

    /// Sorts the kernel into a class and reports a matmul on a target without a cube.
    fn classify(
        &mut self,
        body: &[Assign],
        tensors: &[Tensor],
        axes: &[Axis],
    ) -> Option<KernelClass> {
        let mut has_reduce = false;
        for assign in body {
            assign
                .value
                .walk(&mut |node| has_reduce |= matches!(node, Expr::Reduce { .. }));
        }
        if !has_reduce {
            return Some(KernelClass::Elementwise);
        }
        if let [assign] = body
            && let Some(shape) = matmul_shape(assign, tensors, axes)
        {
            return Some(KernelClass::Matmul(shape));
        }
        Some(KernelClass::Reduction)
    }

    /// Reports dtypes or units the target cannot compute.
    fn units(&mut self, def: &KernelDef, body: &[Assign], class: &KernelClass) {
        let target = self.target;
        if let KernelClass::Matmul(mm) = class {
            let (stmt, assign) = (&def.body[0], &body[0]);
            let mut reduce = None;
            assign.value.walk(&mut |node| {
                if let Expr::Reduce { .. } = node {
                    reduce = reduce.or(Some(node));
                }
            });
            let span = node_span(stmt, assign, reduce);
            match &target.cube {
                None => {
                    self.error(
                        Code::E026,
                        span,
                        format!(
                            "target `{}` has no cube unit, which a matmul needs",
                            target.name
                        ),
                    )
                    .help = Some("use a target with a cube, such as `ascend910b`".into());
                }
                Some(cube) => {
                    for tensor in [mm.a, mm.b] {
                        let dtype =
                            matmul_input_dtype(&body[0].value, tensor).unwrap_or(Dtype::F32);
                        if !cube.dtypes.contains(&dtype) {
                            let names: Vec<&str> = cube.dtypes.iter().map(|d| d.name()).collect();
                            let mut load = None;
                            assign.value.walk(&mut |node| {
                                if let Expr::Load { tensor: t, .. } = node
                                    && *t == tensor
                                {
                                    load = load.or(Some(node));
                                }
                            });
                            let span = node_span(stmt, assign, load);
                            self.error(Code::E026, span, format!("the cube of `{}` multiplies {} but this matmul feeds it {dtype}", target.name, list(&names)))
                                .help = Some(format!("declare the inputs as {}", names.first().copied().unwrap_or("f16")));
                            break;
                        }
                    }
                }
            }
            return;
        }
        let names: Vec<&str> = target.vector.dtypes.iter().map(|d| d.name()).collect();
        for (assign, stmt) in body.iter().zip(&def.body) {
            let mut bad = None;
            assign.value.walk(&mut |node| {
                let dtype = match node {
                    Expr::Load { .. } | Expr::Const { .. } | Expr::Cast { .. } => return,
                    other => other.dtype(),
                };
                if bad.is_none() && !target.vector.dtypes.contains(&dtype) {
                    bad = Some((dtype, node));
                }
            });
            // A reduction accumulates in its accumulator dtype.
            assign.value.walk(&mut |node| {
                if let Expr::Reduce { dtype, .. } = node {
                    let accumulator = dtype.accumulator();
                    if bad.is_none()
                        && !target.vector.dtypes.contains(&accumulator)
                        && !target.vector.accumulators.contains(&accumulator)
                    {
                        bad = Some((accumulator, node));
                    }
                }
            });
            if let Some((dtype, node)) = bad {
                let op = op_name(node);
                self.error(
                    Code::E026,
                    node_span(stmt, assign, Some(node)),
                    format!(
                        "the vector unit of `{}` cannot compute `{op}` in {dtype}",
                        target.name
                    ),
                )
                .help = Some(format!(
                    "it computes {}; cast the operands with `as`",
                    list(&names)
                ));
            }
        }
    }
}

fn op_name(node: &Expr) -> &'static str {
    match node {
        Expr::Unary { op, .. } => op.name(),
        Expr::Binary { op, .. } => match op {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
        },
        Expr::Compare { .. } => "comparison",
        Expr::Select { .. } => "select",
        Expr::Reduce { op, .. } => match op {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
        },
        Expr::Load { .. } | Expr::Const { .. } | Expr::Cast { .. } => "load",
    }
}

/// The vector operation (for costs) an expression node issues.
pub fn vector_op(node: &Expr) -> Option<VectorOp> {
    Some(match node {
        Expr::Unary { op, .. } => op.vector_op(),
        Expr::Binary { op, .. } => op.vector_op(),
        Expr::Compare { .. } => VectorOp::Cmp,
        Expr::Select { .. } => VectorOp::Select,
        Expr::Cast { .. } => VectorOp::Cast,
        Expr::Reduce { .. } => VectorOp::Reduce,
        Expr::Load { .. } | Expr::Const { .. } => return None,
    })
}

/// The span a diagnostic about a whole expression points at.
fn expr_span(expr: &ast::Expr) -> Span {
    match expr {
        ast::Expr::Load { tensor, .. } => tensor.span(),
        ast::Expr::Literal { span, .. }
        | ast::Expr::Neg { span, .. }
        | ast::Expr::Binary { span, .. } => *span,
        ast::Expr::Call { func, .. } => func.span(),
        ast::Expr::Cast { dtype, .. } => dtype.span(),
    }
}

/// The token a diagnostic about a node of a checked statement points at, or the
/// statement's output when there is no node.
///
/// Checking turns every syntax node into one checked node with its children in the same
/// order (parentheses make no node), so the n-th node of the checked expression in
/// pre-order is the n-th of the syntax tree.
fn node_span(stmt: &ast::Stmt, assign: &Assign, node: Option<&Expr>) -> Span {
    let mut checked = Vec::new();
    assign.value.walk(&mut |n| checked.push(n));
    let mut syntax = Vec::new();
    ast_preorder(&stmt.value, &mut syntax);
    node.and_then(|node| checked.iter().position(|n| std::ptr::eq(*n, node)))
        .filter(|_| checked.len() == syntax.len())
        .and_then(|index| syntax.get(index))
        .map_or(stmt.output.span(), |expr| expr_span(expr))
}

fn ast_preorder<'a>(expr: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    out.push(expr);
    match expr {
        ast::Expr::Load { .. } | ast::Expr::Literal { .. } => {}
        ast::Expr::Neg { arg, .. } | ast::Expr::Cast { arg, .. } => ast_preorder(arg, out),
        ast::Expr::Binary { lhs, rhs, .. } => {
            ast_preorder(lhs, out);
            ast_preorder(rhs, out);
        }
        ast::Expr::Call { args, .. } => args.iter().for_each(|arg| ast_preorder(arg, out)),
    }
}

/// Gives unresolved literals in `expr` the dtype their context settled on.
fn resolve_literals(expr: Expr, dtype: Dtype) -> Expr {
    match expr {
        Expr::Const { value, .. } => Expr::Const {
            value: dtype.round(value),
            dtype,
        },
        Expr::Binary {
            op,
            lhs,
            rhs,
            dtype: d,
        } if is_literal_tree(&lhs) && is_literal_tree(&rhs) && d != dtype => Expr::Binary {
            op,
            lhs: Box::new(resolve_literals(*lhs, dtype)),
            rhs: Box::new(resolve_literals(*rhs, dtype)),
            dtype,
        },
        Expr::Select {
            cond,
            then,
            otherwise,
            dtype: d,
        } if is_literal_tree(&then) && is_literal_tree(&otherwise) && d != dtype => Expr::Select {
            cond,
            then: Box::new(resolve_literals(*then, dtype)),
            otherwise: Box::new(resolve_literals(*otherwise, dtype)),
            dtype,
        },
        other => other,
    }
}

fn is_literal_tree(expr: &Expr) -> bool {
    match expr {
        Expr::Const { .. } => true,
        Expr::Binary { lhs, rhs, .. } => is_literal_tree(lhs) && is_literal_tree(rhs),
        _ => false,
    }
}

/// "1 subscript", "2 subscripts".
fn subscripts(count: usize) -> String {
    if count == 1 {
        "1 subscript".into()
    } else {
        format!("{count} subscripts")
    }
}

fn wider(a: Dtype, b: Dtype) -> Dtype {
    if a.size() >= b.size() { a } else { b }
}

/// The extent of a reduction axis: the extent of the first tensor dimension it indexes.
fn reduction_extent(
    expr: &ast::Expr,
    axis: &str,
    names: &HashMap<String, usize>,
    tensors: &[Tensor],
) -> Option<u64> {
    match expr {
        ast::Expr::Load { tensor, indices } => {
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
        ast::Expr::Neg { arg, .. } | ast::Expr::Cast { arg, .. } => {
            reduction_extent(arg, axis, names, tensors)
        }
        ast::Expr::Binary { lhs, rhs, .. } => reduction_extent(lhs, axis, names, tensors)
            .or_else(|| reduction_extent(rhs, axis, names, tensors)),
        ast::Expr::Call { args, .. } => args
            .iter()
            .find_map(|a| reduction_extent(a, axis, names, tensors)),
    }
}

/// Recognises `c[m, n] = sum[k](a[m, k] * b[k, n])`, with casts allowed around the
/// operands and around the sum.
fn matmul_shape(assign: &Assign, tensors: &[Tensor], axes: &[Axis]) -> Option<MatmulShape> {
    let mut value = &assign.value;
    while let Expr::Cast { arg, .. } = value {
        value = arg;
    }
    let Expr::Reduce {
        op: ReduceOp::Sum,
        axis: k,
        body,
        ..
    } = value
    else {
        return None;
    };
    let Expr::Binary {
        op: BinaryOp::Mul,
        lhs,
        rhs,
        ..
    } = &**body
    else {
        return None;
    };
    let (a, a_subs) = strip_casts_to_load(lhs)?;
    let (b, b_subs) = strip_casts_to_load(rhs)?;
    let [m, n] = assign.axes[..] else { return None };
    let is =
        |subs: &[Subscript], x: usize, y: usize| subs == [Subscript::Axis(x), Subscript::Axis(y)];
    if !(is(a_subs, m, *k) && is(b_subs, *k, n))
        || tensors[a].shape.len() != 2
        || axes[*k].extent == 0
    {
        return None;
    }
    Some(MatmulShape {
        a,
        b,
        c: assign.output,
        m,
        n,
        k: *k,
    })
}

fn strip_casts_to_load(expr: &Expr) -> Option<(usize, &[Subscript])> {
    match expr {
        Expr::Cast { arg, .. } => strip_casts_to_load(arg),
        Expr::Load {
            tensor, subscripts, ..
        } => Some((*tensor, subscripts)),
        _ => None,
    }
}

/// The dtype a matmul operand reaches the cube in: the tensor's own dtype.
fn matmul_input_dtype(expr: &Expr, tensor: usize) -> Option<Dtype> {
    let mut found = None;
    expr.walk(&mut |node| {
        if let Expr::Load {
            tensor: t, dtype, ..
        } = node
            && *t == tensor
        {
            found = Some(*dtype);
        }
    });
    found
}
