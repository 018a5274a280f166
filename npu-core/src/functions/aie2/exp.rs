//! `exp` and `exp2` of bf16 values: `x * log2(e)` to an f32 accumulator through a
//! three-piece bf16 split of `log2(e)`, the nearest integer `k` found by adding and
//! subtracting 1.5 * 2^23 in the accumulator, `2^f` of the rest `f` in [-1/2, 1/2] as
//! a degree-5 polynomial in bf16 (its linear term with `f` and `ln 2` in two pieces
//! each, the rest by Horner's rule), and `2^k` as two bf16 powers of two applied to
//! the polynomial's value split into two bf16 pieces, rounded once at the end.

use super::super::lanes::{
    INFINITY, constant, mac, magnitude, mul, power_of_two, quiet, scaled, split, to_bf16,
};

/// `log2(e)` as the sum of three bf16 values.
pub const LOG2_E: [f32; 3] = [constant(0x3FB9), constant(0xBB2C), constant(0x36ED)];
/// `ln 2` as the sum of two bf16 values.
pub const LN_2: [f32; 2] = [constant(0x3F31), constant(0x3AE4)];
/// `ln(2)^n / n!` for n = 2 to 5: the Taylor coefficients of `2^f` after the linear one.
pub const POWERS: [f32; 4] = [
    constant(0x3E76),
    constant(0x3D63),
    constant(0x3C1E),
    constant(0x3AAF),
];
/// 1.5 * 2^23: added to an f32 of magnitude below 2^22, it leaves the nearest integer.
pub const ROUNDER: f32 = constant(0x4B40);
/// Where `exp`'s argument is clamped: below -97 every result rounds to 0, above 90 to ∞.
pub const EXP_RANGE: [f32; 2] = [constant(0xC2C2), constant(0x42B4)];
/// Where `exp2`'s argument is clamped, for the same reason.
pub const EXP2_RANGE: [f32; 2] = [constant(0xC30C), constant(0x4302)];

/// e^x, rounded to bf16.
pub(crate) fn exp(x: f32) -> f32 {
    let clamped = x.clamp(EXP_RANGE[0], EXP_RANGE[1]);
    let t = mul(clamped, LOG2_E[2]);
    let t = mac(t, clamped, LOG2_E[1]);
    let t = mac(t, clamped, LOG2_E[0]);
    finish(x, power(t))
}

/// 2^x, rounded to bf16.
pub(crate) fn exp2(x: f32) -> f32 {
    finish(x, power(x.clamp(EXP2_RANGE[0], EXP2_RANGE[1])))
}

/// A NaN argument's result is the argument, quieted; `aie::max`/`aie::min` clamped it.
fn finish(x: f32, value: f32) -> f32 {
    if magnitude(x) > INFINITY {
        quiet(x)
    } else {
        value
    }
}

/// 2^t for an accumulator value `t` in [-140, 131], rounded to bf16.
fn power(t: f32) -> f32 {
    let k = (t + ROUNDER) - ROUNDER;
    let (f_hi, f_lo) = split(t - k);
    let q = to_bf16(mac(POWERS[2], f_hi, POWERS[3]));
    let q = to_bf16(mac(POWERS[1], f_hi, q));
    let q = to_bf16(mac(POWERS[0], f_hi, q));
    let g = to_bf16(mul(f_hi, q));
    let p = mul(LN_2[1], f_hi);
    let p = mac(p, LN_2[0], f_lo);
    let p = mac(p, f_hi, g);
    let p = mac(p, LN_2[0], f_hi) + 1.0;
    let (p_hi, p_lo) = split(p);
    // `to_fixed<int16>` of an integer-valued bf16: exact whatever its rounding.
    let k = to_bf16(k) as i16;
    let (k1, k2) = (k >> 1, k - (k >> 1));
    let s1 = power_of_two(k1);
    scaled(
        to_bf16(mul(p_hi, s1)),
        to_bf16(mul(p_lo, s1)),
        power_of_two(k2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::lanes::bits;

    #[test]
    fn the_constants_are_what_their_docs_say() {
        let log2e: f64 = LOG2_E.iter().map(|c| f64::from(*c)).sum();
        // The third piece is within half a bf16 ulp of what is left: 2^-9 * 7.1e-6.
        assert!((log2e - std::f64::consts::LOG2_E).abs() < 1.4e-8);
        let ln2: f64 = LN_2.iter().map(|c| f64::from(*c)).sum();
        assert!((ln2 - std::f64::consts::LN_2).abs() < 1e-5);
        assert_eq!(ROUNDER, 12582912.0);
        assert_eq!(EXP_RANGE, [-97.0, 90.0]);
        assert_eq!(EXP2_RANGE, [-140.0, 130.0]);
        assert_eq!(bits(ROUNDER), 0x4B40);
    }
}
