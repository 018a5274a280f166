//! Division and the reciprocal of bf16 values. Each operand is taken apart into a
//! mantissa in [1, 2) and an exponent with integer operations on its bits (a
//! subnormal first scaled by 2^64, exactly). `1/m` of the divisor's mantissa starts
//! from the line 24/17 - 8/17 m (relative error at most 1/17) and takes two Newton
//! steps `y + y (1 - m y)`, the first rounded to bf16, the second kept in the
//! accumulator; the quotient of the mantissas is the dividend's mantissa times that
//! reciprocal in two bf16 pieces, and the exponent difference is applied as two bf16
//! powers of two, with one rounding at the end. Zeros, infinities and NaNs are chosen
//! by selects afterwards, as IEEE 754 defines them.

use super::super::lanes::{
    DEFAULT_NAN, INFINITY, bits, constant, from_bits, mac, magnitude, msc, mul, power_of_two,
    quiet, scaled, split, to_bf16,
};

/// The starting line of `1/m` on [1, 2): `RECIPROCAL_LINE[0] + RECIPROCAL_LINE[1] * m`.
pub const RECIPROCAL_LINE: [f32; 2] = [constant(0x3FB5), constant(0xBEF1)];
/// 2^64, which scales a subnormal bf16 magnitude to a normal one exactly.
pub const TWO_64: f32 = constant(0x5F80);

/// Where the exponent difference is clamped: below -140 every quotient rounds to 0,
/// above 129 to ∞; and at 129 `q_lo * 2^129` stays finite, so an overflowing `q_hi`
/// part is never added to an infinity of the other sign.
pub const DIFFERENCE_RANGE: [i16; 2] = [-140, 129];

/// a / b, rounded to bf16.
pub(crate) fn div(a: f32, b: f32) -> f32 {
    let (m_a, e_a) = decompose(a);
    let (m_b, e_b) = decompose(b);
    let (y_hi, y_lo) = split(reciprocal(m_b));
    let (q_hi, q_lo) = split(mac(mul(m_a, y_lo), m_a, y_hi));
    let d = (e_a - e_b).clamp(DIFFERENCE_RANGE[0], DIFFERENCE_RANGE[1]);
    let (d1, d2) = (d >> 1, d - (d >> 1));
    let s1 = power_of_two(d1);
    let quotient = scaled(
        to_bf16(mul(q_hi, s1)),
        to_bf16(mul(q_lo, s1)),
        power_of_two(d2),
    );
    special(a, b, quotient)
}

/// 1 / x, rounded to bf16: the division with a dividend of 1.
pub(crate) fn recip(x: f32) -> f32 {
    div(1.0, x)
}

/// A magnitude's mantissa in [1, 2) and its exponent; a subnormal is first scaled by
/// 2^64. Zero, infinity and NaN give values the caller replaces.
pub(crate) fn decompose(x: f32) -> (f32, i16) {
    let m = magnitude(x);
    let subnormal = m < 0x0080;
    let normal = if subnormal {
        to_bf16(mul(from_bits(m), TWO_64))
    } else {
        from_bits(m)
    };
    let n = bits(normal);
    let mantissa = from_bits((n & 0x007F) | 0x3F80);
    let exponent = (n >> 7) - 127 - if subnormal { 64 } else { 0 };
    (mantissa, exponent)
}

/// 1/m for m in [1, 2), in the accumulator, within about 2^-14 of it.
fn reciprocal(m: f32) -> f32 {
    let y0 = to_bf16(mac(RECIPROCAL_LINE[0], RECIPROCAL_LINE[1], m));
    let e0 = to_bf16(msc(1.0, m, y0));
    let y1 = to_bf16(mac(y0, y0, e0));
    let e1 = to_bf16(msc(1.0, m, y1));
    mac(y1, y1, e1)
}

/// The quotient's sign, then the IEEE 754 results of zeros, infinities and NaNs.
fn special(a: f32, b: f32, quotient: f32) -> f32 {
    let (m_a, m_b) = (magnitude(a), magnitude(b));
    let mut r = bits(quotient);
    if m_a == 0 || m_b == INFINITY {
        r = 0;
    }
    if m_b == 0 || m_a == INFINITY {
        r = INFINITY;
    }
    r |= (bits(a) ^ bits(b)) & i16::MIN;
    if (m_a | m_b) == 0 || (m_a & m_b) == INFINITY {
        r = DEFAULT_NAN;
    }
    if m_b > INFINITY {
        r = bits(quiet(b));
    }
    if m_a > INFINITY {
        r = bits(quiet(a));
    }
    from_bits(r)
}
