//! `rsqrt` of bf16 values. The argument is taken apart as in division, its exponent
//! made even by moving one factor of 2 into the mantissa (then in [1, 4)); `1/sqrt(m)`
//! starts from a line on [1, 2) (times 1/sqrt(2) for a mantissa in [2, 4), relative
//! error about 3%) and takes two Newton steps `y + y (1 - m y^2) / 2`, the first
//! rounded to bf16, the second with `m y` in two exact bf16 pieces and its result in
//! the accumulator; half the exponent is applied as one bf16 power of two (every
//! result lies in [2^-64, 2^67]), with one rounding at the end.

use super::super::lanes::{
    DEFAULT_NAN, INFINITY, bits, constant, from_bits, mac, magnitude, msc, mul, power_of_two,
    quiet, scaled, split, to_bf16,
};
use super::divide::decompose;

/// The starting line of `1/sqrt(m)` on [1, 2): `RSQRT_LINE[0] + RSQRT_LINE[1] * m`.
pub const RSQRT_LINE: [f32; 2] = [constant(0x3FA3), constant(0xBE96)];
/// 1/sqrt(2), rounded to bf16: the start's factor for a mantissa in [2, 4).
pub const FRAC_1_SQRT_2: f32 = constant(0x3F35);

/// 1 / sqrt(x), rounded to bf16.
pub(crate) fn rsqrt(x: f32) -> f32 {
    let (m, e) = decompose(x);
    let odd = e & 1;
    let m = from_bits(bits(m) + (odd << 7));
    let half = (e - odd) >> 1;
    let (y_hi, y_lo) = split(newton(m, odd != 0));
    let root = scaled(y_hi, y_lo, power_of_two(-half));
    special(x, root)
}

/// 1/sqrt(m) for m in [1, 4) (`odd` when it is in [2, 4)), in the accumulator.
fn newton(m: f32, odd: bool) -> f32 {
    let y0 = to_bf16(mac(
        RSQRT_LINE[0],
        RSQRT_LINE[1],
        to_bf16(mul(m, if odd { 0.5 } else { 1.0 })),
    ));
    let y0 = to_bf16(mul(y0, if odd { FRAC_1_SQRT_2 } else { 1.0 }));
    let h = to_bf16(mul(m, y0));
    let r = to_bf16(msc(1.0, h, y0));
    let y1 = to_bf16(mac(y0, y0, to_bf16(mul(r, 0.5))));
    let (h_hi, h_lo) = split(mul(m, y1));
    let r = to_bf16(msc(msc(1.0, h_hi, y1), h_lo, y1));
    mac(y1, y1, to_bf16(mul(r, 0.5)))
}

/// +∞ gives +0, a negative argument NaN, ±0 gives ±∞, and a NaN itself, quieted.
fn special(x: f32, root: f32) -> f32 {
    let m = magnitude(x);
    let mut r = bits(root);
    if m == INFINITY {
        r = 0;
    }
    if bits(x) < 0 {
        r = DEFAULT_NAN;
    }
    if m == 0 {
        r = bits(x) | INFINITY;
    }
    if m > INFINITY {
        r = bits(quiet(x));
    }
    from_bits(r)
}
