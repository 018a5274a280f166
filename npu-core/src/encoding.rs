//! How an element of each dtype is held as bytes: its dtype's own encoding,
//! little-endian, with no padding. [`HostTensor`](crate::host::HostTensor) holds a
//! caller's data this way and npu-sim's memories hold every value this way, so this
//! module is the one place that maps a dtype to its encoding and back.
//!
//! Arithmetic happens on lanes of `f64`, which hold every value of every dtype exactly:
//! [`decode`] turns consecutive elements into lanes, [`encode`] and [`encode_rounded`]
//! turn lanes back into elements, rounding floats with the conversion [`Dtype::round`]
//! uses. The conversions of f16 and bf16 go through `half`'s slice functions, which use
//! the CPU's conversion instructions where it has them.
//!
//! A dtype added to [`Dtype`] gets its encoding here, in [`decode`] and [`encode`].

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use half::{bf16, f16};

use crate::dtype::{Dtype, bf16_from_f64, f16_from_f64};

/// Elements converted at a time: lanes live on the stack, in the L1 cache.
pub const CHUNK: usize = 256;

/// Decodes consecutive elements of `dtype` into `lanes` (as many as fit both).
pub fn decode(dtype: Dtype, bytes: &[u8], lanes: &mut [f64]) {
    macro_rules! ints {
        ($ty:ty) => {
            for (lane, element) in lanes.iter_mut().zip(bytes.chunks_exact(size_of::<$ty>())) {
                *lane = f64::from(<$ty>::from_le_bytes(
                    element.try_into().expect("chunk of the element size"),
                ));
            }
        };
    }
    match dtype {
        Dtype::F16 | Dtype::Bf16 => {
            for (lanes, bytes) in lanes.chunks_mut(CHUNK).zip(bytes.chunks(CHUNK * 2)) {
                let mut bits = [0u16; CHUNK];
                let bits = &mut bits[..lanes.len().min(bytes.len() / 2)];
                let lanes = &mut lanes[..bits.len()];
                for (bit, element) in bits.iter_mut().zip(bytes.chunks_exact(2)) {
                    *bit = u16::from_le_bytes([element[0], element[1]]);
                }
                if dtype == Dtype::F16 {
                    bits.reinterpret_cast::<f16>().convert_to_f64_slice(lanes);
                } else {
                    bits.reinterpret_cast::<bf16>().convert_to_f64_slice(lanes);
                }
            }
        }
        Dtype::F32 => {
            for (lane, element) in lanes.iter_mut().zip(bytes.chunks_exact(4)) {
                *lane = f64::from(f32::from_le_bytes(
                    element.try_into().expect("chunk of 4 bytes"),
                ));
            }
        }
        Dtype::I8 => ints!(i8),
        Dtype::U8 => ints!(u8),
        Dtype::I16 => ints!(i16),
        Dtype::U16 => ints!(u16),
        Dtype::I32 => ints!(i32),
        Dtype::U32 => ints!(u32),
    }
}

/// Encodes `lanes` as consecutive elements of `dtype` (as many as fit both); floats
/// round as [`Dtype::round`] does, integers saturate (so ±∞ stores the dtype's
/// extreme, as a max or min reduction needs for its start value; a lane that holds an
/// integer of the dtype stores exactly).
pub fn encode(dtype: Dtype, lanes: &[f64], bytes: &mut [u8]) {
    macro_rules! ints {
        ($ty:ty) => {
            for (lane, element) in lanes.iter().zip(bytes.chunks_exact_mut(size_of::<$ty>())) {
                element.copy_from_slice(&(*lane as $ty).to_le_bytes());
            }
        };
    }
    match dtype {
        Dtype::F16 | Dtype::Bf16 => {
            let mut narrow = [0f32; CHUNK];
            for (lanes, bytes) in lanes.chunks(CHUNK).zip(bytes.chunks_mut(CHUNK * 2)) {
                let mut bits = [0u16; CHUNK];
                let bits = &mut bits[..lanes.len().min(bytes.len() / 2)];
                let lanes = &lanes[..bits.len()];
                let narrow = &mut narrow[..bits.len()];
                for (narrow, lane) in narrow.iter_mut().zip(lanes) {
                    *narrow = *lane as f32;
                }
                // Values f32 holds exactly (a caller's f16 data, say) round once from
                // f32, eight lanes at a time; the rest as `Dtype::round` does.
                let exact = narrow
                    .iter()
                    .zip(lanes)
                    .fold(true, |exact, (narrow, lane)| {
                        exact & (f64::from(*narrow) == *lane)
                    });
                match (exact, dtype) {
                    (true, Dtype::F16) => {
                        bits.reinterpret_cast_mut::<f16>()
                            .convert_from_f32_slice(narrow);
                    }
                    (true, _) => {
                        bits.reinterpret_cast_mut::<bf16>()
                            .convert_from_f32_slice(narrow);
                    }
                    (false, Dtype::F16) => {
                        for (bit, lane) in bits.iter_mut().zip(lanes) {
                            *bit = f16_from_f64(*lane).to_bits();
                        }
                    }
                    (false, _) => {
                        for (bit, lane) in bits.iter_mut().zip(lanes) {
                            *bit = bf16_from_f64(*lane).to_bits();
                        }
                    }
                }
                for (bit, element) in bits.iter().zip(bytes.chunks_exact_mut(2)) {
                    element.copy_from_slice(&bit.to_le_bytes());
                }
            }
        }
        Dtype::F32 => {
            for (lane, element) in lanes.iter().zip(bytes.chunks_exact_mut(4)) {
                element.copy_from_slice(&(*lane as f32).to_le_bytes());
            }
        }
        Dtype::I8 => ints!(i8),
        Dtype::U8 => ints!(u8),
        Dtype::I16 => ints!(i16),
        Dtype::U16 => ints!(u16),
        Dtype::I32 => ints!(i32),
        Dtype::U32 => ints!(u32),
    }
}

/// Encodes any `values` as consecutive elements of `dtype`, each rounded as
/// [`Dtype::round`] does: floats to nearest even, integers truncated and wrapped
/// (where [`encode`] alone would saturate).
pub(crate) fn encode_rounded(dtype: Dtype, values: &[f64], bytes: &mut [u8]) {
    if dtype.is_float() {
        encode(dtype, values, bytes);
    } else {
        let size = dtype.size() as usize;
        let mut rounded = [0.0; CHUNK];
        for (values, bytes) in values.chunks(CHUNK).zip(bytes.chunks_mut(CHUNK * size)) {
            for (rounded, value) in rounded.iter_mut().zip(values) {
                *rounded = dtype.round(*value);
            }
            encode(dtype, &rounded[..values.len()], bytes);
        }
    }
}
