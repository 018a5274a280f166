//! Instructions the simulator steps through one element at a time, in index order
//! (innermost dimension fastest): arg reductions (`vreduce.argmax`, `argmin`) and
//! scans (`vscan.sum`, `vscan.prod`), written the same way on the scalar unit.
//!
//! Ascend C has no call that keeps this order: `ReduceMax` with its index and
//! `CumSum` work in trees or blocks, which changes which of equal values wins and how
//! a running sum rounds. So the element loop is written as `GetValue`/`SetValue`
//! between the `V_S` and `S_V` flags the `reduce` module uses (exact, and slow on the
//! device). An arg reduction along a contiguous row is the `arg` module's first, a
//! scan the `scan` module's: this loop is what they leave.
//!
//! - An arg reduction's element takes over the best value so far (the second source)
//!   when npu-core's `scalar::arg_takes` says so: the best is not NaN, and the element
//!   is NaN or strictly better; then the index (the destination) becomes the origin
//!   (the third source, a constant) plus the element's position along the last
//!   dimension.
//! - A scan's running value (the second source) steps by `scalar::scan_step` in the
//!   accumulator dtype (a NaN running value stays as it is, as in `FoldSum`), and the
//!   element gets it rounded to the instruction's dtype.

use npu_core::Dtype;
use npu_core::ir::{ReduceOp, ScanOp};
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::names::{c_type, unsupported};
use crate::output::Unsupported;
use crate::text::Text;

/// Whether this module writes `v`.
pub(super) fn writes(v: &VectorInstr) -> bool {
    match v.kind {
        VectorKind::Reduce(op, _) => op.is_arg(),
        _ => v.kind.scan().is_some(),
    }
}

/// Writes `v` (one of those `writes` accepts).
pub(super) fn stepwise(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
) -> Result<(), Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let (
        Operand::Ub { address, strides },
        Operand::Ub {
            address: carry,
            strides: carry_strides,
        },
    ) = (v.src[0], v.src[1])
    else {
        return Err(unsupported(
            &construct,
            "the source and the running value must be in the UB",
        ));
    };
    let (body, accumulator) = match v.kind {
        VectorKind::Reduce(op, accumulator) => {
            (arg_body(program, v, op, accumulator)?, accumulator)
        }
        _ => {
            let (op, accumulator) = v.kind.scan().unwrap_or((ScanOp::Sum, v.dtype));
            (scan_body(v, op, accumulator)?, accumulator)
        }
    };
    let indices = [
        (v.dst, v.dst_strides),
        (address, strides),
        (carry, carry_strides),
    ];
    text.comment(&format!(
        "{construct} in {}: stepped in index order on the scalar unit",
        accumulator.name()
    ));
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    let extents = &program.boxes[v.shape as usize];
    let mut expressions = indices.map(|(address, _)| address.to_string());
    for (d, len) in extents.iter().enumerate() {
        text.open(format!("for (uint64_t r{d} = 0; r{d} < {len}; ++r{d})"));
        for (expression, (_, strides)) in expressions.iter_mut().zip(&indices) {
            let stride = program.strides[*strides as usize][d];
            expression.push_str(&format!(" + r{d} * {stride}"));
        }
    }
    let [dst, src, carry] = expressions;
    let last = extents.len().saturating_sub(1);
    for line in body.lines() {
        text.line(
            line.replace("DST", &dst)
                .replace("SRC", &src)
                .replace("CARRY", &carry)
                .replace("POSITION", &format!("r{last}")),
        );
    }
    for _ in extents {
        text.close("");
    }
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
    Ok(())
}

/// The loop body of an arg reduction: values compared in `accumulator` (half or
/// float), the index an int32, the origin a constant.
fn arg_body(
    program: &Program,
    v: &VectorInstr,
    op: ReduceOp,
    accumulator: Dtype,
) -> Result<String, Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let (Some(value), true, Dtype::I32) = (c_type(accumulator), accumulator.is_float(), v.dtype)
    else {
        return Err(unsupported(
            &construct,
            "only an int32 index over half or float values is written",
        ));
    };
    let Operand::Scalar(origin) = v.src[2] else {
        return Err(unsupported(
            &construct,
            "the origin of the index must be a constant",
        ));
    };
    let origin = program.constants[origin as usize];
    let better = if op == ReduceOp::ArgMin { "<" } else { ">" };
    let size = accumulator.size();
    Ok(format!(
        "const {value} x = ub.ReinterpretCast<{value}>().GetValue((SRC) / {size});\n\
         const {value} best = ub.ReinterpretCast<{value}>().GetValue((CARRY) / {size});\n\
         if (best == best && (x != x || x {better} best)) {{\n\
         \x20   ub.ReinterpretCast<{value}>().SetValue((CARRY) / {size}, x);\n\
         \x20   ub.ReinterpretCast<int32_t>().SetValue((DST) / 4, static_cast<int32_t>({origin} + POSITION));\n\
         }}"
    ))
}

/// The loop body of a scan: the running value in `accumulator`, which holds every
/// element value, both floats.
fn scan_body(v: &VectorInstr, op: ScanOp, accumulator: Dtype) -> Result<String, Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let floats = v.dtype.is_float() && accumulator.is_float() && accumulator.holds(v.dtype);
    let (Some(ty), Some(acc), true) = (c_type(v.dtype), c_type(accumulator), floats) else {
        return Err(unsupported(
            &construct,
            "only float scans whose accumulator holds every element value are written",
        ));
    };
    let step = if op == ScanOp::Prod { "*" } else { "+" };
    let (size, acc_size) = (v.dtype.size(), accumulator.size());
    Ok(format!(
        "const {acc} x = static_cast<{acc}>(ub.ReinterpretCast<{ty}>().GetValue((SRC) / {size}));\n\
         const {acc} acc = ub.ReinterpretCast<{acc}>().GetValue((CARRY) / {acc_size});\n\
         const {acc} carry = acc != acc ? acc : static_cast<{acc}>(acc {step} x);\n\
         ub.ReinterpretCast<{acc}>().SetValue((CARRY) / {acc_size}, carry);\n\
         ub.ReinterpretCast<{ty}>().SetValue((DST) / {size}, static_cast<{ty}>(carry));"
    ))
}
