//! Comparing simulated outputs with the reference.
//!
//! An element passes when `|actual − expected| ≤ absolute + relative × |expected|`
//! (both NaN, or the same infinity, also pass). The per-dtype tolerances are a few
//! units in the last place:
//!
//! | dtype | relative | absolute |
//! |---|---|---|
//! | f16 | 1e-3 | 1e-5 |
//! | bf16 | 8e-3 | 1e-4 |
//! | f32 | 1e-5 | 1e-7 |
//! | integers | 0 | 0 |
//!
//! A reduction or matmul may add its terms in another order than the reference (the
//! cube does; a two-level reduction would), and the rounding error of a sum of `n`
//! terms grows like `√n` units of the dtype it accumulates in, so an output that a
//! fold feeds ([`folds`]: its own statement's, or a `let` intermediate's it reads)
//! gets that dtype's figures times `√n` on top of its own. An f16 result of a sum
//! accumulated in f32 keeps about f16's tolerance; one accumulated in f16 (`sum[k:
//! f16]`) gets room for the f16 rounding of every step. Integers stay exact.

use std::fmt;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use npu_core::internal::{CHUNK, decode};
use npu_core::ir::{CheckedKernel, Expr, Role};
use serde::{Deserialize, Serialize};

/// How far an element may be from the reference.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    /// Allowed difference as a share of the expected value.
    pub relative: f64,
    /// Allowed difference on top of the relative part.
    pub absolute: f64,
}

impl Tolerance {
    /// The tolerance of a `dtype` result that `fold` feeds (`None` for an elementwise
    /// one). Integer results are exact.
    pub fn for_dtype(dtype: Dtype, fold: Option<Fold>) -> Tolerance {
        let Some((relative, absolute)) = figures(dtype) else {
            return Tolerance {
                relative: 0.0,
                absolute: 0.0,
            };
        };
        let Some(fold) = fold else {
            return Tolerance { relative, absolute };
        };
        let (fold_relative, fold_absolute) = figures(fold.accumulator).unwrap_or((0.0, 0.0));
        let scale = (fold.terms.max(1) as f64).sqrt();
        Tolerance {
            relative: relative + fold_relative * scale,
            absolute: absolute + fold_absolute * scale,
        }
    }

    /// Whether `actual` is within this tolerance of `expected`; NaN matches only NaN, an infinity only itself.
    pub fn allows(&self, expected: f64, actual: f64) -> bool {
        if expected.is_nan() || actual.is_nan() {
            return expected.is_nan() && actual.is_nan();
        }
        if expected.is_infinite() || actual.is_infinite() {
            return expected == actual;
        }
        (actual - expected).abs() <= self.absolute + self.relative * expected.abs()
    }
}

/// A float dtype's relative and absolute figures (see the table above); `None` for an
/// integer dtype.
fn figures(dtype: Dtype) -> Option<(f64, f64)> {
    match dtype {
        Dtype::F16 => Some((1e-3, 1e-5)),
        Dtype::Bf16 => Some((8e-3, 1e-4)),
        Dtype::F32 => Some((1e-5, 1e-7)),
        Dtype::I8 | Dtype::U8 | Dtype::I16 | Dtype::I32 | Dtype::U16 | Dtype::U32 => None,
    }
}

/// A fold (a reduction or a scan) an output goes through: how many terms it folds and
/// the dtype it accumulates in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fold {
    /// How many terms it folds.
    pub terms: u64,
    /// The dtype it accumulates in.
    pub accumulator: Dtype,
}

impl Fold {
    /// How much room the fold adds to a result's relative tolerance.
    fn room(self) -> f64 {
        figures(self.accumulator).map_or(0.0, |(relative, _)| relative)
            * (self.terms.max(1) as f64).sqrt()
    }
}

/// For each output of `kernel`, in signature order, the fold that needs the most room
/// among those its statement computes and those of the `let` intermediates it reads
/// (and they read); `None` for an elementwise output.
pub fn folds(kernel: &CheckedKernel) -> Vec<Option<Fold>> {
    let mut by_tensor: Vec<Option<Fold>> = vec![None; kernel.tensors.len()];
    for assign in &kernel.body {
        let mut widest: Option<Fold> = None;
        assign.value.walk(&mut |node| {
            let fold = match node {
                Expr::Reduce {
                    axes, accumulator, ..
                } => Some(Fold {
                    terms: axes.iter().map(|a| kernel.axes[*a].extent).product(),
                    accumulator: *accumulator,
                }),
                Expr::Scan {
                    axis, accumulator, ..
                } => Some(Fold {
                    terms: kernel.axes[*axis].extent,
                    accumulator: *accumulator,
                }),
                Expr::Load { tensor, .. } => by_tensor[*tensor],
                _ => None,
            };
            if let Some(fold) = fold
                && widest.is_none_or(|widest| fold.room() > widest.room())
            {
                widest = Some(fold);
            }
        });
        by_tensor[assign.output] = widest;
    }
    kernel
        .tensors
        .iter()
        .zip(by_tensor)
        .filter(|(tensor, _)| tensor.role == Role::Output)
        .map(|(_, fold)| fold)
        .collect()
}

