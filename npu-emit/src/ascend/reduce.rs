//! `vreduce.sum`, `vreduce.max` and `vreduce.min`: on the vector unit where a vector
//! call keeps the fold's result, else as an order-preserving fold on the scalar unit.
//!
//! - A fold whose box runs along outputs innermost (a column sum, a vector-matrix
//!   product's fold over the rows) is one elementwise `Add`/`Max`/`Min` per reduced
//!   position into the accumulators, the positions in index order: each step rounds
//!   as the simulator's does.
//! - A max or min along a contiguous run is `WholeReduceMax`/`WholeReduceMin` (the
//!   `whole_reduce` module): no order changes it.
//! - A fold whose accumulators are contiguous (a pooling or convolution window, a
//!   run that starts unaligned, a multiply-accumulate sum) gathers each reduced
//!   position's terms across the outputs and folds them with one elementwise call
//!   (the `window` module).
//! - Any other fold (one whose staging does not fit after the program's buffers)
//!   runs on the scalar unit, as below.
//!
//! The program folds each element of the box into its accumulator in index order,
//! each step rounded to the accumulator's dtype (npu-core's `scalar::reduce_step_in`);
//! the simulator and the host reference do the same. The Ascend C reduction calls
//! (`ReduceSum`, `WholeReduceSum`, `BlockReduceSum`) add in a tree, which would change
//! the rounding, so the fold is written as a loop of `GetValue`/`SetValue` on the
//! scalar unit in the same order, between a `V_S` flag (the vector unit's earlier work
//! is done) and an `S_V` flag (the vector unit waits for the fold). Those two flags are
//! the emitter's own, id 0 of pipe pairs the program does not use. It is slow on the
//! device and exact.

use npu_core::ir::{BinaryOp, ReduceOp};
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::names::{c_type, unsupported};
use super::view::{View, aligned, flatten};
use crate::output::Unsupported;
use crate::text::Text;

/// The helpers a fold calls. `FoldSum` keeps a NaN accumulator as it is (IEEE 754
/// leaves open which NaN a sum of NaNs gives; the simulator keeps the accumulator's);
/// `FoldMax`/`FoldMin` are npu-core's `scalar::max`/`min` (a NaN operand gives the
/// other; +0 is larger than -0: two zeros give their sum, or the negated sum of their
/// negations, which is that zero without a sign-bit test).
pub(super) const HELPERS: &str = "\
template <typename T> __aicore__ inline T FoldSum(T acc, T x) {
    return acc != acc ? acc : static_cast<T>(acc + x);
}
template <typename T> __aicore__ inline T FoldMax(T acc, T x) {
    return acc != acc ? x : (x != x ? acc : (acc == x ? (acc == T(0) ? static_cast<T>(acc + x) : acc) : (acc > x ? acc : x)));
}
template <typename T> __aicore__ inline T FoldMin(T acc, T x) {
    return acc != acc ? x : (x != x ? acc : (acc == x ? (acc == T(0) ? static_cast<T>(-(-acc + -x)) : acc) : (acc < x ? acc : x)));
}";

