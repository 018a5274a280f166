//! The bf16 functions of the AIE-ML vector unit (`aie2_bf16` in a target file): each
//! an algorithm of bf16 multiplies into an f32 accumulator, accumulator adds and
//! integer operations on bit patterns, as the AIE backend emits it call for call (the
//! unit has no floating-point divide, square root or exponential, and no f32
//! multiply). Each module's doc gives its algorithm; docs/targets.md gives the largest
//! error of each against the correctly rounded result.

mod divide;
mod exp;
mod log;
mod logistic;
mod rsqrt;

pub use self::divide::{DIFFERENCE_RANGE, RECIPROCAL_LINE, TWO_64};
pub use self::exp::{EXP_RANGE, EXP2_RANGE, LN_2, LOG2_E, POWERS, ROUNDER};
pub use self::log::{LOG_SERIES, LOG_SWITCH, LOG10_2, LOG10_E};
pub use self::logistic::{TANH_SERIES, TANH_SWITCH};
pub use self::rsqrt::{FRAC_1_SQRT_2, RSQRT_LINE};

pub(crate) use self::divide::{div, recip};
pub(crate) use self::exp::{exp, exp2};
pub(crate) use self::log::{log, log2, log10};
pub(crate) use self::logistic::{sigmoid, tanh};
pub(crate) use self::rsqrt::rsqrt;
