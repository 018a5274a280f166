//! The operators of the algorithm language: unary, binary, comparison, reduction and
//! scan, with their names in the language, the dtypes each takes and the vector
//! instruction each becomes.

use serde::{Deserialize, Serialize};

use crate::target::VectorOp;

/// An operation on one value, rounded to its dtype: a function such as `exp(x)`, or
/// the operators `-x` and `!x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnaryOp {
    /// `-x` or `neg(x)`.
    Neg,
    /// `abs(x)`, the magnitude.
    Abs,
    /// `exp(x)`, e to the power x.
    Exp,
    /// `log(x)`, the natural logarithm.
    Log,
    /// `sqrt(x)`, the square root.
    Sqrt,
    /// `rsqrt(x)`, 1 / sqrt(x).
    Rsqrt,
    /// `tanh(x)`, the hyperbolic tangent.
    Tanh,
    /// `recip(x)`, 1 / x.
    Recip,
    /// `relu(x)`, max(x, 0).
    Relu,
    /// `sigmoid(x)`, 1 / (1 + e^-x).
    Sigmoid,
    /// `sin(x)`, of x in radians.
    Sin,
    /// `cos(x)`, of x in radians.
    Cos,
    /// `tan(x)`, of x in radians.
    Tan,
    /// `floor(x)`, rounds toward -∞.
    Floor,
    /// `ceil(x)`, rounds toward +∞.
    Ceil,
    /// Rounds half to even.
    Round,
    /// `trunc(x)`, rounds toward zero.
    Trunc,
    /// `exp2(x)`, 2 to the power x.
    Exp2,
    /// `log2(x)`, the base-2 logarithm.
    Log2,
    /// `log10(x)`, the base-10 logarithm.
    Log10,
    /// `erf(x)`, the Gauss error function.
    Erf,
    /// -1, 0 or 1.
    Sign,
    /// Bitwise not, `!x`.
    Not,
    /// `popcount(x)`, the number of set bits in the dtype's width.
    Popcount,
}

impl UnaryOp {
    /// Every unary operation, in declaration order; [`UnaryOp::function`] searches it.
    pub const ALL: [UnaryOp; 24] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Tanh,
        UnaryOp::Recip,
        UnaryOp::Relu,
        UnaryOp::Sigmoid,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::Exp2,
        UnaryOp::Log2,
        UnaryOp::Log10,
        UnaryOp::Erf,
        UnaryOp::Sign,
        UnaryOp::Not,
        UnaryOp::Popcount,
    ];

    /// The function name it is called by in source (`neg` for `Neg`), or `!` for
    /// [`UnaryOp::Not`], which is only an operator.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Recip => "recip",
            UnaryOp::Relu => "relu",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tan => "tan",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Trunc => "trunc",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Log2 => "log2",
            UnaryOp::Log10 => "log10",
            UnaryOp::Erf => "erf",
            UnaryOp::Sign => "sign",
            UnaryOp::Not => "!",
            UnaryOp::Popcount => "popcount",
        }
    }

    /// The unary operation a function name calls (`!` is an operator, not a function).
    pub fn function(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL
            .into_iter()
            .find(|op| *op != UnaryOp::Not && op.name() == name)
    }

    /// The cost class of this operation in a target's vector table.
    pub fn vector_op(self) -> VectorOp {
        match self {
            UnaryOp::Neg => VectorOp::Neg,
            UnaryOp::Abs => VectorOp::Abs,
            UnaryOp::Exp => VectorOp::Exp,
            UnaryOp::Log => VectorOp::Log,
            UnaryOp::Sqrt => VectorOp::Sqrt,
            UnaryOp::Rsqrt => VectorOp::Rsqrt,
            UnaryOp::Tanh => VectorOp::Tanh,
            UnaryOp::Recip => VectorOp::Recip,
            UnaryOp::Relu => VectorOp::Relu,
            UnaryOp::Sigmoid => VectorOp::Sigmoid,
            UnaryOp::Sin => VectorOp::Sin,
            UnaryOp::Cos => VectorOp::Cos,
            UnaryOp::Tan => VectorOp::Tan,
            UnaryOp::Floor => VectorOp::Floor,
            UnaryOp::Ceil => VectorOp::Ceil,
            UnaryOp::Round => VectorOp::Round,
            UnaryOp::Trunc => VectorOp::Trunc,
            UnaryOp::Exp2 => VectorOp::Exp2,
            UnaryOp::Log2 => VectorOp::Log2,
            UnaryOp::Log10 => VectorOp::Log10,
            UnaryOp::Erf => VectorOp::Erf,
            UnaryOp::Sign => VectorOp::Sign,
            UnaryOp::Not => VectorOp::Not,
            UnaryOp::Popcount => VectorOp::Popcount,
        }
    }

    /// Whether the operation is only defined on floating-point values.
    pub fn float_only(self) -> bool {
        !matches!(
            self,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Relu
                | UnaryOp::Sign
                | UnaryOp::Not
                | UnaryOp::Popcount
        )
    }

    /// Whether the operation is only defined on integers (it works on their bits).
    pub fn integer_only(self) -> bool {
        matches!(self, UnaryOp::Not | UnaryOp::Popcount)
    }
}

