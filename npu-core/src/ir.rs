//! The checked kernel: a span-free, typed description of a legal kernel and its
//! schedules. Lowering takes only this type, so nothing unchecked reaches it.
//!
//! Everything here is plain data (`Send + Sync`, serde), so checked kernels can be
//! shared across the tuner's worker threads and stored in reports.

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;
use crate::target::{Level, Target};

mod facts;
mod inputs;
mod ops;

pub use facts::{constant_value, vector_width};
pub use ops::{BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp};

/// A kernel that passed the checker against `target`, with every schedule legal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckedKernel {
    /// The kernel's name, as written after `kernel`.
    pub name: String,
    /// The `///` doc comment, lines joined with `\n`.
    pub doc: String,
    /// The machine the kernel was checked against, from its `target` line.
    pub target: Target,
    /// Inputs first, in signature order, then outputs, then the `let` intermediates
    /// ([`Role::Local`]) in order of definition.
    pub tensors: Vec<Tensor>,
    /// Every loop axis of the body, in order of first appearance; subscripts, statements
    /// and schedules refer to axes by their index here.
    pub axes: Vec<Axis>,
    /// The statements in source order, with each product a `sum` folds cast up to its
    /// accumulator so that it is exact (the printed source keeps what was written).
    pub body: Vec<Assign>,
    /// Which unit the body runs on, and for a matmul its operands and axes.
    pub class: KernelClass,
    /// The legal schedules in source order, each name once.
    pub schedules: Vec<CheckedSchedule>,
    /// The canonical DSL text of the whole kernel (see [`crate::print`]).
    pub source: String,
    /// The canonical text without schedule blocks or `variants` line: what a schedule
    /// block is appended to ([`crate::check_schedule`]) and what a kernel hash covers.
    pub header: String,
}

/// A tensor of the kernel: a parameter, an output or a `let` intermediate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tensor {
    /// The name declared in the signature or by `let`.
    pub name: String,
    /// The element dtype.
    pub dtype: Dtype,
    /// Extent of each dimension in elements, outermost first (row-major: the last is
    /// contiguous); empty for a scalar parameter or a 0-d value.
    pub shape: Vec<u64>,
    /// Whether it is read, written or kept on chip.
    pub role: Role,
}

impl Tensor {
    /// Elements in the whole tensor: the product of its extents, 1 when 0-d.
    pub fn elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// Bytes of the whole tensor, unpadded: its elements times the dtype's size.
    pub fn bytes(&self) -> u64 {
        self.elements() * self.dtype.size()
    }

    /// Whether it is a scalar parameter (`offset: i8`): an input of rank 0, passed at
    /// run time and held in a scalar register, never staged or copied. A 0-d output
    /// (`-> y: f32`) is not one: it is computed on chip and copied out as one element.
    pub fn is_scalar(&self) -> bool {
        self.shape.is_empty() && self.role == Role::Input
    }
}

/// Where a tensor's values come from and go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A parameter before `->`: read from global memory or, for a scalar parameter,
    /// passed in a scalar register.
    Input,
    /// A parameter after `->`: computed on chip and copied out to global memory.
    Output,
    /// A `let` intermediate: computed and read on chip, never copied to or from
    /// global memory, not an output. Listed after the outputs.
    Local,
}

/// A loop axis: an output axis (named by the output's subscripts) or a reduction axis
/// (named by `sum[k]`, `max[k]`, `min[k]`, or one of `sum[kh, kw]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Axis {
    /// The name written in subscripts and reduction brackets; one name, one axis.
    pub name: String,
    /// Positions along the axis (its loop's trip count): the extent of a tensor
    /// dimension it indexes, or a window's stated `k < n`.
    pub extent: u64,
    /// Whether no output runs over it, so that a reduction folds it away; a `let`
    /// intermediate may still run over it.
    pub reduction: bool,
}

impl CheckedKernel {
    /// Whether a statement has a `select`: the vector unit's `Select` then writes the
    /// vendor library's scratch, which the plan keeps clear ([`Target::ub_planned`]).
    pub fn selects(&self) -> bool {
        self.body.iter().any(|assign| assign.value.selects())
    }

