//! The cube's data path: `mmad` as a blocked matrix multiply, and `fixpipe`'s copy of
//! L0C to global memory.
//!
//! `mmad` computes `C[i][j] = round(C[i][j] + round(A[i][kk] × B[kk][j]))` for `kk` in
//! order, accumulating in f32 for float inputs and i32 for integer ones, rounding after
//! each addition, as L0C does; rounding the product to the accumulator changes it
//! only where a bf16 product leaves f32's range. The operands are packed into panels
//! (A by `MR` rows, B by `NR` columns) and a register tile of `MR × NR` accumulators
//! runs over `k`, so the inner loop is a fixed-size multiply-add the compiler
//! vectorises; every element still sees its `k` terms one at a time in order, so the
//! result is the naive loop's.
//!
//! Which arithmetic gives exactly the rounding `scalar` would (an exact product added
//! in `f64`, then rounded to the accumulator):
//!
//! - f16 inputs: in f32. Their product (at most 22 significant bits, between 2^-48
//!   and 2^32) is exact in f32, and the f32 sum of two f32 numbers equals the f64 sum
//!   rounded to f32, since f64 carries more than 2 × 24 + 1 bits (double rounding of
//!   an addition is innocuous then; Figueroa, "When is double rounding innocuous?",
//!   1995). bf16 has f32's exponent range, so its product can overflow or underflow
//!   f32 where f64 holds it: bf16 goes the f64 way below.
//! - 8- and 16-bit integers: in wrapping i32. The f64 sum is exact (below 2^53) and
//!   rounds by wrapping modulo 2^32, which is what wrapping i32 arithmetic computes.
//! - bf16, f32 and 32-bit integers: in f64, as `scalar` does, rounded after each step
//!   (a 32-bit product in integers: `scalar::integer_product`).

use half::f16;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use npu_core::Dtype;

use crate::level::Level;
use crate::storage::{self, Run, Tensor};

/// Rows of A and columns of B in one register tile.
const MR: usize = 4;
const NR: usize = 8;

/// One `mmad`: byte addresses in L0A, L0B, L0C, the shape, and each operand's row
/// length in elements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mmad {
    pub a: usize,
    pub b: usize,
    pub c: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a_row: usize,
    pub b_row: usize,
    pub c_row: usize,
    pub init: bool,
    pub dtype: Dtype,
}

/// Packed operands, kept between instructions so a run allocates them once.
#[derive(Debug, Default)]
pub(crate) struct Gemm {
    lanes: Vec<f64>,
    f32s: [Vec<f32>; 3],
    i32s: [Vec<i32>; 3],
    f64s: [Vec<f64>; 3],
    /// The f16 path's operand bits and their f32 values, before packing.
    bits: Vec<u16>,
    unpacked: Vec<f32>,
}

/// An element type the packed operands and accumulators are held in.
trait Packed: Copy + Default {
    fn from_lane(lane: f64) -> Self;
    fn to_lane(self) -> f64;
}

impl Packed for f32 {
    fn from_lane(lane: f64) -> f32 {
        lane as f32
    }
    fn to_lane(self) -> f64 {
        f64::from(self)
    }
}

impl Packed for i32 {
    fn from_lane(lane: f64) -> i32 {
        lane as i32
    }
    fn to_lane(self) -> f64 {
        f64::from(self)
    }
}

impl Packed for f64 {
    fn from_lane(lane: f64) -> f64 {
        lane
    }
    fn to_lane(self) -> f64 {
        self
    }
}

