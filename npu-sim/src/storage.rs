//! How the functional simulator stores values: every memory is bytes, each element in
//! its dtype's own encoding (little-endian, `npu_core::encoding`), with a tag per
//! byte recording which dtype wrote it.
//!
//! Arithmetic happens on lanes of `f64`, which hold every value of every dtype exactly:
//! [`load`] decodes a run of elements into lanes, [`store`] encodes lanes back,
//! rounding floats with the same conversion [`Dtype::round`] uses (so a lane holding
//! the exact `f64` result of an operation stores as `scalar` would round it). f16 also
//! has `f32` lanes ([`load_f16`], [`store_f16`]) for the vector unit's f16 arithmetic.
//!
//! Global memory ([`Global`]) holds an input as the caller's own bytes until an
//! instruction writes it, so a run copies no input it only reads.

use half::f16;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use npu_core::Dtype;
use npu_core::host::HostTensor;

pub(crate) use npu_core::internal::{CHUNK, decode, encode};

/// A run of elements in a byte memory: the byte offset of the first, the byte stride
/// between consecutive ones (0 repeats one element), and how many.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run {
    pub offset: usize,
    pub stride: usize,
    pub len: usize,
}

impl Run {
    /// One past the last byte the run touches, or `None` if it overflows.
    pub(crate) fn end(&self, size: usize) -> Option<usize> {
        self.len
            .checked_sub(1)
            .map_or(Some(self.offset), |last| {
                last.checked_mul(self.stride)?.checked_add(self.offset)
            })?
            .checked_add(size)
    }
}

/// The tag of a byte never written.
pub(crate) const UNWRITTEN: u8 = 0;

/// The tag recording that an element of `dtype` was written at a byte.
pub(crate) fn tag(dtype: Dtype) -> u8 {
    Dtype::ALL.iter().position(|d| *d == dtype).unwrap_or(0) as u8 + 1
}

/// The dtype a tag records, if any.
pub(crate) fn tagged(tag: u8) -> Option<Dtype> {
    Dtype::ALL.get(usize::from(tag).checked_sub(1)?).copied()
}

/// The byte a fresh memory is filled with: all ones is a NaN in every float dtype, so
/// a float element no instruction wrote shows up as a mismatch.
pub(crate) const POISON: u8 = 0xff;

/// Decodes `run` of `dtype` elements from `bytes` into `lanes[..run.len]`; `false`
/// when the run reaches past the end of `bytes`.
pub(crate) fn load(dtype: Dtype, bytes: &[u8], run: Run, lanes: &mut [f64]) -> bool {
    let size = dtype.size() as usize;
    let lanes = &mut lanes[..run.len];
    match run.end(size) {
        Some(end) if end <= bytes.len() => {}
        _ => return false,
    }
    if run.stride == 0 && run.len > 0 {
        let mut one = [0.0];
        decode(dtype, &bytes[run.offset..run.offset + size], &mut one);
        lanes.fill(one[0]);
    } else if run.stride == size {
        decode(
            dtype,
            &bytes[run.offset..run.offset + run.len * size],
            lanes,
        );
    } else {
        let mut packed = [0u8; CHUNK * 4];
        for (chunk, lanes) in lanes.chunks_mut(CHUNK).enumerate() {
            let first = run.offset + chunk * CHUNK * run.stride;
            for (i, element) in packed.chunks_exact_mut(size).take(lanes.len()).enumerate() {
                let at = first + i * run.stride;
                element.copy_from_slice(&bytes[at..at + size]);
            }
            decode(dtype, &packed[..lanes.len() * size], lanes);
        }
    }
    true
}

/// Encodes `lanes` as `run` of `dtype` elements into `bytes` and records their dtype
/// in `tags` over the bytes the run spans; `false` when the run reaches past the end.
/// Floats round as [`Dtype::round`] does; an integer lane must hold an integer (the
/// conversion saturates, so ±∞ stores the dtype's extreme, as a max or min reduction
/// needs for its start value).
pub(crate) fn store(
    dtype: Dtype,
    lanes: &[f64],
    bytes: &mut [u8],
    tags: &mut [u8],
    run: Run,
) -> bool {
    let size = dtype.size() as usize;
    let lanes = &lanes[..run.len];
    let end = match run.end(size) {
        Some(end) if end <= bytes.len() && end <= tags.len() => end,
        _ => return false,
    };
    if run.len == 0 {
        return true;
    }
    tags[run.offset..end].fill(tag(dtype));
    if run.stride == size {
        encode(dtype, lanes, &mut bytes[run.offset..end]);
    } else if run.stride == 0 {
        // Every element lands on the same bytes: the last one stays.
        let last = &lanes[lanes.len() - 1..];
        encode(dtype, last, &mut bytes[run.offset..end]);
    } else {
        let mut packed = [0u8; CHUNK * 4];
        for (chunk, lanes) in lanes.chunks(CHUNK).enumerate() {
            let first = run.offset + chunk * CHUNK * run.stride;
            encode(dtype, lanes, &mut packed[..lanes.len() * size]);
            for (i, element) in packed.chunks_exact(size).take(lanes.len()).enumerate() {
                let at = first + i * run.stride;
                bytes[at..at + size].copy_from_slice(element);
            }
        }
    }
    true
}

