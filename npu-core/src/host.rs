//! Tensors on the host: a kernel's inputs as a caller gives them, and the outputs a
//! reference or a simulation gives back.
//!
//! A [`HostTensor`] holds its elements in their dtype's own encoding
//! ([`encoding`](crate::encoding)): 16 million f16 elements take 32 MB, not the
//! 128 MB of `f64`s, and the simulator copies them into its global memory as they are.
//! Every value a tensor holds is a value of its dtype: [`HostTensor::from_values`]
//! rounds as [`Dtype::round`] does.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;
use crate::encoding::{decode, encode_rounded};

/// A Rust element type a tensor can be given as.
pub trait Element: Copy + Send + Sync + 'static {
    /// The dtype whose encoding this Rust type holds, one to one.
    const DTYPE: Dtype;
    /// The element's value, exact: an `f64` holds every value of every dtype.
    fn to_f64(self) -> f64;
    /// From an exact value of `Self::DTYPE` (see [`Dtype::round`]).
    fn from_f64(value: f64) -> Self;
    /// Writes the element's encoding (little-endian) into `bytes`, which holds
    /// exactly `DTYPE.size()` bytes.
    fn write_le(self, bytes: &mut [u8]);
    /// The element `bytes` (exactly `DTYPE.size()` of them) encode.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($ty:ty, $dtype:expr, |$v:ident| $from:expr, |$s:ident| $to:expr) => {
        impl Element for $ty {
            const DTYPE: Dtype = $dtype;
            fn to_f64(self) -> f64 {
                let $s = self;
                $to
            }
            fn from_f64($v: f64) -> Self {
                $from
            }
            fn write_le(self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$ty>::from_le_bytes(bytes.try_into().expect("one element's bytes"))
            }
        }
    };
}

element!(
    half::f16,
    Dtype::F16,
    |v| crate::dtype::f16_from_f64(v),
    |s| s.to_f64()
);
element!(
    half::bf16,
    Dtype::Bf16,
    |v| crate::dtype::bf16_from_f64(v),
    |s| s.to_f64()
);
element!(f32, Dtype::F32, |v| v as f32, |s| f64::from(s));
element!(i8, Dtype::I8, |v| v as i8, |s| f64::from(s));
element!(u8, Dtype::U8, |v| v as u8, |s| f64::from(s));
element!(i16, Dtype::I16, |v| v as i16, |s| f64::from(s));
element!(i32, Dtype::I32, |v| v as i32, |s| f64::from(s));
element!(u16, Dtype::U16, |v| v as u16, |s| f64::from(s));
element!(u32, Dtype::U32, |v| v as u32, |s| f64::from(s));

/// A tensor of any dtype on the host, its elements held in the dtype's own encoding.
///
/// ```
/// use npu_core::Dtype;
/// use npu_core::host::HostTensor;
///
/// let x = HostTensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]);
/// assert_eq!(x.bytes().len(), 16);
/// // Values are rounded to the dtype as the hardware stores them.
/// let h = HostTensor::from_values(Dtype::F16, &[3], &[1.0, 1.0 / 3.0, 1e6]);
/// assert_eq!(h.values(), [1.0, 0.333251953125, f64::INFINITY]);
/// assert_eq!(h.to_vec::<f32>(), None); // not its dtype
/// ```
///
/// The shape describes the elements; a tensor whose shape does not multiply out to
/// its length can be built (a simulator refuses it as input with a clear error).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "Values", try_from = "Values")]
pub struct HostTensor {
    dtype: Dtype,
    shape: Vec<u64>,
    bytes: Vec<u8>,
}

impl HostTensor {
    /// A tensor from typed elements, held as they are.
    pub fn from_slice<T: Element>(shape: &[u64], data: &[T]) -> HostTensor {
        let size = T::DTYPE.size() as usize;
        let mut bytes = vec![0; data.len() * size];
        for (element, bytes) in data.iter().zip(bytes.chunks_exact_mut(size)) {
            element.write_le(bytes);
        }
        HostTensor {
            dtype: T::DTYPE,
            shape: shape.to_vec(),
            bytes,
        }
    }

    /// A tensor of `dtype` holding `values`, each rounded as [`Dtype::round`] does.
    pub fn from_values(dtype: Dtype, shape: &[u64], values: &[f64]) -> HostTensor {
        let mut bytes = vec![0; values.len() * dtype.size() as usize];
        encode_rounded(dtype, values, &mut bytes);
        HostTensor {
            dtype,
            shape: shape.to_vec(),
            bytes,
        }
    }

    /// A tensor of `dtype` from its elements' encoding, or `None` when `bytes` is not
    /// a whole number of elements.
    pub fn from_bytes(dtype: Dtype, shape: &[u64], bytes: Vec<u8>) -> Option<HostTensor> {
        bytes
            .len()
            .is_multiple_of(dtype.size() as usize)
            .then(|| HostTensor {
                dtype,
                shape: shape.to_vec(),
                bytes,
            })
    }

