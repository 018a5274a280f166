//! The vector operations that have a cost of their own, by name in a target file.

use serde::{Deserialize, Serialize};

/// The vector operations that have a cost of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VectorOp {
    /// `vadd`: elementwise sum.
    Add,
    /// `vsub`: elementwise difference.
    Sub,
    /// `vmul`: elementwise product.
    Mul,
    /// `vdiv`: elementwise quotient.
    Div,
    /// `vmin`: elementwise minimum of two sources.
    Min,
    /// `vmax`: elementwise maximum of two sources.
    Max,
    /// `vneg`: negation.
    Neg,
    /// `vabs`: absolute value.
    Abs,
    /// `vexp`: e to the x.
    Exp,
    /// `vln`: natural logarithm.
    Log,
    /// `vsqrt`: square root.
    Sqrt,
    /// `vrsqrt`: 1 / sqrt(x).
    Rsqrt,
    /// `vtanh`: hyperbolic tangent.
    Tanh,
    /// `vrec`: 1 / x.
    Recip,
    /// `vrelu`: max(x, 0).
    Relu,
    /// `vsigmoid`: 1 / (1 + e^-x).
    Sigmoid,
    /// Every `vcmp` (`.lt` to `.ne`), each writing a one-byte mask.
    Cmp,
    /// `vsel`: per element, one of two sources by a mask.
    Select,
    /// `vconv` and the saturating `vconv.sat`.
    Cast,
    /// `vdup` (fill with a scalar) and `vcopy` (move or broadcast a view).
    Dup,
    /// `vreduce.sum`, `.max`, `.min`; the last of the required costs.
    Reduce,
    /// `vsin`: sine; the first of the optional costs.
    Sin,
    /// `vcos`: cosine.
    Cos,
    /// `vtan`: tangent.
    Tan,
    /// `vfloor`: round toward negative infinity.
    Floor,
    /// `vceil`: round toward positive infinity.
    Ceil,
    /// `vround`: round to nearest, ties to even.
    Round,
    /// `vtrunc`: round toward zero.
    Trunc,
    /// `vexp2`: 2 to the x.
    Exp2,
    /// `vlog2`: base-2 logarithm.
    Log2,
    /// `vlog10`: base-10 logarithm.
    Log10,
    /// `verf`: the error function.
    Erf,
    /// `vsign`: -1, 0 or 1 by the sign of x.
    Sign,
    /// `vpow`: x to the y, elementwise.
    Pow,
    /// `vand`: bitwise and, integers only.
    And,
    /// `vor`: bitwise or, integers only.
    Or,
    /// `vxor`: bitwise exclusive or, integers only.
    Xor,
    /// `vnot`: bitwise complement, integers only.
    Not,
    /// `vshl`: left shift, integers only.
    Shl,
    /// `vshr`: right shift (arithmetic on signed dtypes), integers only.
    Shr,
    /// `vpopcnt`: set bits per element, integers only.
    Popcount,
    /// `vrem` (`%`): no instruction of its own, so the presets charge a div, trunc, mul
    /// and sub.
    Rem,
    /// Cycles per element of a gather (`vgather`), not per repeat.
    Gather,
    /// `argmax`'s fold, keeping value and index (Ascend's ReduceMax with an index).
    Argmax,
    /// `argmin`'s fold, as [`VectorOp::Argmax`] keeping the least value.
    Argmin,
    /// One step of a scan over the elements of the other axes.
    Cumsum,
    /// One step of a running product, as [`VectorOp::Cumsum`].
    Cumprod,
}

impl VectorOp {
    /// How many of [`VectorOp::ALL`], from the first, every target file must give a
    /// cost for. The operations after them are optional: a vector unit whose table has
    /// no cost for one does not compute it, and the checker refuses it (E026), so a
    /// target file written before they existed still loads.
    pub const REQUIRED: usize = 21;

    /// Every operation in declaration order, the required ones first, so `op as usize`
    /// indexes it (npu-sim's cost table relies on this).
    pub const ALL: [VectorOp; 47] = [
        VectorOp::Add,
        VectorOp::Sub,
        VectorOp::Mul,
        VectorOp::Div,
        VectorOp::Min,
        VectorOp::Max,
        VectorOp::Neg,
        VectorOp::Abs,
        VectorOp::Exp,
        VectorOp::Log,
        VectorOp::Sqrt,
        VectorOp::Rsqrt,
        VectorOp::Tanh,
        VectorOp::Recip,
        VectorOp::Relu,
        VectorOp::Sigmoid,
        VectorOp::Cmp,
        VectorOp::Select,
        VectorOp::Cast,
        VectorOp::Dup,
        VectorOp::Reduce,
        VectorOp::Sin,
        VectorOp::Cos,
        VectorOp::Tan,
        VectorOp::Floor,
        VectorOp::Ceil,
        VectorOp::Round,
        VectorOp::Trunc,
        VectorOp::Exp2,
        VectorOp::Log2,
        VectorOp::Log10,
        VectorOp::Erf,
        VectorOp::Sign,
        VectorOp::Pow,
        VectorOp::And,
        VectorOp::Or,
        VectorOp::Xor,
        VectorOp::Not,
        VectorOp::Shl,
        VectorOp::Shr,
        VectorOp::Popcount,
        VectorOp::Rem,
        VectorOp::Gather,
        VectorOp::Argmax,
        VectorOp::Argmin,
        VectorOp::Cumsum,
        VectorOp::Cumprod,
    ];

    /// The operation's key in a target file's `[vector.cycles]` table.
    pub fn name(self) -> &'static str {
        match self {
            VectorOp::Add => "add",
            VectorOp::Sub => "sub",
            VectorOp::Mul => "mul",
            VectorOp::Div => "div",
            VectorOp::Min => "min",
            VectorOp::Max => "max",
            VectorOp::Neg => "neg",
            VectorOp::Abs => "abs",
            VectorOp::Exp => "exp",
            VectorOp::Log => "log",
            VectorOp::Sqrt => "sqrt",
            VectorOp::Rsqrt => "rsqrt",
            VectorOp::Tanh => "tanh",
            VectorOp::Recip => "recip",
            VectorOp::Relu => "relu",
            VectorOp::Sigmoid => "sigmoid",
            VectorOp::Cmp => "cmp",
            VectorOp::Select => "select",
            VectorOp::Cast => "cast",
            VectorOp::Dup => "dup",
            VectorOp::Reduce => "reduce",
            VectorOp::Sin => "sin",
            VectorOp::Cos => "cos",
            VectorOp::Tan => "tan",
            VectorOp::Floor => "floor",
            VectorOp::Ceil => "ceil",
            VectorOp::Round => "round",
            VectorOp::Trunc => "trunc",
            VectorOp::Exp2 => "exp2",
            VectorOp::Log2 => "log2",
            VectorOp::Log10 => "log10",
            VectorOp::Erf => "erf",
            VectorOp::Sign => "sign",
            VectorOp::Pow => "pow",
            VectorOp::And => "and",
            VectorOp::Or => "or",
            VectorOp::Xor => "xor",
            VectorOp::Not => "not",
            VectorOp::Shl => "shl",
            VectorOp::Shr => "shr",
            VectorOp::Popcount => "popcount",
            VectorOp::Rem => "rem",
            VectorOp::Gather => "gather",
            VectorOp::Argmax => "argmax",
            VectorOp::Argmin => "argmin",
            VectorOp::Cumsum => "cumsum",
            VectorOp::Cumprod => "cumprod",
        }
    }
}
