//! Scalar semantics of the algorithm language: what one element of each operation
//! computes. The host reference and the simulator both use these, so "correct" means
//! the same thing to both: every value is held exactly as an `f64` and rounded to its
//! dtype after each operation, as the hardware stores it.

use crate::dtype::Dtype;
use crate::functions;
use crate::ir::{BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp};
use crate::target::Implementation;

/// A unary operation on one element, rounded to `dtype`.
pub fn unary(op: UnaryOp, dtype: Dtype, x: f64) -> f64 {
    let value = match op {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Recip => 1.0 / x,
        UnaryOp::Relu => max(x, 0.0),
        UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Tan => x.tan(),
        UnaryOp::Floor => x.floor(),
        UnaryOp::Ceil => x.ceil(),
        UnaryOp::Round => x.round_ties_even(),
        UnaryOp::Trunc => x.trunc(),
        UnaryOp::Exp2 => x.exp2(),
        UnaryOp::Log2 => x.log2(),
        UnaryOp::Log10 => x.log10(),
        UnaryOp::Erf => erf(x),
        // Zero (of either sign) and NaN are their own sign.
        UnaryOp::Sign if x > 0.0 => 1.0,
        UnaryOp::Sign if x < 0.0 => -1.0,
        UnaryOp::Sign => x,
        // In two's complement `!x` is `-x - 1` at every width; the rounding below wraps
        // it into an unsigned dtype's range.
        UnaryOp::Not => -x - 1.0,
        UnaryOp::Popcount => f64::from(bits_of(dtype, x as i64).count_ones()),
    };
    dtype.round(value)
}

/// A unary operation on one element as a target computes it: `implementation`'s
/// algorithm where it has one for `op` in `dtype` ([`crate::functions`]), else
/// [`unary`].
#[inline]
pub fn unary_by(implementation: Implementation, op: UnaryOp, dtype: Dtype, x: f64) -> f64 {
    functions::unary(implementation, op, dtype, x).unwrap_or_else(|| unary(op, dtype, x))
}

/// A binary operation on one element as a target computes it, as [`unary_by`].
#[inline]
pub fn binary_by(
    implementation: Implementation,
    op: BinaryOp,
    dtype: Dtype,
    a: f64,
    b: f64,
) -> f64 {
    functions::binary(implementation, op, dtype, a, b).unwrap_or_else(|| binary(op, dtype, a, b))
}

/// The bit pattern of an integer value of `dtype`, in its low `dtype.bits()` bits.
fn bits_of(dtype: Dtype, x: i64) -> u64 {
    let mask = if dtype.bits() >= 64 {
        u64::MAX
    } else {
        (1u64 << dtype.bits()) - 1
    };
    (x as u64) & mask
}

/// The error function to about 1e-15: its Taylor series below 3, where the terms
/// stay under e^9 and cancel harmlessly, and 1 - erfc(x) from erfc's continued
/// fraction above, where erfc(x) < 2.3e-5 and 60 terms are exact to f64.
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let value = if a < 3.0 {
        // erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, mut n) = (a, a, 0.0);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            let next = term / (2.0 * n + 1.0);
            sum += next;
            if n > 200.0 {
                break;
            }
        }
        sum * std::f64::consts::FRAC_2_SQRT_PI
    } else if a < 27.0 {
        // erfc(x) = exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))
        let mut fraction = a;
        for n in (1..=60).rev() {
            fraction = a + f64::from(n) / 2.0 / fraction;
        }
        1.0 - (-a * a).exp() * std::f64::consts::FRAC_2_SQRT_PI / 2.0 / fraction
    } else {
        1.0
    };
    value.copysign(x)
}

/// The larger of two values, as every stage computes `max`: a NaN operand gives the
/// other (so a NaN wins only against a NaN), and +0 is larger than -0, IEEE 754-2019's
/// maximumNumber. Defined here once because `f64::max` leaves the sign of a zero
/// result open, and Rust's gives different zeros in debug and release builds.
#[inline]
pub fn max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b > a || (b == a && b.is_sign_positive()) {
        b
    } else {
        a
    }
}

