//! How the functional simulator stores values: every memory is bytes, each element in
//! its dtype's own encoding (little-endian), and this module is the one place that maps
//! a dtype to its encoding and back.
//!
//! Arithmetic happens on lanes of `f64`, which hold every value of every dtype exactly:
//! [`load`] decodes a run of elements into lanes, [`store`] encodes lanes back,
//! rounding floats with the same conversion [`Dtype::round`] uses (so a lane holding
//! the exact `f64` result of an operation stores as `scalar` would round it). The
//! conversions of f16 and bf16 go through `half`'s slice functions, which use the CPU's
//! conversion instructions where it has them. f16 also has `f32` lanes ([`load_f16`],
//! [`store_f16`]) for the vector unit's f16 arithmetic.
//!
//! Global memory ([`Global`]) holds an input as the caller's values until copies read
//! it a second time or an instruction writes it, so an input read once is never
//! encoded whole.
//!
//! A dtype added to [`Dtype`] gets its encoding here, in [`decode`] and [`encode`].

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use half::{bf16, f16};
use npu_core::Dtype;
use npu_core::dtype::{bf16_from_f64, f16_from_f64};

/// Elements converted at a time: lanes live on the stack, in the L1 cache.
pub(crate) const CHUNK: usize = 256;

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
    pub fn end(&self, size: usize) -> Option<usize> {
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
    match run.end(2) {
        Some(end) if end <= bytes.len() => {}
        _ => return false,
    }
    let mut bits = [0u16; CHUNK];
    for (chunk, lanes) in lanes.chunks_mut(CHUNK).enumerate() {
        let bits = &mut bits[..lanes.len()];
        let first = run.offset + chunk * CHUNK * run.stride;
        if run.stride == 2 {
            for (bit, element) in bits.iter_mut().zip(bytes[first..].chunks_exact(2)) {
                *bit = u16::from_le_bytes([element[0], element[1]]);
            }
        } else {
            for (i, bit) in bits.iter_mut().enumerate() {
                let at = first + i * run.stride;
                *bit = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
            }
        }
        bits.reinterpret_cast::<f16>().convert_to_f32_slice(lanes);
    }
    true
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
    let mut bits = [0u16; CHUNK];
    for (chunk, lanes) in lanes.chunks(CHUNK).enumerate() {
        let bits = &mut bits[..lanes.len()];
        bits.reinterpret_cast_mut::<f16>()
            .convert_from_f32_slice(lanes);
        let first = run.offset + chunk * CHUNK * run.stride;
        if run.stride == 2 {
            for (bit, element) in bits.iter().zip(bytes[first..].chunks_exact_mut(2)) {
                element.copy_from_slice(&bit.to_le_bytes());
            }
        } else {
            // A stride of 0 writes every element over the last: the last one stays.
            for (i, bit) in bits.iter().enumerate() {
                let at = first + i * run.stride;
                bytes[at..at + 2].copy_from_slice(&bit.to_le_bytes());
            }
        }
    }
    true
}