pub(super) fn reduce(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    room: u64,
) -> Result<(), Unsupported> {
    let VectorKind::Reduce(op, accumulator) = v.kind else {
        return Ok(());
    };
    if across_outputs(text, program, v, op)
        || super::whole_reduce::whole_reduce(text, program, v)
        || super::window::window(text, program, v, room)
    {
        return Ok(());
    }
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let fold = match op {
        ReduceOp::Sum => "FoldSum(acc, x)",
        ReduceOp::Max => "FoldMax(acc, x)",
        ReduceOp::Min => "FoldMin(acc, x)",
        ReduceOp::ArgMax | ReduceOp::ArgMin => {
            return Err(unsupported(
                &construct,
                "arg reductions are not written yet",
            ));
        }
    };
    let (Operand::Ub { address, strides }, Operand::None) = (v.src[0], v.src[1]) else {
        return Err(unsupported(
            &construct,
            "a multiply-accumulate fold whose staging does not fit after the program's buffers",
        ));
    };
    let floats = v.dtype.is_float() && accumulator.is_float();
    let (Some(source_type), Some(acc_type), true) = (c_type(v.dtype), c_type(accumulator), floats)
    else {
        return Err(unsupported(
            &construct,
            "only f16 and f32 folds are written",
        ));
    };
    if !accumulator.holds(v.dtype) {
        return Err(unsupported(
            &construct,
            "the accumulator does not hold every source value, so converting first would round",
        ));
    }
    let extents = &program.boxes[v.shape as usize];
    let dst_strides = &program.strides[v.dst_strides as usize];
    let src_strides = &program.strides[strides as usize];
    text.comment(&format!(
        "{construct} into {}: folded in index order on the scalar unit",
        accumulator.name()
    ));
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    let mut dst_index = v.dst.to_string();
    let mut src_index = address.to_string();
    for (d, len) in extents.iter().enumerate() {
        text.open(format!("for (uint64_t r{d} = 0; r{d} < {len}; ++r{d})"));
        dst_index.push_str(&format!(" + r{d} * {}", dst_strides[d]));
        src_index.push_str(&format!(" + r{d} * {}", src_strides[d]));
    }
    let (acc_bytes, src_bytes) = (accumulator.size(), v.dtype.size());
    text.line(format!("const uint64_t at = ({dst_index}) / {acc_bytes};"));
    text.line(format!(
        "const {acc_type} x = static_cast<{acc_type}>(ub.ReinterpretCast<{source_type}>().GetValue(({src_index}) / {src_bytes}));"
    ));
    text.line(format!(
        "const {acc_type} acc = ub.ReinterpretCast<{acc_type}>().GetValue(at);"
    ));
    text.line(format!(
        "ub.ReinterpretCast<{acc_type}>().SetValue(at, static_cast<{acc_type}>({fold}));"
    ));
    for _ in extents {
        text.close("");
    }
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
    Ok(())
}

/// Writes a fold whose box runs along outputs innermost as one elementwise call per
/// reduced position (`accumulator = accumulator op source`), in index order, if the
/// accumulator is the source's dtype and the count form reads every operand as it
/// lies; `false` leaves it to the other forms.
fn across_outputs(text: &mut Text, program: &Program, v: &VectorInstr, op: ReduceOp) -> bool {
    let VectorKind::Reduce(_, accumulator) = v.kind else {
        return false;
    };
    let binary = match op {
        ReduceOp::Sum => BinaryOp::Add,
        ReduceOp::Max => BinaryOp::Max,
        ReduceOp::Min => BinaryOp::Min,
        ReduceOp::ArgMax | ReduceOp::ArgMin => return false,
    };
    let (Operand::Ub { address, strides }, Operand::None, Some(ty)) =
        (v.src[0], v.src[1], c_type(v.dtype))
    else {
        return false;
    };
    let size = v.dtype.size();
    let operands: Vec<View> = vec![
        (v.dst, v.dst_strides, ty, size),
        (v.dst, v.dst_strides, ty, size),
        (address, strides, ty, size),
    ];
    let laid_out =
        flatten(program, v, &operands).is_ok_and(|(loops, _)| aligned(&operands, &loops));
    if accumulator != v.dtype || !laid_out {
        return false;
    }
    let step = VectorInstr {
        kind: VectorKind::Binary(binary),
        src: [
            Operand::Ub {
                address: v.dst,
                strides: v.dst_strides,
            },
            v.src[0],
            Operand::None,
        ],
        ..*v
    };
    let mut attempt = text.nested();
    if super::vector::vector(&mut attempt, program, &step, v.dtype).is_err() {
        return false;
    }
    text.comment(&format!(
        "{} {}: one elementwise step per reduced position, in index order",
        v.kind.mnemonic(),
        v.dtype.name()
    ));
    text.append(attempt);
    true
}
