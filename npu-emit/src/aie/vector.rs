//! Elementwise arithmetic and bitwise instructions, compares into mask bytes and
//! selects by them, and moves (`vcopy` of a run, `vdup` of a value), as AIE API
//! vector calls.
//!
//! A box whose innermost run is contiguous in every operand is walked in vectors of
//! the native 512 bits (`aie::vector<bfloat16, 32>`, `<int16_t, 32>`, `<int8_t, 64>`,
//! `<int32_t, 16>`), a remainder in smaller vectors of the sizes the API allows (down
//! to 128 bits), with loops for the dimensions further out. A load or store whose
//! address is aligned to its vector (at most 32 bytes) in every iteration is
//! `aie::load_v`/`aie::store_v`, any other `aie::load_unaligned_v`/`store_unaligned_v`.
//!
//! bf16 sums and differences go through an `aie::accum<accfloat, N>` (fp32) and back
//! with `to_vector<bfloat16>()` under `rounding_mode::conv_even`; a bf16 product is
//! `aie::mul` into accfloat, exact, and the same conversion. Either way the result is
//! the exact value rounded once, what the simulator computes (docs/emit.md). A
//! function the target computes with an algorithm of its own (bf16 exp, rsqrt,
//! division and their kin) calls its template from the `functions` module.

use npu_core::Dtype;
use npu_core::ir::{BinaryOp, CompareOp, UnaryOp};
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::body::Body;
use super::functions;
use super::layout::gcd;
use super::names::{c_type, scalar_value, unsupported};
use crate::output::Unsupported;

/// Whether every UB operand's innermost box dimension (of extent > 1) is contiguous.
fn contiguous(program: &Program, v: &VectorInstr) -> bool {
    let extents = &program.boxes[v.shape as usize];
    let Some(inner) = extents.iter().rposition(|e| *e > 1) else {
        return true;
    };
    let sources = v.src.iter().enumerate().filter_map(|(slot, s)| match s {
        Operand::Ub { strides, .. } => Some((*strides, source_dtype(v, slot))),
        _ => None,
    });
    std::iter::once((v.dst_strides, super::layout::written(v)))
        .chain(sources)
        .all(|(s, dtype)| program.strides[s as usize][inner] == dtype.size())
}

/// The dtype source `slot` of `v` is read in: a select's mask bytes, else the
/// instruction's dtype.
fn source_dtype(v: &VectorInstr, slot: usize) -> Dtype {
    match (v.kind, slot) {
        (VectorKind::Select, 0) => Dtype::U8,
        _ => v.dtype,
    }
}

/// Whether this module writes `v`: an operation with an AIE API call, contiguous,
/// of a dtype it writes, over a run that vectors cover.
pub(super) fn writes(body: &Body, v: &VectorInstr) -> bool {
    let program = body.program;
    let float = v.dtype == Dtype::Bf16;
    let call = match v.kind {
        _ if functions::call(body.target, v.kind, v.dtype).is_some() => true,
        VectorKind::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) => true,
        VectorKind::Binary(BinaryOp::Shl | BinaryOp::Shr) => shift(program, v).is_some(),
        VectorKind::Binary(op) => binary(op, float).is_some(),
        VectorKind::Unary(UnaryOp::Relu | UnaryOp::Abs | UnaryOp::Neg) => true,
        VectorKind::Unary(UnaryOp::Not) => !float,
        VectorKind::Copy => matches!(v.src[0], Operand::Ub { .. }),
        VectorKind::Dup => exact_scalar(program, v),
        VectorKind::Compare(_) | VectorKind::Select => true,
        _ => false,
    };
    let size = v.dtype.size();
    let extents = &program.boxes[v.shape as usize];
    let run = extents.iter().rev().find(|e| **e > 1).copied().unwrap_or(1);
    // A mask byte per lane: only whole 512-bit vectors of the operands give mask
    // vectors of a size the API has (16 lanes of 8 bits at least).
    let masks = matches!(v.kind, VectorKind::Compare(_) | VectorKind::Select);
    call && c_type(v.dtype).is_some()
        && (!masks || run.is_multiple_of(64 / size))
        && !matches!(v.dtype, Dtype::F32 | Dtype::U32)
        && (run % (64 / size)).is_multiple_of(16 / size)
        && contiguous(program, v)
}

