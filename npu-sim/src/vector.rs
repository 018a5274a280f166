//! What a vector instruction does to the unified buffer.
//!
//! The box is walked row by row (its innermost dimension), each row in chunks of
//! [`CHUNK`] elements: the sources are decoded into `f64` lanes, the operation runs
//! over the lanes, and the result is encoded into the destination. An operation whose
//! `f64` form is exactly what [`npu_core::scalar`] computes before it rounds (`+ - * /`,
//! min, max, compare, select, a cast between floats) runs as a plain loop over the
//! lanes, and the encoding rounds; every other one calls `scalar` per element. Either
//! way each element gets the value `scalar` gives it, in the same order. `+ - * /` on
//! f16 values runs in `f32` lanes instead, which store the same bits (see
//! [`f16_arithmetic`] for why) at a fraction of the conversions' cost.
//!
//! A source is read in the dtype last written where it starts (the memory's tags), so
//! a cast reads what its producer wrote; a source nothing wrote yet is read in the
//! dtype the instruction works in.
//!
//! Gathers, arg reductions and scans step element by element through the box in
//! index order instead (`per_element`): each element's result depends on a value
//! the previous one left (the running value, the index so far), or on an address only
//! its index gives, so there is no chunk of independent lanes to compute at once.

use npu_core::Dtype;
use npu_core::ir::{BinaryOp, ReduceOp};
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};
use npu_core::scalar;
use npu_core::target::Implementation;

use crate::fault::Fault;
use crate::level::Level;
use crate::storage::{CHUNK, Run};

mod odometer;
mod operand;
mod pair_sum;
mod per_element;

use odometer::{next_row, row_base};
pub(crate) use operand::Source;
use per_element::{Step, per_element};

/// The lanes chunks are computed in, kept between instructions so that an
/// instruction does not start by clearing 11 KB of them.
#[derive(Debug)]
pub(crate) struct Lanes {
    f64s: [[f64; CHUNK]; 3],
    out: [f64; CHUNK],
    f32s: [[f32; CHUNK]; 2],
    out_f32: [f32; CHUNK],
}

impl Default for Lanes {
    fn default() -> Lanes {
        Lanes {
            f64s: [[0.0; CHUNK]; 3],
            out: [0.0; CHUNK],
            f32s: [[0.0; CHUNK]; 2],
            out_f32: [0.0; CHUNK],
        }
    }
}

/// Runs `v` on `ub` with `scratch` for its lanes; `origins` gives, for a UB byte a gather index was copied to, the
/// element of its tensor it came from, and `param` a scalar parameter's value by tensor.
pub(crate) fn execute(
    ub: &mut Level,
    scratch: &mut Lanes,
    program: &Program,
    v: &VectorInstr,
    origins: &[u64],
    implementation: Implementation,
    param: impl Fn(u16) -> Option<f64>,
) -> Result<(), Fault> {
    // A box of rank 0 (a 0-d `let`, the carry of a scan along a tensor's only axis) is
    // one element: rank 1, extent 1.
    const ONE: &[u64] = &[1];
    let extents = program.boxes.get(v.shape as usize).ok_or("names no box")?;
    let rank_zero = extents.is_empty();
    let extents: &[u64] = if rank_zero { ONE } else { extents };
    let strides = |index: u32| {
        program
            .strides
            .get(index as usize)
            .map(|s| if rank_zero && s.is_empty() { ONE } else { s })
            .ok_or("names no strides")
    };
    let dst_strides = strides(v.dst_strides)?;
    let mut sources = [Source::None; 3];
    for (slot, source_slot) in sources.iter_mut().enumerate() {
        *source_slot = source(ub, program, v, slot, extents.len(), &strides, &param)?;
    }
    if dst_strides.len() != extents.len() {
        return Err("has strides of another rank than its box".into());
    }
    if extents.contains(&0) {
        return Ok(());
    }
    if v.kind == VectorKind::PairSum {
        return pair_sum::pair_sums(ub, v, extents, dst_strides, &sources[0]);
    }
    let arg = matches!(v.kind, VectorKind::Reduce(op, _) if op.is_arg());
    if arg || matches!(v.kind, VectorKind::Gather(_)) || v.kind.scan().is_some() {
        let gather = match v.kind {
            VectorKind::Gather(g) => {
                Some(program.gathers.get(g as usize).ok_or("names no gather")?)
            }
            _ => None,
        };
        let step = Step {
            kind: v.kind,
            dtype: v.dtype,
            gather,
            origins,
            program,
        };
        return per_element(ub, &step, extents, (v.dst as usize, dst_strides), &sources);
    }
    rows(
        ub,
        scratch,
        (v, implementation),
        extents,
        dst_strides,
        &sources,
    )
}

