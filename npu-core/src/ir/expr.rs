//! A typed, span-free expression of a checked body, and the one walk over its nodes
//! that passes build on.

use serde::{Deserialize, Serialize};

use super::ops::{BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp};
use super::subscript::Subscript;
use crate::dtype::Dtype;

/// A typed expression. Every node knows its dtype; comparisons yield a mask that only
/// `Select` consumes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A read of an input or of a `let` intermediate (a 0-d one by its bare name). With `pad` it is a padded view (`pad(x, 0)[i - 1]`): an
    /// element whose subscripts fall outside the tensor reads as the pad value, a
    /// scalar of the load's dtype (a constant or a scalar parameter). The pad is not a node
    /// of the tree: [`Expr::walk`] does not visit it.
    Load {
        /// Index into [`CheckedKernel::tensors`](super::CheckedKernel::tensors): an input or a `let` intermediate.
        tensor: usize,
        /// One per dimension of the tensor, outermost first; empty for a 0-d
        /// intermediate.
        subscripts: Vec<Subscript>,
        /// The tensor's dtype.
        dtype: Dtype,
        /// The pad value of a padded view: an [`Expr::Const`] or an [`Expr::Param`].
        pad: Option<Box<Expr>>,
    },
    /// A literal, the same for every element.
    Const {
        /// The value, rounded to `dtype`.
        value: f64,
        /// The dtype its context settles on: the other operand's, a cast's target, the
        /// output's or the padded tensor's.
        dtype: Dtype,
    },
    /// A one-operand operation: `exp(x)`, `-x`, `!x`, ...
    Unary {
        /// The operation, applied to each element.
        op: UnaryOp,
        /// The operand, of `dtype`.
        arg: Box<Expr>,
        /// The dtype of the operand and the result.
        dtype: Dtype,
    },
    /// A two-operand operation, an operator (`x + y`) or a function (`max(x, y)`,
    /// `pow(x, 2.0)`).
    Binary {
        /// The operation, applied to each pair of elements.
        op: BinaryOp,
        /// The left operand; the base of a `pow`.
        lhs: Box<Expr>,
        /// The right operand; the constant exponent of a `pow`, the count of a shift.
        rhs: Box<Expr>,
        /// The dtype of both operands and the result.
        dtype: Dtype,
    },
    /// `a + b - c + ...`: three operands or more folded left to right in source
    /// order, each step the binary operation of the value so far and the next operand
    /// in `dtype`, rounded to it: what the left-deep tree `((a + b) - c) + ...` of
    /// [`Expr::Binary`] nodes computes, step for step. One node however long the chain
    /// (up to [`crate::parse::MAX_CHAIN_TERMS`] operands), so that passes loop over its
    /// operands rather than recurse once per step. `rest` has two entries or more
    /// (see [`Expr::chain`]). A step is constant only when the whole chain is: the
    /// checker nests a leading run of constant operands as a node of its own, `first`,
    /// so that lowering folds it into one scalar operand, as it folded the tree's.
    Chain {
        /// The first operand, or the leading run of constant operands as one node.
        first: Box<Expr>,
        /// Each step's operation and its right operand, in source order.
        rest: Vec<(BinaryOp, Expr)>,
        /// The dtype of every operand and every step's result.
        dtype: Dtype,
    },
    /// Yields a mask; `dtype` is the operands' dtype.
    Compare {
        /// How `lhs` is compared with `rhs`.
        op: CompareOp,
        /// The left operand, of `dtype`.
        lhs: Box<Expr>,
        /// The right operand, of `dtype`.
        rhs: Box<Expr>,
        /// The dtype both operands are compared in.
        dtype: Dtype,
    },
    /// `select(cond, then, otherwise)`: per element, `then` where the mask holds and
    /// `otherwise` where it does not.
    Select {
        /// The mask, always an [`Expr::Compare`].
        cond: Box<Expr>,
        /// The value where the mask holds.
        then: Box<Expr>,
        /// The value where it does not.
        otherwise: Box<Expr>,
        /// The dtype of both branches and the result.
        dtype: Dtype,
    },
    /// `x as i8` wraps (truncating a float first); `x as sat i8` (`saturate`) clamps
    /// to the dtype's range and turns NaN into 0.
    Cast {
        /// The value converted, in its own dtype.
        arg: Box<Expr>,
        /// The dtype converted to.
        dtype: Dtype,
        /// Whether it is `as sat`: clamp rather than wrap.
        #[serde(default)]
        saturate: bool,
    },
    /// Reduces `body` over `axes` (the first outermost), folding in index order in
    /// `accumulator` (each step rounded to it; `dtype.accumulator()` unless the source
    /// names one), and rounds the result to `dtype` once at the end.
    ///
    /// An arg reduction (`argmax[k]`, `argmin[k]`) has one axis; its `dtype` is the
    /// integer dtype of the index it returns and `accumulator` the dtype its values
    /// are compared in (the body's). The first greatest (least) value wins; a NaN
    /// counts as greater (less) than every number and the first NaN wins, as numpy's
    /// `argmax` (`argmin`) does.
    Reduce {
        /// How the values are combined: a sum, a max or min, or an arg reduction.
        op: ReduceOp,
        /// The reduction axes, indices into [`CheckedKernel::axes`](super::CheckedKernel::axes), outermost first.
        axes: Vec<usize>,
        /// The value folded, evaluated at every position of `axes`.
        body: Box<Expr>,
        /// The result's dtype; for an arg reduction, the integer dtype of the index.
        dtype: Dtype,
        /// The dtype every step of the fold is rounded to.
        accumulator: Dtype,
    },
    /// A scalar parameter's value (`offset`): the same for every element, read from a
    /// scalar register. `tensor` indexes [`CheckedKernel::tensors`](super::CheckedKernel::tensors).
    Param {
        /// The scalar parameter, an index into [`CheckedKernel::tensors`](super::CheckedKernel::tensors).
        tensor: usize,
        /// The parameter's dtype.
        dtype: Dtype,
    },
    /// An inclusive scan (`cumsum[k]`, `cumprod[k]`) of `body` along `axis`, an axis of
    /// the statement: each element is the fold of `body` over positions `0..=k` of the
    /// axis in index order, in `accumulator` (each step rounded to it), rounded to
    /// `dtype`.
    Scan {
        /// The running operation, `cumsum` or `cumprod`.
        op: ScanOp,
        /// The axis scanned along, an index into [`CheckedKernel::axes`](super::CheckedKernel::axes).
        axis: usize,
        /// The value accumulated.
        body: Box<Expr>,
        /// The result's dtype.
        dtype: Dtype,
        /// The dtype every step is rounded to.
        accumulator: Dtype,
    },
}