impl Gemm {
    pub(crate) fn mmad(
        &mut self,
        op: Mmad,
        l0a: &Level,
        l0b: &Level,
        l0c: &mut Level,
    ) -> Result<(), String> {
        let accumulator = op.dtype.accumulator();
        let Gemm {
            lanes,
            f32s,
            i32s,
            f64s,
            bits,
            unpacked,
        } = self;
        match op.dtype {
            Dtype::F16 if run_f16(op, l0a, l0b, l0c, bits, unpacked, f32s) => Ok(()),
            Dtype::F16 => run(op, l0a, l0b, l0c, lanes, f32s, |acc: f32, x, y| acc + x * y),
            Dtype::I8 | Dtype::U8 | Dtype::I16 | Dtype::U16 => run(
                op,
                l0a,
                l0b,
                l0c,
                lanes,
                i32s,
                |acc: i32, x: i32, y: i32| acc.wrapping_add(x.wrapping_mul(y)),
            ),
            // The product is rounded to f32 before it is added: exact unless it
            // overflows or underflows f32, where it is what `a as f32 * b as f32` is.
            Dtype::Bf16 | Dtype::F32 => run(op, l0a, l0b, l0c, lanes, f64s, |acc: f64, x, y| {
                f64::from((acc + f64::from((x * y) as f32)) as f32)
            }),
            Dtype::I32 | Dtype::U32 => run(op, l0a, l0b, l0c, lanes, f64s, |acc: f64, x, y| {
                accumulator.round(acc + npu_core::scalar::integer_product(accumulator, x, y))
            }),
        }
    }
}

/// Packs, multiplies and unpacks one `mmad` with `step` as the multiply-add, every
/// operand held as `T`.
fn run<T: Packed>(
    op: Mmad,
    l0a: &Level,
    l0b: &Level,
    l0c: &mut Level,
    lanes: &mut Vec<f64>,
    [a, b, c]: &mut [Vec<T>; 3],
    step: impl Fn(T, T, T) -> T + Copy,
) -> Result<(), String> {
    let Mmad { m, n, k, .. } = op;
    if m == 0 || n == 0 {
        return Ok(());
    }
    let accumulator = op.dtype.accumulator();
    let size = op.dtype.size() as usize;
    let acc_size = accumulator.size() as usize;
    let (m_pad, n_pad) = (m.div_ceil(MR) * MR, n.div_ceil(NR) * NR);
    lanes.resize(k.max(n), 0.0);
    // A in panels of MR rows: panel p holds, for each kk, rows p*MR..p*MR+MR.
    a.clear();
    a.resize(m_pad * k, T::default());
    for i in 0..m {
        let run = Run {
            offset: op.a + i * op.a_row * size,
            stride: size,
            len: k,
        };
        if !storage::load(op.dtype, &l0a.bytes, run, lanes) {
            return Err("reads past the end of l0a".into());
        }
        let panel = &mut a[(i / MR) * k * MR..];
        for (kk, lane) in lanes[..k].iter().enumerate() {
            panel[kk * MR + i % MR] = T::from_lane(*lane);
        }
    }
    // B in panels of NR columns: panel q holds, for each kk, columns q*NR..q*NR+NR.
    b.clear();
    b.resize(k * n_pad, T::default());
    for kk in 0..k {
        let run = Run {
            offset: op.b + kk * op.b_row * size,
            stride: size,
            len: n,
        };
        if !storage::load(op.dtype, &l0b.bytes, run, lanes) {
            return Err("reads past the end of l0b".into());
        }
        for (j, lane) in lanes[..n].iter().enumerate() {
            b[(j / NR) * k * NR + kk * NR + j % NR] = T::from_lane(*lane);
        }
    }
    // C row-major, m_pad × n_pad.
    c.clear();
    c.resize(m_pad * n_pad, T::default());
    let c_run = |i: usize| Run {
        offset: op.c + i * op.c_row * acc_size,
        stride: acc_size,
        len: n,
    };
    if !op.init {
        for i in 0..m {
            let held = l0c.dtype_at(c_run(i).offset, accumulator);
            if !storage::load(held, &l0c.bytes, c_run(i), lanes) {
                return Err("reads past the end of l0c".into());
            }
            for (c, lane) in c[i * n_pad..][..n].iter_mut().zip(&lanes[..n]) {
                *c = T::from_lane(*lane);
            }
        }
    }
    multiply(a, b, c, n_pad, k, step);
    for i in 0..m {
        for (lane, c) in lanes[..n].iter_mut().zip(&c[i * n_pad..][..n]) {
            *lane = c.to_lane();
        }
        l0c.store(accumulator, &lanes[..n], c_run(i))
            .map_err(|_| "writes past the end of l0c".to_string())?;
    }
    Ok(())
}

