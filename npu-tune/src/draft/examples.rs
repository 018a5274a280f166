//! Examples a drafted kernel body must reproduce: input and expected output arrays, and
//! the comparison within a per-dtype tolerance, with a summary of where it fails.
//!
//! The JSON form is an object with one list, `examples`, each element naming every
//! input and output of the kernel's signature with its values in row-major order:
//!
//! ```json
//! {"examples": [{"inputs": {"x": [1.0, -2.5]}, "outputs": {"y": [1.0, 0.0]}}]}
//! ```
//!
//! Values are JSON numbers, or the strings `"nan"`, `"inf"` and `"-inf"`; a scalar
//! parameter or a 0-d output is a list of one value. Each value is rounded to its
//! tensor's declared dtype when read, so a bf16 tensor is written as the decimal values
//! of its elements, as any other.

use std::collections::BTreeMap;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use serde::Deserialize;

use super::signature::Port;

/// One example: the kernel's inputs and the outputs it must compute from them, in
/// signature order.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub inputs: Vec<HostTensor>,
    pub expected: Vec<HostTensor>,
}

/// How close a computed value must be to the expected one:
/// `|got - expected| <= atol + rtol * |expected|`, NaN matching NaN and an infinity
/// only itself. A correct body
/// may fold a reduction in another order than the examples' author did, so floats
/// are compared within a tolerance; integers exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

impl Tolerance {
    /// The default for a dtype: a few units in the last place of its mantissa for
    /// floats (f32 1e-5, f16 1e-3, bf16 1e-2, relative and absolute), exact for
    /// integers.
    pub fn for_dtype(dtype: Dtype) -> Tolerance {
        let tol = match dtype {
            Dtype::F32 => 1e-5,
            Dtype::F16 => 1e-3,
            Dtype::Bf16 => 1e-2,
            _ => 0.0,
        };
        Tolerance {
            rtol: tol,
            atol: tol,
        }
    }

    fn admits(self, expected: f64, got: f64) -> bool {
        if expected.is_nan() || got.is_nan() {
            return expected.is_nan() && got.is_nan();
        }
        if expected.is_infinite() || got.is_infinite() {
            return expected == got;
        }
        (got - expected).abs() <= self.atol + self.rtol * expected.abs()
    }
}

/// Where computed outputs differ from an example's: enough to fix a body by.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Which example (0-based) and which output.
    pub example: usize,
    pub output: String,
    /// The first differing element's index in the output's shape.
    pub at: Vec<u64>,
    pub expected: f64,
    pub got: f64,
    /// The largest `|got - expected|` over the output's finite elements.
    pub max_error: f64,
    /// How many of the output's elements are outside the tolerance, of how many.
    pub count: usize,
    pub of: usize,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at: Vec<String> = self.at.iter().map(u64::to_string).collect();
        write!(
            f,
            "example {}: `{}` differs in {} of {} elements; first at [{}]: expected {}, got {}; largest error {}",
            self.example,
            self.output,
            self.count,
            self.of,
            at.join(", "),
            self.expected,
            self.got,
            self.max_error
        )
    }
}

/// Compares the outputs a body computed with an example's expected ones, output by
/// output: the first output outside `tolerance` (or its dtype's default), if any.
pub fn compare(
    example: usize,
    ports: &[Port],
    got: &[HostTensor],
    expected: &[HostTensor],
    tolerance: Option<Tolerance>,
) -> Option<Mismatch> {
    let outputs = ports.iter().filter(|p| p.output);
    for ((tensor, got), expected) in outputs.zip(got).zip(expected) {
        let tolerance = tolerance.unwrap_or_else(|| Tolerance::for_dtype(got.dtype()));
        let (got, expected) = (got.values(), expected.values());
        let bad: Vec<usize> = (0..expected.len())
            .filter(|&i| {
                got.get(i)
                    .is_none_or(|&g| !tolerance.admits(expected[i], g))
            })
            .collect();
        let Some(&first) = bad.first() else {
            continue;
        };
        let max_error = expected
            .iter()
            .zip(&got)
            .map(|(e, g)| (g - e).abs())
            .filter(|error| error.is_finite())
            .fold(0.0, f64::max);
        return Some(Mismatch {
            example,
            output: tensor.name.clone(),
            at: unravel(first as u64, &tensor.shape),
            expected: expected[first],
            got: got.get(first).copied().unwrap_or(f64::NAN),
            max_error,
            count: bad.len(),
            of: expected.len(),
        });
    }
    None
}

