//! Type-checking a gather subscript, `table[idx[i], d]`: the index is a load of an
//! integer input whose value is the position along one dimension of the table.

use super::{Checker, Scope};
use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::ir::*;

impl Checker<'_> {
    /// The subscript `idx[i]` of dimension `dim` of `table`: a load of an integer input
    /// whose value is the position, or E037 (a gather the DSL cannot run), E010 (an
    /// index that is not an integer) and the errors of the index's own load.
    #[allow(clippy::too_many_arguments)] // The load's state, passed through.
    pub(super) fn gather(
        &mut self,
        gather: &ast::Gather,
        table: &Tensor,
        dim: usize,
        padded: bool,
        earlier: &[Subscript],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> Option<Subscript> {
        let name = &table.name;
        let index_name = gather.tensor.to_string();
        let span = gather.tensor.span();
        let refuse = |checker: &mut Self, message: String, help: String| {
            checker.report(Diagnostic::new(Code::E037, span, message).help(help));
            None
        };
        if let Some((message, help)) =
            self.refused_gather(gather, table, padded, earlier, scope, tensors)
        {
            return refuse(self, message, help);
        }
        scope.gather_index = true;
        let (load, _) = self.load(&gather.tensor, &gather.indices, None, scope, tensors);
        scope.gather_index = false;
        let Some(Expr::Load {
            tensor: index,
            subscripts,
            dtype,
            ..
        }) = load
        else {
            // The index's own load reported what is wrong with it.
            return None;
        };
        if tensors[index].role == Role::Local {
            return refuse(
                self,
                format!("intermediate `{index_name}` indexes `{name}`"),
                "gather with an input tensor of indices".into(),
            );
        }
        if dtype.is_float() {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    span,
                    format!("`{index_name}` indexes `{name}` but holds {dtype}; a gather's index is an integer"),
                )
                .help(format!(
                    "declare `{index_name}` as i32, u32, i16, u16, u8 or i8"
                )),
            );
            return None;
        }
        Some(Subscript::Gather {
            tensor: index,
            subscripts,
            dtype,
            extent: table.shape[dim],
        })
    }

    /// Why a gather cannot run, as E037's message and help, before its index is read:
    /// a nested gather, a padded table, a second gathered dimension, an intermediate
    /// table, or one gathered table too many.
    fn refused_gather(
        &self,
        gather: &ast::Gather,
        table: &Tensor,
        padded: bool,
        earlier: &[Subscript],
        scope: &Scope,
        tensors: &[Tensor],
    ) -> Option<(String, String)> {
        let name = &table.name;
        let index_name = gather.tensor.to_string();
        if let Some(ast::Index::Gather(inner)) = gather
            .indices
            .iter()
            .find(|i| matches!(i, ast::Index::Gather(_)))
        {
            let inner_text = crate::print::index(&ast::Index::Gather(inner.clone()));
            return Some((
                format!(
                    "`{index_name}[{inner_text}]` is a nested gather: the index of a gather is read with affine subscripts"
                ),
                format!(
                    "gather `{index_name}[{inner_text}]` in a kernel of its own and pass the result as an index input of `{name}`"
                ),
            ));
        }
        if padded {
            return Some((
                format!("`pad({name}, ..)` is read through the gather `{index_name}[..]`"),
                "an index is checked at run time, not padded: read `{name}` without `pad`"
                    .replace("{name}", name),
            ));
        }
        if earlier.iter().any(|s| s.gather().is_some()) {
            return Some((
                format!("`{name}` is gathered along two dimensions"),
                "gather along one dimension and index the others by axes, as in `table[idx[i], d]`"
                    .into(),
            ));
        }
        if table.role == Role::Local {
            return Some((
                format!("intermediate `{name}` is gathered from"),
                format!(
                    "gather from an input; an intermediate holds one tile, not every row of `{name}`"
                ),
            ));
        }
        let gathered_tables = scope
            .loads
            .iter()
            .filter(|(t, subscripts)| {
                **t != table_index(tensors, table)
                    && subscripts.iter().any(|s| s.gather().is_some())
            })
            .count();
        if gathered_tables >= MAX_GATHERED_TABLES {
            return Some((
                format!(
                    "`{name}` is one gathered tensor too many: a kernel gathers from at most {MAX_GATHERED_TABLES}"
                ),
                "split the kernel, or stack the tables into one tensor".into(),
            ));
        }
        None
    }
}

/// The most tensors one kernel gathers from: a `vgather` names its table and index
/// in a byte (see [`crate::program::VectorKind::Gather`]).
pub(super) const MAX_GATHERED_TABLES: usize = 255;

/// The position of `tensor` in `tensors`.
fn table_index(tensors: &[Tensor], tensor: &Tensor) -> usize {
    tensors
        .iter()
        .position(|t| t.name == tensor.name)
        .unwrap_or(usize::MAX)
}
