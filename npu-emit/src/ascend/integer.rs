//! Integer operations beyond the arithmetic `vector` writes: bitwise or on int32
//! (`Or` on the int16 view, as the reference advises), shifts by a constant
//! (`ShiftLeft`, `ShiftRight`) and the absolute value (`Muls` by -1 then `Max`:
//! the A2 and A3 cores' `Abs` takes floats only).
//!
//! Integer remainder is not written: `Div` takes half and float only, and a float
//! quotient of two 32-bit values is not exact.

use npu_core::Dtype;
use npu_core::ir::{BinaryOp, UnaryOp};
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::math::overlaps;
use super::names::{c_type, unsupported};
use super::view::layout;
use crate::output::Unsupported;
use crate::text::Text;

/// Whether this module writes `v`.
pub(super) fn writes(v: &VectorInstr) -> bool {
    if !matches!(v.dtype, Dtype::I16 | Dtype::I32) {
        return false;
    }
    match v.kind {
        VectorKind::Binary(BinaryOp::Or) => v.dtype == Dtype::I32,
        // Written as unsupported, with the reason.
        VectorKind::Binary(BinaryOp::Rem) => true,
        VectorKind::Binary(BinaryOp::Shl | BinaryOp::Shr) | VectorKind::Unary(UnaryOp::Abs) => true,
        _ => false,
    }
}

/// Writes `v` (one of those `writes` accepts).
pub(super) fn integer(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
) -> Result<(), Unsupported> {
    let ty = c_type(v.dtype).unwrap_or("int32_t");
    let size = v.dtype.size();
    match v.kind {
        VectorKind::Binary(BinaryOp::Or) => {
            // Or takes int16: the bits of an int32 are those of two int16 halves.
            let layout = layout(program, v, &[("int16_t", size); 3])?;
            layout.open(text);
            text.line(format!(
                "AscendC::Or({}, {}, {}, {});",
                layout.views[0],
                layout.views[1],
                layout.views[2],
                layout.count * 2
            ));
            layout.close(text);
            Ok(())
        }
        VectorKind::Binary(BinaryOp::Rem) => Err(unsupported(
            &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
            "Ascend C has no integer division (Div takes half and float), and a float quotient of 32-bit values is not exact",
        )),
        VectorKind::Binary(op) => shift(text, program, v, op, ty),
        _ => absolute(text, program, v, ty),
    }
}

/// `x << n` or `x >> n` (arithmetic) for a constant `n` below the element's width:
/// the simulator's shift by the width or more (every bit out) is not written.
fn shift(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    op: BinaryOp,
    ty: &str,
) -> Result<(), Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let (Operand::Ub { .. }, Operand::Scalar(index)) = (v.src[0], v.src[1]) else {
        return Err(unsupported(
            &construct,
            "only a tensor shifted by a constant is written (ShiftLeft, ShiftRight with a scalar)",
        ));
    };
    let bits = v.dtype.size() * 8;
    let n = program.constants[index as usize];
    if n.fract() != 0.0 || !(0.0..bits as f64).contains(&n) {
        return Err(unsupported(
            &format!("a shift by {n} in {construct}"),
            "the shift must be a whole number below the element's width",
        ));
    }
    let call = if op == BinaryOp::Shl {
        "ShiftLeft"
    } else {
        "ShiftRight"
    };
    let size = v.dtype.size();
    let layout = layout(program, v, &[(ty, size), (ty, size)])?;
    layout.open(text);
    text.line(format!(
        "AscendC::{call}({}, {}, static_cast<{ty}>({n}), {});",
        layout.views[0], layout.views[1], layout.count
    ));
    layout.close(text);
    Ok(())
}

/// `|x|` as `max(x, -x)`: `Muls` by -1 into the destination (wrapping, so the most
/// negative value stays itself, as the simulator's absolute value wraps it), then
/// `Max` with the source. The destination may not overlap the source, which the
/// second call still reads.
fn absolute(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    ty: &str,
) -> Result<(), Unsupported> {
    let size = v.dtype.size();
    let layout = layout(program, v, &[(ty, size), (ty, size)])?;
    if overlaps(program, v) {
        return Err(unsupported(
            &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
            "the absolute value negates into the destination first, so it may not overlap the source",
        ));
    }
    let (dst, src) = (&layout.views[0], &layout.views[1]);
    layout.open(text);
    text.line(format!(
        "AscendC::Muls({dst}, {src}, static_cast<{ty}>(-1), {});",
        layout.count
    ));
    text.line(format!(
        "AscendC::Max({dst}, {src}, {dst}, {});",
        layout.count
    ));
    layout.close(text);
    Ok(())
}
