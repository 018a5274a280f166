//! Instructions the tile kernel runs on the scalar unit, element by element in the
//! box's index order: fills, moves (broadcasts and strided views included), casts,
//! compares and selects, and the order-preserving folds of reductions and scans.
//!
//! The program folds each element into its accumulator in index order, each step
//! rounded to the accumulator's dtype (npu-core's `scalar` module); `aie::reduce_add`
//! and its kin add in a tree, which rounds differently, so the fold is a loop of the
//! emitted `npu_fold_*` steps in the same order. It is exact and slower than a vector
//! form; docs/emit.md says so.

use npu_core::Dtype;
use npu_core::ir::{CompareOp, ReduceOp, ScanOp};
use npu_core::program::{Operand, VectorInstr, VectorKind};

use super::body::{Body, Helpers};
use super::names::{c_type, literal, parameter_name, unsupported};
use crate::output::Unsupported;

/// The scalar-unit steps the folds call. A sum keeps a NaN accumulator as it is (the
/// simulator's x86 build does); max and min are npu-core's `scalar::max`/`min` (a NaN
/// operand gives the other; +0 is larger than -0);
/// an arg reduction takes a later element only when it is strictly better or a NaN
/// while the best so far is not.
pub(super) const HELPERS: &str = "\
// Scalar-unit steps of the order-preserving folds (npu-core's scalar module).
#ifndef NPU_AIE_FOLD_STEPS
#define NPU_AIE_FOLD_STEPS
inline float npu_fold_sum(float acc, float x) { return acc != acc ? acc : acc + x; }
inline bfloat16 npu_fold_sum(bfloat16 acc, bfloat16 x) { return bfloat16(npu_fold_sum(float(acc), float(x))); }
template <typename A> inline A npu_fold_sum(A acc, A x) { return A(int64_t(acc) + int64_t(x)); }
inline float npu_fold_max(float acc, float x) { return acc != acc ? x : (x != x ? acc : (acc == x ? (acc == 0 ? acc + x : acc) : (acc > x ? acc : x))); }
inline bfloat16 npu_fold_max(bfloat16 acc, bfloat16 x) { return bfloat16(npu_fold_max(float(acc), float(x))); }
template <typename A> inline A npu_fold_max(A acc, A x) { return acc >= x ? acc : x; }
inline float npu_fold_min(float acc, float x) { return acc != acc ? x : (x != x ? acc : (acc == x ? (acc == 0 ? -(-acc + -x) : acc) : (acc < x ? acc : x))); }
inline bfloat16 npu_fold_min(bfloat16 acc, bfloat16 x) { return bfloat16(npu_fold_min(float(acc), float(x))); }
template <typename A> inline A npu_fold_min(A acc, A x) { return acc <= x ? acc : x; }
template <typename B, typename X> inline bool npu_arg_takes_max(B best, X x) { return best == best && (x != x || x > best); }
template <typename B, typename X> inline bool npu_arg_takes_min(B best, X x) { return best == best && (x != x || x < best); }
template <typename T> inline T npu_saturate(int64_t x, int64_t low, int64_t high) { return T(x < low ? low : x > high ? high : x); }
#endif";

