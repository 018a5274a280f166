//! f16 and bf16 rounding of an f64 is one rounding to nearest, ties to even, also
//! just beside a tie, where rounding through f32 first can end an ulp off.

use npu_core::Dtype;
use npu_core::internal::{bf16_from_f64, f16_from_f64};

/// Every pair of adjacent finite positive values of a 16-bit format (by its bits), and
/// the f64 just above, at and just below their midpoint: above rounds up, below rounds
/// down, the midpoint to the even one; the same for the negatives.
fn check_ties(name: &str, to_f64: impl Fn(u16) -> f64, from_f64: impl Fn(f64) -> u16, max: u16) {
    for bits in 0..max {
        let (lo, hi) = (to_f64(bits), to_f64(bits + 1));
        let mid = (lo + hi) / 2.0;
        let above = f64::from_bits(mid.to_bits() + 1);
        let below = f64::from_bits(mid.to_bits() - 1);
        let even = if bits % 2 == 0 { bits } else { bits + 1 };
        for (x, want) in [(above, bits + 1), (below, bits), (mid, even)] {
            assert_eq!(from_f64(x), want, "{name}: {x:e} between {lo:e} and {hi:e}");
            assert_eq!(from_f64(-x), want | 0x8000, "{name}: {:e}", -x);
        }
    }
}

#[test]
fn f16_rounds_once_at_every_tie() {
    let to_f64 = |bits| half::f16::from_bits(bits).to_f64();
    check_ties("f16", to_f64, |x| f16_from_f64(x).to_bits(), 0x7bff);
    // The case half-rs issue #116 reports: 2047.49999998... is 2047, not 2048.
    let x = 0x1f_fdff_ffff_u64 as f64 * 2f64.powi(-26);
    assert_eq!(Dtype::F16.round(x), 2047.0);
}

#[test]
fn bf16_rounds_once_at_every_tie() {
    let to_f64 = |bits| half::bf16::from_bits(bits).to_f64();
    check_ties("bf16", to_f64, |x| bf16_from_f64(x).to_bits(), 0x7f7f);
}

#[test]
fn specials_and_the_ends_of_the_range() {
    assert!(Dtype::F16.round(f64::NAN).is_nan());
    assert_eq!(Dtype::F16.round(f64::INFINITY), f64::INFINITY);
    assert_eq!(Dtype::F16.round(-1e300), f64::NEG_INFINITY);
    assert_eq!(Dtype::F16.round(65519.99), 65504.0);
    assert_eq!(Dtype::F16.round(65520.0), f64::INFINITY);
    assert_eq!(Dtype::F16.round(1e-300), 0.0);
    assert!(Dtype::F16.round(-1e-300).is_sign_negative());
    assert_eq!(Dtype::Bf16.round(1e-300), 0.0);
}

/// `max` and `min` are IEEE 754-2019's maximumNumber and minimumNumber in either
/// operand order: a NaN gives the other operand, +0 is above -0.
#[test]
fn max_and_min_of_signed_zeros_and_nan_do_not_depend_on_the_order() {
    use npu_core::scalar::{max, min};
    let nan = f64::NAN;
    // (a, b, max, min), each also checked with the operands swapped.
    let cases = [
        (0.0, -0.0, 0.0, -0.0),
        (-0.0, -0.0, -0.0, -0.0),
        (0.0, 0.0, 0.0, 0.0),
        (nan, -0.0, -0.0, -0.0),
        (nan, 1.5, 1.5, 1.5),
        (-1.0, 2.0, 2.0, -1.0),
        (f64::NEG_INFINITY, nan, f64::NEG_INFINITY, f64::NEG_INFINITY),
    ];
    for (a, b, larger, smaller) in cases {
        for (x, y) in [(a, b), (b, a)] {
            assert_eq!(max(x, y).to_bits(), larger.to_bits(), "max({x}, {y})");
            assert_eq!(min(x, y).to_bits(), smaller.to_bits(), "min({x}, {y})");
        }
    }
    assert!(max(nan, nan).is_nan() && min(nan, nan).is_nan());
}
