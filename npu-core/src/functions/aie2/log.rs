//! `log`, `log2` and `log10` of bf16 values. The argument is taken apart as in
//! division into `m * 2^e`, `m` moved into [0.71, 1.42) (halved, `e` raised by one,
//! above sqrt(2)); `f = m - 1` is exact in bf16, and `log(1 + f)` is
//! `f - f^2/2 + f^3 q(f)`, the first two terms exact in the accumulator and `q` the
//! Taylor series from 1/3 to 1/9 by bf16 Horner's rule. `e` (a bf16 integer,
//! `aie::to_float`) times `ln 2` (`log10 2`) in two exact bf16 products, and for
//! `log2` and `log10` the logarithm of `m` in two bf16 pieces times `log2(e)`
//! (`log10(e)`) in pieces, are added in the accumulator, which is rounded once.

use super::super::lanes::{
    DEFAULT_NAN, INFINITY, bits, constant, from_bits, mac, magnitude, mul, quiet, split, to_bf16,
};
use super::divide::decompose;
use super::exp::{LN_2, LOG2_E};

/// `(-1)^(k+1) / k` for k = 3 to 9, rounded to bf16: the series of `log(1 + f)`
/// after its second term, divided by `f^3`.
pub const LOG_SERIES: [f32; 7] = [
    constant(0x3EAB),
    constant(0xBE80),
    constant(0x3E4D),
    constant(0xBE2B),
    constant(0x3E12),
    constant(0xBE00),
    constant(0x3DE4),
];
/// The bits of the largest mantissa kept in [1, sqrt(2)): 1.4140625.
pub const LOG_SWITCH: i16 = 0x3FB5;
/// `log10(2)` and `log10(e)` as sums of two and three bf16 values.
pub const LOG10_2: [f32; 2] = [constant(0x3E9A), constant(0x3982)];
/// `log10(e)` as the sum of three bf16 values.
pub const LOG10_E: [f32; 3] = [constant(0x3EDE), constant(0x3A38), constant(0xB59D)];

/// ln(x), rounded to bf16.
pub(crate) fn log(x: f32) -> f32 {
    let (log_m, e) = reduce(x);
    special(x, to_bf16(mac(mac(log_m, e, LN_2[1]), e, LN_2[0])))
}

/// log2(x), rounded to bf16.
pub(crate) fn log2(x: f32) -> f32 {
    let (log_m, e) = reduce(x);
    let (hi, lo) = split(log_m);
    let t = mac(mac(mul(lo, LOG2_E[0]), hi, LOG2_E[1]), hi, LOG2_E[0]);
    special(x, to_bf16(t + e))
}

/// log10(x), rounded to bf16.
pub(crate) fn log10(x: f32) -> f32 {
    let (log_m, e) = reduce(x);
    let (hi, lo) = split(log_m);
    let t = mac(mac(mul(lo, LOG10_E[0]), hi, LOG10_E[2]), hi, LOG10_E[1]);
    let t = mac(mac(t, e, LOG10_2[1]), hi, LOG10_E[0]);
    special(x, to_bf16(mac(t, e, LOG10_2[0])))
}

/// `(log(m), e)` for `x = m * 2^e` with m in [0.71, 1.42): the first in the
/// accumulator, the second a bf16 integer.
fn reduce(x: f32) -> (f32, f32) {
    let (m, e) = decompose(x);
    let high = bits(m) > LOG_SWITCH;
    let m = if high { from_bits(bits(m) - 0x0080) } else { m };
    let e = to_bf16(f32::from(e + i16::from(high)));
    let f = to_bf16(m - 1.0);
    let mut q = LOG_SERIES[6];
    for c in LOG_SERIES[..6].iter().rev() {
        q = to_bf16(mac(*c, f, q));
    }
    let p = to_bf16(mul(to_bf16(mul(f, f)), q));
    let log_m = mac(mul(f, p), f, to_bf16(mul(f, -0.5))) + f;
    (log_m, e)
}

/// +∞ gives +∞, a negative argument NaN, ±0 gives -∞, and a NaN itself, quieted.
fn special(x: f32, value: f32) -> f32 {
    let m = magnitude(x);
    let mut r = bits(value);
    if m == INFINITY {
        r = INFINITY;
    }
    if bits(x) < 0 {
        r = DEFAULT_NAN;
    }
    if m == 0 {
        r = INFINITY | i16::MIN;
    }
    if m > INFINITY {
        r = bits(quiet(x));
    }
    from_bits(r)
}