/// Whether a `vdup`'s value is a parameter, or a constant its dtype holds exactly (the
/// broadcast stores it as written; the scalar path rounds or saturates any other).
fn exact_scalar(program: &Program, v: &VectorInstr) -> bool {
    match v.src[0] {
        Operand::Param(_) => true,
        Operand::Scalar(index) => {
            let value = program.constants[index as usize];
            let kept = match v.dtype.is_float() {
                true => v.dtype.round(value),
                false => v.dtype.saturate(value),
            };
            kept == value && scalar_value(program, v.src[0], v.dtype).is_ok()
        }
        _ => false,
    }
}

/// The bits an integer shift moves its lanes by, when they are a constant below the
/// lane's width (a shift by a tensor, or by the width or more, is the scalar form's).
fn shift(program: &Program, v: &VectorInstr) -> Option<u64> {
    let (
        VectorKind::Binary(BinaryOp::Shl | BinaryOp::Shr),
        Operand::Ub { .. },
        Operand::Scalar(index),
    ) = (v.kind, v.src[0], v.src[1])
    else {
        return None;
    };
    let bits = program.constants[index as usize];
    let width = 8 * v.dtype.size();
    let whole = bits.fract() == 0.0 && (0.0..width as f64).contains(&bits);
    (whole && !v.dtype.is_float()).then_some(bits as u64)
}

/// One UB operand: address, byte strides and the dtype it holds.
struct View {
    address: u32,
    strides: Vec<u64>,
    dtype: Dtype,
}

/// What every vector of one instruction shares: the instruction, its element type,
/// its UB operands (destination first) and the outer box dimensions looped over.
struct Walk<'v> {
    v: &'v VectorInstr,
    ty: &'static str,
    views: Vec<View>,
    outer: Vec<usize>,
}

/// Where one vector lies in the run: element `at`, `n` lanes, and whether it is the
/// body of the loop over `k` (each iteration `n` elements on).
#[derive(Clone, Copy)]
struct Place {
    at: u64,
    n: u64,
    stepped: bool,
}

/// Writes one elementwise instruction.
pub(super) fn elementwise(body: &mut Body, v: &VectorInstr) -> Result<(), Unsupported> {
    let ty = c_type(v.dtype).ok_or_else(|| construct_error(v, "no AIE element type"))?;
    if v.dtype == Dtype::F32 || v.dtype == Dtype::U32 {
        return Err(construct_error(
            v,
            "32-bit float and unsigned vectors are not written yet",
        ));
    }
    let extents = body.program.boxes[v.shape as usize].clone();
    let inner = extents
        .iter()
        .rposition(|e| *e > 1)
        .unwrap_or(extents.len().saturating_sub(1));
    let walk = Walk {
        v,
        ty,
        views: views(body, v),
        outer: (0..inner).filter(|d| extents[*d] > 1).collect(),
    };
    let run = extents.get(inner).copied().unwrap_or(1);
    for d in &walk.outer {
        body.text.open(format!(
            "for (int32_t v{d} = 0; v{d} < {}; ++v{d})",
            extents[*d]
        ));
    }
    run_in_vectors(body, &walk, run)?;
    for _ in &walk.outer {
        body.text.close("");
    }
    Ok(())
}

/// The destination's view, then each UB source's.
fn views(body: &Body, v: &VectorInstr) -> Vec<View> {
    let view = |address: u32, strides: u32, dtype: Dtype| View {
        address,
        strides: body.program.strides[strides as usize].clone(),
        dtype,
    };
    let sources = v
        .src
        .iter()
        .enumerate()
        .filter_map(|(slot, source)| match *source {
            Operand::Ub { address, strides } => Some(view(address, strides, source_dtype(v, slot))),
            _ => None,
        });
    std::iter::once(view(v.dst, v.dst_strides, super::layout::written(v)))
        .chain(sources)
        .collect()
}