/// Decodes consecutive elements of `dtype` into `lanes` (as many as fit both).
pub(crate) fn decode(dtype: Dtype, bytes: &[u8], lanes: &mut [f64]) {
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
/// round as [`Dtype::round`] does.
pub(crate) fn encode(dtype: Dtype, lanes: &[f64], bytes: &mut [u8]) {
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

/// A tensor in global memory: its elements, encoded.
#[derive(Debug)]
pub(crate) struct Tensor {
    pub dtype: Dtype,
    pub bytes: Vec<u8>,
}

/// Encodes a caller's `values` as consecutive elements of `dtype`, each rounded as
/// [`Dtype::round`] does (integers wrap, where [`encode`] alone would saturate).
fn encode_values(dtype: Dtype, values: &[f64], bytes: &mut [u8]) {
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

impl Tensor {
    /// A tensor holding `values`, each rounded to `dtype` as [`Dtype::round`] does.
    pub fn from_values(dtype: Dtype, values: &[f64]) -> Tensor {
        let mut bytes = vec![0u8; values.len() * dtype.size() as usize];
        encode_values(dtype, values, &mut bytes);
        Tensor { dtype, bytes }
    }

    /// `elements` elements no instruction has written yet (NaN in a float dtype).
    pub fn poisoned(dtype: Dtype, elements: usize) -> Tensor {
        Tensor {
            dtype,
            bytes: vec![POISON; elements * dtype.size() as usize],
        }
    }

    pub fn elements(&self) -> usize {
        self.bytes.len() / self.dtype.size() as usize
    }

    /// Every element as an `f64`.
    pub fn to_values(&self) -> Vec<f64> {
        let mut values = vec![0.0; self.elements()];
        decode(self.dtype, &self.bytes, &mut values);
        values
    }

    /// The first element (a scalar parameter's value), if any.
    pub fn first(&self) -> Option<f64> {
        let size = self.dtype.size() as usize;
        let mut one = [0.0];
        decode(self.dtype, self.bytes.get(..size)?, &mut one);
        Some(one[0])
    }
}

/// A tensor in global memory as the machine holds it: an input stays the caller's
/// values, encoded element by element as copies read them (each element encodes
/// alone, so a run of them encodes as the whole tensor would), until an instruction
/// writes it or copies have read more elements than it holds; then it is encoded
/// once. A program that reads each input once (an elementwise kernel) so never
/// encodes, or holds, a copy of its inputs; one that reads them again and again (a
/// matmul re-reading its tiles) copies encoded bytes after the first pass.
#[derive(Debug)]
pub(crate) enum Global<'h> {
    Host {
        dtype: Dtype,
        values: &'h [f64],
        /// Elements copies have read so far.
        read: usize,
    },
    Encoded(Tensor),
}

impl Global<'_> {
    pub fn dtype(&self) -> Dtype {
        match self {
            Global::Host { dtype, .. } => *dtype,
            Global::Encoded(tensor) => tensor.dtype,
        }
    }

    /// The bytes the tensor spans encoded.
    pub fn byte_len(&self) -> usize {
        match self {
            Global::Host { dtype, values, .. } => values.len() * dtype.size() as usize,
            Global::Encoded(tensor) => tensor.bytes.len(),
        }
    }

    /// The first element (a scalar parameter's value), if any.
    pub fn first(&self) -> Option<f64> {
        match self {
            Global::Host { dtype, values, .. } => {
                Tensor::from_values(*dtype, values.get(..1)?).first()
            }
            Global::Encoded(tensor) => tensor.first(),
        }
    }

    /// Encodes `len` elements from byte `from` of the encoded tensor, `from_stride`
    /// bytes apart, into `to`, `to_stride` bytes apart from its start. The caller has
    /// checked both ranges.
    pub fn read(
        &self,
        from: usize,
        from_stride: usize,
        to: &mut [u8],
        to_stride: usize,
        len: usize,
    ) {
        let size = self.dtype().size() as usize;
        match self {
            Global::Encoded(tensor) => {
                move_elements(&tensor.bytes[from..], from_stride, to, to_stride, size, len)
            }
            Global::Host { dtype, values, .. } => {
                let (first, step) = (from / size, from_stride / size);
                if step == 1 && to_stride == size {
                    encode_values(*dtype, &values[first..first + len], &mut to[..len * size]);
                    return;
                }
                // A chunk at a time: gathered, encoded together, then scattered.
                let mut gathered = [0.0f64; CHUNK];
                let mut packed = [0u8; CHUNK * 4];
                for start in (0..len).step_by(CHUNK) {
                    let count = CHUNK.min(len - start);
                    for (i, value) in gathered[..count].iter_mut().enumerate() {
                        *value = values[first + (start + i) * step];
                    }
                    encode_values(*dtype, &gathered[..count], &mut packed[..count * size]);
                    let to = &mut to[start * to_stride..];
                    move_elements(&packed, size, to, to_stride, size, count);
                }
            }
        }
    }

    /// Notes that a copy is about to read `elements` elements, and encodes the
    /// tensor once copies have read more than it holds.
    pub fn will_read(&mut self, elements: usize) {
        if let Global::Host { values, read, .. } = self {
            *read = read.saturating_add(elements);
            if *read > values.len() {
                self.encoded();
            }
        }
    }

    /// The tensor encoded, encoding a caller's values first (before a write).
    pub fn encoded(&mut self) -> &mut Tensor {
        if let Global::Host { dtype, values, .. } = *self {
            *self = Global::Encoded(Tensor::from_values(dtype, values));
        }
        match self {
            Global::Encoded(tensor) => tensor,
            Global::Host { .. } => unreachable!("encoded just above"),
        }
    }

    pub fn into_tensor(self) -> Tensor {
        match self {
            Global::Host { dtype, values, .. } => Tensor::from_values(dtype, values),
            Global::Encoded(tensor) => tensor,
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
    use npu_core::scalar::HostTensor;

    /// Every value of every dtype's edge and random sets survives a store and a load,
    /// and a float lane stores as `Dtype::round` rounds it.
    #[test]
    fn encoding_round_trips_and_rounds_as_dtype_round() {
        for dtype in Dtype::ALL {
            let mut values = HostTensor::edges(dtype, &[64], 0).data;
            values.extend(HostTensor::random(dtype, &[600], 7).data);
            let tensor = Tensor::from_values(dtype, &values);
            let back = tensor.to_values();
            for (value, back) in values.iter().zip(&back) {
                assert!(
                    value.to_bits() == back.to_bits() || (value.is_nan() && back.is_nan()),
                    "{dtype}: {value} came back as {back}"
                );
            }
            if dtype.is_float() {
                // Values of f64 precision, and values f32 holds (rounded from f32 in
                // one step): both as `Dtype::round` rounds them.
                let wide = (0..600).map(|i| (i as f64 - 300.0) * 0.0123457);
                let narrow = (0..600).map(|i| f64::from((i as f32 - 300.0) * 0.012_345_7));
                for values in [wide.collect::<Vec<f64>>(), narrow.collect()] {
                    let stored = Tensor::from_values(dtype, &values).to_values();
                    for (value, stored) in values.iter().zip(&stored) {
                        assert_eq!(dtype.round(*value).to_bits(), stored.to_bits(), "{dtype}");
                    }
                }
            }
        }
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