    /// The axes of the outputs (every output has the same), the tile loops of a
    /// schedule; `let` intermediates may run over fewer or others.
    pub fn output_axes(&self) -> &[usize] {
        self.body
            .iter()
            .find(|a| self.tensors[a.output].role == Role::Output)
            .map_or(&[], |a| a.axes.as_slice())
    }

    /// The extent `tensor` indexes when a gather reads it as an index (the smallest,
    /// if several gathers do): its valid values are `0..extent`.
    pub fn index_extent(&self, tensor: usize) -> Option<u64> {
        let mut smallest: Option<u64> = None;
        for assign in &self.body {
            assign.value.accesses(&mut |_, subscripts| {
                for subscript in subscripts {
                    if let Subscript::Gather {
                        tensor: t, extent, ..
                    } = subscript
                        && *t == tensor
                    {
                        smallest = Some(smallest.map_or(*extent, |s| s.min(*extent)));
                    }
                }
            });
        }
        smallest
    }

    /// Whether the body has `let` intermediates: its statements then run in order
    /// once per tile, every axis a statement reduces over whole in the tile.
    pub fn is_fused(&self) -> bool {
        self.tensors.iter().any(|t| t.role == Role::Local)
    }
}

/// `output[axes] = value`, one per output tensor and one per `let` intermediate, in
/// source order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assign {
    /// Index into [`CheckedKernel::tensors`].
    pub output: usize,
    /// The axis of each output dimension, indices into [`CheckedKernel::axes`].
    pub axes: Vec<usize>,
    /// The value of each element, in the written tensor's dtype.
    pub value: Expr,
}

/// One subscript of a load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Subscript {
    /// The axis's current value; an index into [`CheckedKernel::axes`].
    Axis(usize),
    /// A fixed position along the dimension.
    Const(u64),
    /// `Σ coefficient × axis + offset`, e.g. `2*i + k - 1`: terms in written order,
    /// one per axis, every coefficient at least 1. Plain axes and constants keep
    /// their own variants.
    Affine {
        /// `(axis, coefficient)` pairs: indices into [`CheckedKernel::axes`], each
        /// coefficient at least 1.
        terms: Vec<(usize, u64)>,
        /// The constant added, possibly negative.
        offset: i64,
    },
    /// A gather, `idx[i]` in `table[idx[i], d]`: the position is the value of the
    /// integer input `tensor` at `subscripts` (affine ones), known only at run time.
    /// `extent` is the gathered dimension's length: a value outside `0..extent` is a
    /// run-time error, never a read. The gathered dimension has no axis, so every
    /// tile of the tensor holds it whole.
    Gather {
        /// The index tensor, an integer input; an index into [`CheckedKernel::tensors`].
        tensor: usize,
        /// The index tensor's subscripts, one per its dimension; never a gather.
        subscripts: Vec<Subscript>,
        /// The index tensor's integer dtype.
        dtype: Dtype,
        /// The gathered dimension's length, in elements.
        extent: u64,
    },
}

impl Subscript {
    /// The axes and coefficients of the subscript (none for a constant or a gather,
    /// whose dimension no axis slides along).
    pub fn terms(&self) -> Vec<(usize, u64)> {
        match self {
            Subscript::Axis(axis) => vec![(*axis, 1)],
            Subscript::Const(_) | Subscript::Gather { .. } => Vec::new(),
            Subscript::Affine { terms, .. } => terms.clone(),
        }
    }

    /// The constant part.
    pub fn offset(&self) -> i64 {
        match self {
            Subscript::Axis(_) | Subscript::Gather { .. } => 0,
            Subscript::Const(value) => *value as i64,
            Subscript::Affine { offset, .. } => *offset,
        }
    }