    /// The dtype every element has and is encoded in.
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// The extents, outermost dimension first (row-major); not checked against
    /// [`len`](Self::len).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// How many elements the tensor holds.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.dtype.size() as usize
    }

    /// Whether the tensor holds no elements, whatever its shape says.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The elements' encoding: [`len`](Self::len) elements of the dtype, little-endian.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The elements as `T`, if `T` is this tensor's dtype.
    pub fn to_vec<T: Element>(&self) -> Option<Vec<T>> {
        let size = self.dtype.size() as usize;
        (T::DTYPE == self.dtype).then(|| self.bytes.chunks_exact(size).map(T::read_le).collect())
    }

    /// Every element as an `f64` (which holds each value of every dtype exactly).
    pub fn values(&self) -> Vec<f64> {
        let mut values = vec![0.0; self.len()];
        decode(self.dtype, &self.bytes, &mut values);
        values
    }

    /// Every element as an `f64` of `dtype`: rounded as [`Dtype::round`] does when
    /// `dtype` is not the tensor's own (an input given in another dtype than the
    /// kernel declares, read by a host reference).
    pub fn values_as(&self, dtype: Dtype) -> Vec<f64> {
        let mut values = self.values();
        if dtype != self.dtype {
            values
                .iter_mut()
                .for_each(|value| *value = dtype.round(*value));
        }
        values
    }

    /// Element `index` (in row-major order) as an `f64`, if the tensor has it.
    pub fn value(&self, index: usize) -> Option<f64> {
        let size = self.dtype.size() as usize;
        let start = index.checked_mul(size)?;
        let bytes = self.bytes.get(start..start.checked_add(size)?)?;
        let mut one = [0.0];
        decode(self.dtype, bytes, &mut one);
        Some(one[0])
    }

    /// The tensor with each value replaced by `f(value)`, rounded to the dtype.
    pub fn map(&self, f: impl FnMut(f64) -> f64) -> HostTensor {
        let values: Vec<f64> = self.values().into_iter().map(f).collect();
        HostTensor::from_values(self.dtype, &self.shape, &values)
    }

    /// Deterministic pseudo-random test data in a range suited to `dtype`, from `seed`
    /// (the workspace's one generator, `fastrand`).
    pub fn random(dtype: Dtype, shape: &[u64], seed: u64) -> HostTensor {
        let count: u64 = shape.iter().product();
        let mut rng = fastrand::Rng::with_seed(seed);
        let values: Vec<f64> = (0..count)
            .map(|_| {
                let unit = rng.f64();
                let value = if dtype.is_float() {
                    unit * 2.0 - 1.0
                } else {
                    (unit * 16.0).floor() - 8.0
                };
                if !dtype.is_signed() {
                    value.abs()
                } else {
                    value
                }
            })
            .collect();
        HostTensor::from_values(dtype, shape, &values)
    }

    /// Edge values of `dtype`, repeated to fill `shape`: zeros of both signs, ±1,
    /// halves (which rounding to even splits), the dtype's extremes and, for floats,
    /// the infinities, NaN and values that overflow or underflow the transcendental
    /// operations. `offset` rotates the list, so that two inputs pair up different
    /// values.
    pub fn edges(dtype: Dtype, shape: &[u64], offset: usize) -> HostTensor {
        let (low, high) = dtype.range();
        let edges: Vec<f64> = if dtype.is_float() {
            vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                -0.5,
                1.5,
                2.5,
                -2.5,
                3.0,
                0.75,
                -7.25,
                100.0,
                -100.0,
                high,
                low,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e-6,
                std::f64::consts::PI,
                -std::f64::consts::FRAC_PI_2,
            ]
        } else {
            let bits = f64::from(dtype.bits());
            vec![
                0.0,
                1.0,
                -1.0,
                2.0,
                -2.0,
                7.0,
                low,
                high,
                low + 1.0,
                high - 1.0,
                bits - 1.0,
                bits,
                85.0,
                -86.0,
                3.0,
                bits + 1.0,
            ]
        };
        let count: u64 = shape.iter().product();
        let values: Vec<f64> = (0..count as usize)
            .map(|i| edges[(i + offset) % edges.len()])
            .collect();
        HostTensor::from_values(dtype, shape, &values)
    }

    /// Checksum of the values, for printing and quick comparisons.
    pub fn checksum(&self) -> f64 {
        self.values().iter().sum()
    }
}

impl fmt::Debug for HostTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostTensor")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .field("values", &self.values())
            .finish()
    }
}

/// A [`HostTensor`] as text formats hold it: its values as numbers.
#[derive(Serialize, Deserialize)]
struct Values {
    dtype: Dtype,
    shape: Vec<u64>,
    data: Vec<f64>,
}

