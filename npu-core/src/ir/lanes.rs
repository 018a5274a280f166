//! Which folds run in lanes (docs/dsl.md, "The order of a fold"): the order depends on the
//! kernel and its target only, never on a schedule.

use super::{CheckedKernel, Expr, ReduceOp, Subscript};

impl CheckedKernel {
    /// The lanes the fold `reduce` runs in: the target's `vector.lanes` for its
    /// accumulator when it is a float sum over one axis that every tensor its body
    /// reads along that axis reads contiguously (the axis alone, with coefficient 1, in
    /// the last subscript and nowhere else); 1 (index order) for every other fold and
    /// for any other node.
    pub fn fold_lanes(&self, reduce: &Expr) -> u32 {
        let Expr::Reduce {
            op: ReduceOp::Sum,
            axes,
            body,
            accumulator,
            ..
        } = reduce
        else {
            return 1;
        };
        let lanes = self.target.vector.lanes.get(accumulator).copied();
        match (lanes, axes.as_slice()) {
            (Some(lanes), [axis]) if accumulator.is_float() && contiguous(body, *axis) => lanes,
            _ => 1,
        }
    }
}

/// Whether some load in `body` reads along `axis` and every one that does reads it
/// contiguously.
fn contiguous(body: &Expr, axis: usize) -> bool {
    let (mut reads, mut all) = (false, true);
    body.accesses(&mut |_, subscripts| {
        let Some((last, rest)) = subscripts.split_last() else {
            return;
        };
        if !mentions(last, axis) && !rest.iter().any(|s| mentions(s, axis)) {
            return;
        }
        reads = true;
        let alone = last.terms() == [(axis, 1)] && last.gather().is_none();
        all &= alone && !rest.iter().any(|s| mentions(s, axis));
    });
    reads && all
}

/// Whether `subscript` depends on `axis`, through a gather's index too.
fn mentions(subscript: &Subscript, axis: usize) -> bool {
    subscript.coefficient(axis) > 0
        || subscript
            .gather()
            .is_some_and(|(_, inner)| inner.iter().any(|s| mentions(s, axis)))
}