/// The f16 `mmad` straight from and to the levels' bytes: f16 operands widen to f32
/// (as the lanes would, exactly) and L0C's f32 accumulators are read and written as
/// they are, which is what the general path's round trip through `f64` gives them.
/// Returns `false`, having written nothing, when the general path must run instead:
/// an operand reaching past its level (the general path reports it), L0C holding
/// something other than f32 where it accumulates, or `k = 0` (where the general path
/// passes an accumulator through `f64` without adding to it).
fn run_f16(
    op: Mmad,
    l0a: &Level,
    l0b: &Level,
    l0c: &mut Level,
    bits: &mut Vec<u16>,
    unpacked: &mut Vec<f32>,
    [a, b, c]: &mut [Vec<f32>; 3],
) -> bool {
    let Mmad { m, n, k, .. } = op;
    if m == 0 || n == 0 {
        return true;
    }
    let f32_tag = storage::tag(Dtype::F32);
    let fits = |start: usize, row: usize, rows: usize, len: usize, level: &Level, size| {
        (rows - 1)
            .checked_mul(row * size)
            .and_then(|last| last.checked_add(start))
            .and_then(|last| last.checked_add(len * size))
            .is_some_and(|end| end <= level.bytes.len())
    };
    if k == 0
        || !fits(op.a, op.a_row, m, k, l0a, 2)
        || !fits(op.b, op.b_row, k, n, l0b, 2)
        || !fits(op.c, op.c_row, m, n, l0c, 4)
    {
        return false;
    }
    let c_row_bytes = op.c_row * 4;
    let accumulates_f32 = op.init
        || (0..m).all(|i| {
            let tag = l0c.tags[op.c + i * c_row_bytes];
            tag == f32_tag || tag == storage::UNWRITTEN
        });
    if !accumulates_f32 {
        return false;
    }
    let (m_pad, n_pad) = (m.div_ceil(MR) * MR, n.div_ceil(NR) * NR);
    // A in panels of MR rows: panel p holds, for each kk, rows p*MR..p*MR+MR.
    widen(&l0a.bytes, (op.a, op.a_row), (m, k), bits, unpacked);
    a.clear();
    a.resize(m_pad * k, 0.0);
    for (p, panel) in a.chunks_exact_mut(k * MR).enumerate() {
        for (r, row) in unpacked[p * MR * k..].chunks_exact(k).take(MR).enumerate() {
            for (column, value) in panel.chunks_exact_mut(MR).zip(row) {
                column[r] = *value;
            }
        }
    }
    // B in panels of NR columns: panel q holds, for each kk, columns q*NR..q*NR+NR.
    widen(&l0b.bytes, (op.b, op.b_row), (k, n), bits, unpacked);
    b.clear();
    b.resize(k * n_pad, 0.0);
    for (kk, row) in unpacked.chunks_exact(n).enumerate() {
        let (whole, rest) = row.split_at(n / NR * NR);
        for (q, columns) in whole.chunks_exact(NR).enumerate() {
            let to: &mut [f32; NR] = (&mut b[q * k * NR + kk * NR..][..NR])
                .try_into()
                .expect("a panel row");
            *to = columns.try_into().expect("NR columns");
        }
        if !rest.is_empty() {
            b[(n / NR) * k * NR + kk * NR..][..rest.len()].copy_from_slice(rest);
        }
    }
    // C row-major, m_pad × n_pad.
    c.clear();
    c.resize(m_pad * n_pad, 0.0);
    if !op.init {
        for (i, row) in c.chunks_exact_mut(n_pad).take(m).enumerate() {
            let from = op.c + i * c_row_bytes;
            for (c, element) in row
                .iter_mut()
                .zip(l0c.bytes[from..from + n * 4].chunks_exact(4))
            {
                *c = f32::from_le_bytes([element[0], element[1], element[2], element[3]]);
            }
        }
    }
    multiply(a, b, c, n_pad, k, |acc: f32, x, y| acc + x * y);
    for (i, row) in c.chunks_exact(n_pad).take(m).enumerate() {
        let to = op.c + i * c_row_bytes;
        for (element, c) in l0c.bytes[to..to + n * 4].chunks_exact_mut(4).zip(row) {
            element.copy_from_slice(&c.to_le_bytes());
        }
        if op.c_row != n {
            l0c.tags[to..to + n * 4].fill(f32_tag);
        }
    }
    // Rows back to back take their tags in one fill.
    if op.c_row == n {
        l0c.tags[op.c..op.c + m * n * 4].fill(f32_tag);
    }
    true
}