/// An arithmetic or bitwise operation on two values of one dtype, rounded to it: an
/// operator, or the functions `min`, `max` and `pow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BinaryOp {
    /// `a + b`; integers wrap.
    Add,
    /// `a - b`; integers wrap.
    Sub,
    /// `a * b`; integers wrap.
    Mul,
    /// `a / b`; integer division truncates toward zero, and an integer zero divisor
    /// gives 0.
    Div,
    /// `min(a, b)`; a NaN operand yields the other.
    Min,
    /// `max(a, b)`; a NaN operand yields the other.
    Max,
    /// `pow(x, e)`, with a constant exponent.
    Pow,
    /// `a & b`, bitwise, on integers only.
    And,
    /// `a | b`, bitwise, on integers only.
    Or,
    /// `a ^ b`, bitwise, on integers only.
    Xor,
    /// `a << n`: a shift by `n` outside `0..bits` gives 0.
    Shl,
    /// `a >> n`: arithmetic for signed dtypes, logical for unsigned; a shift by `n`
    /// outside `0..bits` gives the sign fill (0 or -1).
    Shr,
    /// The remainder of truncating division, with the dividend's sign (Rust's `%`).
    Rem,
}

impl BinaryOp {
    /// The cost class of this operation in a target's vector table.
    pub fn vector_op(self) -> VectorOp {
        match self {
            BinaryOp::Add => VectorOp::Add,
            BinaryOp::Sub => VectorOp::Sub,
            BinaryOp::Mul => VectorOp::Mul,
            BinaryOp::Div => VectorOp::Div,
            BinaryOp::Min => VectorOp::Min,
            BinaryOp::Max => VectorOp::Max,
            BinaryOp::Pow => VectorOp::Pow,
            BinaryOp::And => VectorOp::And,
            BinaryOp::Or => VectorOp::Or,
            BinaryOp::Xor => VectorOp::Xor,
            BinaryOp::Shl => VectorOp::Shl,
            BinaryOp::Shr => VectorOp::Shr,
            BinaryOp::Rem => VectorOp::Rem,
        }
    }

    /// The operator or function as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
            BinaryOp::Pow => "pow",
            BinaryOp::And => "&",
            BinaryOp::Or => "|",
            BinaryOp::Xor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Rem => "%",
        }
    }

    /// Whether the operation works on the bits of integers only.
    pub fn integer_only(self) -> bool {
        matches!(
            self,
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Shl | BinaryOp::Shr
        )
    }
}

/// A comparison of two values of one dtype. It yields a mask, which only `select`
/// takes; a NaN operand makes every comparison false but `!=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompareOp {
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
}

/// The fold of a reduction over one or more axes, `sum[k](x)` and its kin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReduceOp {
    /// `sum[k]`, starting from 0.
    Sum,
    /// `max[k]`, starting from -∞.
    Max,
    /// `min[k]`, starting from +∞.
    Min,
    /// The index of the first greatest value (see [`Expr::Reduce`](super::Expr::Reduce)).
    ArgMax,
    /// The index of the first least value.
    ArgMin,
}

impl ReduceOp {
    /// The name a reduction is written with.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::ArgMin => "argmin",
        }
    }

    /// Whether it returns an index (`argmax`, `argmin`) rather than a value.
    pub fn is_arg(self) -> bool {
        matches!(self, ReduceOp::ArgMax | ReduceOp::ArgMin)
    }

    /// The cost class of its fold in a target's vector table.
    pub fn vector_op(self) -> VectorOp {
        match self {
            ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min => VectorOp::Reduce,
            ReduceOp::ArgMax => VectorOp::Argmax,
            ReduceOp::ArgMin => VectorOp::Argmin,
        }
    }
}

/// An inclusive scan along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanOp {
    /// `cumsum[k]`: running sum, starting from 0.
    Sum,
    /// `cumprod[k]`: running product, starting from 1.
    Prod,
}

impl ScanOp {
    /// The name a scan is written with.
    pub fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "cumsum",
            ScanOp::Prod => "cumprod",
        }
    }

    /// The cost class of one step in a target's vector table.
    pub fn vector_op(self) -> VectorOp {
        match self {
            ScanOp::Sum => VectorOp::Cumsum,
            ScanOp::Prod => VectorOp::Cumprod,
        }
    }
}
