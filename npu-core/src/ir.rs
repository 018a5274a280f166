//! The checked kernel: a span-free, typed description of a legal kernel and its
//! schedules. Lowering takes only this type, so nothing unchecked reaches it.
//!
//! Everything here is plain data (`Send + Sync`, serde), so checked kernels can be
//! shared across the tuner's worker threads and stored in reports.
//!
//! This file holds the kernel, its tensors, axes, statements and class; `subscript`
//! and `expr` the typed body, `checked_schedule` a legal schedule with its stages and
//! buffers, `ops` the operators and `facts` what passes ask of an expression.

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;
use crate::target::Target;

mod checked_schedule;
mod expr;
mod facts;
mod inputs;
mod lanes;
mod ops;
mod subscript;

pub use checked_schedule::{Buffer, BufferKind, CheckedSchedule, Stage, Tail};
pub use expr::Expr;
#[cfg(feature = "walk-counter")]
pub use expr::walked_nodes;
pub use facts::{constant_value, implementation_of, vector_width};
pub use ops::{BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp};
pub use subscript::Subscript;

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