/// A row-major position in `shape`.
fn unravel(mut flat: u64, shape: &[u64]) -> Vec<u64> {
    let mut index = vec![0; shape.len()];
    for (slot, extent) in index.iter_mut().zip(shape).rev() {
        *slot = flat % extent.max(&1);
        flat /= extent.max(&1);
    }
    index
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    examples: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    inputs: BTreeMap<String, Vec<Value>>,
    outputs: BTreeMap<String, Vec<Value>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Value {
    Number(f64),
    Special(String),
}

impl Value {
    fn to_f64(&self) -> Result<f64, String> {
        match self {
            Value::Number(value) => Ok(*value),
            Value::Special(text) => match text.as_str() {
                "nan" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                other => Err(format!(
                    "`{other}` is not a value (a number, \"nan\", \"inf\" or \"-inf\")"
                )),
            },
        }
    }
}

/// Reads examples in the JSON form above for a signature: every input and output
/// named, with its element count, and nothing else.
pub fn from_json(text: &str, ports: &[Port]) -> Result<Vec<Example>, String> {
    let file: File = serde_json::from_str(text).map_err(|e| format!("examples: {e}"))?;
    if file.examples.is_empty() {
        return Err("examples: the list is empty; give at least one example".into());
    }
    file.examples
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let inputs = tensors(ports, false, &entry.inputs);
            let expected = tensors(ports, true, &entry.outputs);
            match (inputs, expected) {
                (Ok(inputs), Ok(expected)) => Ok(Example { inputs, expected }),
                (Err(why), _) | (_, Err(why)) => Err(format!("examples[{index}]: {why}")),
            }
        })
        .collect()
}

/// The tensors of one role, in signature order, from their named values.
fn tensors(
    ports: &[Port],
    outputs: bool,
    named: &BTreeMap<String, Vec<Value>>,
) -> Result<Vec<HostTensor>, String> {
    let declared: Vec<&Port> = ports.iter().filter(|p| p.output == outputs).collect();
    let what = if outputs { "output" } else { "input" };
    if let Some(extra) = named
        .keys()
        .find(|n| declared.iter().all(|t| &t.name != *n))
    {
        return Err(format!("the kernel has no {what} `{extra}`"));
    }
    declared
        .iter()
        .map(|tensor| {
            let values = named
                .get(&tensor.name)
                .ok_or_else(|| format!("{what} `{}` is missing", tensor.name))?;
            let dtype = tensor
                .dtype
                .ok_or_else(|| format!("{what} `{}` has no dtype npu knows", tensor.name))?;
            let elements = tensor.shape.iter().product::<u64>() as usize;
            if values.len() != elements {
                return Err(format!(
                    "{what} `{}` has {} values; its shape {:?} holds {elements}",
                    tensor.name,
                    values.len(),
                    tensor.shape
                ));
            }
            let values: Vec<f64> = values.iter().map(Value::to_f64).collect::<Result<_, _>>()?;
            Ok(HostTensor::from_values(dtype, &tensor.shape, &values))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tolerance_admits_rounding_and_only_nan_matches_nan() {
        let f32s = Tolerance::for_dtype(Dtype::F32);
        assert!(f32s.admits(1000.0, 1000.005));
        assert!(!f32s.admits(1000.0, 1000.02));
        assert!(f32s.admits(f64::NAN, f64::NAN));
        assert!(!f32s.admits(f64::NAN, 0.0));
        assert!(!f32s.admits(f64::INFINITY, 1e300));
        assert!(f32s.admits(f64::NEG_INFINITY, f64::NEG_INFINITY));
        assert!(!Tolerance::for_dtype(Dtype::I32).admits(7.0, 7.000_000_1));
        assert!(Tolerance::for_dtype(Dtype::Bf16).admits(256.0, 258.0));
    }

    #[test]
    fn positions_are_row_major() {
        assert_eq!(unravel(7, &[4, 3]), [2, 1]);
        assert_eq!(unravel(0, &[]), Vec::<u64>::new());
    }
}
