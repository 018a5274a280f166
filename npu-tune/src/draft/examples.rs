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
//!
//! Examples as NumPy and Python write them are read too: a tensor as lists nested to
//! its shape (`a.tolist()`, `[[1, 2, 3], [4, 5, 6]]` for a `[2, 3]` tensor), a scalar
//! parameter or 0-d output as a bare number, `true`/`false` for a bool array's 1 and 0,
//! and the tokens `NaN`, `Infinity` and `-Infinity` that `json.dumps` writes for those
//! floats. A nested list must have the tensor's shape, and one whose rows differ in
//! length is refused as ragged, naming where.
//!
//! NumPy files work too ([`from_npz`], [`from_npy_dir`]): an `.npz` archive
//! (`np.savez`) whose arrays are named after the signature's inputs and outputs holds
//! one example; names `0/x`, `0/y`, `1/x`, ... hold several. A directory of `NAME.npy`
//! files holds one. Any integer, float or bool array is read by value and rounded to
//! the tensor's dtype, as JSON numbers are; NumPy has no bf16, so a bf16 tensor is
//! saved as a float32 (or float64) array of its values. Arrays must be C-ordered and
//! have the tensor's shape (a scalar parameter: shape `()` or `(1,)`).

use std::collections::BTreeMap;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use serde::Deserialize;

use super::arrays::{Array, Refused};
use super::signature::Port;

/// One example: the kernel's inputs and the outputs it must compute from them, in
/// signature order.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// The kernel's inputs, scalar parameters included, in signature order.
    pub inputs: Vec<HostTensor>,
    /// The outputs the kernel must compute from `inputs`, in signature order.
    pub expected: Vec<HostTensor>,
}

/// How close a computed value must be to the expected one: npu-sim's
/// [`Tolerance`] (`|got - expected| <= absolute + relative * |expected|`, NaN matching
/// NaN and an infinity only itself), with the drafting defaults of [`tolerance_for`].
pub use npu_sim::Tolerance;

/// The drafting default for a dtype: a few units in the last place of its mantissa for
/// floats (f32 1e-5, f16 1e-3, bf16 1e-2, relative and absolute), exact for integers.
/// Looser than the simulator's own figures ([`Tolerance::for_dtype`]), which compare
/// two computations of one program: examples come from other code, which may fold a
/// reduction in another order and round elsewhere.
pub fn tolerance_for(dtype: Dtype) -> Tolerance {
    let tol = match dtype {
        Dtype::F32 => 1e-5,
        Dtype::F16 => 1e-3,
        Dtype::Bf16 => 1e-2,
        _ => 0.0,
    };
    Tolerance {
        relative: tol,
        absolute: tol,
    }
}

/// Where computed outputs differ from an example's: enough to fix a body by.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Which example (0-based) and which output.
    pub example: usize,
    /// The output's name in the signature.
    pub output: String,
    /// The first differing element's index in the output's shape.
    pub at: Vec<u64>,
    /// The expected value at `at`.
    pub expected: f64,
    /// The computed value at `at`; NaN when the body computed too few elements.
    pub got: f64,
    /// The largest `|got - expected|` over the output's finite elements.
    pub max_error: f64,
    /// How many of the output's elements are outside the tolerance, of how many.
    pub count: usize,
    /// The output's element count.
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
        let tolerance = tolerance.unwrap_or_else(|| tolerance_for(got.dtype()));
        let (got, expected) = (got.values(), expected.values());
        let bad: Vec<usize> = (0..expected.len())
            .filter(|&i| {
                got.get(i)
                    .is_none_or(|&g| !tolerance.allows(expected[i], g))
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
    inputs: BTreeMap<String, serde_json::Value>,
    outputs: BTreeMap<String, serde_json::Value>,
}

/// Reads examples in the JSON form above for a signature: every input and output
/// named, with its shape or element count, and nothing else.
pub fn from_json(text: &str, ports: &[Port]) -> Result<Vec<Example>, String> {
    let text = super::arrays::quote_python_tokens(text);
    let file: File = serde_json::from_str(&text).map_err(|e| format!("examples: {e}"))?;
    if file.examples.is_empty() {
        return Err("examples: the list is empty; give at least one example".into());
    }
    file.examples
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let example = json_arrays(ports, "input", &entry.inputs)
                .and_then(|inputs| Ok((inputs, json_arrays(ports, "output", &entry.outputs)?)))
                .and_then(|(inputs, outputs)| example(ports, &inputs, &outputs));
            example.map_err(|why| format!("examples[{index}]: {why}"))
        })
        .collect()
}

