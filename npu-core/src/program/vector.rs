//! The vector unit's instructions: a [`VectorInstr`] over a box of elements, its
//! [`VectorKind`] and its [`Operand`]s.

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;
use crate::ir::{BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp};
use crate::target::VectorOp;

/// One vector instruction over a box of elements.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorInstr {
    /// What it computes; [`VectorKind::mnemonic`] names it.
    pub kind: VectorKind,
    /// The result's dtype (for `Compare`, the operands'; for `Reduce`, the reduction's,
    /// which accumulates in the dtype its kind names).
    pub dtype: Dtype,
    /// Bytes per element for the repeat count.
    pub width: u8,
    /// Elements in the box.
    pub elements: u32,
    /// Index into [`Program::boxes`](super::Program::boxes).
    pub shape: u32,
    /// Destination: UB byte address and index into [`Program::strides`](super::Program::strides).
    pub dst: u32,
    /// Index into [`Program::strides`](super::Program::strides): the destination's
    /// byte stride along each box dimension.
    pub dst_strides: u32,
    /// Up to three sources, [`Operand::None`] past the last; their roles depend on `kind`.
    pub src: [Operand; 3],
}

/// What a vector instruction computes; [`VectorKind::cost_op`] is its row in the
/// target's cost table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VectorKind {
    /// `vdup`: fills the box with a scalar (a constant or a parameter).
    Dup,
    /// `vcopy`: moves the first source; a source stride of 0 broadcasts it.
    Copy,
    /// An elementwise function of the first source (`vexp`, `vneg`, ...).
    Unary(UnaryOp),
    /// An elementwise operation on the first two sources (`vadd`, `vshl`, ...).
    Binary(BinaryOp),
    /// `vcmp.<op>`: a one-byte mask, 1 where the comparison of the first two sources
    /// holds, else 0.
    Compare(CompareOp),
    /// `vsel`: the second source where the first (a one-byte mask) is nonzero, else
    /// the third.
    Select,
    /// `vconv`: the first source converted to the instruction's dtype.
    Cast,
    /// Folds in the accumulator dtype given (each step rounded to it). A sum with a
    /// second source folds the products of its two sources, each exact in the
    /// accumulator (a multiply-accumulate, as AIE2's MAC forms bf16 products in fp32).
    /// An arg
    /// reduction (`vreduce.argmax`) names the dtype it compares values in instead:
    /// its destination is the index accumulator, its second source the value
    /// accumulator (both stride 0 along the reduced last dimension of the box), its
    /// third the index of the box's first element along that dimension.
    Reduce(ReduceOp, Dtype),
    /// An inclusive running sum in the accumulator dtype given, along the box
    /// dimension where the second source, the running value, has stride 0 (see
    /// [`Program::scan_dimension`](super::Program::scan_dimension)); the running value is read before the first step
    /// and left holding the last, so the next tile carries on. (One variant per scan,
    /// each holding one byte, keeps an instruction within 64 bytes.)
    Cumsum(Dtype),
    /// A running product, as `Cumsum`.
    Cumprod(Dtype),
    /// A saturating cast (`x as sat i8`).
    SatCast,
    /// `vpairsum`: the lanes of a sum (docs/dsl.md, "The order of a fold") combined in the
    /// adjacent-pair tree of [`scalar::pair_tree`](crate::scalar::pair_tree), in the
    /// instruction's dtype: the box's last dimension (a power of two) folds into the
    /// destination, which has stride 0 along it and so is the first lane.
    PairSum,
    /// A gather, by index into [`Program::gathers`](super::Program::gathers).
    Gather(u8),
}

impl VectorKind {
    /// The instruction of a scan that accumulates in `accumulator`.
    pub fn from_scan(op: ScanOp, accumulator: Dtype) -> VectorKind {
        match op {
            ScanOp::Sum => VectorKind::Cumsum(accumulator),
            ScanOp::Prod => VectorKind::Cumprod(accumulator),
        }
    }

    /// The scan and its accumulator dtype, for `vscan` instructions.
    pub fn scan(self) -> Option<(ScanOp, Dtype)> {
        match self {
            VectorKind::Cumsum(accumulator) => Some((ScanOp::Sum, accumulator)),
            VectorKind::Cumprod(accumulator) => Some((ScanOp::Prod, accumulator)),
            _ => None,
        }
    }