/// Source `slot` of `v` as the instruction reads it: a constant, a parameter's value,
/// or UB bytes with their strides (of the box's rank) and the dtype they hold.
fn source<'p>(
    ub: &Level,
    program: &'p Program,
    v: &VectorInstr,
    slot: usize,
    rank: usize,
    strides: &dyn Fn(u32) -> Result<&'p [u64], &'static str>,
    param: &impl Fn(u16) -> Option<f64>,
) -> Result<Source<'p>, Fault> {
    Ok(match v.src[slot] {
        Operand::None => Source::None,
        Operand::Scalar(index) => Source::Scalar(
            *program
                .constants
                .get(index as usize)
                .ok_or("names no constant")?,
        ),
        // The scalar register the core was given the parameter's value in.
        Operand::Param(tensor) => Source::Scalar(param(tensor).ok_or("names no scalar parameter")?),
        Operand::Ub {
            address,
            strides: s,
        } => {
            let strides = strides(s)?;
            if strides.len() != rank {
                return Err("has strides of another rank than its box".into());
            }
            let expected = match v.kind {
                VectorKind::Select if slot == 0 => Dtype::U8,
                VectorKind::Gather(g) if slot == 1 => program
                    .gathers
                    .get(g as usize)
                    .map_or(v.dtype, |g| g.index_dtype),
                VectorKind::Reduce(op, accumulator) if op.is_arg() => accumulator,
                VectorKind::Cumsum(accumulator) | VectorKind::Cumprod(accumulator) if slot == 1 => {
                    accumulator
                }
                _ => v.dtype,
            };
            Source::Ub {
                address: address as usize,
                strides,
                dtype: ub.dtype_at(address as usize, expected),
            }
        }
    })
}

/// What every chunk of a row of an elementwise instruction shares: the instruction,
/// its sources, where each UB source's row starts, and the dtype it writes.
struct Row<'a, 'p> {
    v: &'a VectorInstr,
    sources: &'a [Source<'p>; 3],
    /// The innermost dimension, the one a row runs along.
    last: usize,
    bases: [usize; 3],
    dst_dtype: Dtype,
    /// The f16 arithmetic run in f32 lanes, when the instruction is one.
    f16_op: Option<BinaryOp>,
    /// How the target computes the instruction's function.
    implementation: Implementation,
}

/// Runs an elementwise instruction (or a reduction along its rows) row by row, each
/// row in chunks of at most [`CHUNK`] lanes, the outer dimensions as an odometer.
fn rows(
    ub: &mut Level,
    scratch: &mut Lanes,
    (v, implementation): (&VectorInstr, Implementation),
    extents: &[u64],
    dst_strides: &[u64],
    sources: &[Source; 3],
) -> Result<(), Fault> {
    let dst_dtype = match v.kind {
        VectorKind::Compare(_) => Dtype::U8,
        VectorKind::Reduce(_, accumulator) => accumulator,
        _ => v.dtype,
    };
    let rank = extents.len();
    let row_len = extents[rank - 1] as usize;
    let rows: u64 = extents[..rank - 1].iter().product();
    let mut index = vec![0u64; rank - 1];
    let mut row = Row {
        v,
        sources,
        last: rank - 1,
        bases: [0; 3],
        dst_dtype,
        f16_op: f16_arithmetic(v, sources),
        implementation,
    };
    for _ in 0..rows {
        let base = |address: usize, strides: &[u64]| row_base(address, &index, strides);
        let dst = base(v.dst as usize, dst_strides)?;
        let dst_stride = dst_strides[rank - 1] as usize;
        for (slot, source) in sources.iter().enumerate() {
            if let Source::Ub {
                address, strides, ..
            } = source
            {
                row.bases[slot] = base(*address, strides)?;
            }
        }
        let mut start = 0;
        while start < row_len {
            let len = CHUNK.min(row_len - start);
            let run = Run {
                offset: dst + start * dst_stride,
                stride: dst_stride,
                len,
            };
            match row.f16_op {
                Some(op) => f16_chunk(ub, scratch, &row, op, (start, len), run)?,
                None => chunk(ub, scratch, &row, (start, len), run)?,
            }
            start += len;
        }
        next_row(&mut index, extents);
    }
    Ok(())
}

