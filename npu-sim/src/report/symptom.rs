//! The one-line symptom of a report, naming the bottleneck with its numbers.
//!
//! The symptom is chosen by these rules, in order (`compute` is V, or M for a matmul):
//!
//! 1. A global-memory pipe (MTE2, MTE3, FIX) is the busiest and busy ≥ 60%:
//!    memory-bound, with the distance to the roofline or the per-core bandwidth share.
//! 2. The compute pipe is the busiest and busy ≥ 60%: compute-bound, naming the vector
//!    operation that takes the most cycles (or the cube).
//! 3. S or MTE1 is the busiest and busy ≥ 60%: loop overhead, or L1-to-L0 copies.
//! 4. Otherwise, when MTE2 and the compute pipe are together busy ≥ 60% of the time
//!    but overlap for less than a quarter of the less busy one's time: serialised.
//! 5. Otherwise: latency-bound, naming what the compute pipe (or, if it hardly waits,
//!    any pipe) waits for most, and the copy size against the DMA latency when it
//!    waits for MTE2.
//!
//! A clause on the overlap of MTE2 and the compute pipe follows when both work, with
//! the advice to use depth 2 when a depth-1 input keeps them apart.

use npu_core::ir::{CheckedKernel, CheckedSchedule, KernelClass, Role};
use npu_core::program::Pipe;
use npu_core::target::{Level, Target, VectorOp};

use crate::engine::CoreRun;
use crate::roofline::Roofline;

/// How the cores with work share global memory, and how often the critical core copies
/// each tensor: what the symptom needs beyond the critical core's run.
pub(super) struct Sharing {
    pub(super) cores: u64,
    pub(super) chip_rate: f64,
    /// Global-memory copies of each tensor (kernel order) on the critical core.
    pub(super) copies: Vec<u64>,
}

pub(super) fn symptom(
    kernel: &CheckedKernel,
    schedule: &CheckedSchedule,
    run: &CoreRun,
    bottleneck: Pipe,
    bound: &Roofline,
    efficiency: f64,
    sharing: &Sharing,
) -> (Pipe, String) {
    let copies = &sharing.copies;
    let target = &kernel.target;
    let total = run.total.max(f64::MIN_POSITIVE);
    let ratio = |pipe: Pipe| run.busy[pipe.index()] / total;
    let compute = if matches!(kernel.class, KernelClass::Matmul(_)) {
        Pipe::M
    } else {
        Pipe::V
    };
    let top = ratio(bottleneck);
    // Depth 2 overlaps the copy of an input's next tile with compute, so it is advised
    // only for a depth-1 input the core copies more than once (tests/it/advice.rs holds the
    // advice to making the schedule faster).
    let depth_one = schedule.stages.iter().any(|s| {
        s.depth == 1
            && kernel.tensors[s.tensor].role == Role::Input
            && s.level != Level::L0a
            && s.level != Level::L0b
            && copies.get(s.tensor).is_some_and(|&n| n > 1)
    });
    let mte2 = run.busy[Pipe::Mte2.index()];
    let work = run.busy[compute.index()];
    let shorter = if mte2 <= work { Pipe::Mte2 } else { compute };
    let overlap = if mte2 > 0.0 && work > 0.0 {
        run.overlap / mte2.min(work)
    } else {
        0.0
    };

    // When no pipe is busy enough to blame, the bottleneck is the pipe waited for.
    let mut blamed = bottleneck;
    let mut text = if matches!(bottleneck, Pipe::Mte2 | Pipe::Mte3 | Pipe::Fix) && top >= 0.6 {
        memory_bound(
            run,
            bottleneck,
            compute,
            (bound, efficiency),
            sharing,
            target,
        )
    } else if bottleneck == compute && top >= 0.6 {
        compute_bound(run, compute, top, target)
    } else if bottleneck == Pipe::S && top >= 0.6 {
        format!(
            "S busy {}: the loop overhead of {} iterations dominates; use larger tiles",
            percent(top),
            run.instructions[Pipe::S.index()]
        )
    } else if bottleneck == Pipe::Mte1 && top >= 0.6 {
        format!(
            "MTE1 busy {}: L1-to-L0 copies bound the cube; use a larger cube block",
            percent(top)
        )
    } else if mte2 + work >= 0.6 * total && overlap < 0.25 {
        let mut text = format!(
            "MTE2 and {compute} serialised: {} and {} busy, overlapping for {} of {shorter}'s busy time",
            percent(ratio(Pipe::Mte2)),
            percent(ratio(compute)),
            percent(overlap)
        );
        if depth_one {
            text += "; depth 1 leaves no overlap: try depth 2";
        }
        return (bottleneck, text);
    } else {
        let (source, text) = latency_bound(run, compute, top, depth_one, target);
        blamed = source;
        text
    };
    if mte2 > 0.0 && work > 0.0 && bottleneck != Pipe::S {
        text += &format!(
            "; MTE2 and {compute} overlap for {} of {shorter}'s busy time",
            percent(overlap)
        );
        if depth_one && overlap < 0.5 {
            text += ": depth 1 serialises them; depth 2 would copy the next tile during compute";
        }
    }
    (blamed, text)
}