/// One instruction as a loop over its box on the scalar unit.
pub(super) fn instruction(body: &mut Body, v: &VectorInstr) -> Result<(), Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    if matches!(
        v.kind,
        VectorKind::Reduce(..) | VectorKind::Cumsum(_) | VectorKind::SatCast
    ) {
        body.helpers.insert(Helpers::Steps);
    }
    let statement = match v.kind {
        VectorKind::Dup => dup(body, v)?,
        VectorKind::Copy => format!(
            "{} = {};",
            element(body, v, Slot::Dst)?,
            element(body, v, Slot::Src(0))?
        ),
        VectorKind::Cast | VectorKind::SatCast => cast(body, v)?,
        VectorKind::Reduce(op, _) if op.is_arg() => arg_fold(body, v, op)?,
        VectorKind::Reduce(op, accumulator) => fold(body, v, op, accumulator)?,
        VectorKind::Cumsum(accumulator) => scan(body, v, ScanOp::Sum, accumulator)?,
        VectorKind::Compare(op) => format!(
            "{} = ({} {} {}) ? 1 : 0;",
            element(body, v, Slot::Dst)?,
            compared(body, v, 0)?,
            operator(op),
            compared(body, v, 1)?
        ),
        VectorKind::Select => format!(
            "{} = {} != 0 ? {} : {};",
            element(body, v, Slot::Dst)?,
            element(body, v, Slot::Src(0))?,
            operand(body, v, 1)?,
            operand(body, v, 2)?
        ),
        VectorKind::Gather(_) => {
            return Err(unsupported(
                &construct,
                "the AIE API has no gather, and an index outside the table stops the simulator with an error that a tile kernel has no way to report",
            ));
        }
        VectorKind::Binary(_) | VectorKind::Unary(_) if super::math::writes(v) => {
            let dst = element(body, v, Slot::Dst)?;
            let mut sources = Vec::new();
            for (slot, source) in v.src.iter().enumerate() {
                sources.push(match source {
                    Operand::Ub { .. } => element(body, v, Slot::Src(slot))?,
                    _ => String::new(),
                });
            }
            super::math::statement(body, v, &dst, &sources)?
        }
        VectorKind::Binary(_) | VectorKind::Unary(_) => {
            return Err(unsupported(
                &construct,
                "the AIE API has no call for it with the simulator's results, and no scalar helper is written (see docs/emit.md)",
            ));
        }
        _ => {
            return Err(unsupported(
                &construct,
                "no AIE API sequence is written for it yet (see docs/emit.md)",
            ));
        }
    };
    loops(body, v, &statement);
    Ok(())
}

/// Which operand of an instruction an element expression is for.
#[derive(Clone, Copy)]
enum Slot {
    Dst,
    Src(usize),
}

/// The dtype an operand is read or written in.
fn dtype_of(body: &Body, v: &VectorInstr, slot: Slot) -> Dtype {
    let accumulator = match v.kind {
        VectorKind::Reduce(_, a) | VectorKind::Cumsum(a) | VectorKind::Cumprod(a) => Some(a),
        _ => None,
    };
    match (slot, v.kind) {
        (Slot::Dst, _) => super::layout::written(v),
        (Slot::Src(0), VectorKind::Cast | VectorKind::SatCast) => match v.src[0] {
            Operand::Ub { address, .. } => body.tag(address, v.dtype),
            _ => v.dtype,
        },
        (Slot::Src(1), VectorKind::Reduce(op, _)) if op.is_arg() => accumulator.unwrap_or(v.dtype),
        (Slot::Src(1), VectorKind::Cumsum(_) | VectorKind::Cumprod(_)) => {
            accumulator.unwrap_or(v.dtype)
        }
        (Slot::Src(0), _) => match v.src[0] {
            Operand::Ub { address, .. } => body.tag(address, v.dtype),
            _ => v.dtype,
        },
        _ => v.dtype,
    }
}

/// `base[offset + r0 * s0 + ...]` for an operand in the box's loop variables.
fn element(body: &mut Body, v: &VectorInstr, slot: Slot) -> Result<String, Unsupported> {
    let (address, strides) = match slot {
        Slot::Dst => (v.dst, v.dst_strides),
        Slot::Src(i) => match v.src[i] {
            Operand::Ub { address, strides } => (address, strides),
            _ => return Err(unsupported("an operand", "not a view of a buffer")),
        },
    };
    let dtype = dtype_of(body, v, slot);
    let (base, offset) = body.pointer(address, dtype)?;
    let size = dtype.size();
    let mut index = offset.to_string();
    let extents = &body.program.boxes[v.shape as usize];
    for (d, stride) in body.program.strides[strides as usize].iter().enumerate() {
        if extents[d] == 1 || *stride == 0 {
            continue;
        }
        if !stride.is_multiple_of(size) {
            return Err(unsupported(
                &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
                "an operand's stride is not a whole number of elements",
            ));
        }
        index.push_str(&format!(" + r{d} * {}", stride / size));
    }
    Ok(format!("{base}[{index}]"))
}

