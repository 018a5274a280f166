//! Type-checking the algorithm: expressions, loads and their subscripts, calls and
//! reductions.

use std::collections::HashMap;

use proc_macro2::{Ident, Span};

use super::{Checker, FUNCTIONS, Scope, Ty};
use crate::ast::{self, BinOp};
use crate::diag::{Code, suggestion};
use crate::dtype::Dtype;
use crate::ir::*;

impl Checker<'_> {
    pub(super) fn expr(
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
            ast::Expr::Load {
                tensor,
                indices,
                pad,
            } => self.load(tensor, indices, pad.as_deref(), scope, tensors),
            ast::Expr::Neg { arg, .. } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                self.unary_result(UnaryOp::Neg, arg, ty, expr_span(expr))
            }
            ast::Expr::Cast {
                arg,
                dtype,
                saturating,
            } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                let to = self.dtype(dtype);
                match (arg, ty, to) {
                    (Some(arg), Ty::Value(_) | Ty::Literal { .. }, Some(to)) => {
                        let arg = resolve_literals(arg, to);
                        (
                            Some(Expr::Cast {
                                arg: Box::new(arg),
                                dtype: to,
                                saturate: *saturating,
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
            ast::Expr::Call {
                func,
                reduction,
                args,
            } => self.call(func, reduction.as_ref(), args, scope, tensors),
            ast::Expr::Not { arg, span } => {
                let (arg, ty) = self.expr(arg, scope, tensors);
                self.unary_result(UnaryOp::Not, arg, ty, *span)
            }
        }
    }

    fn load(
        &mut self,
        ident: &Ident,
        indices: &[ast::Index],
        pad: Option<&ast::Expr>,
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
        if tensor.is_scalar() || indices.is_empty() {
            return self.scalar_param(ident, indices, index, tensors);
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
        let padded = pad.is_some();
        let pad_value = match pad {
            Some(value) => match self.pad_value(value, tensor) {
                Some(value) => Some(value),
                None => return (None, Ty::Error),
            },
            None => None,
        };
        let mut subscripts = Vec::new();
        let mut ok = true;
        for (dim, index) in indices.iter().enumerate() {
            let extent = tensor.shape[dim];
            match index {
                ast::Index::Const(number) => {
                    if number.value >= extent && !padded {
                        self.error(Code::E012, number.span, format!("index {} is out of range for `{name}`, which has {extent} elements along dimension {dim}", number.value))
                            .help = Some(format!("use an index below {extent}, or read through `pad({name}, 0)[...]`"));
                        ok = false;
                    }
                    subscripts.push(Subscript::Const(number.value));
                }
                ast::Index::Axis(axis_ident) => {
                    let Some(axis) = self.live_axis(axis_ident, scope) else {
                        ok = false;
                        continue;
                    };
                    let axis_name = axis_ident.to_string();
                    let axis_extent = scope.axes[axis].extent;
                    if padded {
                        // A padded view may read past either end, or less than all.
                    } else if axis_extent > extent {
                        self.error(
                            Code::E012,
                            axis_ident.span(),
                            format!("axis `{axis_name}` runs to {axis_extent} but `{name}` has {extent} elements along dimension {dim}"),
                        )
                        .help = Some(format!("give `{name}` extent {axis_extent} along dimension {dim}, or read through `pad({name}, 0)[...]`"));
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
                ast::Index::Affine(affine) => {
                    let mut terms: Vec<(usize, u64)> = Vec::new();
                    for term in &affine.terms {
                        let Some(axis) = self.live_axis(&term.axis, scope) else {
                            ok = false;
                            continue;
                        };
                        match terms.iter_mut().find(|(a, _)| *a == axis) {
                            Some((_, c)) => *c = c.saturating_add(term.coefficient),
                            None => terms.push((axis, term.coefficient)),
                        }
                    }
                    if !ok {
                        continue;
                    }
                    let subscript = match (terms.as_slice(), affine.offset) {
                        ([(axis, 1)], 0) => Subscript::Axis(*axis),
                        ([], offset) if offset >= 0 => Subscript::Const(offset as u64),
                        _ => Subscript::Affine {
                            terms,
                            offset: affine.offset,
                        },
                    };
                    if !padded
                        && !self.affine_in_bounds(
                            &subscript,
                            affine,
                            name.as_str(),
                            extent,
                            dim,
                            scope,
                        )
                    {
                        ok = false;
                    }
                    subscripts.push(subscript);
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
                        affine @ Subscript::Affine { .. } => affine_text(affine, &scope.axes),
                    })
                    .collect();
                format!("{name}[{}]", parts.join(", "))
            };
            let message = format!(
                "`{name}` is read as `{}` here but as `{}` before",
                show(&subscripts),
                show(first)
            );
            self.error(Code::E011, ident.span(), message).help = Some(
                if tensor.role == Role::Local {
                    format!(
                        "an intermediate holds one tile over its own axes: read it as it is written, `{}`",
                        show(first)
                    )
                } else {
                    format!(
                        "a staged tensor holds one tile at a time: read `{name}` with the same subscripts everywhere, or pass the other view as another input"
                    )
                },
            );
            return (None, Ty::Error);
        }
        let pad_bits = pad_value.map(f64::to_bits);
        if let Some(first) = scope.pads.get(&index)
            && *first != pad_bits
        {
            self.error(
                Code::E011,
                ident.span(),
                format!("`{name}` is read with another padding here than before"),
            )
            .help = Some(format!(
                "a staged tensor holds one tile at a time: read `{name}` through the same `pad({name}, ..)` everywhere"
            ));
            return (None, Ty::Error);
        }
        scope.pads.entry(index).or_insert(pad_bits);
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
                pad: pad_value.map(|value| {
                    Box::new(Expr::Const {
                        value,
                        dtype: tensor.dtype,
                    })
                }),
            }),
            ty,
        )
    }

    /// A scalar parameter by its bare name, or the error for a scalar with subscripts
    /// or a tensor without them.
    fn scalar_param(
        &mut self,
        ident: &Ident,
        indices: &[ast::Index],
        index: usize,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let tensor = &tensors[index];
        let name = &tensor.name;
        if !tensor.is_scalar() {
            let example: Vec<&str> = ["i", "j", "k", "l", "m", "n"]
                .into_iter()
                .cycle()
                .take(tensor.shape.len())
                .collect();
            self.error(
                Code::E011,
                ident.span(),
                format!(
                    "`{name}` is a tensor of rank {} ({:?}) but is read without subscripts",
                    tensor.shape.len(),
                    tensor.shape
                ),
            )
            .help = Some(format!(
                "write `{name}[{}]`; only scalar parameters (`{name}: {}`) are used by bare name",
                example.join(", "),
                tensor.dtype
            ));
            return (None, Ty::Error);
        }
        if !indices.is_empty() {
            self.error(
                Code::E011,
                ident.span(),
                format!(
                    "`{name}` is a scalar parameter but is read with {}",
                    subscripts(indices.len())
                ),
            )
            .help = Some(format!(
                "write `{name}` without subscripts, or declare it as a tensor such as `{name}: [{}; N]`",
                tensor.dtype
            ));
            return (None, Ty::Error);
        }
        let ty = if self.untyped.contains(name) {
            Ty::Error
        } else {
            Ty::Value(tensor.dtype)
        };
        (
            Some(Expr::Param {
                tensor: index,
                dtype: tensor.dtype,
            }),
            ty,
        )
    }

    /// The live axis `ident` names, or E002 (with a suggestion) when none does.
    fn live_axis(&mut self, ident: &Ident, scope: &Scope) -> Option<usize> {
        let axis_name = ident.to_string();
        let found = scope
            .live
            .iter()
            .copied()
            .find(|a| scope.axes[*a].name == axis_name);
        if found.is_none() {
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
                ident.span(),
                format!("unknown axis `{axis_name}`"),
            )
            .help = Some(help);
        }
        found
    }

    /// Proves an affine subscript of an unpadded load in bounds over the axes' ranges:
    /// its coefficients are positive, so it is least with every axis at 0 and greatest
    /// with every axis at its last value. Otherwise E012 with the values that break it.
    fn affine_in_bounds(
        &mut self,
        subscript: &Subscript,
        affine: &ast::Affine,
        name: &str,
        extent: u64,
        dim: usize,
        scope: &Scope,
    ) -> bool {
        let terms = subscript.terms();
        let low = subscript.offset() as i128;
        let high = terms.iter().fold(low, |sum, (axis, c)| {
            sum + i128::from(*c) * i128::from(scope.axes[*axis].extent.saturating_sub(1))
        });
        let (index, at_end) = if low < 0 {
            (low, false)
        } else if high >= i128::from(extent) {
            (high, true)
        } else {
            return true;
        };
        let values: Vec<String> = terms
            .iter()
            .map(|(axis, _)| {
                let axis = &scope.axes[*axis];
                let value = if at_end {
                    axis.extent.saturating_sub(1)
                } else {
                    0
                };
                format!("{} = {value}", axis.name)
            })
            .collect();
        let when = if values.is_empty() {
            String::new()
        } else {
            format!(" when {}", values.join(", "))
        };
        let text = affine_text(subscript, &scope.axes);
        let fix = if at_end {
            "or shrink the output so that the window stays inside it"
        } else {
            "or raise the subscript's offset"
        };
        self.error(
            Code::E012,
            affine.span,
            format!("`{name}[{text}]` reads index {index}{when}; `{name}` has {extent} elements along dimension {dim}"),
        )
        .help = Some(format!(
            "read through `pad({name}, 0)[...]` to give out-of-range elements a value, {fix}"
        ));
        false
    }

    /// The pad value of `pad(x, value)`: a literal (or a negated one) of `x`'s dtype.
    fn pad_value(&mut self, value: &ast::Expr, tensor: &Tensor) -> Option<f64> {
        let name = &tensor.name;
        let dtype = tensor.dtype;
        let literal = match value {
            ast::Expr::Literal {
                value, is_float, ..
            } => Some((*value, *is_float)),
            ast::Expr::Neg { arg, .. } => match arg.as_ref() {
                ast::Expr::Literal {
                    value, is_float, ..
                } => Some((-*value, *is_float)),
                _ => None,
            },
            _ => None,
        };
        let Some((value_f64, is_float)) = literal else {
            self.error(
                Code::E010,
                expr_span(value),
                format!("the pad value of `{name}` must be a literal of {dtype}"),
            )
            .help = Some(format!("write a literal, as in `pad({name}, 0)[i - 1]`"));
            return None;
        };
        if is_float && !dtype.is_float() {
            self.error(
                Code::E010,
                expr_span(value),
                format!(
                    "the pad value of `{name}` is a floating-point literal but `{name}` is {dtype}"
                ),
            )
            .help = Some("write an integer literal, such as `0`".into());
            return None;
        }
        Some(dtype.round(value_f64))
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
        if let Ty::Literal { is_float } = ty {
            // A constant stays a literal and takes its dtype from its context, as `-1`
            // does in `max(x[i], -1)`.
            if is_float && op.integer_only() {
                self.error(
                    Code::E010,
                    span,
                    format!(
                        "`{}` works on integers but got a floating-point literal",
                        op.name()
                    ),
                )
                .help = Some("write an integer literal".into());
                return (None, Ty::Error);
            }
            let is_float = is_float || op.float_only();
            let dtype = if is_float { Dtype::F32 } else { Dtype::I32 };
            let arg = resolve_literals(arg, dtype);
            return (
                Some(Expr::Unary {
                    op,
                    arg: Box::new(arg),
                    dtype,
                }),
                Ty::Literal { is_float },
            );
        }
        let dtype = match ty {
            Ty::Value(dtype) => dtype,
            _ => Dtype::F32,
        };
        if op.integer_only() && dtype.is_float() {
            let int = same_width_integer(dtype);
            let call = if op == UnaryOp::Not {
                format!("!(x as {int})")
            } else {
                format!("{}(x as {int})", op.name())
            };
            self.error(
                Code::E010,
                span,
                format!(
                    "`{}` works on the bits of integers but got {dtype}",
                    op.name()
                ),
            )
            .help = Some(format!("cast the operand to an integer first: `{call}`"));
            return (None, Ty::Error);
        }
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
        let bitwise = matches!(
            op,
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr
        );
        if bitwise && dtype.is_float() {
            let int = same_width_integer(dtype);
            let symbol = op.symbol();
            let (what, help) = if both_literals {
                (
                    "a floating-point literal".to_string(),
                    "write integer literals".to_string(),
                )
            } else {
                (
                    dtype.to_string(),
                    format!(
                        "cast both sides to an integer first: `(a as {int}) {symbol} (b as {int})`"
                    ),
                )
            };
            self.error(
                Code::E010,
                span,
                format!("`{symbol}` works on the bits of integers but got {what}"),
            )
            .help = Some(help);
            return (None, Ty::Error);
        }
        let literal = match (l.1, r.1) {
            (Ty::Literal { is_float: a }, Ty::Literal { is_float: b }) => {
                Ty::Literal { is_float: a || b }
            }
            _ => Ty::Value(dtype),
        };
        let arithmetic = |op| {
            let ty = literal;
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
            BinOp::BitAnd => arithmetic(BinaryOp::And),
            BinOp::BitOr => arithmetic(BinaryOp::Or),
            BinOp::BitXor => arithmetic(BinaryOp::Xor),
            BinOp::Shl => arithmetic(BinaryOp::Shl),
            BinOp::Shr => arithmetic(BinaryOp::Shr),
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
        reduction: Option<&ast::Reduction>,
        args: &[ast::Expr],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let name = func.to_string();
        if let Some(reduction) = reduction {
            return self.reduce(func, reduction, args, scope, tensors);
        }
        let unary = UnaryOp::function(&name);
        let arity = match name.as_str() {
            _ if unary.is_some() => 1,
            "min" | "max" | "pow" => 2,
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
        if name == "pow" && !matches!(rhs.1, Ty::Literal { .. } | Ty::Error) {
            self.error(
                Code::E010,
                expr_span(&args[1]),
                "`pow` needs a constant exponent",
            )
            .help = Some(
                "write a number, as in `pow(x[i], 3.0)`, or `exp(e * log(x))` for a tensor exponent"
                    .into(),
            );
            return (None, Ty::Error);
        }
        let Some(dtype) = self.unify(func.span(), &name, lhs.1, rhs.1) else {
            return (None, Ty::Error);
        };
        let (Some(l), Some(r)) = (lhs.0, rhs.0) else {
            return (None, Ty::Error);
        };
        let op = match name.as_str() {
            "min" => BinaryOp::Min,
            "max" => BinaryOp::Max,
            _ => BinaryOp::Pow,
        };
        if op == BinaryOp::Pow && !dtype.is_float() {
            self.error(
                Code::E010,
                func.span(),
                format!("`pow` needs a floating-point operand but got {dtype}"),
            )
            .help = Some("cast the operand first: `pow(x as f32, 2.0)`".into());
            return (None, Ty::Error);
        }
        let ty = match (lhs.1, rhs.1) {
            (Ty::Literal { is_float: a }, Ty::Literal { is_float: b }) => {
                Ty::Literal { is_float: a || b }
            }
            _ => Ty::Value(dtype),
        };
        let expr = Expr::Binary {
            op,
            lhs: Box::new(resolve_literals(l, dtype)),
            rhs: Box::new(resolve_literals(r, dtype)),
            dtype,
        };
        (Some(expr), ty)
    }

    fn reduce(
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

/// The span a diagnostic about a whole expression points at.
pub(super) fn expr_span(expr: &ast::Expr) -> Span {
    match expr {
        ast::Expr::Load { tensor, .. } => tensor.span(),
        ast::Expr::Literal { span, .. }
        | ast::Expr::Neg { span, .. }
        | ast::Expr::Binary { span, .. } => *span,
        ast::Expr::Call { func, .. } => func.span(),
        ast::Expr::Cast { dtype, .. } => dtype.span(),
        ast::Expr::Not { span, .. } => *span,
    }
}

pub(super) fn ast_preorder<'a>(expr: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    out.push(expr);
    match expr {
        ast::Expr::Load { .. } | ast::Expr::Literal { .. } => {}
        ast::Expr::Neg { arg, .. } | ast::Expr::Cast { arg, .. } | ast::Expr::Not { arg, .. } => {
            ast_preorder(arg, out)
        }
        ast::Expr::Binary { lhs, rhs, .. } => {
            ast_preorder(lhs, out);
            ast_preorder(rhs, out);
        }
        ast::Expr::Call { args, .. } => args.iter().for_each(|arg| ast_preorder(arg, out)),
    }
}

/// Gives unresolved literals in `expr` the dtype their context settled on.
pub(super) fn resolve_literals(expr: Expr, dtype: Dtype) -> Expr {
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
        Expr::Unary { op, arg, dtype: d } if is_literal_tree(&arg) && d != dtype => Expr::Unary {
            op,
            arg: Box::new(resolve_literals(*arg, dtype)),
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
        Expr::Unary { arg, .. } => is_literal_tree(arg),
        _ => false,
    }
}

/// The integer dtype of the same width as a float, for a cast the bit operations need.
fn same_width_integer(dtype: Dtype) -> Dtype {
    if dtype.size() >= 4 {
        Dtype::I32
    } else {
        Dtype::I16
    }
}

/// "1 subscript", "2 subscripts".
pub(super) fn subscripts(count: usize) -> String {
    if count == 1 {
        "1 subscript".into()
    } else {
        format!("{count} subscripts")
    }
}

/// A subscript as DSL text with the kernel's axis names: `2*i + k - 1`.
pub(super) fn affine_text(subscript: &Subscript, axes: &[Axis]) -> String {
    let mut out = String::new();
    for (position, (axis, c)) in subscript.terms().iter().enumerate() {
        if position > 0 {
            out.push_str(" + ");
        }
        if *c != 1 {
            out.push_str(&format!("{c}*"));
        }
        out.push_str(&axes[*axis].name);
    }
    match subscript.offset() {
        offset if out.is_empty() => out.push_str(&offset.to_string()),
        0 => {}
        offset if offset < 0 => out.push_str(&format!(" - {}", offset.unsigned_abs())),
        offset => out.push_str(&format!(" + {offset}")),
    }
    out
}

fn wider(a: Dtype, b: Dtype) -> Dtype {
    if a.size() >= b.size() { a } else { b }
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