/// `rows × len` f16 elements from byte `start` of `bytes`, rows `row` elements apart,
/// as f32 in `unpacked`, row-major (`bits` holds their encodings on the way).
fn widen(
    bytes: &[u8],
    (start, row): (usize, usize),
    (rows, len): (usize, usize),
    bits: &mut Vec<u16>,
    unpacked: &mut Vec<f32>,
) {
    bits.clear();
    for r in 0..rows {
        let from = start + r * row * 2;
        bits.extend(
            bytes[from..from + len * 2]
                .chunks_exact(2)
                .map(|e| u16::from_le_bytes([e[0], e[1]])),
        );
    }
    unpacked.clear();
    unpacked.resize(bits.len(), 0.0);
    bits.reinterpret_cast::<f16>()
        .convert_to_f32_slice(unpacked);
}

/// `c += a × b` over packed panels, one `MR × NR` register tile at a time.
fn multiply<T: Copy>(
    a: &[T],
    b: &[T],
    c: &mut [T],
    n_pad: usize,
    k: usize,
    step: impl Fn(T, T, T) -> T + Copy,
) {
    if k == 0 {
        return;
    }
    for (p, a_panel) in a.chunks_exact(k * MR).enumerate() {
        for (q, b_panel) in b.chunks_exact(k * NR).enumerate() {
            let mut tile = [[c[0]; NR]; MR];
            for (r, row) in tile.iter_mut().enumerate() {
                row.copy_from_slice(&c[(p * MR + r) * n_pad + q * NR..][..NR]);
            }
            for (a_col, b_row) in a_panel.chunks_exact(MR).zip(b_panel.chunks_exact(NR)) {
                let a_col: &[T; MR] = a_col.try_into().expect("a panel column");
                let b_row: &[T; NR] = b_row.try_into().expect("a panel row");
                for (row, x) in tile.iter_mut().zip(a_col) {
                    for (acc, y) in row.iter_mut().zip(b_row) {
                        *acc = step(*acc, *x, *y);
                    }
                }
            }
            for (r, row) in tile.iter().enumerate() {
                c[(p * MR + r) * n_pad + q * NR..][..NR].copy_from_slice(row);
            }
        }
    }
}