impl Expr {
    /// `first` followed by `rest` as one expression: `first` alone, a
    /// [`Expr::Binary`] of two operands, or an [`Expr::Chain`] of more.
    pub fn chain(first: Expr, mut rest: Vec<(BinaryOp, Expr)>, dtype: Dtype) -> Expr {
        match rest.len() {
            0 => first,
            1 => {
                let (op, rhs) = rest.pop().expect("one step");
                Expr::Binary {
                    op,
                    lhs: Box::new(first),
                    rhs: Box::new(rhs),
                    dtype,
                }
            }
            _ => Expr::Chain {
                first: Box::new(first),
                rest,
                dtype,
            },
        }
    }

    /// Whether the value is made of constants only, through unary and binary
    /// arithmetic, chains and casts: what lowering folds into a scalar operand.
    pub fn is_constant(&self) -> bool {
        match self {
            Expr::Const { .. } => true,
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => arg.is_constant(),
            Expr::Binary { lhs, rhs, .. } => lhs.is_constant() && rhs.is_constant(),
            Expr::Chain { first, rest, .. } => {
                first.is_constant() && rest.iter().all(|(_, term)| term.is_constant())
            }
            _ => false,
        }
    }

    /// The operands of a node, in order (for a chain, its first and then each step's).
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => Vec::new(),
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => vec![arg],
            Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => vec![lhs, rhs],
            Expr::Chain { first, rest, .. } => std::iter::once(&**first)
                .chain(rest.iter().map(|(_, term)| term))
                .collect(),
            Expr::Select {
                cond,
                then,
                otherwise,
                ..
            } => vec![cond, then, otherwise],
            Expr::Reduce { body, .. } | Expr::Scan { body, .. } => vec![body],
        }
    }

    /// The operands and dtype of a multiplication, `None` for any other node.
    pub fn product(&self) -> Option<(&Expr, &Expr, Dtype)> {
        match self {
            Expr::Binary {
                op: BinaryOp::Mul,
                lhs,
                rhs,
                dtype,
            } => Some((lhs, rhs, *dtype)),
            _ => None,
        }
    }

    /// The dtype of the value (for a comparison, of its operands).
    pub fn dtype(&self) -> Dtype {
        match self {
            Expr::Load { dtype, .. }
            | Expr::Const { dtype, .. }
            | Expr::Unary { dtype, .. }
            | Expr::Binary { dtype, .. }
            | Expr::Chain { dtype, .. }
            | Expr::Compare { dtype, .. }
            | Expr::Select { dtype, .. }
            | Expr::Cast { dtype, .. }
            | Expr::Reduce { dtype, .. }
            | Expr::Scan { dtype, .. }
            | Expr::Param { dtype, .. } => *dtype,
        }
    }

    /// Calls `f(tensor, subscripts)` for every tensor this expression reads, parents
    /// first: each load, and inside a gather's subscript the index tensor it reads.
    pub fn accesses<'a>(&'a self, f: &mut impl FnMut(usize, &'a [Subscript])) {
        self.walk(&mut |node| {
            if let Expr::Load {
                tensor, subscripts, ..
            } = node
            {
                f(*tensor, subscripts);
                for (index, inner) in subscripts.iter().filter_map(Subscript::gather) {
                    f(index, inner);
                }
            }
        });
    }

    /// Whether this node is a load with a gathered subscript.
    pub fn is_gather(&self) -> bool {
        matches!(self, Expr::Load { subscripts, .. }
            if subscripts.iter().any(|s| s.gather().is_some()))
    }

    /// Whether this node or one below it is a `select`.
    pub fn selects(&self) -> bool {
        let mut found = false;
        self.walk(&mut |node| found |= matches!(node, Expr::Select { .. }));
        found
    }

    /// Calls `f` on this node and every node below it, parents first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        #[cfg(feature = "walk-counter")]
        WALKED.with(|walked| walked.set(walked.get() + 1));
        f(self);
        match self {
            Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => {}
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => arg.walk(f),
            Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            // A loop over the operands: a chain is as deep as its deepest operand.
            Expr::Chain { first, rest, .. } => {
                first.walk(f);
                for (_, term) in rest {
                    term.walk(f);
                }
            }
            Expr::Select {
                cond,
                then,
                otherwise,
                ..
            } => {
                cond.walk(f);
                then.walk(f);
                otherwise.walk(f);
            }
            Expr::Reduce { body, .. } | Expr::Scan { body, .. } => body.walk(f),
        }
    }
}

#[cfg(feature = "walk-counter")]
thread_local! {
    static WALKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many nodes [`Expr::walk`] has visited on this thread so far: a unit of work
/// that tests count to show a pass is linear in its input (a count is the same on
/// every machine; a time is not). Most passes over a checked kernel walk it. Only with
/// the `walk-counter` feature, which npu-core's own tests turn on.
#[cfg(feature = "walk-counter")]
pub fn walked_nodes() -> u64 {
    WALKED.with(|walked| walked.get())
}