    /// The index it reads when each axis `a` has the value `env[a]`; `None` for a
    /// gather, whose index is data (see [`Subscript::gather`]).
    pub fn at(&self, env: &[u64]) -> Option<i64> {
        match self {
            Subscript::Axis(axis) => Some(env[*axis] as i64),
            Subscript::Const(value) => Some(*value as i64),
            Subscript::Affine { terms, offset } => Some(
                terms
                    .iter()
                    .fold(*offset, |sum, (axis, c)| sum + (env[*axis] * c) as i64),
            ),
            Subscript::Gather { .. } => None,
        }
    }

    /// The index tensor and its subscripts, for a gather.
    pub fn gather(&self) -> Option<(usize, &[Subscript])> {
        match self {
            Subscript::Gather {
                tensor, subscripts, ..
            } => Some((*tensor, subscripts)),
            _ => None,
        }
    }

    /// The coefficient of `axis` (0 when it does not appear).
    pub fn coefficient(&self, axis: usize) -> u64 {
        match self {
            Subscript::Axis(a) => u64::from(*a == axis),
            Subscript::Const(_) | Subscript::Gather { .. } => 0,
            Subscript::Affine { terms, .. } => terms
                .iter()
                .filter(|(a, _)| *a == axis)
                .map(|(_, c)| c)
                .sum(),
        }
    }
}

/// A typed expression. Every node knows its dtype; comparisons yield a mask that only
/// `Select` consumes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A read of an input or of a `let` intermediate (a 0-d one by its bare name). With `pad` it is a padded view (`pad(x, 0)[i - 1]`): an
    /// element whose subscripts fall outside the tensor reads as the pad value, a
    /// scalar of the load's dtype (a constant or a scalar parameter). The pad is not a node
    /// of the tree: [`Expr::walk`] does not visit it.
    Load {
        /// Index into [`CheckedKernel::tensors`]: an input or a `let` intermediate.
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
        /// The reduction axes, indices into [`CheckedKernel::axes`], outermost first.
        axes: Vec<usize>,
        /// The value folded, evaluated at every position of `axes`.
        body: Box<Expr>,
        /// The result's dtype; for an arg reduction, the integer dtype of the index.
        dtype: Dtype,
        /// The dtype every step of the fold is rounded to.
        accumulator: Dtype,
    },
    /// A scalar parameter's value (`offset`): the same for every element, read from a
    /// scalar register. `tensor` indexes [`CheckedKernel::tensors`].
    Param {
        /// The scalar parameter, an index into [`CheckedKernel::tensors`].
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
        /// The axis scanned along, an index into [`CheckedKernel::axes`].
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

thread_local! {
    static WALKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many nodes [`Expr::walk`] has visited on this thread so far: a unit of work
/// that tests count to show a pass is linear in its input (a count is the same on
/// every machine; a time is not). Most passes over a checked kernel walk it.
pub fn walked_nodes() -> u64 {
    WALKED.with(|walked| walked.get())
}

/// What the kernel's body needs from the machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KernelClass {
    /// Only elementwise work on the vector unit.
    Elementwise,
    /// At least one reduction or scan, on the vector unit.
    Reduction,
    /// `c[m, n] = sum[k](a[m, k] * b[k, n])` on the cube unit (casts allowed around
    /// the operands and the result), or a batched one,
    /// `c[t, m, n] = sum[k](a[t, m, k] * b[t, k, n])`, where either operand may leave
    /// out the batch axis (`b[k, n]`: one matrix shared by the whole batch).
    Matmul(MatmulShape),
}

/// The tensors and axes of a matmul, as indices into the kernel's tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatmulShape {
    /// The left operand, `a[m, k]`: a tensor index.
    pub a: usize,
    /// The right operand, `b[k, n]`: a tensor index.
    pub b: usize,
    /// The output, `c[m, n]`: a tensor index.
    pub c: usize,
    /// The row axis of `a` and `c`: an axis index.
    pub m: usize,
    /// The column axis of `b` and `c`: an axis index.
    pub n: usize,
    /// The reduction axis the products are summed over: an axis index.
    pub k: usize,
    /// The leading batch axis of a batched matmul: `c`'s first axis, and the first of
    /// each operand that has one. The cube's base block never covers it; each batch
    /// element is its own product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<usize>,
}