/// The C++ operator of a comparison.
fn operator(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Lt => "<",
        CompareOp::Le => "<=",
        CompareOp::Gt => ">",
        CompareOp::Ge => ">=",
        CompareOp::Eq => "==",
        CompareOp::Ne => "!=",
    }
}

/// Source `slot` of `v` as an expression of its dtype: an element of a view, a
/// constant (which the dtype holds exactly, as the simulator reads it) or a scalar
/// parameter.
fn operand(body: &mut Body, v: &VectorInstr, slot: usize) -> Result<String, Unsupported> {
    let dtype = dtype_of(body, v, Slot::Src(slot));
    let ty = c_type(dtype).unwrap_or("float");
    match v.src[slot] {
        Operand::Scalar(index) => literal(body.program.constants[index as usize], dtype, ty),
        Operand::Param(tensor) => Ok(format!("{ty}({})", parameter_name(body.program, tensor)?)),
        _ => element(body, v, Slot::Src(slot)),
    }
}

/// A compared source: a float read as `float` (exact for bf16), so that the compare
/// is IEEE 754's, as npu-core's `scalar::compare` (a NaN is unordered: only `!=`
/// holds); an integer as it is.
fn compared(body: &mut Body, v: &VectorInstr, slot: usize) -> Result<String, Unsupported> {
    let value = operand(body, v, slot)?;
    Ok(match dtype_of(body, v, Slot::Src(slot)).is_float() {
        true => format!("float({value})"),
        false => value,
    })
}

/// The loops over the box (extent-1 dimensions left out) around `statement`.
fn loops(body: &mut Body, v: &VectorInstr, statement: &str) {
    let extents = body.program.boxes[v.shape as usize].clone();
    let open: Vec<usize> = (0..extents.len()).filter(|d| extents[*d] > 1).collect();
    for d in &open {
        body.text.open(format!(
            "for (int32_t r{d} = 0; r{d} < {}; ++r{d})",
            extents[*d]
        ));
    }
    body.text.line(statement);
    for _ in &open {
        body.text.close("");
    }
}

fn dup(body: &mut Body, v: &VectorInstr) -> Result<String, Unsupported> {
    let ty = c_type(v.dtype).unwrap_or("float");
    let value = match v.src[0] {
        Operand::Param(tensor) => {
            let name = parameter_name(body.program, tensor)?;
            format!("{ty}({name})")
        }
        // The store converts as Rust's `as` does: integers saturate (±inf to the
        // dtype's extremes), floats round to nearest even.
        Operand::Scalar(index) => {
            let value = body.program.constants[index as usize];
            let value = if v.dtype.is_float() {
                v.dtype.round(value)
            } else {
                v.dtype.saturate(value)
            };
            literal(value, v.dtype, ty)?
        }
        _ => return Err(unsupported("vdup", "its source is not a scalar")),
    };
    Ok(format!("{} = {value};", element(body, v, Slot::Dst)?))
}

fn cast(body: &mut Body, v: &VectorInstr) -> Result<String, Unsupported> {
    let from = dtype_of(body, v, Slot::Src(0));
    let to = v.dtype;
    let construct = format!("{} {} from {}", v.kind.mnemonic(), to.name(), from.name());
    let (dst, src) = (
        element(body, v, Slot::Dst)?,
        element(body, v, Slot::Src(0))?,
    );
    let ty = c_type(to).unwrap_or("float");
    let value = match (from.is_float(), to.is_float()) {
        // Floats round to nearest even; an integer of at most 16 bits is exact in
        // float first, so one rounding.
        (true, true) => format!("{ty}(float({src}))"),
        (false, true) if from.size() <= 2 => format!("{ty}(float({src}))"),
        (false, false) if v.kind == VectorKind::SatCast => {
            let (low, high) = to.range();
            format!("npu_saturate<{ty}>(int64_t({src}), {low}, {high})")
        }
        (false, false) => format!("{ty}(int64_t({src}))"),
        _ => {
            return Err(unsupported(
                &construct,
                "only float-to-float, small-integer-to-float and integer casts are written",
            ));
        }
    };
    Ok(format!("{dst} = {value};"))
}

