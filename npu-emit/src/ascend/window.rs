//! A fold whose terms the count form cannot read as they lie, vectorised across its
//! outputs: a pooling or convolution window (a source strided along the outputs), a
//! run that starts unaligned, a multiply-accumulate fold.
//!
//! The accumulators (the destination) are contiguous over the outputs from an aligned
//! start. For each reduced position, in index order, each source's term of every
//! output is gathered into contiguous staging (`Gather` through an offset table built
//! once per instruction, moved on to the position by `srcBaseAddr`), cast to the
//! accumulator's dtype where the two differ (f16 to f32: exact), multiplied where the
//! fold has two sources (`Mul` in the accumulator's dtype: the simulator rounds each
//! product to it), and folded into the accumulators by one `Add`, `Max` or `Min`.
//! Each accumulator so takes its terms in index order, each step rounded as npu-core's
//! `scalar::reduce_step_in` rounds it: the index-order fold, bit for bit. Each call
//! that reads what the call before it wrote waits for it behind a `PipeBarrier<PIPE_V>`.
//!
//! The tables and the staging live in scratch after the program's buffers
//! ([`scratch`] says how much); a fold whose scratch would end past the room is left
//! to the scalar fold.

use npu_core::Dtype;
use npu_core::ir::ReduceOp;
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::names::c_type;
use super::offsets::{Scratch, gather_calls_from, scratch_address, table_at};
use super::view::{barrier, contiguous, ub_view as view};
use crate::text::Text;

/// The names of the offset tables of a fold's first and second source.
const TABLES: [&str; 2] = ["offsets", "offsets_b"];