    /// The cost class in the target's vector table.
    pub fn cost_op(self) -> VectorOp {
        match self {
            VectorKind::Dup | VectorKind::Copy => VectorOp::Dup,
            VectorKind::Unary(op) => op.vector_op(),
            VectorKind::Binary(op) => op.vector_op(),
            VectorKind::Compare(_) => VectorOp::Cmp,
            VectorKind::Select => VectorOp::Select,
            VectorKind::Cast | VectorKind::SatCast => VectorOp::Cast,
            VectorKind::Gather(_) => VectorOp::Gather,
            VectorKind::PairSum => VectorOp::Reduce,
            VectorKind::Reduce(op, _) => op.vector_op(),
            VectorKind::Cumsum(_) => VectorOp::Cumsum,
            VectorKind::Cumprod(_) => VectorOp::Cumprod,
        }
    }

    /// The instruction's name in listings, e.g. `vreduce.sum` or `vcmp.lt`.
    pub fn mnemonic(self) -> &'static str {
        match self {
            VectorKind::Dup => "vdup",
            VectorKind::Copy => "vcopy",
            VectorKind::Unary(op) => match op {
                UnaryOp::Neg => "vneg",
                UnaryOp::Abs => "vabs",
                UnaryOp::Exp => "vexp",
                UnaryOp::Log => "vln",
                UnaryOp::Sqrt => "vsqrt",
                UnaryOp::Rsqrt => "vrsqrt",
                UnaryOp::Tanh => "vtanh",
                UnaryOp::Recip => "vrec",
                UnaryOp::Relu => "vrelu",
                UnaryOp::Sigmoid => "vsigmoid",
                UnaryOp::Sin => "vsin",
                UnaryOp::Cos => "vcos",
                UnaryOp::Tan => "vtan",
                UnaryOp::Floor => "vfloor",
                UnaryOp::Ceil => "vceil",
                UnaryOp::Round => "vround",
                UnaryOp::Trunc => "vtrunc",
                UnaryOp::Exp2 => "vexp2",
                UnaryOp::Log2 => "vlog2",
                UnaryOp::Log10 => "vlog10",
                UnaryOp::Erf => "verf",
                UnaryOp::Sign => "vsign",
                UnaryOp::Not => "vnot",
                UnaryOp::Popcount => "vpopcnt",
            },
            VectorKind::Binary(op) => match op {
                BinaryOp::Add => "vadd",
                BinaryOp::Sub => "vsub",
                BinaryOp::Mul => "vmul",
                BinaryOp::Div => "vdiv",
                BinaryOp::Min => "vmin",
                BinaryOp::Max => "vmax",
                BinaryOp::Pow => "vpow",
                BinaryOp::And => "vand",
                BinaryOp::Or => "vor",
                BinaryOp::Xor => "vxor",
                BinaryOp::Shl => "vshl",
                BinaryOp::Shr => "vshr",
                BinaryOp::Rem => "vrem",
            },
            VectorKind::Compare(op) => match op {
                CompareOp::Lt => "vcmp.lt",
                CompareOp::Le => "vcmp.le",
                CompareOp::Gt => "vcmp.gt",
                CompareOp::Ge => "vcmp.ge",
                CompareOp::Eq => "vcmp.eq",
                CompareOp::Ne => "vcmp.ne",
            },
            VectorKind::Select => "vsel",
            VectorKind::Cast => "vconv",
            VectorKind::Reduce(op, _) => match op {
                ReduceOp::Sum => "vreduce.sum",
                ReduceOp::Max => "vreduce.max",
                ReduceOp::Min => "vreduce.min",
                ReduceOp::ArgMax => "vreduce.argmax",
                ReduceOp::ArgMin => "vreduce.argmin",
            },
            VectorKind::Cumsum(_) => "vscan.sum",
            VectorKind::Cumprod(_) => "vscan.prod",
            VectorKind::SatCast => "vconv.sat",
            VectorKind::PairSum => "vpairsum",
            VectorKind::Gather(_) => "vgather",
        }
    }
}

/// A source of a vector instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    /// No operand: the slot is unused.
    None,
    /// UB byte address and index into [`Program::strides`](super::Program::strides).
    Ub {
        /// Byte address in UB of the view's first element.
        address: u32,
        /// Index into [`Program::strides`](super::Program::strides): the view's byte stride
        /// along each box dimension, 0 to broadcast.
        strides: u32,
    },
    /// Index into [`Program::constants`](super::Program::constants).
    Scalar(u32),
    /// A scalar parameter's value, from a scalar register: the index of the kernel's
    /// tensor (rank 0) in [`Program::tensors`](super::Program::tensors), whose value the core is given at launch.
    Param(u16),
}
