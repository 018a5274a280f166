//! Elementwise operations the AIE API has no call for, with the simulator's
//! rounding, as documented helpers on the scalar unit: bf16 and f32 exp, log, sqrt,
//! rsqrt, tanh, sigmoid, sin, cos, tan, exp2, log2, log10, floor, ceil, round,
//! trunc, reciprocal, division, remainder and pow, each computed in double from the
//! operands' exact values with the C library's functions and rounded once to the
//! element type (`npu_round`); integer arithmetic a vector cannot cover (a run
//! shorter than the smallest vector) and popcount, exactly, wrapping.
//!
//! On the device these need the toolchain's double-precision libm; they are slow
//! and exact up to that libm. Verified here against the host's, which is the one the
//! simulator calls (docs/emit.md). A function the target computes with the vector
//! unit's own algorithm is no helper here: each element calls its vector template
//! (the `functions` module) on a broadcast.

use npu_core::Dtype;
use npu_core::ir::{BinaryOp, UnaryOp};
use npu_core::program::{Operand, VectorInstr, VectorKind};

use super::body::{Body, Helpers};
use super::functions;
use super::names::{c_type, parameter_name, scalar_value, unsupported};
use crate::output::Unsupported;

/// The helpers the scalar float forms call: one rounding of an exact double.
pub(super) const HELPERS: &str = "\
// Scalar-unit helpers: one rounding of an exact double to the element type.
#ifndef NPU_AIE_MATH_HELPERS
#define NPU_AIE_MATH_HELPERS
inline float npu_round_float(double x) { return float(x); }
// Rounds to float by rounding to odd, then to bfloat16 to nearest even: one rounding.
inline bfloat16 npu_round_bf16(double x) {
    float f = float(x);
    if (f == f && double(f) != x && f - f == 0.0f) {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        if ((bits & 1) == 0) {
            bits = std::fabs(double(f)) < std::fabs(x) ? bits + 1 : bits - 1;
        }
        std::memcpy(&f, &bits, 4);
    }
    return bfloat16(f);
}
#endif";

/// The helper `popcount` calls.
pub(super) const POPCOUNT: &str = "\
// Scalar-unit popcount.
#ifndef NPU_AIE_POPCOUNT
#define NPU_AIE_POPCOUNT
inline int64_t npu_popcount(uint64_t x) {
    int64_t count = 0;
    for (; x != 0; x &= x - 1) ++count;
    return count;
}
#endif";

/// Whether this module writes `v`.
pub(super) fn writes(v: &VectorInstr) -> bool {
    let float = matches!(v.dtype, Dtype::Bf16 | Dtype::F32);
    match v.kind {
        VectorKind::Unary(op) if float => unary(op, "x").is_some(),
        VectorKind::Unary(UnaryOp::Popcount | UnaryOp::Not | UnaryOp::Neg) => true,
        VectorKind::Binary(op) if float => binary(op, "x", "y").is_some(),
        VectorKind::Binary(op) => integer_binary(op, "x", "y", v.dtype.bits()).is_some(),
        _ => false,
    }
}

/// `x op y` on integers held exactly in `int64_t`, before the store wraps it to the
/// element type: arithmetic, bitwise, and shifts as npu-core's `scalar` shifts (a
/// shift by `y` outside `0..bits` leaves 0 for `<<` and the sign fill for `>>`; `<<`
/// in `uint64_t`, so that no signed value overflows).
fn integer_binary(op: BinaryOp, x: &str, y: &str, bits: u32) -> Option<String> {
    let in_range = format!("{y} >= 0 && {y} < {bits}");
    Some(match op {
        BinaryOp::Add => format!("{x} + {y}"),
        BinaryOp::Sub => format!("{x} - {y}"),
        BinaryOp::Mul => format!("{x} * {y}"),
        BinaryOp::And => format!("{x} & {y}"),
        BinaryOp::Or => format!("{x} | {y}"),
        BinaryOp::Xor => format!("{x} ^ {y}"),
        BinaryOp::Shl => format!("({in_range}) ? int64_t(uint64_t({x}) << {y}) : int64_t(0)"),
        BinaryOp::Shr => format!("({in_range}) ? ({x} >> {y}) : ({x} >> 63)"),
        _ => return None,
    })
}

fn unary(op: UnaryOp, x: &str) -> Option<String> {
    Some(match op {
        UnaryOp::Neg => format!("-{x}"),
        UnaryOp::Abs => format!("std::fabs({x})"),
        UnaryOp::Exp => format!("std::exp({x})"),
        UnaryOp::Log => format!("std::log({x})"),
        UnaryOp::Sqrt => format!("std::sqrt({x})"),
        UnaryOp::Rsqrt => format!("1.0 / std::sqrt({x})"),
        UnaryOp::Tanh => format!("std::tanh({x})"),
        UnaryOp::Recip => format!("1.0 / {x}"),
        UnaryOp::Sigmoid => format!("1.0 / (1.0 + std::exp(-{x}))"),
        UnaryOp::Sin => format!("std::sin({x})"),
        UnaryOp::Cos => format!("std::cos({x})"),
        UnaryOp::Tan => format!("std::tan({x})"),
        UnaryOp::Floor => format!("std::floor({x})"),
        UnaryOp::Ceil => format!("std::ceil({x})"),
        UnaryOp::Round => format!("std::nearbyint({x})"),
        UnaryOp::Trunc => format!("std::trunc({x})"),
        UnaryOp::Exp2 => format!("std::exp2({x})"),
        UnaryOp::Log2 => format!("std::log2({x})"),
        UnaryOp::Log10 => format!("std::log10({x})"),
        _ => return None,
    })
}