/// The run of `run` elements: a loop of 512-bit vectors, then the remainder in
/// halves down to 128 bits.
fn run_in_vectors(body: &mut Body, walk: &Walk, run: u64) -> Result<(), Unsupported> {
    let size = walk.v.dtype.size();
    let (lanes, smallest) = (64 / size, 16 / size);
    if !(run % lanes).is_multiple_of(smallest) {
        return Err(construct_error(
            walk.v,
            &format!(
                "a run of {run} elements leaves {} after vectors of {lanes}, not a whole number of the smallest vector ({smallest} lanes)",
                run % lanes
            ),
        ));
    }
    let chunks = run / lanes;
    if chunks > 1 {
        body.text
            .open(format!("for (int32_t k = 0; k < {chunks}; ++k)"));
    }
    if chunks > 0 {
        let place = Place {
            at: 0,
            n: lanes,
            stepped: chunks > 1,
        };
        piece(body, walk, place)?;
    }
    if chunks > 1 {
        body.text.close("");
    }
    let (mut at, mut n) = (chunks * lanes, lanes / 2);
    while at < run {
        if run - at >= n {
            let place = Place {
                at,
                n,
                stepped: false,
            };
            piece(body, walk, place)?;
            at += n;
        }
        n /= 2;
    }
    Ok(())
}

fn construct_error(v: &VectorInstr, reason: &str) -> Unsupported {
    unsupported(&format!("{} {}", v.kind.mnemonic(), v.dtype.name()), reason)
}

/// Each view's pointer expression at `place`, and whether it is unaligned for a
/// vector of `place.n` lanes in some iteration.
fn pointers(
    body: &mut Body,
    walk: &Walk,
    place: Place,
) -> Result<Vec<(String, bool)>, Unsupported> {
    let mut pointers = Vec::new();
    for view in &walk.views {
        let size = view.dtype.size();
        let (base, offset) = body.pointer(view.address, view.dtype)?;
        let mut expression = format!("{base} + {}", offset + place.at);
        let mut aligned_to = u64::from(view.address) + place.at * size;
        for d in &walk.outer {
            expression.push_str(&format!(" + v{d} * {}", view.strides[*d] / size));
            aligned_to = gcd(aligned_to, view.strides[*d]);
        }
        if place.stepped {
            expression.push_str(&format!(" + k * {}", place.n));
            aligned_to = gcd(aligned_to, place.n * size);
        }
        let unaligned = !aligned_to.is_multiple_of((place.n * size).min(32));
        pointers.push((expression, unaligned));
    }
    Ok(pointers)
}

/// One vector: its loads (or broadcasts), the operation, its store. Inside the `k`
/// loop the loop's body is its block; elsewhere it gets a block of its own.
fn piece(body: &mut Body, walk: &Walk, place: Place) -> Result<(), Unsupported> {
    let (v, ty, n) = (walk.v, walk.ty, place.n);
    let pointers = pointers(body, walk, place)?;
    if !place.stepped {
        body.text.open("");
    }
    let mut names = Vec::new();
    let mut loads = pointers[1..].iter();
    for (slot, source) in v.src.iter().enumerate() {
        let name = ["va", "vb", "vc"][slot];
        let ty = c_type(source_dtype(v, slot)).unwrap_or(ty);
        let value = match source {
            Operand::None => continue,
            // A shift's constant is the call's argument, not a vector.
            Operand::Scalar(_) if shift(body.program, v).is_some() => continue,
            Operand::Ub { .. } => {
                let Some((pointer, unaligned)) = loads.next() else {
                    return Err(construct_error(v, "a source without a view"));
                };
                let load = if *unaligned {
                    "load_unaligned_v"
                } else {
                    "load_v"
                };
                format!("aie::{load}<{n}>({pointer})")
            }
            _ => {
                let value = scalar_value(body.program, *source, v.dtype)?;
                format!("aie::broadcast<{ty}, {n}>({value})")
            }
        };
        body.text
            .line(format!("const aie::vector<{ty}, {n}> {name} = {value};"));
        names.push(name);
    }
    let result = operation(body, v, ty, n, &names)?;
    let (pointer, unaligned) = &pointers[0];
    let store = if *unaligned {
        "store_unaligned_v"
    } else {
        "store_v"
    };
    body.text
        .line(format!("aie::{store}({pointer}, {result});"));
    if !place.stepped {
        body.text.close("");
    }
    Ok(())
}