/// The smaller of two values, as every stage computes `min`: a NaN operand gives the
/// other, and -0 is smaller than +0 (IEEE 754-2019's minimumNumber); see [`max`].
#[inline]
pub fn min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b < a || (b == a && b.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// A binary operation on one element, rounded to `dtype`. Integer division truncates
/// toward zero and division by zero gives 0, as the vector unit does; the remainder
/// takes the dividend's sign (Rust's `%`), 0 for an integer zero divisor and NaN for a
/// float one.
#[inline]
pub fn binary(op: BinaryOp, dtype: Dtype, a: f64, b: f64) -> f64 {
    let value = match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul if !dtype.is_float() => return integer_product(dtype, a, b),
        BinaryOp::Mul => a * b,
        BinaryOp::Div if !dtype.is_float() => {
            if b == 0.0 {
                0.0
            } else {
                (a / b).trunc()
            }
        }
        BinaryOp::Div => a / b,
        // The remainder of a truncating division is exact in f64 for every dtype here.
        BinaryOp::Rem if !dtype.is_float() => {
            if b == 0.0 {
                0.0
            } else {
                a % b
            }
        }
        BinaryOp::Rem => a % b,
        BinaryOp::Min => min(a, b),
        BinaryOp::Max => max(a, b),
        BinaryOp::Pow => a.powf(b),
        BinaryOp::And => (a as i64 & b as i64) as f64,
        BinaryOp::Or => (a as i64 | b as i64) as f64,
        BinaryOp::Xor => (a as i64 ^ b as i64) as f64,
        BinaryOp::Shl | BinaryOp::Shr => shift(op, dtype, a, b),
    };
    dtype.round(value)
}

/// `a * b` on integer values of `dtype`, wrapped: computed in integers, since the
/// product of two 32-bit values can need more bits than an `f64` holds exactly.
#[inline]
pub fn integer_product(dtype: Dtype, a: f64, b: f64) -> f64 {
    dtype.wrap_integer(a as i128 * b as i128)
}

/// `a << n` or `a >> n` on integer values of `dtype`. A shift by `n` outside
/// `0..bits` shifts every bit out: `<<` gives 0, `>>` the sign fill (-1 for a negative
/// signed value, else 0). `>>` is arithmetic for signed dtypes; unsigned values are
/// never negative, so the same floor division is a logical shift for them.
fn shift(op: BinaryOp, dtype: Dtype, a: f64, n: f64) -> f64 {
    let a = a as i64;
    let in_range = n >= 0.0 && n < f64::from(dtype.bits());
    match (op, in_range) {
        // Only the low bits survive the rounding to `dtype`; keep them exact in the f64.
        (BinaryOp::Shl, true) => bits_of(dtype, a.wrapping_shl(n as u32)) as f64,
        (_, true) => (a >> (n as u32)) as f64,
        (BinaryOp::Shl, false) => 0.0,
        (_, false) => (a >> 63) as f64,
    }
}

/// Whether `a op b` holds for exact values; every comparison with NaN is false but
/// `Ne`'s. Callers store the result as a 0 or 1 mask byte.
pub fn compare(op: CompareOp, a: f64, b: f64) -> bool {
    match op {
        CompareOp::Lt => a < b,
        CompareOp::Le => a <= b,
        CompareOp::Gt => a > b,
        CompareOp::Ge => a >= b,
        CompareOp::Eq => a == b,
        CompareOp::Ne => a != b,
    }
}

/// A cast to `dtype`: floats round to nearest even, float to integer truncates toward
/// zero and wraps, like Ascend's `CAST_TRUNC`.
#[inline]
pub fn cast(dtype: Dtype, x: f64) -> f64 {
    dtype.round(x)
}

/// A saturating cast to `dtype` (`x as sat i8`): values past the dtype's range become
/// its smallest or largest value, NaN becomes 0, and the rest convert as [`cast`] does.
pub fn cast_saturating(dtype: Dtype, x: f64) -> f64 {
    dtype.saturate(x)
}

/// The value a reduction starts from.
pub fn reduce_init(op: ReduceOp) -> f64 {
    match op {
        ReduceOp::Sum => 0.0,
        // An arg reduction's running value starts below (above) every number.
        ReduceOp::Max | ReduceOp::ArgMax => f64::NEG_INFINITY,
        ReduceOp::Min | ReduceOp::ArgMin => f64::INFINITY,
    }
}

/// Whether an arg reduction whose best value so far is `best` takes `x` (seen later in
/// index order) instead: `x` must be strictly greater (`argmax`) or less (`argmin`),
/// so ties keep the first; a NaN beats every number and the first NaN stays, as in
/// numpy. A running value that starts at ∓∞ is beaten by any number but its own
/// value, so an index of 0 stands for a row of ∓∞ too.
pub fn arg_takes(op: ReduceOp, best: f64, x: f64) -> bool {
    if best.is_nan() {
        return false;
    }
    match op {
        ReduceOp::ArgMin => x.is_nan() || x < best,
        _ => x.is_nan() || x > best,
    }
}