fn binary(op: BinaryOp, x: &str, y: &str) -> Option<String> {
    Some(match op {
        BinaryOp::Add => format!("{x} + {y}"),
        BinaryOp::Sub => format!("{x} - {y}"),
        BinaryOp::Mul => format!("{x} * {y}"),
        BinaryOp::Div => format!("{x} / {y}"),
        BinaryOp::Rem => format!("std::fmod({x}, {y})"),
        BinaryOp::Pow => format!("std::pow({x}, {y})"),
        _ => return None,
    })
}

/// The statement for one element; `element(slot)` gives a source's expression.
pub(super) fn statement(
    body: &mut Body,
    v: &VectorInstr,
    dst: &str,
    sources: &[String],
) -> Result<String, Unsupported> {
    let ty = c_type(v.dtype).unwrap_or("int32_t");
    let construct = || format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    if let Some(function) = functions::call(body.target, v.kind, v.dtype) {
        return vector_lane(body, v, function, dst, sources);
    }
    let value = match (v.kind, v.dtype) {
        (_, Dtype::Bf16 | Dtype::F32) => {
            body.helpers.insert(Helpers::Math);
            let x = operand(body, v, 0, sources, "double")?;
            let exact = match v.kind {
                VectorKind::Unary(op) => unary(op, &x),
                VectorKind::Binary(op) => binary(op, &x, &operand(body, v, 1, sources, "double")?),
                _ => None,
            }
            .ok_or_else(|| unsupported(&construct(), "no scalar helper is written for it"))?;
            let round = if v.dtype == Dtype::Bf16 {
                "npu_round_bf16"
            } else {
                "npu_round_float"
            };
            format!("{round}({exact})")
        }
        (VectorKind::Unary(UnaryOp::Popcount), _) => {
            body.helpers.insert(Helpers::Popcount);
            let x = operand(body, v, 0, sources, "int64_t")?;
            let mask = (1u128 << v.dtype.bits()) - 1;
            format!("{ty}(npu_popcount(uint64_t({x}) & {mask}u))")
        }
        (VectorKind::Unary(UnaryOp::Not), _) => {
            format!("{ty}(~{})", operand(body, v, 0, sources, "int64_t")?)
        }
        (VectorKind::Unary(UnaryOp::Neg), _) => {
            format!("{ty}(-{})", operand(body, v, 0, sources, "int64_t")?)
        }
        (VectorKind::Binary(op), _) => {
            let (x, y) = (
                operand(body, v, 0, sources, "int64_t")?,
                operand(body, v, 1, sources, "int64_t")?,
            );
            let exact = integer_binary(op, &x, &y, v.dtype.bits())
                .ok_or_else(|| unsupported(&construct(), "no scalar form"))?;
            format!("{ty}({exact})")
        }
        _ => {
            return Err(unsupported(
                &construct(),
                "no scalar form is written for it",
            ));
        }
    };
    Ok(format!("{dst} = {value};"))
}

/// One element of a function the target computes with a vector template: the
/// template on a broadcast of each operand, lane 0 stored, so that the arithmetic is
/// the vector unit's, as the simulator computes it.
fn vector_lane(
    body: &Body,
    v: &VectorInstr,
    function: &str,
    dst: &str,
    sources: &[String],
) -> Result<String, Unsupported> {
    let mut arguments = Vec::new();
    for (slot, source) in v.src.iter().enumerate() {
        let value = match source {
            Operand::None => continue,
            Operand::Ub { .. } => sources[slot].clone(),
            _ => scalar_value(body.program, *source, v.dtype)?,
        };
        arguments.push(format!("aie::broadcast<bfloat16, {LANE_VECTOR}>({value})"));
    }
    Ok(format!(
        "{dst} = {function}({}).get(0);",
        arguments.join(", ")
    ))
}

/// Lanes of the vector one element is broadcast to (256 bits of bf16).
const LANE_VECTOR: u32 = 16;

/// Source `slot` as `as_type`: a buffer element, a constant's exact value, a parameter.
fn operand(
    body: &Body,
    v: &VectorInstr,
    slot: usize,
    sources: &[String],
    as_type: &str,
) -> Result<String, Unsupported> {
    Ok(match v.src[slot] {
        Operand::Ub { .. } => format!("{as_type}({})", sources[slot]),
        Operand::Param(tensor) => {
            format!("{as_type}({})", parameter_name(body.program, tensor)?)
        }
        Operand::Scalar(index) => {
            let value = body.program.constants[index as usize];
            if !value.is_finite() {
                return Err(unsupported("a constant", "not finite"));
            }
            if as_type == "double" {
                format!("{value:?}")
            } else {
                format!("int64_t({value})")
            }
        }
        Operand::None => return Err(unsupported("an operand", "missing")),
    })
}
