//! Unary operations the basic vector API lacks: the advanced math and activation
//! calls (`Tanh`, `Sigmoid`, `Sin`, `Cos`, `Tan`, `Erf`, `Floor`, `Ceil`, `Round`,
//! `Log2`, `Log10`, `Power` with a scalar exponent), and negation.
//!
//! The advanced calls take a temporary buffer (`sharedTmpBuffer`). The kernel
//! reserves one past the program's last buffer, `TMP_AT` up to the end of the one
//! `TBuf`, as large as the largest minimum any call of the program needs (the
//! minimum `GetXxxMaxMinTmpSize` reports); a program that leaves too little of the UB
//! free for it is unsupported. The reference forbids a destination that overlaps the
//! source, so such an instruction is unsupported too.

use npu_core::ir::{BinaryOp, UnaryOp};
use npu_core::program::{Op, Operand, Program, VectorInstr, VectorKind};
use npu_core::{Dtype, Target};

use super::names::{c_type, unsupported};
use super::view::layout;
use crate::output::Unsupported;
use crate::text::Text;

/// An advanced call: its name and the least temporary buffer it takes for f32 and
/// for f16 elements, or `None` for a call without one (`Log10`).
struct Call {
    name: &'static str,
    scratch: Option<(u64, u64)>,
}

/// Whether this module writes `v`.
pub(super) fn writes(v: &VectorInstr) -> bool {
    match v.kind {
        VectorKind::Unary(UnaryOp::Neg) => true,
        VectorKind::Unary(op) => call(op).is_some(),
        VectorKind::Binary(BinaryOp::Pow) => true,
        _ => false,
    }
}

/// The temporary buffer the program's advanced calls need, in bytes (0 when none
/// needs one); unsupported when it does not fit in the UB after the program's
/// buffers.
pub(super) fn scratch_bytes(program: &Program, target: &Target) -> Result<u64, Unsupported> {
    let mut bytes = 0;
    for code in &program.classes {
        for instr in code.streams.iter().flatten() {
            if let Op::Vector(v) = instr.op {
                bytes = bytes.max(scratch_of(&v).unwrap_or(0));
            }
        }
    }
    // Past the program's buffers and the offset table of `strided`, if any.
    let room = super::offsets::Room::of(program, target);
    let start =
        super::offsets::scratch_address(program) + super::strided::scratch_bytes(program, room);
    let room = room.any;
    if bytes > 0 && start + bytes > room {
        return Err(unsupported(
            &format!("an advanced math call's {bytes} B temporary buffer"),
            &format!(
                "the program's buffers end at ub 0x{start:05x} and the unified buffer has {room} B for it"
            ),
        ));
    }
    Ok(bytes)
}

/// Writes `v` (one of those `writes` accepts).
pub(super) fn math(text: &mut Text, program: &Program, v: &VectorInstr) -> Result<(), Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let Some(ty) = c_type(v.dtype).filter(|_| v.dtype.is_float()) else {
        return Err(unsupported(
            &construct,
            "the advanced math calls take half and float elements",
        ));
    };
    let advanced = !matches!(v.kind, VectorKind::Unary(UnaryOp::Neg));
    if advanced && overlaps(program, v) {
        return Err(unsupported(
            &construct,
            "the reference forbids a destination that overlaps the source",
        ));
    }
    match v.kind {
        VectorKind::Unary(UnaryOp::Neg) => negate(text, program, v),
        VectorKind::Binary(BinaryOp::Pow) => power(text, program, v, ty, &construct),
        VectorKind::Unary(op) => {
            let call = call(op).ok_or_else(|| unsupported(&construct, "no call is written"))?;
            let size = v.dtype.size();
            let layout = layout(program, v, &[(ty, size), (ty, size)])?;
            let scratch = if call.scratch.is_some() {
                ", ub[TMP_AT]"
            } else {
                ""
            };
            layout.open(text);
            text.line(format!(
                "AscendC::{}({}, {}{scratch}, {});",
                call.name, layout.views[0], layout.views[1], layout.count
            ));
            layout.close(text);
            Ok(())
        }
        _ => Err(unsupported(&construct, "no call is written")),
    }
}

