//! How each target computes the functions of its floating-point values: correctly
//! rounded (the default: the exact value rounded once to the dtype, as
//! [`scalar`](crate::scalar) computes it), or a named algorithm that the target's
//! vector unit runs, which a target file selects per function in its
//! `[vector.functions]` table:
//!
//! ```toml
//! [vector.functions]
//! exp = "aie2_bf16"
//! ```
//!
//! Every stage computes a function through [`unary`] and [`binary`] with the
//! implementation the target names ([`Target::implementation`](crate::Target::implementation)), so the host
//! reference, the IR interpreter, the simulator and the emitted code agree bit for bit.
//! A function of constants only is folded at compile time, correctly rounded, by
//! every stage ([`implementation_of`](crate::ir::implementation_of)): no device computes it.

pub mod aie2;
pub(crate) mod lanes;

use crate::dtype::Dtype;
use crate::ir::{BinaryOp, UnaryOp};
use crate::target::Implementation;

/// `op(x)` as `implementation` computes it in `dtype`, when it has an algorithm of
/// its own for them; `None` when the value is the correctly rounded one.
pub fn unary(implementation: Implementation, op: UnaryOp, dtype: Dtype, x: f64) -> Option<f64> {
    if implementation != Implementation::Aie2Bf16 || dtype != Dtype::Bf16 {
        return None;
    }
    let function = match op {
        UnaryOp::Exp => aie2::exp,
        UnaryOp::Exp2 => aie2::exp2,
        UnaryOp::Rsqrt => aie2::rsqrt,
        UnaryOp::Recip => aie2::recip,
        UnaryOp::Sigmoid => aie2::sigmoid,
        UnaryOp::Tanh => aie2::tanh,
        UnaryOp::Log => aie2::log,
        UnaryOp::Log2 => aie2::log2,
        UnaryOp::Log10 => aie2::log10,
        _ => return None,
    };
    Some(f64::from(function(bf16_lane(x))))
}

/// `a op b` as `implementation` computes it in `dtype`, as [`unary`].
pub fn binary(
    implementation: Implementation,
    op: BinaryOp,
    dtype: Dtype,
    a: f64,
    b: f64,
) -> Option<f64> {
    if implementation != Implementation::Aie2Bf16 || dtype != Dtype::Bf16 {
        return None;
    }
    match op {
        BinaryOp::Div => Some(f64::from(aie2::div(bf16_lane(a), bf16_lane(b)))),
        _ => None,
    }
}

/// A value as a bf16 lane: rounded to bf16 first (operands of a bf16 operation hold
/// bf16 values already; a NaN keeps its sign and top payload bits).
fn bf16_lane(x: f64) -> f32 {
    f32::from_bits(u32::from(crate::dtype::bf16_from_f64(x).to_bits()) << 16)
}