/// [`load`] for f16 elements into f32 lanes, which hold every f16 value exactly.
pub(crate) fn load_f16(bytes: &[u8], run: Run, lanes: &mut [f32]) -> bool {
    let lanes = &mut lanes[..run.len];
    let end = match run.end(2) {
        Some(end) if end <= bytes.len() => end,
        _ => return false,
    };
    if run.stride == 2
        && let Some(elements) = as_f16s(&bytes[run.offset..end])
    {
        elements.convert_to_f32_slice(lanes);
        return true;
    }
    let mut bits = [0u16; CHUNK];
    for (chunk, lanes) in lanes.chunks_mut(CHUNK).enumerate() {
        let bits = &mut bits[..lanes.len()];
        let first = run.offset + chunk * CHUNK * run.stride;
        for (i, bit) in bits.iter_mut().enumerate() {
            let at = first + i * run.stride;
            *bit = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        }
        bits.reinterpret_cast::<f16>().convert_to_f32_slice(lanes);
    }
    true
}

/// Consecutive f16 elements seen in place, when their bytes are aligned for it and
/// the machine is little-endian like the encoding.
fn as_f16s(bytes: &[u8]) -> Option<&[f16]> {
    cfg!(target_endian = "little")
        .then(|| bytemuck::try_cast_slice(bytes).ok())
        .flatten()
}

/// [`as_f16s`], to write.
fn as_f16s_mut(bytes: &mut [u8]) -> Option<&mut [f16]> {
    cfg!(target_endian = "little")
        .then(|| bytemuck::try_cast_slice_mut(bytes).ok())
        .flatten()
}

/// [`store`] of f32 lanes as f16 elements, each rounded to nearest even.
pub(crate) fn store_f16(lanes: &[f32], bytes: &mut [u8], tags: &mut [u8], run: Run) -> bool {
    let lanes = &lanes[..run.len];
    let end = match run.end(2) {
        Some(end) if end <= bytes.len() && end <= tags.len() => end,
        _ => return false,
    };
    if run.len == 0 {
        return true;
    }
    tags[run.offset..end].fill(tag(Dtype::F16));
    if run.stride == 2
        && let Some(elements) = as_f16s_mut(&mut bytes[run.offset..end])
    {
        elements.convert_from_f32_slice(lanes);
        return true;
    }
    let mut bits = [0u16; CHUNK];
    for (chunk, lanes) in lanes.chunks(CHUNK).enumerate() {
        let bits = &mut bits[..lanes.len()];
        bits.reinterpret_cast_mut::<f16>()
            .convert_from_f32_slice(lanes);
        let first = run.offset + chunk * CHUNK * run.stride;
        // A stride of 0 writes every element over the last: the last one stays.
        for (i, bit) in bits.iter().enumerate() {
            let at = first + i * run.stride;
            bytes[at..at + 2].copy_from_slice(&bit.to_le_bytes());
        }
    }
    true
}

/// A tensor in global memory that instructions have written: its elements, encoded.
#[derive(Debug)]
pub(crate) struct Tensor {
    pub dtype: Dtype,
    pub bytes: Vec<u8>,
}

impl Tensor {
    /// `elements` elements no instruction has written yet (NaN in a float dtype).
    pub(crate) fn poisoned(dtype: Dtype, elements: usize) -> Tensor {
        Tensor {
            dtype,
            bytes: vec![POISON; elements * dtype.size() as usize],
        }
    }
}

/// A tensor in global memory as the machine holds it: an input stays the caller's
/// bytes until an instruction writes it (then it is copied once); what instructions
/// write is the machine's own.
#[derive(Debug)]
pub(crate) enum Global<'h> {
    Host(&'h HostTensor),
    Written(Tensor),
}

