//! Type-checking loads: subscripts (axes, constants, affine forms with their bounds
//! proof), padded views and scalar parameters.
//!
//! This file resolves what a load names (a tensor, a 0-d intermediate, a scalar
//! parameter); `subscript` checks each subscript against its dimension and proves
//! affine ones in bounds; `view` checks that every load of a tensor reads the same
//! view and padding, and the pad value.

use proc_macro2::Ident;

mod subscript;
mod view;

use super::expr::subscripts;
use super::{Checker, Scope, Ty};
use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::ir::*;
use crate::words::suggestion;

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
            let live: Vec<&str> = scope
                .live
                .iter()
                .map(|a| scope.axes[*a].name.as_str())
                .collect();
            return self.scalar_param(ident, indices, (index, &live), tensors);
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
    /// or a tensor without them (`live`: the axes in scope; with fewer than the
    /// tensor's rank, the help reads it inside a reduction).
    fn scalar_param(
        &mut self,
        ident: &Ident,
        indices: &[ast::Index],
        (index, live): (usize, &[&str]),
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let tensor = &tensors[index];
        let name = &tensor.name;
        if !tensor.is_scalar() {
            let rank = tensor.shape.len();
            // Where the statement has too few axes (a 0-d one), a reduction's new ones.
            let (names, around) = match live.len() >= rank {
                true => {
                    let names = ["i", "j", "k", "l", "m", "n"].into_iter().cycle();
                    (names.take(rank).collect(), None)
                }
                false => {
                    let fresh = ["k", "l", "m", "n", "p", "q"];
                    let fresh: Vec<&str> = fresh.into_iter().take(rank).collect();
                    let around = format!("sum[{}]", fresh.join(", "));
                    (fresh, Some(around))
                }
            };
            let read = format!("{name}[{}]", names.join(", "));
            let write = match around {
                Some(reduction) => {
                    format!("read it inside a reduction, as in `{reduction}({read})`")
                }
                None => format!("write `{read}`"),
            };
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
                    "{write}; only scalar parameters (`{name}: {}`) are used by bare name",
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
}
