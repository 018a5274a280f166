//! The vector unit's repeat limit: the longest instruction a tile needs, per
//! expression of the body, against the target's repeat count.

use crate::diag::{Code, Diagnostic};
use crate::ir::*;
use crate::plan;
use crate::schedule::Collected;
use crate::schedule::ScheduleChecker;
use crate::target::Target;

impl ScheduleChecker<'_> {
    /// No vector instruction may need more repeats than the unit issues.
    pub(in crate::schedule) fn repeats(&mut self, collected: &Collected) {
        let target = self.target;
        let worst = |tiles: &[u64]| max_repeats(self.kernel, target, tiles);
        let repeats = worst(&collected.tiles);
        if repeats <= target.vector.max_repeat {
            return;
        }
        let (candidates, fallback) =
            self.shrink_candidates(collected, |tiles| worst(tiles) <= target.vector.max_repeat);
        // Point at the item that sets the tile the fix shrinks.
        let axis = self.shrink_axis(collected);
        let span = axis
            .and_then(|a| {
                collected.splits.get(&a).map(|n| n.span).or_else(|| {
                    collected
                        .parallel
                        .iter()
                        .find(|(p, _, _)| *p == a)
                        .map(|(_, _, s)| *s)
                })
            })
            .or_else(|| collected.stages.first().map(|s| s.keyword))
            .unwrap_or_else(|| self.schedule.name.span());
        self.error_with_fixes(
            Diagnostic::new(
                Code::E022,
                span,
                format!(
                    "a vector instruction over this tile needs {repeats} repeats of {} B but `{}` issues at most {}",
                    target.vector.repeat_bytes, target.name, target.vector.max_repeat
                ),
            ),
            vec![candidates],
            fallback,
        );
    }
}

/// The most repeats any vector instruction of the kernel needs with these tiles. It
/// counts the instructions lowering emits (see [`crate::lower()`]): an operation per
/// node that is not a constant, a copy for a load written straight to the output or
/// broadcast into a temporary, a fill for a constant output, and for each reduction
/// the accumulator's fill, the fold and the cast out of the accumulator.
pub fn max_repeats(kernel: &CheckedKernel, target: &Target, tiles: &[u64]) -> u64 {
    let mut worst = 0;
    let mut note = |elements: u64, bytes: u64| {
        worst = worst.max((elements * bytes).div_ceil(target.vector.repeat_bytes));
    };
    for assign in &kernel.body {
        let outer: u64 = assign.axes.iter().map(|a| tiles[*a]).product();
        let root = &assign.value;
        let size = root.dtype().size();
        if constant_value(root).is_some() {
            note(outer, size); // vdup of the output tile
            continue;
        }
        match root {
            // A vcopy into the output tile; a vdup of a scalar parameter's value.
            Expr::Load { .. } | Expr::Param { .. } => note(outer, size),
            Expr::Reduce { accumulator, .. } => {
                note(outer, accumulator.size().max(size)); // vconv out
                visit(root, outer, tiles, &mut note);
            }
            _ => visit(root, outer, tiles, &mut note),
        }
    }
    worst
}

/// Calls `note(elements, bytes per element)` for every vector instruction of a node
/// that is not its statement's root, and of its subtree.
fn visit(expr: &Expr, space: u64, tiles: &[u64], note: &mut impl FnMut(u64, u64)) {
    if constant_value(expr).is_some() {
        return; // A scalar operand: no instruction.
    }
    match expr {
        Expr::Const { .. } | Expr::Param { .. } => {}
        // A vgather into a temporary.
        Expr::Load { dtype, .. } if expr.is_gather() => note(space, dtype.size()),
        Expr::Load {
            subscripts, dtype, ..
        } => {
            let covered: u64 = plan::load_axes(subscripts)
                .iter()
                .map(|a| tiles[*a])
                .product();
            if covered != space {
                note(space, dtype.size()); // broadcast into a temporary
            }
        }
        Expr::Reduce {
            op,
            axes,
            body,
            dtype,
            accumulator,
        } => {
            let inner = space * axes.iter().map(|a| tiles[*a]).product::<u64>();
            let (accumulator, bytes) = (*accumulator, accumulator.size());
            // The fold is charged as lowering charges it, at the widest element it
            // touches: `sum[k: bf16]` over f32 reads 4-byte operands.
            let fold = vector_width(expr).unwrap_or(bytes);
            if op.is_arg() {
                note(space, dtype.size()); // fill the index
                note(space, bytes); // fill the value
                note(inner, fold);
            } else {
                note(space, bytes); // fill the accumulator
                note(inner, fold);
                if accumulator != *dtype {
                    note(space, bytes.max(dtype.size())); // round to the reduction's dtype
                }
            }
            visit(body, inner, tiles, note);
        }
        Expr::Scan {
            axis,
            body,
            accumulator,
            ..
        } => {
            note(space / tiles[*axis], accumulator.size()); // fill the carry
            note(space, vector_width(expr).unwrap_or(expr.dtype().size())); // scan
            visit(body, space, tiles, note);
        }
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => {
            note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
            visit(arg, space, tiles, note);
        }
        // One instruction per step, each over the chain's space in its dtype.
        Expr::Chain { first, rest, .. } => {
            for (_, term) in rest {
                note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
                visit(term, space, tiles, note);
            }
            visit(first, space, tiles, note);
        }
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
            visit(lhs, space, tiles, note);
            visit(rhs, space, tiles, note);
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
            visit(cond, space, tiles, note);
            visit(then, space, tiles, note);
            visit(otherwise, space, tiles, note);
        }
    }
}
