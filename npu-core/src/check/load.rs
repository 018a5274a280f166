//! Type-checking loads: subscripts (axes, constants, affine forms with their bounds
//! proof), padded views and scalar parameters.

use proc_macro2::Ident;

use super::expr::{expr_span, subscripts};
use super::reduce::fresh_axis;
use super::{Checker, PadKey, Scope, Ty};
use crate::ast;
use crate::diag::{Code, Diagnostic, suggestion};
use crate::ir::*;

impl Checker<'_> {
    pub(super) fn load(
        &mut self,
        ident: &Ident,
        indices: &[ast::Index],
        pad: Option<&ast::Expr>,
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let name = ident.to_string();
        if pad.is_none()
            && let Some(read) = self.constant_read(ident, indices, scope, tensors)
        {
            return read;
        }
        let Some(index) = self.readable_tensor(ident, scope, tensors) else {
            return (None, Ty::Error);
        };
        let tensor = &tensors[index];
        if tensor.role == Role::Local && tensor.shape.is_empty() {
            return self.zero_d_local(ident, indices, pad, index, tensor);
        }
        if tensor.is_scalar() || indices.is_empty() {
            return self.scalar_param(ident, indices, index, tensors);
        }
        if !self.read_with_rank(ident, indices, tensor) {
            return (None, Ty::Error);
        }
        let padded = pad.is_some();
        let pad_value = match pad {
            Some(value) => match self.pad_value(value, tensor, scope, tensors) {
                Some(value) => Some(value),
                None => return (None, Ty::Error),
            },
            None => None,
        };
        let Some(subscripts) = self.load_subscripts(&name, tensor, indices, padded, scope, tensors)
        else {
            return (None, Ty::Error);
        };
        if !self.same_view(ident, index, tensor, &subscripts, scope, tensors) {
            return (None, Ty::Error);
        }
        let (pad_value, pad_key) = pad_value.unzip();
        if !self.same_padding(ident, index, pad_key, scope) {
            return (None, Ty::Error);
        }
        scope.pads.entry(index).or_insert(pad_key);
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
                pad: pad_value.map(Box::new),
            }),
            ty,
        )
    }

    /// The subscripts of a load of `tensor` (named `name`) at `indices`, each checked
    /// against its dimension; `None` when any is reported.
    fn load_subscripts(
        &mut self,
        name: &str,
        tensor: &Tensor,
        indices: &[ast::Index],
        padded: bool,
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> Option<Vec<Subscript>> {
        let mut subscripts = Vec::new();
        let mut ok = true;
        for (dim, index) in indices.iter().enumerate() {
            let extent = tensor.shape[dim];
            match index {
                ast::Index::Const(number) => {
                    if number.value >= extent && !padded {
                        let pad = if scope.gather_index {
                            String::new()
                        } else {
                            format!(", or read through `pad({name}, 0)[...]`")
                        };
                        self.report(
                            Diagnostic::new(
                                Code::E012,
                                number.span,
                                format!("index {} is out of range for `{name}`, which has {extent} elements along dimension {dim}", number.value),
                            )
                            .help(format!("use an index below {extent}{pad}")),
                        );
                        ok = false;
                    }
                    subscripts.push(Subscript::Const(number.value));
                }
                ast::Index::Axis(axis_ident) => {
                    let view = (name, tensor);
                    match self.axis_subscript(axis_ident, view, dim, padded, scope) {
                        Some(subscript) => subscripts.push(subscript),
                        None => ok = false,
                    }
                }
                ast::Index::Gather(gather) => {
                    match self.gather(gather, tensor, dim, padded, &subscripts, scope, tensors) {
                        Some(subscript) => subscripts.push(subscript),
                        None => ok = false,
                    }
                }
                ast::Index::Affine(affine) => {
                    let view = (name, indices);
                    let at = (extent, dim);
                    if let Some(subscript) =
                        self.affine_subscript(affine, view, at, padded, scope, &mut ok)
                    {
                        subscripts.push(subscript);
                    }
                }
            }
        }
        ok.then_some(subscripts)
    }

    /// The tensor a load names: declared, not an output, and not an intermediate whose
    /// `let` failed (which was reported there).
    fn readable_tensor(
        &mut self,
        ident: &Ident,
        scope: &Scope,
        tensors: &[Tensor],
    ) -> Option<usize> {
        let name = ident.to_string();
        let Some(&index) = scope.tensors.get(&name) else {
            let mut candidates: Vec<&str> = tensors.iter().map(|t| t.name.as_str()).collect();
            candidates.sort();
            let help = suggestion(&name, &candidates);
            self.report(
                Diagnostic::new(Code::E002, ident.span(), format!("unknown tensor `{name}`"))
                    .help(help),
            );
            return None;
        };
        if scope.failed.contains(&index) {
            // Its `let` failed, and said why.
            return None;
        }
        let tensor = &tensors[index];
        if tensor.role == Role::Output {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    ident.span(),
                    format!("`{name}` is an output and cannot be read"),
                )
                .help("read inputs only; compute the value again or make it an input"),
            );
            return None;
        }
        Some(index)
    }

    /// A load reads its tensor with one subscript per dimension; reports one that does not.
    fn read_with_rank(&mut self, ident: &Ident, indices: &[ast::Index], tensor: &Tensor) -> bool {
        let name = ident.to_string();
        if indices.len() != tensor.shape.len() {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    ident.span(),
                    format!(
                        "`{name}` has rank {} ({:?}) but is read with {}",
                        tensor.shape.len(),
                        tensor.shape,
                        subscripts(indices.len())
                    ),
                )
                .help(format!(
                    "read `{name}` with {}, one per dimension",
                    subscripts(tensor.shape.len())
                )),
            );
            return false;
        }
        true
    }

    /// The subscript of dimension `dim` of a load read along a live axis; `None` after
    /// reporting an axis that is not live or whose extent the tensor does not match.
    fn axis_subscript(
        &mut self,
        axis_ident: &Ident,
        (name, tensor): (&str, &Tensor),
        dim: usize,
        padded: bool,
        scope: &Scope,
    ) -> Option<Subscript> {
        let extent = tensor.shape[dim];
        let axis = self.live_axis(axis_ident, scope)?;
        let axis_name = axis_ident.to_string();
        let axis_extent = scope.axes[axis].extent;
        // A reduction axis whose extent was not found from a tensor was stated (`k < n`).
        let stated = scope.axes[axis].reduction && !scope.found.contains(&axis);
        if padded {
            // A padded view may read past either end, or less than all.
        } else if axis_extent > extent {
            self.report(
                Diagnostic::new(
                    Code::E012,
                    axis_ident.span(),
                    format!("axis `{axis_name}` runs to {axis_extent} but `{name}` has {extent} elements along dimension {dim}"),
                )
                .help(if stated {
                    // A window's stated extent is more likely the mistake than the
                    // signature: the drafting grammar cannot know which tensor the
                    // window's axis indexes, so this help carries the extent.
                    format!("state `{axis_name} < {extent}`, the extent of `{name}` along dimension {dim}, or leave it out to take it from `{name}`")
                } else if scope.gather_index {
                    format!("give `{name}` extent {axis_extent} along dimension {dim}")
                } else {
                    format!("give `{name}` extent {axis_extent} along dimension {dim}, or read through `pad({name}, 0)[...]`")
                }),
            );
            return None;
        } else if axis_extent < extent
            && (scope.found.contains(&axis) || tensor.role == Role::Local)
        {
            // An axis whose extent came from another tensor's shape: the
            // shapes disagree. An axis the output declares (or a stated
            // `k < n`) reads the first elements of an input's longer
            // dimension; an intermediate is read as it is written.
            let message = format!(
                "`{name}` has {extent} elements along dimension {dim} but axis `{axis_name}` covers {axis_extent}"
            );
            let help = format!("give `{name}` extent {axis_extent} along dimension {dim}");
            let (message, help) = if tensor.role == Role::Local {
                (message, help)
            } else {
                (
                    format!("{message}, the extent another tensor gives it"),
                    format!(
                        "{help}, or state the extent where `{axis_name}` is introduced, as in `sum[{axis_name} < {axis_extent}](...)`, to read the first {axis_extent}"
                    ),
                )
            };
            self.report(Diagnostic::new(Code::E011, axis_ident.span(), message).help(help));
            return None;
        }
        Some(Subscript::Axis(axis))
    }

    /// The subscript of an affine index (`2*i + k - 1`), its terms' axes live and, in a
    /// view that is not padded, in bounds; clears `ok` on an error. Nothing is checked
    /// for bounds once an earlier subscript of the load failed.
    fn affine_subscript(
        &mut self,
        affine: &ast::Affine,
        view: (&str, &[ast::Index]),
        (extent, dim): (u64, usize),
        padded: bool,
        scope: &Scope,
        ok: &mut bool,
    ) -> Option<Subscript> {
        let mut terms: Vec<(usize, u64)> = Vec::new();
        for term in &affine.terms {
            let Some(axis) = self.live_axis(&term.axis, scope) else {
                *ok = false;
                continue;
            };
            match terms.iter_mut().find(|(a, _)| *a == axis) {
                Some((_, c)) => *c = c.saturating_add(term.coefficient),
                None => terms.push((axis, term.coefficient)),
            }
        }
        if !*ok {
            return None;
        }
        let subscript = match (terms.as_slice(), affine.offset) {
            ([(axis, 1)], 0) => Subscript::Axis(*axis),
            ([], offset) if offset >= 0 => Subscript::Const(offset as u64),
            _ => Subscript::Affine {
                terms,
                offset: affine.offset,
            },
        };
        if !padded && !self.affine_in_bounds(&subscript, affine, view, extent, dim, scope) {
            *ok = false;
        }
        Some(subscript)
    }

    /// Every load of a tensor reads the same elements: a staged tensor holds one tile,
    /// an intermediate is read as written. Reports a load that differs from the first.
    fn same_view(
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
    fn same_padding(
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

    /// A 0-d intermediate (`let m = max[k](x[k]);`) by its bare name: one value, read
    /// at every element; or the error for one read with subscripts or padded.
    fn zero_d_local(
        &mut self,
        ident: &Ident,
        indices: &[ast::Index],
        pad: Option<&ast::Expr>,
        index: usize,
        tensor: &Tensor,
    ) -> (Option<Expr>, Ty) {
        let name = &tensor.name;
        if !indices.is_empty() || pad.is_some() {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    ident.span(),
                    format!("`{name}` is a 0-d intermediate but is read with subscripts"),
                )
                .help(format!("write `{name}` by its bare name")),
            );
            return (None, Ty::Error);
        }
        (
            Some(Expr::Load {
                tensor: index,
                subscripts: Vec::new(),
                dtype: tensor.dtype,
                pad: None,
            }),
            Ty::Value(tensor.dtype),
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
            self.report(
                Diagnostic::new(
                    Code::E011,
                    ident.span(),
                    format!(
                        "`{name}` is a tensor of rank {} ({:?}) but is read without subscripts",
                        tensor.shape.len(),
                        tensor.shape
                    ),
                )
                .help(format!(
                    "write `{name}[{}]`; only scalar parameters (`{name}: {}`) are used by bare name",
                    example.join(", "),
                    tensor.dtype
                )),
            );
            return (None, Ty::Error);
        }
        if !indices.is_empty() {
            self.report(
                Diagnostic::new(
                    Code::E011,
                    ident.span(),
                    format!(
                        "`{name}` is a scalar parameter but is read with {}",
                        subscripts(indices.len())
                    ),
                )
                .help(format!(
                    "write `{name}` without subscripts, or declare it as a tensor such as `{name}: [{}; N]`",
                    tensor.dtype
                )),
            );
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
            self.report(
                Diagnostic::new(
                    Code::E002,
                    ident.span(),
                    format!("unknown axis `{axis_name}`"),
                )
                .help(help),
            );
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
        (name, indices): (&str, &[ast::Index]),
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
        // The whole read as written, so that the dimension is plain: `x[i, j + 1]`.
        let read = format!(
            "{name}[{}]",
            indices
                .iter()
                .map(crate::print::index)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let help = if !scope.gather_index {
            let fix = if at_end {
                "or shrink the output so that the window stays inside it"
            } else {
                "or raise the subscript's offset"
            };
            format!(
                "read through `pad({name}, 0)[...]` to give out-of-range elements a value, {fix}"
            )
        } else if at_end {
            // A gather's index cannot be padded: its tensor must hold every read.
            format!("give `{name}` extent {} along dimension {dim}", index + 1)
        } else {
            let raised = ast::Index::Affine(ast::Affine {
                offset: 0,
                ..affine.clone()
            });
            format!(
                "read `{name}` from 0 on along dimension {dim}: write `{}` there",
                crate::print::index(&raised)
            )
        };
        self.report(
            Diagnostic::new(
                Code::E012,
                affine.span,
                format!("`{read}` reads index {index}{when}; `{name}` has {extent} elements along dimension {dim}"),
            )
            .help(help),
        );
        false
    }

    /// The pad value of `pad(x, value)`: a literal (or a negated one) of `x`'s dtype, or
    /// a scalar parameter of that dtype.
    fn pad_value(
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

/// A subscript as DSL text with the kernel's axis names: `2*i + k - 1`.
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

pub(super) fn affine_text(subscript: &Subscript, axes: &[Axis]) -> String {
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