/// The run of `len` elements of a UB source from `start` in its row.
fn source_run(row: &Row, slot: usize, strides: &[u64], (start, len): (usize, usize)) -> Run {
    let stride = strides[row.last] as usize;
    Run {
        offset: row.bases[slot] + start * stride,
        stride,
        len,
    }
}

/// One chunk of f16 arithmetic, computed in f32 lanes as the hardware does.
fn f16_chunk(
    ub: &mut Level,
    scratch: &mut Lanes,
    row: &Row,
    op: BinaryOp,
    (start, len): (usize, usize),
    run: Run,
) -> Result<(), Fault> {
    for (slot, lanes) in scratch.f32s.iter_mut().enumerate() {
        match row.sources[slot] {
            Source::Ub { strides, .. } => {
                ub.load_f16(source_run(row, slot, strides, (start, len)), lanes)?;
            }
            Source::Scalar(value) => lanes[..len].fill(value as f32),
            Source::None => unreachable!("both sources of an f16 operation"),
        }
    }
    let [a, b] = &scratch.f32s;
    let (a, b, out) = (&a[..len], &b[..len], &mut scratch.out_f32[..len]);
    match op {
        BinaryOp::Add => zip2(out, a, b, |x, y| x + y),
        BinaryOp::Sub => zip2(out, a, b, |x, y| x - y),
        BinaryOp::Mul => zip2(out, a, b, |x, y| x * y),
        _ => zip2(out, a, b, |x, y| x / y),
    }
    ub.store_f16(out, run)?;
    Ok(())
}

/// One chunk of any other elementwise instruction or reduction, in f64 lanes.
fn chunk(
    ub: &mut Level,
    scratch: &mut Lanes,
    row: &Row,
    (start, len): (usize, usize),
    run: Run,
) -> Result<(), Fault> {
    let Lanes {
        f64s: lanes, out, ..
    } = scratch;
    for (slot, source) in row.sources.iter().enumerate() {
        match *source {
            Source::None => {}
            Source::Scalar(value) => lanes[slot][..len].fill(value),
            Source::Ub { strides, dtype, .. } => {
                let run = source_run(row, slot, strides, (start, len));
                ub.load(dtype, run, &mut lanes[slot])?;
            }
        }
    }
    if let VectorKind::Reduce(op, accumulator) = row.v.kind {
        // A sum with a second source folds the products of the two (a
        // multiply-accumulate), each rounded to the accumulator as a product
        // computed in it is: of at most 16-bit values, exact here and changed
        // by that rounding only where it overflows or underflows.
        let terms = if matches!(row.sources[1], Source::None) {
            &lanes[0][..len]
        } else {
            let [a, b, _] = &*lanes;
            let product = |x: f64, y: f64| accumulator.round(x * y);
            zip2(&mut out[..len], &a[..len], &b[..len], product);
            &out[..len]
        };
        reduce(ub, op, accumulator, terms, run)?;
    } else {
        let [a, b, c] = &*lanes;
        let (kind, dtype) = (row.v.kind, row.v.dtype);
        compute(
            kind,
            (dtype, row.implementation),
            &a[..len],
            &b[..len],
            &c[..len],
            &mut out[..len],
        );
        ub.store(row.dst_dtype, &out[..len], run)?;
    }
    Ok(())
}

/// The operation, when `v` is `+ - * /` on f16 values (each source an f16 element or a
/// constant holding an f16 value) with an f16 result: that runs in f32 lanes instead
/// of f64 ones, with the same result. A product of two f16 values is exact in f32,
/// as in f64; a sum, difference or quotient rounded to f32 and then to f16 is what
/// rounding it to f64 and then to f16 gives, since each of f32 and f64 carries at
/// least 2p + 2 bits for the p = 11 of f16 and f64 at least 2p + 2 for f32's 24
/// (Figueroa, "When is double rounding innocuous?", 1995); and the stores round
/// f32 and f64 lanes alike (both through `half`, which goes through f32 where the
/// CPU converts in hardware).
fn f16_arithmetic(v: &VectorInstr, sources: &[Source; 3]) -> Option<BinaryOp> {
    let VectorKind::Binary(op) = v.kind else {
        return None;
    };
    let holds_f16 = |source: &Source| match *source {
        Source::Ub { dtype, .. } => dtype == Dtype::F16,
        Source::Scalar(value) => {
            Dtype::F16.round(value).to_bits() == value.to_bits() && !value.is_nan()
        }
        Source::None => false,
    };
    let arithmetic = matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    );
    (arithmetic
        && v.dtype == Dtype::F16
        && holds_f16(&sources[0])
        && holds_f16(&sources[1])
        && matches!(sources[2], Source::None))
    .then_some(op)
}

