//! Element types of the algorithm language.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An element type a tensor or an expression can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// IEEE 754 half precision: 5 exponent and 10 stored significand bits, 2 bytes.
    F16,
    /// bfloat16: f32's 8 exponent bits with 7 stored significand bits, 2 bytes.
    Bf16,
    /// IEEE 754 single precision, 4 bytes; the accumulator of float reductions.
    F32,
    /// Signed 8-bit integer, two's complement.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 16-bit integer, two's complement.
    I16,
    /// Signed 32-bit integer; the accumulator of every integer reduction but u32's.
    I32,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer; accumulates its own reductions.
    U32,
}

impl Dtype {
    /// Every dtype, in the order docs list them.
    pub const ALL: [Dtype; 9] = [
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F32,
        Dtype::I8,
        Dtype::U8,
        Dtype::I16,
        Dtype::I32,
        Dtype::U16,
        Dtype::U32,
    ];

    /// Every dtype name, for "did you mean" suggestions.
    pub const NAMES: [&'static str; 9] =
        ["f16", "bf16", "f32", "i8", "u8", "i16", "i32", "u16", "u32"];

    /// The dtype a source, target or knowledge file spells `name` (`"bf16"`), or
    /// `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The lowercase name the language, serde and `Display` use: `"f16"`.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::F32 => "f32",
            Dtype::I8 => "i8",
            Dtype::U8 => "u8",
            Dtype::I16 => "i16",
            Dtype::I32 => "i32",
            Dtype::U16 => "u16",
            Dtype::U32 => "u32",
        }
    }

    /// Size of one element in bytes.
    pub fn size(self) -> u64 {
        match self {
            Dtype::I8 | Dtype::U8 => 1,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 | Dtype::U16 => 2,
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
        }
    }

    /// Which of two dtypes an operation on both computes in (the dtype a cast in the
    /// checker's E010 help goes to): a float over an integer, else the larger.
    pub(crate) fn wider(self, other: Dtype) -> Dtype {
        match (self.is_float(), other.is_float()) {
            (true, false) => self,
            (false, true) => other,
            _ if self.size() >= other.size() => self,
            _ => other,
        }
    }

    /// Whether the dtype is a float (f16, bf16, f32) rather than an integer.
    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F16 | Dtype::Bf16 | Dtype::F32)
    }

    /// The type reductions accumulate in: f32 for floats, i32 for integers, u32 for
    /// u32 (whose values past 2^31 an i32 would wrap to negatives, so a `max` or `min`
    /// would compare them wrongly; u8 and u16 fit in i32).
    pub fn accumulator(self) -> Dtype {
        match self {
            _ if self.is_float() => Dtype::F32,
            Dtype::U32 => Dtype::U32,
            _ => Dtype::I32,
        }
    }

    /// Rounds an exact value to the nearest value of this dtype (wrapping for integers),
    /// the way the hardware stores a result. Floats round to nearest even.
    #[inline]
    pub fn round(self, value: f64) -> f64 {
        // f32, the accumulator of most folds, inline in the caller's loop.
        if self == Dtype::F32 {
            return value as f32 as f64;
        }
        self.round_other(value)
    }

    fn round_other(self, value: f64) -> f64 {
        match self {
            Dtype::F16 => f16_from_f64(value).to_f64(),
            Dtype::Bf16 => bf16_from_f64(value).to_f64(),
            Dtype::F32 => value as f32 as f64,
            // An integer dtype truncates and wraps; ±∞ and NaN become 0.
            _ if !value.is_finite() => 0.0,
            _ => self.wrap_integer(value.trunc() as i128),
        }
    }

    /// Whether every value of `other` is a value of this dtype, so that a cast from
    /// `other` keeps it: f32 holds f16, bf16 and the 8- and 16-bit integers, f16 and
    /// bf16 hold the 8-bit ones, and an integer dtype holds those whose range it spans.
    pub fn holds(self, other: Dtype) -> bool {
        match (self.is_float(), other.is_float()) {
            _ if self == other => true,
            (true, true) => self == Dtype::F32,
            (true, false) => other.precision() <= self.precision(),
            (false, true) => false,
            (false, false) => {
                let ((low, high), (least, greatest)) = (other.range(), self.range());
                least <= low && high <= greatest
            }
        }
    }

    /// Whether the product of any two values of `operand` is a value of this dtype:
    /// f32 holds the products of f16, bf16 and 8-bit integers, i32 those of every
    /// dtype of 16 bits or fewer, i16 those of i8.
    pub fn holds_products(self, operand: Dtype) -> bool {
        match (self.is_float(), operand.is_float()) {
            // f32's exponent range holds f16 and bf16 products, and its subnormals
            // end below their least bits.
            (true, true) => {
                self == Dtype::F32 && operand != Dtype::F32 && 2 * operand.precision() <= 24
            }
            (true, false) => 2 * operand.precision() <= self.precision(),
            (false, true) => false,
            (false, false) => {
                let ((low, high), (least, greatest)) = (operand.range(), self.range());
                [low * low, low * high, high * high]
                    .iter()
                    .all(|p| (least..=greatest).contains(p))
            }
        }
    }

    /// Bits of a float's significand (its hidden bit included), or of an integer's
    /// magnitude: 11 for f16, 7 for i8.
    fn precision(self) -> u32 {
        match self {
            Dtype::F16 => 11,
            Dtype::Bf16 => 8,
            Dtype::F32 => 24,
            integer => integer.bits() - u32::from(integer.is_signed()),
        }
    }

    /// Bits of an integer dtype's value, or of a float's storage.
    pub fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    /// Whether the dtype has negative values: every float and i8, i16, i32.
    pub fn is_signed(self) -> bool {
        !matches!(self, Dtype::U8 | Dtype::U16 | Dtype::U32)
    }

    /// The smallest and largest finite values of the dtype.
    pub fn range(self) -> (f64, f64) {
        match self {
            Dtype::F16 => (-65504.0, 65504.0),
            Dtype::Bf16 => {
                let max = half::bf16::MAX.to_f64();
                (-max, max)
            }
            Dtype::F32 => (f64::from(f32::MIN), f64::from(f32::MAX)),
            _ if self.is_signed() => {
                let magnitude = (1u64 << (self.bits() - 1)) as f64;
                (-magnitude, magnitude - 1.0)
            }
            _ => (0.0, ((1u64 << self.bits()) - 1) as f64),
        }
    }

    /// Rounds an exact value to this dtype saturating instead of wrapping: values past
    /// the dtype's finite range become its smallest or largest value, and NaN becomes 0.
    pub fn saturate(self, value: f64) -> f64 {
        if value.is_nan() {
            return 0.0;
        }
        let (low, high) = self.range();
        let value = if self.is_float() {
            value
        } else {
            value.trunc()
        };
        self.round(value.clamp(low, high))
    }

    /// An integer wrapped into this integer dtype's range, as the hardware's integer
    /// arithmetic wraps (for a value an `f64` cannot hold exactly, such as the product
    /// of two 32-bit values).
    pub fn wrap_integer(self, value: i128) -> f64 {
        let modulus = 1i128 << self.bits();
        let mut wrapped = value.rem_euclid(modulus);
        if self.is_signed() && wrapped >= modulus / 2 {
            wrapped -= modulus;
        }
        wrapped as f64
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `value` rounded to f16, to nearest with ties to even, in one rounding. (`half`'s
/// `f16::from_f64` goes through f32 rounded to nearest and can end an ulp off near a
/// tie: half-rs issue #116.) Rounding to f32 by round-to-odd first keeps the result
/// exact, as f32 carries more than the 11 + 2 bits that needs.
pub fn f16_from_f64(value: f64) -> half::f16 {
    half::f16::from_f32(round_to_odd_f32(value))
}

/// `value` rounded to bf16 in one rounding, as [`f16_from_f64`] (f32 carries more than
/// bf16's 8 + 2 bits).
pub fn bf16_from_f64(value: f64) -> half::bf16 {
    half::bf16::from_f32(round_to_odd_f32(value))
}

/// `value` as f32 rounded to odd: itself when f32 holds it, else whichever of its two
/// f32 neighbours has an odd last bit (infinity past f32's range).
fn round_to_odd_f32(value: f64) -> f32 {
    let nearest = value as f32;
    if !value.is_finite()
        || nearest.is_infinite()
        || f64::from(nearest) == value
        || nearest.to_bits() & 1 == 1
    {
        return nearest;
    }
    // `nearest` is the even neighbour: the odd one is a step on `value`'s side.
    let bits = nearest.to_bits();
    let away_from_zero = f64::from(nearest).abs() < value.abs();
    f32::from_bits(if away_from_zero { bits + 1 } else { bits - 1 })
}
