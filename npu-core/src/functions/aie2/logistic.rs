//! `sigmoid` and `tanh` of bf16 values, from [`exp`] and [`div`] of the same target.
//!
//! `sigmoid(x)` is `1 / (1 + e)` for x >= 0 and `e / (1 + e)` for x < 0, with
//! `e = exp(-|x|)` and `1 + e` rounded to bf16, so that no result overflows and a
//! very negative x keeps its tiny result. `tanh(|x|)` is an odd polynomial of degree 9
//! (bf16 Horner's rule in `x^2`, the last step `x + x * g` in the accumulator) below
//! 1/2, and `(1 - e) / (1 + e)` with `e = exp(-2|x|)` from 1/2 on; the sign is
//! copied from x.

use super::super::lanes::{
    INFINITY, bits, constant, from_bits, mac, magnitude, mul, quiet, to_bf16,
};
use super::divide::div;
use super::exp::exp;

/// The Taylor coefficients of `tanh(x) / x - 1` in `x^2`: -1/3, 2/15, -17/315,
/// 62/2835, rounded to bf16.
pub const TANH_SERIES: [f32; 4] = [
    constant(0xBEAB),
    constant(0x3E09),
    constant(0xBD5D),
    constant(0x3CB3),
];
/// The bits of 1/2, where `tanh` changes from the series to the exponential.
pub const TANH_SWITCH: i16 = 0x3F00;

/// 1 / (1 + e^-x), rounded to bf16.
pub(crate) fn sigmoid(x: f32) -> f32 {
    let e = exp(from_bits(bits(x) | i16::MIN));
    let denominator = to_bf16(e + 1.0);
    let numerator = if bits(x) < 0 { e } else { 1.0 };
    let value = div(numerator, denominator);
    if magnitude(x) > INFINITY {
        quiet(x)
    } else {
        value
    }
}

/// tanh(x), rounded to bf16.
pub(crate) fn tanh(x: f32) -> f32 {
    let a = from_bits(magnitude(x));
    let e = exp(to_bf16(mul(a, -2.0)));
    let large = div(to_bf16(1.0 - e), to_bf16(1.0 + e));
    let value = if magnitude(x) < TANH_SWITCH {
        series(a)
    } else {
        large
    };
    let signed = from_bits(bits(value) | (bits(x) & i16::MIN));
    if magnitude(x) > INFINITY {
        quiet(x)
    } else {
        signed
    }
}

/// tanh(a) for 0 <= a < 1/2.
fn series(a: f32) -> f32 {
    let p = to_bf16(mul(a, a));
    let q = to_bf16(mac(TANH_SERIES[2], p, TANH_SERIES[3]));
    let q = to_bf16(mac(TANH_SERIES[1], p, q));
    let q = to_bf16(mac(TANH_SERIES[0], p, q));
    let g = to_bf16(mul(p, q));
    to_bf16(mac(a, a, g))
}
