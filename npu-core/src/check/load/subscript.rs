//! A load's subscripts, each checked against its dimension: constants in range, axes
//! live and of the tensor's extent, affine forms proved in bounds over the axes' ranges.

use proc_macro2::Ident;

use crate::ast;
use crate::check::{Checker, Scope};
use crate::diag::{Code, Diagnostic};
use crate::ir::*;
use crate::words::suggestion;

impl Checker<'_> {
    /// The subscripts of a load of `tensor` (named `name`) at `indices`, each checked
    /// against its dimension; `None` when any is reported.
    pub(super) fn load_subscripts(
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
            } else if live.is_empty() {
                // A 0-d statement has no axis of its own: only a reduction brings one.
                format!(
                    "this statement has no axes: read through `{axis_name}` inside a reduction over it, as in `sum[{axis_name}](x[{axis_name}])`"
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
}