impl Global<'_> {
    pub(crate) fn dtype(&self) -> Dtype {
        match self {
            Global::Host(tensor) => tensor.dtype(),
            Global::Written(tensor) => tensor.dtype,
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Global::Host(tensor) => tensor.bytes(),
            Global::Written(tensor) => &tensor.bytes,
        }
    }

    /// The first element (a scalar parameter's value), if any.
    pub(crate) fn first(&self) -> Option<f64> {
        let size = self.dtype().size() as usize;
        let mut one = [0.0];
        decode(self.dtype(), self.bytes().get(..size)?, &mut one);
        Some(one[0])
    }

    /// The tensor to write, copying a caller's input first.
    pub(crate) fn written(&mut self) -> &mut Tensor {
        if let Global::Host(tensor) = *self {
            *self = Global::Written(Tensor {
                dtype: tensor.dtype(),
                bytes: tensor.bytes().to_vec(),
            });
        }
        match self {
            Global::Written(tensor) => tensor,
            Global::Host(_) => unreachable!("copied just above"),
        }
    }

    /// The tensor as a host tensor of `shape`, moving what instructions wrote.
    pub(crate) fn into_host(self, shape: &[u64]) -> HostTensor {
        match self {
            Global::Host(tensor) => tensor.clone(),
            Global::Written(Tensor { dtype, bytes }) => {
                HostTensor::from_bytes(dtype, shape, bytes).expect("a tensor of whole elements")
            }
        }
    }
}

/// Moves `len` elements of `size` bytes between two byte ranges that start at an
/// element, `from_stride` and `to_stride` bytes apart.
pub(crate) fn move_elements(
    from: &[u8],
    from_stride: usize,
    to: &mut [u8],
    to_stride: usize,
    size: usize,
    len: usize,
) {
    if from_stride == size && to_stride == size {
        to[..len * size].copy_from_slice(&from[..len * size]);
    } else {
        for i in 0..len {
            let (f, t) = (i * from_stride, i * to_stride);
            to[t..t + size].copy_from_slice(&from[f..f + size]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contiguous f16 runs are converted in place when aligned and through a copy when
    /// not: both load and store the same values.
    #[test]
    fn f16_runs_load_and_store_alike_at_any_alignment() {
        let values: Vec<f32> = (0..300).map(|i| (i as f32 - 150.0) * 0.37).collect();
        let mut loaded = Vec::new();
        for offset in [0, 1, 2, 3] {
            let mut bytes = vec![0u8; 700];
            let mut tags = vec![UNWRITTEN; 700];
            let run = Run {
                offset,
                stride: 2,
                len: 300,
            };
            assert!(store_f16(&values, &mut bytes, &mut tags, run));
            let mut lanes = [0f32; 300];
            assert!(load_f16(&bytes, run, &mut lanes));
            let mut wide = [0f64; 300];
            decode(Dtype::F16, &bytes[offset..offset + 600], &mut wide);
            for (lane, (value, wide)) in lanes.iter().zip(values.iter().zip(&wide)) {
                assert_eq!(f64::from(*lane), Dtype::F16.round(f64::from(*value)));
                assert_eq!(f64::from(*lane), *wide);
            }
            loaded.push(lanes);
        }
        assert!(loaded.windows(2).all(|pair| pair[0] == pair[1]));
    }

    #[test]
    fn strided_and_broadcast_runs_load_and_store_each_element() {
        let dtype = Dtype::F16;
        let mut bytes = vec![0u8; 4000];
        let mut tags = vec![UNWRITTEN; 4000];
        let values: Vec<f64> = (0..300).map(f64::from).collect();
        let run = Run {
            offset: 6,
            stride: 12,
            len: 300,
        };
        assert!(store(dtype, &values, &mut bytes, &mut tags, run));
        assert_eq!(tagged(tags[6]), Some(Dtype::F16));
        let mut lanes = [0.0; 300];
        assert!(load(dtype, &bytes, run, &mut lanes));
        assert_eq!(lanes.to_vec(), values);
        let broadcast = Run { stride: 0, ..run };
        assert!(load(dtype, &bytes, broadcast, &mut lanes));
        assert!(lanes.iter().all(|v| *v == 0.0));
        let past = Run { len: 400, ..run };
        assert!(!load(dtype, &bytes, past, &mut [0.0; 400]));
    }
}