/// `-x` flips the sign bit and nothing else: on the integer view of the elements that
/// is an addition of the sign bit, the carry out of the top bit dropped (`Adds` on
/// int16 or int32 wraps). It is exact for every value, NaN and zeros included, where
/// `Muls` by -1 would leave a NaN's sign as it is.
fn negate(text: &mut Text, program: &Program, v: &VectorInstr) -> Result<(), Unsupported> {
    let (ty, sign) = match v.dtype {
        Dtype::F16 => ("int16_t", "-32768"),
        _ => ("int32_t", "-2147483647 - 1"),
    };
    let size = v.dtype.size();
    let layout = layout(program, v, &[(ty, size), (ty, size)])?;
    text.comment("Negation: the sign bit added on the integer view, i.e. flipped.");
    layout.open(text);
    text.line(format!(
        "AscendC::Adds({}, {}, static_cast<{ty}>({sign}), {});",
        layout.views[0], layout.views[1], layout.count
    ));
    layout.close(text);
    Ok(())
}

/// `x ** c` for a constant `c` of the element type: `Power` with a scalar exponent.
fn power(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    ty: &str,
    construct: &str,
) -> Result<(), Unsupported> {
    let (Operand::Ub { .. }, Operand::Scalar(index)) = (v.src[0], v.src[1]) else {
        return Err(unsupported(
            construct,
            "only a tensor raised to a constant is written (Power with a scalar exponent)",
        ));
    };
    let exponent = program.constants[index as usize];
    if !exponent.is_finite() || v.dtype.round(exponent).to_bits() != exponent.to_bits() {
        return Err(unsupported(
            &format!("the exponent {exponent} in {construct}"),
            "Power takes the exponent in the element type, and the simulator computes with it unrounded",
        ));
    }
    let size = v.dtype.size();
    let layout = layout(program, v, &[(ty, size), (ty, size)])?;
    layout.open(text);
    text.line(format!(
        "AscendC::Power({}, {}, static_cast<{ty}>({exponent:?}), ub[TMP_AT], {});",
        layout.views[0], layout.views[1], layout.count
    ));
    layout.close(text);
    Ok(())
}

/// The temporary buffer `v` needs, if it is an advanced call.
fn scratch_of(v: &VectorInstr) -> Option<u64> {
    let (f32_bytes, f16_bytes) = match v.kind {
        VectorKind::Unary(op) => call(op)?.scratch?,
        // Power with a scalar exponent: 256 B per live value plus one repeat, on the
        // older cores (the larger of the two tilings).
        VectorKind::Binary(BinaryOp::Pow) => (1792, 2304),
        _ => return None,
    };
    Some(if v.dtype == Dtype::F16 {
        f16_bytes
    } else {
        f32_bytes
    })
}

/// The advanced call of a unary operation, with the least temporary buffer of its
/// `GetXxxMaxMinTmpSize` (asc-devkit `impl/adv_api/tiling/math`, without reusing the
/// source; at least 256 B, one repeat, where the minimum is 0 for float).
fn call(op: UnaryOp) -> Option<Call> {
    let (name, scratch) = match op {
        UnaryOp::Tanh => ("Tanh", Some((256, 1024))),
        UnaryOp::Sigmoid => ("Sigmoid", Some((256, 256))),
        UnaryOp::Sin => ("Sin", Some((768, 2048))),
        UnaryOp::Cos => ("Cos", Some((768, 2048))),
        UnaryOp::Tan => ("Tan", Some((1024, 2560))),
        UnaryOp::Erf => ("Erf", Some((768, 2048))),
        UnaryOp::Floor => ("Floor", Some((256, 512))),
        UnaryOp::Ceil => ("Ceil", Some((256, 512))),
        UnaryOp::Round => ("Round", Some((256, 512))),
        UnaryOp::Log2 => ("Log2", Some((256, 256))),
        UnaryOp::Log10 => ("Log10", None),
        _ => return None,
    };
    Some(Call { name, scratch })
}

/// Whether the bytes the destination and a source span over the box meet.
pub(super) fn overlaps(program: &Program, v: &VectorInstr) -> bool {
    let dst = span(program, v, v.dst, v.dst_strides);
    v.src.iter().any(|operand| match *operand {
        Operand::Ub { address, strides } => {
            let src = span(program, v, address, strides);
            dst.0 < src.1 && src.0 < dst.1
        }
        _ => false,
    })
}

/// The bytes an operand of `v` at `address` with stride table `strides` spans over
/// the box, as `start..end`.
pub(super) fn span(program: &Program, v: &VectorInstr, address: u32, strides: u32) -> (u64, u64) {
    let last: u64 = program.boxes[v.shape as usize]
        .iter()
        .zip(&program.strides[strides as usize])
        .map(|(len, stride)| len.saturating_sub(1) * stride)
        .sum();
    let start = u64::from(address);
    (start, start + last + v.dtype.size())
}