fn fold(
    body: &mut Body,
    v: &VectorInstr,
    op: ReduceOp,
    accumulator: Dtype,
) -> Result<String, Unsupported> {
    let acc_ty = c_type(accumulator).unwrap_or("float");
    let step = match op {
        ReduceOp::Sum => "npu_fold_sum",
        ReduceOp::Max => "npu_fold_max",
        _ => "npu_fold_min",
    };
    if !accumulator.holds(dtype_of(body, v, Slot::Src(0))) {
        return Err(unsupported(
            &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
            "the accumulator does not hold every source value, so converting first would round",
        ));
    }
    let dst = element(body, v, Slot::Dst)?;
    let x = element(body, v, Slot::Src(0))?;
    let term = match v.src[1] {
        Operand::None => format!("{acc_ty}({x})"),
        Operand::Ub { .. } => {
            let y = element(body, v, Slot::Src(1))?;
            if accumulator.is_float() {
                format!("{acc_ty}(float({x}) * float({y}))")
            } else {
                format!("{acc_ty}(int64_t({x}) * int64_t({y}))")
            }
        }
        _ => return Err(unsupported("vreduce", "a scalar second source")),
    };
    Ok(format!("{dst} = {step}({dst}, {term});"))
}

/// `vreduce.argmax`/`argmin`: the value so far (second source) and the index (the
/// destination) move together when an element takes over.
fn arg_fold(body: &mut Body, v: &VectorInstr, op: ReduceOp) -> Result<String, Unsupported> {
    let extents = &body.program.boxes[v.shape as usize];
    let Some(last) = extents.len().checked_sub(1) else {
        return Err(unsupported("an arg reduction", "its box has no dimension"));
    };
    let position = if extents[last] > 1 {
        format!("r{last}")
    } else {
        "0".into()
    };
    let first = match v.src[2] {
        Operand::Scalar(index) => body.program.constants[index as usize].to_string(),
        _ => {
            return Err(unsupported(
                "an arg reduction",
                "its first position is not a constant",
            ));
        }
    };
    let takes = if op == ReduceOp::ArgMax {
        "npu_arg_takes_max"
    } else {
        "npu_arg_takes_min"
    };
    let (index, best, x) = (
        element(body, v, Slot::Dst)?,
        element(body, v, Slot::Src(1))?,
        element(body, v, Slot::Src(0))?,
    );
    let best_ty = c_type(dtype_of(body, v, Slot::Src(1))).unwrap_or("float");
    let index_ty = c_type(v.dtype).unwrap_or("int32_t");
    Ok(format!(
        "if ({takes}({best}, {x})) {{ {best} = {best_ty}({x}); {index} = {index_ty}({first} + {position}); }}"
    ))
}

/// `vscan.sum`: the running value (second source) steps in its accumulator and each
/// element gets it rounded to the instruction's dtype.
fn scan(
    body: &mut Body,
    v: &VectorInstr,
    op: ScanOp,
    accumulator: Dtype,
) -> Result<String, Unsupported> {
    if op != ScanOp::Sum || !accumulator.is_float() {
        return Err(unsupported(
            &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
            "only float running sums are written",
        ));
    }
    let acc_ty = c_type(accumulator).unwrap_or("float");
    let ty = c_type(v.dtype).unwrap_or("float");
    let (dst, running, x) = (
        element(body, v, Slot::Dst)?,
        element(body, v, Slot::Src(1))?,
        element(body, v, Slot::Src(0))?,
    );
    Ok(format!(
        "{running} = npu_fold_sum({running}, {acc_ty}({x})); {dst} = {ty}(float({running}));"
    ))
}