impl MatmulShape {
    /// Whether operand `tensor` (`a` or `b`) has the batch axis, rather than being one
    /// matrix every batch element shares.
    pub fn is_batched(&self, tensors: &[Tensor], tensor: usize) -> bool {
        self.batch.is_some() && tensors[tensor].shape.len() == 3
    }

    /// Matrices in the batch: the batch axis's extent, 1 for a plain matmul.
    pub fn batch_extent(&self, axes: &[Axis]) -> u64 {
        self.batch.map_or(1, |axis| axes[axis].extent)
    }
}

/// A legal schedule with every default filled in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckedSchedule {
    /// The schedule's name as written; unique within the kernel.
    pub name: String,
    /// The block's canonical text (see [`crate::print::schedule`]).
    pub source: String,
    /// Multi-core split: axis index and core count, in source order.
    pub parallel: Vec<(usize, u64)>,
    /// Tile extent per axis (the axis extent where it is not split).
    pub tiles: Vec<u64>,
    /// The cube's base block (m, n, k) for matmul kernels.
    pub cube: Option<[u64; 3]>,
    /// One entry per tensor of each `stage` item, in source order.
    pub stages: Vec<Stage>,
    /// The `tail` item's policy; [`Tail::None`] when the schedule has none.
    pub tail: Tail,
    /// The order of the tile loops over output axes, outermost first. Reduction axes
    /// always run innermost, in the order they appear.
    pub order: Vec<usize>,
    /// Every on-chip buffer the schedule needs; lowering places exactly these.
    pub buffers: Vec<Buffer>,
}

impl CheckedSchedule {
    /// Cores the schedule runs on: the product of its `parallel` items.
    pub fn cores(&self) -> u64 {
        self.parallel.iter().map(|(_, cores)| cores).product()
    }

    /// Bytes of all buffers at `level`, every slot counted.
    pub fn used(&self, level: Level) -> u64 {
        self.buffers
            .iter()
            .filter(|b| b.level == level)
            .map(Buffer::total_bytes)
            .sum()
    }

    /// Where `tensor` is staged at `level`, if it is.
    pub fn stage(&self, tensor: usize, level: Level) -> Option<&Stage> {
        self.stages
            .iter()
            .find(|s| s.tensor == tensor && s.level == level)
    }
}

/// `stage t in level depth d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    /// The tensor staged, an index into [`CheckedKernel::tensors`]; never a scalar
    /// parameter or a `let` intermediate.
    pub tensor: usize,
    /// The on-chip memory level its tiles are copied to.
    pub level: Level,
    /// Buffer slots, 1 to 4; 2 double-buffers, overlapping copies with compute.
    pub depth: u64,
}

/// How a tile that runs past the end of its axis is copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tail {
    /// No tile leaves a tail.
    None,
    /// The tail's copies are padded to the alignment (DataCopyPad); always legal.
    Pad,
    /// The tail is copied at its exact length; legal when that length is aligned.
    Exact,
}

/// One on-chip buffer of the schedule's plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buffer {
    /// The staged tensor's name, or `tmp0`, `acc0`, ... for temporaries.
    pub name: String,
    /// The memory level it is placed in.
    pub level: Level,
    /// Whether it holds a staged tensor's tile, a temporary or an accumulator.
    pub kind: BufferKind,
    /// Bytes of one slot, rounded up to the level's alignment.
    pub bytes: u64,
    /// Slots: the staging depth (1 for temporaries).
    pub depth: u64,
}

impl Buffer {
    /// Bytes of every slot together: `bytes × depth`.
    pub fn total_bytes(&self) -> u64 {
        self.bytes * self.depth
    }
}

/// What an on-chip buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    /// A tile of a staged tensor; the index is into the kernel's tensors.
    Tensor(usize),
    /// An intermediate value of the algorithm's expression.
    Temp,
    /// A reduction's accumulator.
    Accumulator,
}