/// The value a scan starts from: 0 for `cumsum`, 1 for `cumprod`.
pub fn scan_init(op: ScanOp) -> f64 {
    match op {
        ScanOp::Sum => 0.0,
        ScanOp::Prod => 1.0,
    }
}

/// One step of a scan in its accumulator dtype: the running value after `x`.
pub fn scan_step(op: ScanOp, accumulator: Dtype, acc: f64, x: f64) -> f64 {
    match op {
        ScanOp::Sum => accumulator.round(sum_step(acc, x)),
        ScanOp::Prod if !accumulator.is_float() => integer_product(accumulator, acc, x),
        ScanOp::Prod => accumulator.round(product_step(acc, x)),
    }
}

/// `acc * x` in a product's scan, exact: a NaN running value stays as it is, whatever
/// `x` is, for the reason [`sum_step`] gives (a compiler may swap the operands of `*`
/// too, and every stage must agree on which NaN a product of two NaNs is).
#[inline]
pub fn product_step(acc: f64, x: f64) -> f64 {
    if acc.is_nan() { acc } else { acc * x }
}

/// `acc + x` in a sum's fold, exact: a NaN accumulator stays as it is, whatever `x` is.
/// IEEE 754 leaves open which NaN a sum of two NaNs gives, and a compiler may swap the
/// operands of `+`, so the fold says it: every stage and the emitted folds keep the
/// accumulator's NaN (`FoldSum`, `npu_fold_sum`).
#[inline]
pub fn sum_step(acc: f64, x: f64) -> f64 {
    if acc.is_nan() { acc } else { acc + x }
}

/// One step of a reduction, in the accumulator dtype of `dtype`.
pub fn reduce_step(op: ReduceOp, dtype: Dtype, acc: f64, x: f64) -> f64 {
    reduce_step_in(op, dtype.accumulator(), acc, x)
}

/// One step of a reduction that accumulates in `accumulator` (as `sum[k: bf16]`
/// does): the step is rounded to it. A `max` or `min` compares the term as the
/// accumulator holds it: for floats that is the same as rounding the step (rounding
/// keeps order), and an integer term the accumulator cannot hold wraps first, as a
/// cast would (`min[k: i32]` of a u32 4294967295 is -1), whatever the starting value.
#[inline]
pub fn reduce_step_in(op: ReduceOp, accumulator: Dtype, acc: f64, x: f64) -> f64 {
    let value = match op {
        ReduceOp::Sum => sum_step(acc, x),
        ReduceOp::Max => max(acc, accumulator.round(x)),
        ReduceOp::Min => min(acc, accumulator.round(x)),
        // Arg reductions fold value and index together (see [`arg_takes`]); as a
        // plain fold they keep the extreme value.
        ReduceOp::ArgMax => max(acc, x),
        ReduceOp::ArgMin => min(acc, x),
    };
    accumulator.round(value)
}

/// A float sum folded in lanes, the order a vector unit keeps (docs/dsl.md, "The order
/// of a fold"): element `k` of the fold goes to lane `k mod L`, each lane folds its elements
/// in index order from +0 with [`reduce_step_in`], and [`pair_tree`] combines the lanes.
/// With one lane it is the index-order fold.
#[derive(Clone, Debug)]
pub struct LaneSum {
    lanes: Vec<f64>,
    accumulator: Dtype,
    next: usize,
}

impl LaneSum {
    /// `lanes` partials (a power of two, at least 1), each rounded to `accumulator`.
    pub fn new(lanes: u32, accumulator: Dtype) -> LaneSum {
        LaneSum {
            lanes: vec![reduce_init(ReduceOp::Sum); lanes.max(1) as usize],
            accumulator,
            next: 0,
        }
    }

    /// Folds the next element (in index order) into its lane.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let lane = &mut self.lanes[self.next];
        *lane = reduce_step_in(ReduceOp::Sum, self.accumulator, *lane, x);
        self.next += 1;
        if self.next == self.lanes.len() {
            self.next = 0;
        }
    }

    /// The sum: the lanes combined by [`pair_tree`].
    pub fn total(mut self) -> f64 {
        pair_tree(self.accumulator, &mut self.lanes)
    }
}

/// Combines lane partials in the adjacent-pair tree: each pass adds lanes `2i` and
/// `2i + 1` into `i` (the left one is the accumulator of [`sum_step`]), rounded to
/// `accumulator`, until one value is left. `lanes.len()` is a power of two; the slice
/// is left holding the passes' values.
pub fn pair_tree(accumulator: Dtype, lanes: &mut [f64]) -> f64 {
    let mut len = lanes.len();
    while len > 1 {
        len /= 2;
        for i in 0..len {
            lanes[i] = reduce_step_in(ReduceOp::Sum, accumulator, lanes[2 * i], lanes[2 * i + 1]);
        }
    }
    lanes.first().copied().unwrap_or(0.0)
}

