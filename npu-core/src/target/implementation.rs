//! The names a target file's `[vector.functions]` table gives each function's
//! implementation; [`crate::functions`] computes them.

use serde::{Deserialize, Serialize};

use super::VectorOp;

/// The algorithm a target computes one function with.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Implementation {
    /// The exact value, rounded once to the dtype.
    #[default]
    CorrectlyRounded,
    /// The AIE-ML vector unit's algorithm of the function for bf16 values
    /// ([`crate::functions::aie2`]): bf16 products into an f32 accumulator, exact; other dtypes are
    /// correctly rounded.
    Aie2Bf16,
}

impl Implementation {
    /// Whether this implementation has an algorithm of its own for `op`; a target
    /// file that names one for another function is refused.
    pub fn covers(self, op: VectorOp) -> bool {
        self.covered().contains(&op)
    }

    /// The functions with an algorithm of this implementation's own.
    pub fn covered(self) -> &'static [VectorOp] {
        match self {
            Implementation::CorrectlyRounded => &VectorOp::ALL,
            Implementation::Aie2Bf16 => &AIE2_BF16,
        }
    }

    /// Its name in a target file.
    pub fn name(self) -> &'static str {
        match self {
            Implementation::CorrectlyRounded => "correctly_rounded",
            Implementation::Aie2Bf16 => "aie2_bf16",
        }
    }
}

/// The functions [`Implementation::Aie2Bf16`] has an algorithm for.
pub const AIE2_BF16: [VectorOp; 10] = [
    VectorOp::Exp,
    VectorOp::Exp2,
    VectorOp::Log,
    VectorOp::Log2,
    VectorOp::Log10,
    VectorOp::Rsqrt,
    VectorOp::Recip,
    VectorOp::Div,
    VectorOp::Sigmoid,
    VectorOp::Tanh,
];