/// The arrays of an example's `inputs` or `outputs` (`what`) by name; a ragged list
/// is refused with the shape the signature gives it.
fn json_arrays(
    ports: &[Port],
    what: &str,
    values: &BTreeMap<String, serde_json::Value>,
) -> Result<Named, String> {
    values
        .iter()
        .map(|(name, value)| {
            let array = super::arrays::from_json(name, value).map_err(|refused| match refused {
                Refused::NotAValue(why) => format!("{what} `{name}` {why}"),
                Refused::Ragged(why) => {
                    let port = ports.iter().find(|p| &p.name == name);
                    let says = port.map(|p| format!("; the signature says {:?}", p.shape));
                    format!("{what} `{name}` {why}{}", says.unwrap_or_default())
                }
            })?;
            Ok((name.clone(), array))
        })
        .collect()
}

/// Reads the examples of an `.npz` archive's bytes for a signature (see the module
/// docs for the names).
pub fn from_npz(bytes: &[u8], ports: &[Port]) -> Result<Vec<Example>, String> {
    let arrays = super::arrays::read_npz(bytes)?;
    let mut examples: BTreeMap<Option<u64>, Named> = BTreeMap::new();
    for (name, array) in arrays {
        let (index, port) = match name.split_once('/') {
            Some((index, port)) => {
                let index = index
                    .parse()
                    .map_err(|_| format!("array `{name}`: `{index}` is not an example number"))?;
                (Some(index), port.to_string())
            }
            None => (None, name),
        };
        examples.entry(index).or_default().insert(port, array);
    }
    if examples.contains_key(&None) && examples.len() > 1 {
        return Err("name every array `K/NAME`, or none: the archive mixes both".into());
    }
    if examples.is_empty() {
        return Err("the archive holds no arrays".into());
    }
    examples
        .into_iter()
        .map(|(index, named)| {
            let (inputs, outputs) = split(ports, named);
            example(ports, &inputs, &outputs).map_err(|why| match index {
                Some(index) => format!("example {index}: {why}"),
                None => why,
            })
        })
        .collect()
}

/// Reads the one example of a directory of `NAME.npy` files.
pub fn from_npy_dir(dir: &std::path::Path, ports: &[Port]) -> Result<Vec<Example>, String> {
    let named = super::arrays::read_npy_dir(dir)?;
    let (inputs, outputs) = split(ports, named);
    Ok(vec![example(ports, &inputs, &outputs)?])
}

/// Named arrays split into the signature's outputs and the rest.
fn split(ports: &[Port], named: Named) -> (Named, Named) {
    named
        .into_iter()
        .partition(|(name, _)| !ports.iter().any(|p| p.output && &p.name == name))
}

/// Arrays by name: an example's inputs or outputs.
type Named = BTreeMap<String, Array>;

/// One example from its named inputs and outputs.
fn example(ports: &[Port], inputs: &Named, outputs: &Named) -> Result<Example, String> {
    Ok(Example {
        inputs: tensors(ports, false, inputs)?,
        expected: tensors(ports, true, outputs)?,
    })
}

/// The tensors of one role, in signature order, from their named values.
fn tensors(ports: &[Port], outputs: bool, named: &Named) -> Result<Vec<HostTensor>, String> {
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
            let array = named
                .get(&tensor.name)
                .ok_or_else(|| format!("{what} `{}` is missing", tensor.name))?;
            tensor_of(tensor, what, array)
        })
        .collect()
}

/// The tensor `port` of role `what` from `array`, which must have its shape (when the
/// array has one) and its element count.
fn tensor_of(port: &Port, what: &str, array: &Array) -> Result<HostTensor, String> {
    let dtype = port
        .dtype
        .ok_or_else(|| format!("{what} `{}` has no dtype npu knows", port.name))?;
    let scalar = port.shape.is_empty();
    if let Some(shape) = &array.shape
        && *shape != port.shape
        && !(scalar && shape.as_slice() == [1])
    {
        return Err(format!(
            "{what} `{}` has shape {shape:?}; the signature says {:?}",
            port.name, port.shape
        ));
    }
    let elements = port.shape.iter().product::<u64>() as usize;
    if array.values.len() != elements {
        return Err(format!(
            "{what} `{}` has {} values; its shape {:?} holds {elements}",
            port.name,
            array.values.len(),
            port.shape
        ));
    }
    Ok(HostTensor::from_values(dtype, &port.shape, &array.values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tolerance_admits_rounding_and_only_nan_matches_nan() {
        let f32s = tolerance_for(Dtype::F32);
        assert!(f32s.allows(1000.0, 1000.005));
        assert!(!f32s.allows(1000.0, 1000.02));
        assert!(f32s.allows(f64::NAN, f64::NAN));
        assert!(!f32s.allows(f64::NAN, 0.0));
        assert!(!f32s.allows(f64::INFINITY, 1e300));
        assert!(f32s.allows(f64::NEG_INFINITY, f64::NEG_INFINITY));
        assert!(!tolerance_for(Dtype::I32).allows(7.0, 7.000_000_1));
        assert!(tolerance_for(Dtype::Bf16).allows(256.0, 258.0));
    }

    #[test]
    fn positions_are_row_major() {
        assert_eq!(unravel(7, &[4, 3]), [2, 1]);
        assert_eq!(unravel(0, &[]), Vec::<u64>::new());
    }
}