/// Host data whose length does not match the kernel's signature, from a generated
/// `reference` or `reference_host` function.
///
/// `tensor` names the tensor as the kernel declares it, and `expected` and `actual`
/// count its elements. When `reference_host` is given the wrong number of tensors,
/// `tensor` is `inputs` and the two numbers count tensors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The tensor's declared name, or `inputs` when the count of tensors is wrong.
    pub tensor: String,
    /// Elements (or tensors) the kernel's signature declares.
    pub expected: usize,
    /// Elements (or tensors) the caller passed.
    pub actual: usize,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ShapeError {
            tensor,
            expected,
            actual,
        } = self;
        write!(
            f,
            "`{tensor}` has {actual} elements but the kernel expects {expected}"
        )
    }
}

impl std::error::Error for ShapeError {}

/// A gather's index outside the dimension it indexes, found at run time (the checker
/// cannot see data): `index[position]` holds `value`, and `table` has `extent`
/// elements along dimension `dim`. The host references and the simulator report the
/// same text; none of them reads the element.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IndexError {
    /// The declared name of the index tensor the bad value is in.
    pub index: String,
    /// The bad element's coordinates in the index tensor, outermost first.
    pub position: Vec<u64>,
    /// The index's value (an integer: index tensors have integer dtypes).
    pub value: i64,
    /// The declared name of the tensor the gather reads rows from.
    pub table: String,
    /// The table's dimension the index selects along, 0-based.
    pub dim: usize,
    /// The table's size along `dim`: valid indices are `0..extent`.
    pub extent: u64,
}

impl IndexError {
    /// `Ok` when `value` indexes a dimension of `extent`, else the error built by `error`
    /// (called only then, so that the happy path allocates nothing).
    pub fn check(
        value: f64,
        extent: u64,
        error: impl FnOnce() -> IndexError,
    ) -> Result<u64, IndexError> {
        if value >= 0.0 && value < extent as f64 {
            Ok(value as u64)
        } else {
            Err(error())
        }
    }

    /// The row-major position of element `flat` of a tensor of `shape`.
    pub fn position_of(flat: u64, shape: &[u64]) -> Vec<u64> {
        let mut position = vec![0; shape.len()];
        let mut rest = flat;
        for (slot, extent) in position.iter_mut().zip(shape).rev() {
            *slot = rest % extent.max(&1);
            rest /= extent.max(&1);
        }
        position
    }
}

impl std::fmt::Display for IndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let position: Vec<String> = self.position.iter().map(u64::to_string).collect();
        write!(
            f,
            "gather index out of range: `{}[{}]` holds {}, but `{}` has {} elements along dimension {}",
            self.index,
            position.join(", "),
            self.value,
            self.table,
            self.extent,
            self.dim
        )
    }
}

impl std::error::Error for IndexError {}

/// Why a generated `reference` or `reference_host` function returned no outputs: host
/// data of the wrong length, or a gather index out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// A tensor of the wrong length, or the wrong number of tensors.
    Shape(ShapeError),
    /// A gather index outside its table, found while computing.
    Index(IndexError),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Shape(error) => error.fmt(f),
            InputError::Index(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for InputError {}

impl From<ShapeError> for InputError {
    fn from(error: ShapeError) -> InputError {
        InputError::Shape(error)
    }
}

impl From<IndexError> for InputError {
    fn from(error: IndexError) -> InputError {
        InputError::Index(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainder_takes_the_dividends_sign_as_rust_does() {
        for (a, b) in [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5), (i32::MAX, 2)] {
            let value = binary(BinaryOp::Rem, Dtype::I32, f64::from(a), f64::from(b));
            assert_eq!(value, f64::from(a % b), "{a} % {b}");
        }
        // An integer zero divisor gives 0, as integer division by zero does.
        assert_eq!(binary(BinaryOp::Rem, Dtype::I32, 7.0, 0.0), 0.0);
        for (a, b) in [(5.5f32, 2.0f32), (-5.5, 2.0), (1e30, 3.0), (0.1, 0.03)] {
            let value = binary(BinaryOp::Rem, Dtype::F32, f64::from(a), f64::from(b));
            assert_eq!(value, f64::from(a % b), "{a} % {b}");
        }
        assert!(binary(BinaryOp::Rem, Dtype::F32, 1.0, 0.0).is_nan());
    }
}
