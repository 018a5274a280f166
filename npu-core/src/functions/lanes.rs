//! One lane of the AIE-ML vector unit, as the bf16 algorithms use it: each function
//! here is one AIE API call (named in its doc) on one lane, so that an algorithm
//! written with them reads call for call like the C++ the AIE backend emits.
//!
//! A bf16 value is held in an `f32` whose low 16 bits are zero; an `accfloat` lane is
//! an `f32`. A product of two bf16 values has at most 16 significant bits, so the
//! accumulator holds it exactly (rounded only where it leaves f32's range); an
//! accumulator add rounds to nearest even in f32, as IEEE 754's binary32 addition.

/// `acc.to_vector<bfloat16>()` under `rounding_mode::conv_even`: nearest, ties to
/// even; a NaN stays a NaN with its sign and top payload bits, quieted.
pub(crate) fn to_bf16(acc: f32) -> f32 {
    let word = acc.to_bits();
    if acc.is_nan() {
        return f32::from_bits((word | 0x0040_0000) & 0xFFFF_0000);
    }
    let rounding = 0x7FFF + ((word >> 16) & 1);
    f32::from_bits((word.wrapping_add(rounding) >> 16) << 16)
}

/// `aie::mul(a, b)` of two bf16 vectors into `accfloat`.
pub(crate) fn mul(a: f32, b: f32) -> f32 {
    a * b
}

/// `aie::mac(acc, a, b)`: the exact product added to the accumulator, rounded once.
pub(crate) fn mac(acc: f32, a: f32, b: f32) -> f32 {
    acc + a * b
}

/// `aie::msc(acc, a, b)`: the exact product subtracted from the accumulator.
pub(crate) fn msc(acc: f32, a: f32, b: f32) -> f32 {
    acc - a * b
}

/// `aie::vector_cast<int16>` of a bf16 lane: its bit pattern.
pub(crate) fn bits(x: f32) -> i16 {
    (x.to_bits() >> 16) as u16 as i16
}

/// `aie::vector_cast<bfloat16>` of an int16 lane.
pub(crate) fn from_bits(bits: i16) -> f32 {
    f32::from_bits(u32::from(bits as u16) << 16)
}

/// `2^k` as a bf16 lane, for `-126 <= k <= 127`: the biased exponent shifted into
/// place (`aie::add` of 127, `aie::upshift` by 7, `vector_cast`).
pub(crate) fn power_of_two(k: i16) -> f32 {
    from_bits((k + 127) << 7)
}

/// The magnitude's bits (`aie::bit_and` with 0x7FFF).
pub(crate) fn magnitude(x: f32) -> i16 {
    bits(x) & 0x7FFF
}

/// `x` with its quiet bit set: the NaN an operation on a NaN `x` gives.
pub(crate) fn quiet(x: f32) -> f32 {
    from_bits(bits(x) | 0x0040)
}

/// The default NaN an invalid operation (0/0, ∞/∞, rsqrt of a negative) gives.
pub(crate) const DEFAULT_NAN: i16 = 0x7FC0;

/// The bits of +∞.
pub(crate) const INFINITY: i16 = 0x7F80;

/// A bf16 constant from its bit pattern.
pub(crate) const fn constant(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// `(hi, lo)`: the accumulator's value as the sum of two bf16 lanes, `hi` the nearest
/// bf16 and `lo` the rest rounded to bf16 (16 of the accumulator's 24 bits).
pub(crate) fn split(acc: f32) -> (f32, f32) {
    let hi = to_bf16(acc);
    (hi, to_bf16(acc - hi))
}

/// `hi * scale + lo * scale` rounded once to bf16: the last step of every algorithm
/// that scales a mantissa result by a power of two (each product exact in the
/// accumulator, the small one added first).
pub(crate) fn scaled(hi: f32, lo: f32, scale: f32) -> f32 {
    to_bf16(mac(mul(lo, scale), hi, scale))
}