/// How a fold runs across its outputs.
struct Plan {
    op: ReduceOp,
    /// Each source's address and byte strides along the box (one or two sources).
    sources: Vec<(u32, Vec<u64>)>,
    /// The sources' dtype and C++ type.
    source: (Dtype, &'static str),
    /// The accumulators' dtype and C++ type.
    accumulator: (Dtype, &'static str),
    /// The box with each reduced dimension 1.
    outputs: Vec<u64>,
    /// The reduced dimensions (the destination's stride 0): index and extent.
    reduced: Vec<(usize, u64)>,
    /// Elements of one gather: the outputs.
    count: u64,
}

/// Where each piece of a plan's scratch starts.
struct Layout {
    tables: Vec<u64>,
    gathered: Vec<u64>,
    cast: Vec<u64>,
    product: u64,
    end: u64,
}

/// The scratch a fold written across its outputs needs past the program's buffers, or
/// `None` when it is not written so (or would not end by `room`).
pub(super) fn scratch(program: &Program, v: &VectorInstr, room: u64) -> Option<u64> {
    let plan = plan(program, v)?;
    let layout = layout(program, &plan);
    (layout.end <= room).then(|| layout.end - scratch_address(program))
}

/// Writes `v` across its outputs if it is such a fold and its scratch fits below
/// `room`; `false` leaves it to the scalar fold.
pub(super) fn window(text: &mut Text, program: &Program, v: &VectorInstr, room: u64) -> bool {
    let Some(plan) = plan(program, v) else {
        return false;
    };
    let layout = layout(program, &plan);
    if layout.end > room {
        return false;
    }
    text.comment(&format!(
        "{} {} into {}: across {} outputs, one reduced position at a time in index order, each term gathered",
        v.kind.mnemonic(),
        v.dtype.name(),
        plan.accumulator.0.name(),
        plan.count
    ));
    for (index, (address, strides)) in plan.sources.iter().enumerate() {
        let start = u64::from(address % 32);
        let place = (layout.tables[index], TABLES[index]);
        table_at(text, place, &plan.outputs, (start, &|d| strides[d]), None);
    }
    barrier(text);
    for (d, len) in &plan.reduced {
        text.open(format!("for (uint64_t w{d} = 0; w{d} < {len}; ++w{d})"));
    }
    let term = terms(text, &plan, &layout);
    let call = match plan.op {
        ReduceOp::Max => "Max",
        ReduceOp::Min => "Min",
        _ => "Add",
    };
    let acc = view(v.dst.into(), plan.accumulator.1);
    text.line(format!(
        "AscendC::{call}({acc}, {acc}, {term}, {});",
        plan.count
    ));
    barrier(text);
    for _ in plan
        .reduced
        .iter()
        .map(|_| ())
        .chain(plan.sources.iter().map(|_| ()))
    {
        text.close("");
    }
    true
}

/// Gathers (and casts, and multiplies) the terms of one reduced position; returns the
/// view holding them.
fn terms(text: &mut Text, plan: &Plan, layout: &Layout) -> String {
    let (source, ty) = plan.source;
    for (index, (address, strides)) in plan.sources.iter().enumerate() {
        let shift: Vec<String> = plan
            .reduced
            .iter()
            .map(|(d, _)| format!("w{d} * {}", strides[*d]))
            .collect();
        let shift = match shift.is_empty() {
            true => "0".to_string(),
            false => format!("static_cast<uint32_t>({})", shift.join(" + ")),
        };
        let place = (layout.gathered[index], address / 32 * 32, TABLES[index]);
        gather_calls_from(text, (ty, source.size()), place, &shift, plan.count);
    }
    barrier(text);
    let (accumulator, acc_ty) = plan.accumulator;
    let mut staged = layout.gathered.clone();
    if accumulator != source {
        for (gathered, cast) in layout.gathered.iter().zip(&layout.cast) {
            text.line(format!(
                "AscendC::Cast({}, {}, AscendC::RoundMode::CAST_NONE, {});",
                view(*cast, acc_ty),
                view(*gathered, ty),
                plan.count
            ));
        }
        barrier(text);
        staged.clone_from(&layout.cast);
    }
    if let [a, b] = staged[..] {
        text.line(format!(
            "AscendC::Mul({}, {}, {}, {});",
            view(layout.product, acc_ty),
            view(a, acc_ty),
            view(b, acc_ty),
            plan.count
        ));
        barrier(text);
        return view(layout.product, acc_ty);
    }
    view(staged[0], acc_ty)
}

/// The plan of a sum, max or min fold of f16 or f32 terms (one source, or two
/// multiplied for a sum) into an accumulator that holds them exactly, whose
/// destination is contiguous over the outputs from an aligned start.
fn plan(program: &Program, v: &VectorInstr) -> Option<Plan> {
    let VectorKind::Reduce(op, accumulator) = v.kind else {
        return None;
    };
    let sources = match (op, v.src) {
        (
            ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min,
            [Operand::Ub { address, strides }, Operand::None, _],
        ) => {
            vec![(address, strides)]
        }
        (
            ReduceOp::Sum,
            [
                Operand::Ub { address, strides },
                Operand::Ub {
                    address: b,
                    strides: b_strides,
                },
                _,
            ],
        ) => {
            vec![(address, strides), (b, b_strides)]
        }
        _ => return None,
    };
    let widening = accumulator == Dtype::F32 && v.dtype == Dtype::F16;
    if !(accumulator == v.dtype || widening) || !v.dtype.is_float() {
        return None;
    }
    let extents = &program.boxes[v.shape as usize];
    let dst_strides = &program.strides[v.dst_strides as usize];
    let reduced: Vec<(usize, u64)> = (0..extents.len())
        .filter(|&d| dst_strides[d] == 0 && extents[d] > 1)
        .map(|d| (d, extents[d]))
        .collect();
    let outputs: Vec<u64> = (0..extents.len())
        .map(|d| if dst_strides[d] == 0 { 1 } else { extents[d] })
        .collect();
    let accumulators = (v.dst, v.dst_strides, "", accumulator.size());
    if !contiguous(program, &outputs, accumulators) {
        return None;
    }
    Some(Plan {
        op,
        sources: sources
            .into_iter()
            .map(|(address, strides)| (address, program.strides[strides as usize].clone()))
            .collect(),
        source: (v.dtype, c_type(v.dtype)?),
        accumulator: (accumulator, c_type(accumulator)?),
        count: outputs.iter().product(),
        outputs,
        reduced,
    })
}

/// Where a plan's tables and staging go, each 32-byte aligned, from the scratch's
/// start.
fn layout(program: &Program, plan: &Plan) -> Layout {
    let mut scratch = Scratch::of(program);
    let mut take = |bytes: u64| scratch.take(bytes);
    let tables = plan.sources.iter().map(|_| take(plan.count * 4)).collect();
    let gathered = plan
        .sources
        .iter()
        .map(|_| take(plan.count * plan.source.0.size()))
        .collect();
    let casts = plan.accumulator.0 != plan.source.0;
    let cast = match casts {
        true => plan
            .sources
            .iter()
            .map(|_| take(plan.count * plan.accumulator.0.size()))
            .collect(),
        false => Vec::new(),
    };
    let product = match plan.sources.len() {
        2 => take(plan.count * plan.accumulator.0.size()),
        _ => 0,
    };
    Layout {
        tables,
        gathered,
        cast,
        product,
        end: scratch.end(),
    }
}