/// The symptom of a copy pipe busy most of the run, with the roofline or the sharing
/// of global memory that explains it.
fn memory_bound(
    run: &CoreRun,
    bottleneck: Pipe,
    compute: Pipe,
    (bound, efficiency): (&Roofline, f64),
    sharing: &Sharing,
    target: &Target,
) -> String {
    let total = run.total.max(f64::MIN_POSITIVE);
    let ratio = |pipe: Pipe| run.busy[pipe.index()] / total;
    let (top, run_cores) = (ratio(bottleneck), sharing.cores);
    let chip_rate = sharing.chip_rate;
    let mut text = format!(
        "{bottleneck} busy {}, {compute} {}: memory-bound",
        percent(top),
        percent(ratio(compute))
    );
    let share = chip_rate / run_cores as f64;
    if efficiency >= 0.8 {
        text += &format!(
            "; at {} of the {} roofline",
            percent(efficiency),
            bound.bound()
        );
    } else if run_cores > 1 && share < target.dma.core_bytes_per_cycle {
        text += &format!("; {run_cores} cores share global memory at {share:.1} B/cycle each");
    }
    text
}

/// The symptom of the compute pipe busy most of the run: the cube's fractal cost, or
/// the vector operation that took the most cycles.
fn compute_bound(run: &CoreRun, compute: Pipe, top: f64, target: &Target) -> String {
    if compute == Pipe::M {
        let cycles = target.cube.as_ref().map_or(1, |c| c.cycles_per_fractal);
        format!(
            "M busy {}: compute-bound on the cube ({cycles} cycles per fractal)",
            percent(top)
        )
    } else {
        let (op, _) = VectorOp::ALL
            .iter()
            .map(|op| (*op, run.vector_by_op[*op as usize]))
            .fold((VectorOp::Add, -1.0), |best, next| {
                if next.1 > best.1 { next } else { best }
            });
        let what = if op == VectorOp::Dup {
            "broadcasts and copies".to_string()
        } else {
            op.name().to_string()
        };
        format!(
            "V busy {}: compute-bound on {what} ({} cycles/repeat)",
            percent(top),
            target.vector_cycles(op)
        )
    }
}

/// The symptom of a run no pipe keeps busy: the longest wait of the compute pipe (or,
/// when it hardly waits, of any pipe), the pipe it waits for, which is blamed, and
/// whether the copies' latency is what shows.
fn latency_bound(
    run: &CoreRun,
    compute: Pipe,
    top: f64,
    depth_one: bool,
    target: &Target,
) -> (Pipe, String) {
    let total = run.total.max(f64::MIN_POSITIVE);
    let mut blamed = Pipe::S;
    let longest = |waiters: &[Pipe]| {
        let mut worst = (Pipe::S, Pipe::S, 0.0);
        for &waiter in waiters {
            for source in Pipe::ALL {
                let stalled = run.stall_by[waiter.index()][source.index()];
                if stalled > worst.2 {
                    worst = (waiter, source, stalled);
                }
            }
        }
        worst
    };
    let mut worst = longest(&[compute]);
    if worst.2 < 0.1 * total {
        worst = longest(&Pipe::ALL);
    }
    let (waiter, source, stalled) = worst;
    let mut text = format!("no pipe busier than {}: latency-bound", percent(top));
    if stalled > 0.0 {
        blamed = source;
        text += &format!(
            "; {waiter} stalls {} waiting for {source}",
            percent(stalled / total)
        );
        let latency = target.dma.latency_cycles as f64;
        if source == Pipe::Mte2 && run.copies_in > 0 {
            let copies = run.copies_in as f64;
            let bytes = run.copy_in_bytes as f64 / copies;
            let transfer = run.copy_in_cycles / copies;
            if transfer < latency {
                text += &format!(
                    "; copies of {bytes:.0} B take {transfer:.0} cycles but land {latency:.0} cycles later"
                );
                if !depth_one {
                    text += ": larger tiles or deeper buffers hide it";
                }
            }
        }
    }
    (blamed, text)
}

fn percent(ratio: f64) -> String {
    format!("{:.0}%", ratio * 100.0)
}