impl From<HostTensor> for Values {
    fn from(tensor: HostTensor) -> Values {
        Values {
            data: tensor.values(),
            dtype: tensor.dtype,
            shape: tensor.shape,
        }
    }
}

impl TryFrom<Values> for HostTensor {
    type Error = String;

    /// Refuses a value its dtype does not hold, rather than rounding it silently.
    fn try_from(Values { dtype, shape, data }: Values) -> Result<HostTensor, String> {
        let tensor = HostTensor::from_values(dtype, &shape, &data);
        for (index, (given, held)) in data.iter().zip(tensor.values()).enumerate() {
            if given.to_bits() != held.to_bits() && !(given.is_nan() && held.is_nan()) {
                return Err(format!(
                    "element {index} of a {dtype} tensor is {given}, which {dtype} does not hold (nearest: {held})"
                ));
            }
        }
        Ok(tensor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_data_round_trips_and_values_are_rounded_to_the_dtype() {
        let data = [
            half::f16::from_f32(1.5),
            half::f16::NAN,
            half::f16::NEG_INFINITY,
        ];
        let tensor = HostTensor::from_slice(&[3], &data);
        assert_eq!(tensor.bytes().len(), 6);
        let back = tensor.to_vec::<half::f16>().expect("f16");
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            data.map(|x| x.to_bits())
        );
        assert_eq!(tensor.value(2), Some(f64::NEG_INFINITY));
        assert_eq!(tensor.value(3), None);
        let wrapped = HostTensor::from_values(Dtype::I8, &[3], &[200.0, -129.5, 7.9]);
        assert_eq!(wrapped.values(), [-56.0, 127.0, 7.0]);
        assert_eq!(wrapped.value(usize::MAX), None);
        let f32s = HostTensor::from_slice(&[2], &[1.0f32 / 3.0, 70000.0]);
        assert_eq!(f32s.values_as(Dtype::F32), f32s.values());
        assert_eq!(f32s.values_as(Dtype::F16), [0.333251953125, f64::INFINITY]);
        assert_eq!(HostTensor::from_bytes(Dtype::I32, &[1], vec![0; 3]), None);
    }

    #[test]
    fn json_holds_the_values_and_refuses_one_the_dtype_does_not_hold() {
        let tensor = HostTensor::random(Dtype::Bf16, &[4, 8], 3);
        let text = serde_json::to_string(&tensor).expect("serialises");
        let back: HostTensor = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, tensor);
        let bad = r#"{"dtype":"f16","shape":[2],"data":[1.0,0.1]}"#;
        let error = serde_json::from_str::<HostTensor>(bad).expect_err("0.1 is no f16");
        assert!(
            error
                .to_string()
                .contains("element 1 of a f16 tensor is 0.1"),
            "{error}"
        );
    }

    // The encoding's own round trip is tested here, where `HostTensor`'s edge and
    // random sets are at hand: `encoding` sits below `host` and does not use it.

    fn decoded(dtype: Dtype, bytes: &[u8]) -> Vec<f64> {
        let mut values = vec![0.0; bytes.len() / dtype.size() as usize];
        decode(dtype, bytes, &mut values);
        values
    }

    /// Every value of every dtype's edge and random sets survives an encoding and a
    /// decoding, and any `f64` encodes as `Dtype::round` rounds it.
    #[test]
    fn encoding_round_trips_and_rounds_as_dtype_round() {
        for dtype in Dtype::ALL {
            let mut values = HostTensor::edges(dtype, &[64], 0).values();
            values.extend(HostTensor::random(dtype, &[600], 7).values());
            let size = dtype.size() as usize;
            let mut bytes = vec![0; values.len() * size];
            encode_rounded(dtype, &values, &mut bytes);
            for (value, back) in values.iter().zip(&decoded(dtype, &bytes)) {
                assert!(
                    value.to_bits() == back.to_bits() || (value.is_nan() && back.is_nan()),
                    "{dtype}: {value} came back as {back}"
                );
            }
            // Values of f64 precision, values f32 holds (rounded from f32 in one
            // step), and values out of an integer dtype's range (wrapped).
            let wide = (0..600).map(|i| (i as f64 - 300.0) * 123.456_7);
            let narrow = (0..600).map(|i| f64::from((i as f32 - 300.0) * 0.012_345_7));
            for values in [wide.collect::<Vec<f64>>(), narrow.collect()] {
                let mut bytes = vec![0; values.len() * size];
                encode_rounded(dtype, &values, &mut bytes);
                for (value, stored) in values.iter().zip(&decoded(dtype, &bytes)) {
                    assert_eq!(dtype.round(*value).to_bits(), stored.to_bits(), "{dtype}");
                }
            }
        }
    }
}