/// One chunk of an elementwise operation: `out[i]` from `a[i]`, `b[i]`, `c[i]`, each
/// the value `scalar` computes once the store has rounded it.
fn compute(
    kind: VectorKind,
    (dtype, implementation): (Dtype, Implementation),
    a: &[f64],
    b: &[f64],
    c: &[f64],
    out: &mut [f64],
) {
    // For a float dtype the store rounds as `Dtype::round` does, so the exact `f64`
    // result is what `scalar::binary` rounds; a division the target computes with an
    // algorithm of its own goes through `scalar::binary_by`.
    let float = dtype.is_float();
    let exact_division = float && implementation == Implementation::CorrectlyRounded;
    match kind {
        VectorKind::Dup | VectorKind::Copy => out.copy_from_slice(a),
        VectorKind::Binary(op) if float && matches!(op, BinaryOp::Add) => {
            zip2(out, a, b, |x, y| x + y)
        }
        VectorKind::Binary(BinaryOp::Sub) if float => zip2(out, a, b, |x, y| x - y),
        VectorKind::Binary(BinaryOp::Mul) if float => zip2(out, a, b, |x, y| x * y),
        VectorKind::Binary(BinaryOp::Div) if exact_division => zip2(out, a, b, |x, y| x / y),
        VectorKind::Binary(BinaryOp::Min) if float => zip2(out, a, b, scalar::min),
        VectorKind::Binary(BinaryOp::Max) if float => zip2(out, a, b, scalar::max),
        VectorKind::Binary(op) => zip2(out, a, b, |x, y| {
            scalar::binary_by(implementation, op, dtype, x, y)
        }),
        VectorKind::Unary(op) => {
            for (out, x) in out.iter_mut().zip(a) {
                *out = scalar::unary_by(implementation, op, dtype, *x);
            }
        }
        VectorKind::Compare(op) => zip2(out, a, b, |x, y| {
            f64::from(u8::from(scalar::compare(op, x, y)))
        }),
        VectorKind::Select => {
            for (((out, cond), x), y) in out.iter_mut().zip(a).zip(b).zip(c) {
                *out = if *cond != 0.0 { *x } else { *y };
            }
        }
        VectorKind::Cast if float => out.copy_from_slice(a),
        VectorKind::Cast => {
            for (out, x) in out.iter_mut().zip(a) {
                *out = scalar::cast(dtype, *x);
            }
        }
        VectorKind::SatCast => {
            for (out, x) in out.iter_mut().zip(a) {
                *out = scalar::cast_saturating(dtype, *x);
            }
        }
        VectorKind::Reduce(..) => unreachable!("reductions fold in `reduce`"),
        VectorKind::PairSum => unreachable!("lanes fold in `pair_sum`"),
        VectorKind::Gather(_) | VectorKind::Cumsum(_) | VectorKind::Cumprod(_) => {
            unreachable!("gathers and scans step in `per_element`")
        }
    }
}

fn zip2<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: impl Fn(T, T) -> T) {
    for ((out, x), y) in out.iter_mut().zip(a).zip(b) {
        *out = f(*x, *y);
    }
}

/// Folds `source` into the accumulators of `run`, element by element in order: a run
/// of stride 0 is one accumulator folding the whole chunk.
fn reduce(
    ub: &mut Level,
    op: ReduceOp,
    accumulator: Dtype,
    source: &[f64],
    run: Run,
) -> Result<(), String> {
    let mut acc = [0.0f64; CHUNK];
    let held = ub.dtype_at(run.offset, accumulator);
    if run.stride == 0 {
        ub.load(held, Run { len: 1, ..run }, &mut acc)?;
        let mut value = acc[0];
        for x in source {
            value = scalar::reduce_step_in(op, accumulator, value, *x);
        }
        ub.store(accumulator, &[value], Run { len: 1, ..run })
    } else {
        let acc = &mut acc[..run.len];
        ub.load(held, run, acc)?;
        if accumulator.is_float() && op == ReduceOp::Sum {
            // The store rounds the exact sum as `reduce_step_in` would.
            for (acc, x) in acc.iter_mut().zip(source) {
                *acc = scalar::sum_step(*acc, *x);
            }
        } else {
            for (acc, x) in acc.iter_mut().zip(source) {
                *acc = scalar::reduce_step_in(op, accumulator, *acc, *x);
            }
        }
        ub.store(accumulator, acc, run)
    }
}

#[cfg(test)]
mod tests;