/// `fixpipe`: `rows × cols` accumulators from L0C (4 bytes each, rows
/// `source_row_bytes` apart) to global memory from element `base`, rows
/// `gm_row_stride` elements apart, each rounded to `dtype`.
#[allow(clippy::too_many_arguments)] // The instruction's own operands, one for one.
pub(crate) fn fixpipe(
    l0c: &Level,
    source: usize,
    source_row_bytes: usize,
    dest: &mut Tensor,
    base: u64,
    gm_row_stride: u64,
    rows: usize,
    cols: usize,
    dtype: Dtype,
) -> Result<(), String> {
    let size = dest.dtype.size() as usize;
    let mut lanes = [0.0f64; storage::CHUNK];
    for row in 0..rows {
        for start in (0..cols).step_by(storage::CHUNK) {
            let len = storage::CHUNK.min(cols - start);
            let from = source + row * source_row_bytes + start * 4;
            let held = l0c.dtype_at(from, dtype.accumulator());
            let run = Run {
                offset: from,
                stride: 4,
                len,
            };
            if !storage::load(held, &l0c.bytes, run, &mut lanes) {
                return Err("reads past the end of l0c".into());
            }
            if !dtype.is_float() || dtype != dest.dtype {
                for lane in &mut lanes[..len] {
                    *lane = dtype.round(*lane);
                }
            }
            let to = (row as u64)
                .checked_mul(gm_row_stride)
                .and_then(|offset| offset.checked_add(base))
                .and_then(|first| first.checked_add(start as u64))
                .and_then(|first| usize::try_from(first).ok())
                .and_then(|first| first.checked_mul(size))
                .filter(|first| first + len * size <= dest.bytes.len())
                .ok_or("writes past the end of its tensor")?;
            storage::encode(
                dest.dtype,
                &lanes[..len],
                &mut dest.bytes[to..to + len * size],
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use npu_core::host::HostTensor;

    /// `rows × cols` values of `dtype` (edge values, then random ones) laid out with
    /// `row` elements per row from byte 0 of a fresh level.
    fn level(dtype: Dtype, rows: usize, cols: usize, row: usize, seed: u64) -> (Level, Vec<f64>) {
        let count = rows * cols;
        let mut values = HostTensor::edges(dtype, &[count as u64], seed as usize).values();
        let random = HostTensor::random(dtype, &[count as u64], seed).values();
        // Mostly random, with the edge values spread through.
        for (i, value) in values.iter_mut().enumerate() {
            if i % 5 != 0 {
                *value = random[i];
            }
        }
        let size = dtype.size() as usize;
        let mut memory = Level::new(rows * row * size + 64);
        for r in 0..rows {
            let run = Run {
                offset: r * row * size,
                stride: size,
                len: cols,
            };
            memory
                .store(dtype, &values[r * cols..][..cols], run)
                .unwrap();
        }
        (memory, values)
    }

    /// The blocked GEMM equals the naive loop `scalar` semantics give (each product
    /// rounded to the accumulator, exact but where a bf16 product leaves f32's range, or
    /// wrapped for integers, each addition rounded to the accumulator, `k` in order; the edge values make 32-bit products pass 2^53), for every
    /// input dtype, shapes that fill no register tile evenly, and accumulating onto
    /// what L0C held.
    #[test]
    fn blocked_gemm_equals_the_naive_loop() {
        let (m, n, k) = (19, 21, 23);
        let (a_row, b_row) = (32, 32);
        for dtype in Dtype::ALL {
            let accumulator = dtype.accumulator();
            let (l0a, a) = level(dtype, m, k, a_row, 1);
            let (l0b, b) = level(dtype, k, n, b_row, 2);
            let (mut l0c, c0) = level(accumulator, m, n, b_row, 3);
            let mut gemm = Gemm::default();
            for init in [false, true] {
                let op = Mmad {
                    a: 0,
                    b: 0,
                    c: 0,
                    m,
                    n,
                    k,
                    a_row,
                    b_row,
                    c_row: b_row,
                    init,
                    dtype,
                };
                let before = l0c.bytes.clone();
                gemm.mmad(op, &l0a, &l0b, &mut l0c).unwrap();
                for i in 0..m {
                    let mut got = vec![0.0; n];
                    let run = Run {
                        offset: i * b_row * 4,
                        stride: 4,
                        len: n,
                    };
                    assert!(storage::load(accumulator, &l0c.bytes, run, &mut got));
                    for (j, got) in got.iter().enumerate() {
                        let mut acc = if init { 0.0 } else { c0[i * n + j] };
                        for kk in 0..k {
                            let (x, y) = (a[i * k + kk], b[kk * n + j]);
                            let product = if accumulator.is_float() {
                                accumulator.round(x * y)
                            } else {
                                npu_core::scalar::integer_product(accumulator, x, y)
                            };
                            acc = accumulator.round(acc + product);
                        }
                        assert!(
                            acc.to_bits() == got.to_bits() || (acc.is_nan() && got.is_nan()),
                            "{dtype} init {init} at ({i}, {j}): {got}, naive {acc}"
                        );
                    }
                }
                l0c.bytes = before;
            }
        }
    }
}