/// The expression of the result vector; may write lines before it (an accumulator).
fn operation(
    body: &mut Body,
    v: &VectorInstr,
    ty: &str,
    n: u64,
    names: &[&str],
) -> Result<String, Unsupported> {
    let float = v.dtype == Dtype::Bf16;
    let (a, b) = (names[0], names.get(1).copied().unwrap_or("va"));
    if let Some(function) = functions::call(body.target, v.kind, v.dtype) {
        let arguments = names.join(", ");
        return Ok(format!("{function}({arguments})"));
    }
    let expression = match v.kind {
        VectorKind::Binary(BinaryOp::Add | BinaryOp::Sub) if float => {
            let call = if v.kind == VectorKind::Binary(BinaryOp::Add) {
                "add"
            } else {
                "sub"
            };
            body.text.line(format!("aie::accum<accfloat, {n}> vacc;"));
            body.text.line(format!("vacc.from_vector({a});"));
            format!("aie::{call}(vacc, {b}).to_vector<bfloat16>()")
        }
        VectorKind::Binary(BinaryOp::Mul) => format!("aie::mul({a}, {b}).to_vector<{ty}>()"),
        // Lanes shifted by a constant below their width: `<<` keeps the low bits and
        // `>>` fills with the sign (zeros for unsigned lanes), as the simulator's.
        VectorKind::Binary(op @ (BinaryOp::Shl | BinaryOp::Shr)) => {
            let bits = shift(body.program, v).ok_or_else(|| missing(v))?;
            let call = if op == BinaryOp::Shl {
                "upshift"
            } else {
                "downshift"
            };
            format!("aie::{call}({a}, {bits})")
        }
        VectorKind::Binary(op) => match binary(op, float) {
            Some(call) => format!("aie::{call}({a}, {b})"),
            None => return Err(missing(v)),
        },
        VectorKind::Unary(UnaryOp::Relu) => format!("aie::max({a}, aie::zeros<{ty}, {n}>())"),
        VectorKind::Unary(UnaryOp::Abs) => format!("aie::abs({a})"),
        VectorKind::Unary(UnaryOp::Neg) => format!("aie::neg({a})"),
        VectorKind::Unary(UnaryOp::Not) if !float => format!("aie::bit_not({a})"),
        // A mask byte per lane, 1 where the comparison holds (as the simulator's).
        VectorKind::Compare(op) => format!(
            "aie::select(aie::zeros<uint8_t, {n}>(), aie::broadcast<uint8_t, {n}>(1), aie::{}({a}, {b}))",
            compare(op)
        ),
        // The first choice where the mask byte is not 0.
        VectorKind::Select => {
            let c = names.get(2).copied().unwrap_or("va");
            format!("aie::select({c}, {b}, aie::neq({a}, aie::zeros<uint8_t, {n}>()))")
        }
        // A move: the loaded vector, or the broadcast value, stored as it is.
        VectorKind::Copy | VectorKind::Dup => a.to_string(),
        _ => return Err(missing(v)),
    };
    Ok(expression)
}

/// The AIE API call of a comparison.
fn compare(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Lt => "lt",
        CompareOp::Le => "le",
        CompareOp::Gt => "gt",
        CompareOp::Ge => "ge",
        CompareOp::Eq => "eq",
        CompareOp::Ne => "neq",
    }
}

/// The AIE API call of a binary operation other than `+ - *`.
fn binary(op: BinaryOp, float: bool) -> Option<&'static str> {
    Some(match op {
        BinaryOp::Add if !float => "add",
        BinaryOp::Sub if !float => "sub",
        BinaryOp::Max => "max",
        BinaryOp::Min => "min",
        BinaryOp::And if !float => "bit_and",
        BinaryOp::Or if !float => "bit_or",
        BinaryOp::Xor if !float => "bit_xor",
        _ => return None,
    })
}

/// Why an operation is not written: the AIE API has no call with the simulator's
/// rounding for it.
fn missing(v: &VectorInstr) -> Unsupported {
    construct_error(
        v,
        "the AIE API has no call for it with the simulator's rounding (bf16 exp, log, tanh, sigmoid, division, remainder and the like would need helpers whose device results are not verified here)",
    )
}