/// How simulated outputs differ from the expected ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Mismatch {
    /// Elements out of tolerance; the first one in index order.
    Value {
        /// The output tensor.
        tensor: String,
        /// Row-major index of the element.
        flat_index: u64,
        /// The element's index, one entry per dimension.
        index: Vec<u64>,
        /// The reference value.
        expected: f64,
        /// The simulated value.
        actual: f64,
        /// The difference allowed at this element.
        tolerance: f64,
        /// Elements out of tolerance in this tensor.
        count: u64,
        /// Elements in this tensor.
        elements: u64,
    },
    /// A tensor of another shape or dtype.
    Shape {
        /// The output tensor.
        tensor: String,
        /// The expected shape and dtype.
        expected: String,
        /// The simulated one.
        actual: String,
    },
    /// Another number of tensors.
    Count {
        /// Tensors expected.
        expected: usize,
        /// Tensors simulated.
        actual: usize,
    },
}

impl Mismatch {
    /// Names the tensor (the comparison alone only knows positions).
    pub fn with_tensor_name(mut self, name: &str) -> Mismatch {
        match &mut self {
            Mismatch::Value { tensor, .. } | Mismatch::Shape { tensor, .. } => {
                *tensor = name.to_string()
            }
            Mismatch::Count { .. } => {}
        }
        self
    }

    /// The position of the tensor in the output list, when the name is `output N`.
    fn output_position(&self) -> Option<usize> {
        match self {
            Mismatch::Value { tensor, .. } | Mismatch::Shape { tensor, .. } => {
                tensor.strip_prefix("output ")?.parse().ok()
            }
            Mismatch::Count { .. } => None,
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Value {
                tensor,
                flat_index,
                index,
                expected,
                actual,
                tolerance,
                count,
                elements,
            } => {
                let index: Vec<String> = index.iter().map(u64::to_string).collect();
                write!(
                    f,
                    "`{tensor}` differs at [{}] (element {flat_index}): expected {expected}, got {actual} (tolerance {tolerance:.3e}); {count} of {elements} elements differ",
                    index.join(", ")
                )
            }
            Mismatch::Shape {
                tensor,
                expected,
                actual,
            } => write!(f, "`{tensor}` is {actual} but {expected} was expected"),
            Mismatch::Count { expected, actual } => {
                write!(f, "{actual} outputs but {expected} were expected")
            }
        }
    }
}

/// Compares outputs with elementwise tolerances (no reduction scaling); returns the
/// largest absolute error. Tensors are named `output 0`, `output 1`, ...
pub fn compare_outputs(expected: &[HostTensor], actual: &[HostTensor]) -> Result<f64, Mismatch> {
    compare_outputs_with(expected, actual, &[])
}

/// [`compare_outputs`] with each output's float tolerance widened for the fold that
/// feeds it (see [`folds`]; an output past the end of `folds` is elementwise).
pub fn compare_outputs_with(
    expected: &[HostTensor],
    actual: &[HostTensor],
    folds: &[Option<Fold>],
) -> Result<f64, Mismatch> {
    if expected.len() != actual.len() {
        return Err(Mismatch::Count {
            expected: expected.len(),
            actual: actual.len(),
        });
    }
    let mut worst = 0.0f64;
    for (position, (want, got)) in expected.iter().zip(actual).enumerate() {
        let tensor = format!("output {position}");
        if want.dtype() != got.dtype() || want.shape() != got.shape() || want.len() != got.len() {
            let describe =
                |t: &HostTensor| format!("{} {:?} with {} values", t.dtype(), t.shape(), t.len());
            return Err(Mismatch::Shape {
                tensor,
                expected: describe(want),
                actual: describe(got),
            });
        }
        let fold = folds.get(position).copied().flatten();
        let tolerance = Tolerance::for_dtype(want.dtype(), fold);
        let (size, dtype) = (want.dtype().size() as usize, want.dtype());
        let mut first = None;
        let mut count = 0u64;
        // A chunk at a time, so that no tensor is ever held twice as f64s.
        let (mut e, mut a) = ([0.0; CHUNK], [0.0; CHUNK]);
        let chunks = want
            .bytes()
            .chunks(CHUNK * size)
            .zip(got.bytes().chunks(CHUNK * size));
        for (chunk, (want_bytes, got_bytes)) in chunks.enumerate() {
            let len = want_bytes.len() / size;
            decode(dtype, want_bytes, &mut e[..len]);
            decode(dtype, got_bytes, &mut a[..len]);
            for (i, (e, a)) in e[..len].iter().zip(&a[..len]).enumerate() {
                if tolerance.allows(*e, *a) {
                    if e.is_finite() && a.is_finite() {
                        worst = worst.max((a - e).abs());
                    }
                } else {
                    count += 1;
                    first.get_or_insert(chunk * CHUNK + i);
                }
            }
        }
        if let Some(flat) = first {
            let (expected, actual) = (want.value(flat), got.value(flat));
            let (expected, actual) = (expected.unwrap_or(f64::NAN), actual.unwrap_or(f64::NAN));
            return Err(Mismatch::Value {
                tensor,
                flat_index: flat as u64,
                index: unflatten(flat as u64, want.shape()),
                expected,
                actual,
                tolerance: tolerance.absolute + tolerance.relative * expected.abs(),
                count,
                elements: want.len() as u64,
            });
        }
    }
    Ok(worst)
}

/// Renames `output N` to the kernel's name for output `N`.
pub(crate) fn name_outputs(mismatch: Mismatch, names: &[String]) -> Mismatch {
    match mismatch.output_position().and_then(|p| names.get(p)) {
        Some(name) => mismatch.with_tensor_name(name),
        None => mismatch,
    }
}

fn unflatten(mut flat: u64, shape: &[u64]) -> Vec<u64> {
    let mut index = vec![0; shape.len()];
    for (dim, extent) in shape.iter().enumerate().rev() {
        let extent = (*extent).max(1);
        index[dim] = flat % extent;
        flat /= extent;
    }
    index
}
