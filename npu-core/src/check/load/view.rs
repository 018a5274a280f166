//! One view per tensor: every load of a tensor reads the same elements with the same
//! padding (a staged tensor holds one tile), and a pad value fits the tensor's dtype.

use proc_macro2::Ident;

use crate::ast;
use crate::check::expr::expr_span;
use crate::check::reduce::fresh_axis;
use crate::check::{Checker, PadKey, Scope};
use crate::diag::{Code, Diagnostic};
use crate::ir::*;

impl Checker<'_> {
    /// Every load of a tensor reads the same elements: a staged tensor holds one tile,
    /// an intermediate is read as written. Reports a load that differs from the first.
    pub(super) fn same_view(
        &mut self,
        ident: &Ident,
        index: usize,
        tensor: &Tensor,
        subscripts: &[Subscript],
        scope: &Scope,
        tensors: &[Tensor],
    ) -> bool {
        let name = ident.to_string();
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
                        Subscript::Gather {
                            tensor, subscripts, ..
                        } => {
                            let inner: Vec<String> = subscripts
                                .iter()
                                .map(|s| affine_text(s, &scope.axes))
                                .collect();
                            format!("{}[{}]", tensors[*tensor].name, inner.join(", "))
                        }
                    })
                    .collect();
                format!("{name}[{}]", parts.join(", "))
            };
            let message = format!(
                "`{name}` is read as `{}` here but as `{}` before",
                show(subscripts),
                show(first)
            );
            self.report(
                Diagnostic::new(Code::E011, ident.span(), message)
                    .help(
                        if tensor.role == Role::Local {
                            format!(
                                "an intermediate holds one tile over its own axes: read it as it is written, `{}`",
                                show(first)
                            )
                        } else if let Some((axis, window)) = window_read(first, subscripts, &scope.axes) {
                            format!(
                                "a staged tensor holds one tile at a time: `{}` and `{}` are one window, read once as `{name}[{window}]` in a reduction over a new axis `{axis}` that states the window's extent, as in `sum[{axis} < 3](..)` or `max[{axis} < 3](..)`",
                                show(first),
                                show(subscripts)
                            )
                        } else {
                            format!(
                                "a staged tensor holds one tile at a time: read `{name}` with the same subscripts everywhere, or pass the other view as another input"
                            )
                        },
                    ),
            );
            return false;
        }
        true
    }

    /// Every load of a tensor pads alike; reports one that pads differently.
    pub(super) fn same_padding(
        &mut self,
        ident: &Ident,
        index: usize,
        pad_key: Option<PadKey>,
        scope: &Scope,
    ) -> bool {
        let name = ident.to_string();
        if let Some(first) = scope.pads.get(&index)
            && *first != pad_key
        {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    ident.span(),
                    format!("`{name}` is read with another padding here than before"),
                )
                .help(format!(
                    "a staged tensor holds one tile at a time: read `{name}` through the same `pad({name}, ..)` everywhere"
                )),
            );
            return false;
        }
        true
    }

    /// The pad value of `pad(x, value)`: a literal (or a negated one) of `x`'s dtype, or
    /// a scalar parameter of that dtype.
    pub(super) fn pad_value(
        &mut self,
        value: &ast::Expr,
        tensor: &Tensor,
        scope: &Scope,
        tensors: &[Tensor],
    ) -> Option<(Expr, PadKey)> {
        let name = &tensor.name;
        let dtype = tensor.dtype;
        if let ast::Expr::Load {
            tensor: param,
            indices,
            pad: None,
        } = value
            && indices.is_empty()
            && let Some(&index) = scope.tensors.get(&param.to_string())
            && tensors[index].is_scalar()
        {
            let param_dtype = tensors[index].dtype;
            if param_dtype != dtype {
                self.report(
                    Diagnostic::new(
                        Code::E010,
                        param.span(),
                        format!("the pad value of `{name}` is `{param}` of {param_dtype}, but `{name}` is {dtype}"),
                    )
                    .help(format!("declare `{param}: {dtype}`, or pad with a literal")),
                );
                return None;
            }
            return Some((
                Expr::Param {
                    tensor: index,
                    dtype,
                },
                PadKey::Param(index),
            ));
        }
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
            self.report(
                Diagnostic::new(
                    Code::E010,
                    expr_span(value),
                    format!(
                        "the pad value of `{name}` must be a literal or a scalar parameter of {dtype}"
                    ),
                )
                .help(format!(
                    "write a literal, as in `pad({name}, 0)[i - 1]`, or pass the value as a parameter `v: {dtype}` and write `pad({name}, v)`"
                )),
            );
            return None;
        };
        if is_float && !dtype.is_float() {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    expr_span(value),
                    format!(
                        "the pad value of `{name}` is a floating-point literal but `{name}` is {dtype}"
                    ),
                )
                .help("write an integer literal, such as `0`"),
            );
            return None;
        }
        let value = dtype.round(value_f64);
        Some((Expr::Const { value, dtype }, PadKey::Bits(value.to_bits())))
    }
}

/// The subscripts of one read covering both `first` and `here` when they differ in
/// the constant offset of one position only (`x[2*t]` and `x[2*t + 1]`, `w[0]` and
/// `w[1]`): a new axis name and the subscripts with it added at the smaller offset,
/// `2*t + k`.
fn window_read(first: &[Subscript], here: &[Subscript], axes: &[Axis]) -> Option<(String, String)> {
    let gather = |s: &Subscript| matches!(s, Subscript::Gather { .. });
    if first.len() != here.len() || first.iter().chain(here).any(gather) {
        return None;
    }
    let differing: Vec<usize> = (0..first.len()).filter(|&p| first[p] != here[p]).collect();
    let [position] = differing[..] else {
        return None;
    };
    let (a, b) = (&first[position], &here[position]);
    if a.terms() != b.terms() {
        return None;
    }
    let axis = fresh_axis(axes);
    let offset = a.offset().min(b.offset());
    let mut texts: Vec<String> = first.iter().map(|s| affine_text(s, axes)).collect();
    texts[position] = terms_text(&a.terms(), Some(&axis), offset, axes);
    Some((axis, texts.join(", ")))
}

/// A subscript as DSL text with the kernel's axis names: `2*i + k - 1`.
fn affine_text(subscript: &Subscript, axes: &[Axis]) -> String {
    terms_text(&subscript.terms(), None, subscript.offset(), axes)
}

/// `2*i + k - 1`: the terms, then the axis named `extra`, then the offset.
fn terms_text(terms: &[(usize, u64)], extra: Option<&str>, offset: i64, axes: &[Axis]) -> String {
    let names = terms.iter().map(|(axis, c)| match c {
        1 => axes[*axis].name.clone(),
        c => format!("{c}*{}", axes[*axis].name),
    });
    let mut out = names
        .chain(extra.map(str::to_string))
        .collect::<Vec<_>>()
        .join(" + ");
    match offset {
        offset if out.is_empty() => out.push_str(&offset.to_string()),
        0 => {}
        offset if offset < 0 => out.push_str(&format!(" - {}", offset.unsigned_abs())),
        offset => out.push_str(&format!(" + {offset}")),
    }
    out
}
