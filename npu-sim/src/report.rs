//! The simulator's report, in msprof's vocabulary: per-pipe busy, idle and stall
//! cycles of the slowest core, data moved against the minimum, buffer use, the
//! memory-bound ratio, the vector score, the roofline bound, and a one-line symptom
//! naming the bottleneck with its numbers.
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

use std::fmt;

use npu_core::ir::{CheckedKernel, CheckedSchedule, KernelClass, Role};
use npu_core::program::{Op, Pipe, Program};
use npu_core::target::{Level, Target, VectorOp};
use serde::{Deserialize, Serialize};

use crate::engine::CoreRun;
use crate::roofline::{Roofline, attainable, machine_roofline, minimum_traffic, roofline};

/// What a simulation measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The kernel's name.
    pub kernel: String,
    /// The schedule's name.
    pub schedule: String,
    /// The target's name.
    pub target: String,
    /// Cores that got work, and cores the schedule asked for.
    pub cores: u64,
    /// Cores the schedule's `parallel` items ask for.
    pub requested_cores: u64,
    /// The core that finished last, whose pipes `pipes` describes.
    pub critical_core: u32,
    /// Cycles until the last core finishes.
    pub total_cycles: u64,
    /// Instructions over all cores.
    pub instructions: u64,
    /// The pipes the program uses, in pipe order.
    pub pipes: Vec<PipeReport>,
    /// Bytes moved between memories.
    pub traffic: Traffic,
    /// The peak of each on-chip level the target has.
    pub memory: Vec<LevelUse>,
    /// MTE2 busy / max(V busy, M busy) on the critical core.
    pub memory_bound_ratio: f64,
    /// V busy / total cycles on the critical core (NPUEval's vectorisation score).
    pub vector_score: f64,
    /// The schedule's roofline bound (see [`crate::roofline`]) and which part sets it.
    pub roofline_cycles: u64,
    /// The part that sets the roofline: memory, vector or cube.
    pub roofline_bound: String,
    /// roofline / total.
    pub efficiency: f64,
    /// The bound of the whole machine (every core of the kernel's class).
    pub machine_roofline_cycles: u64,
    /// machine roofline / total.
    pub machine_efficiency: f64,
    /// The machine's bound plus what no schedule avoids (see
    /// [`crate::roofline::attainable`]), and attainable / total.
    #[serde(default)]
    pub attainable_cycles: u64,
    #[serde(default)]
    /// attainable / total.
    pub attainable_efficiency: f64,
    /// The busiest pipe, or the one waited for most when no pipe is busy.
    pub bottleneck: Pipe,
    /// What the bottleneck's numbers say, in one line, for feedback.
    pub symptom: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// One pipe of the critical core: its instructions and how its cycles were spent.
pub struct PipeReport {
    /// The pipe.
    pub pipe: Pipe,
    /// Instructions it issued.
    pub instructions: u64,
    /// Cycles executing.
    pub busy: u64,
    /// Waiting for another pipe's flag.
    pub stall: u64,
    /// Neither: done (or at the closing barrier), or waiting for S to issue.
    pub idle: u64,
    /// busy / total cycles.
    pub busy_ratio: f64,
    /// stall / total cycles.
    pub stall_ratio: f64,
}

/// Bytes moved over all cores (padded copies count their padding).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Traffic {
    /// Bytes read from global memory.
    pub gm_read: u64,
    /// Bytes written to global memory.
    pub gm_written: u64,
    /// Each input element read once, each output written once.
    pub minimum_gm_read: u64,
    /// Each output element written once.
    pub minimum_gm_written: u64,
    /// Bytes copied into UB.
    pub ub_in: u64,
    /// Bytes copied out of UB.
    pub ub_out: u64,
    /// Bytes copied into L1.
    pub l1_in: u64,
    /// Bytes copied out of L1.
    pub l1_out: u64,
    /// Bytes loaded into L0A.
    pub l0a_in: u64,
    /// Bytes loaded into L0B.
    pub l0b_in: u64,
    /// Bytes moved out of L0C.
    pub l0c_out: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// How much of one on-chip level the program used at its peak.
pub struct LevelUse {
    /// The level.
    pub level: Level,
    /// The most bytes in use at once.
    pub peak: u64,
    /// The level's size on the target.
    pub capacity: u64,
}

/// One simulated class of cores: its run, how many cores ran it, and its first core.
pub(crate) struct ClassRun {
    pub run: CoreRun,
    pub cores: u64,
    pub first_core: u32,
}

/// Each pipe that ran an instruction: its busy, stalled and idle cycles of the run.
fn pipe_reports(run: &CoreRun, total_cycles: u64) -> Vec<PipeReport> {
    let total = run.total.max(f64::MIN_POSITIVE);
    Pipe::ALL
        .iter()
        .filter(|p| run.instructions[p.index()] > 0)
        .map(|&pipe| {
            let busy = run.busy[pipe.index()];
            let stall = run.stall[pipe.index()];
            let busy_cycles = busy.round() as u64;
            let stall_cycles = stall.round() as u64;
            PipeReport {
                pipe,
                instructions: run.instructions[pipe.index()],
                busy: busy_cycles,
                stall: stall_cycles,
                idle: total_cycles.saturating_sub(busy_cycles + stall_cycles),
                busy_ratio: busy / total,
                stall_ratio: stall / total,
            }
        })
        .collect()
}

/// The bytes every class of cores moved, times its cores, beside the least any
/// schedule moves.
fn traffic(kernel: &CheckedKernel, runs: &[ClassRun]) -> Traffic {
    let (minimum_gm_read, minimum_gm_written) = minimum_traffic(kernel);
    let mut traffic = Traffic {
        minimum_gm_read,
        minimum_gm_written,
        ..Traffic::default()
    };
    for class in runs {
        let r = &class.run;
        let n = class.cores;
        traffic.gm_read += r.gm_read * n;
        traffic.gm_written += r.gm_written * n;
        traffic.ub_in += r.into[0] * n;
        traffic.ub_out += r.out_of[0] * n;
        traffic.l1_in += r.into[1] * n;
        traffic.l1_out += r.out_of[1] * n;
        traffic.l0a_in += r.into[2] * n;
        traffic.l0b_in += r.into[3] * n;
        traffic.l0c_out += r.out_of[4] * n;
    }
    traffic
}

/// The pipe busiest in the run; S only when it is the only pipe.
fn busiest(pipes: &[PipeReport]) -> Pipe {
    pipes
        .iter()
        .filter(|p| p.pipe != Pipe::S || pipes.len() == 1)
        .fold(None::<&PipeReport>, |best, p| match best {
            Some(b) if b.busy >= p.busy => Some(b),
            _ => Some(p),
        })
        .map_or(Pipe::S, |p| p.pipe)
}

pub(crate) fn build(
    kernel: &CheckedKernel,
    schedule: &CheckedSchedule,
    program: &Program,
    runs: &[ClassRun],
) -> Report {
    let critical = runs
        .iter()
        .enumerate()
        .max_by(|(ia, a), (ib, b)| a.run.total.total_cmp(&b.run.total).then(ib.cmp(ia)))
        .map(|(_, r)| r);
    let empty = ClassRun {
        run: CoreRun::default(),
        cores: 0,
        first_core: 0,
    };
    let critical = critical.unwrap_or(&empty);
    let run = &critical.run;
    let total = run.total.max(f64::MIN_POSITIVE);
    let total_cycles = run.total.ceil() as u64;

    let pipes = pipe_reports(run, total_cycles);
    let traffic = traffic(kernel, runs);
    let memory = Level::ALL
        .iter()
        .filter(|l| kernel.target.capacity(**l) > 0)
        .map(|&level| LevelUse {
            level,
            peak: program.peak(level),
            capacity: kernel.target.capacity(level),
        })
        .collect();

    let busy = |pipe: Pipe| run.busy[pipe.index()];
    let compute = busy(Pipe::V).max(busy(Pipe::M));
    let memory_bound_ratio = if compute > 0.0 {
        busy(Pipe::Mte2) / compute
    } else {
        0.0
    };
    let vector_score = busy(Pipe::V) / total;
    let bound = roofline(kernel, schedule);
    let machine = machine_roofline(kernel);
    let attainable = attainable(kernel);
    let ratio = |bound: u64| {
        if total_cycles > 0 {
            bound as f64 / total_cycles as f64
        } else {
            0.0
        }
    };
    let bottleneck = busiest(&pipes);
    let (bottleneck, symptom) = symptom(
        kernel,
        schedule,
        run,
        bottleneck,
        &bound,
        ratio(bound.cycles),
        &Sharing {
            cores: program.active_cores(),
            chip_rate: crate::costs::Demand::of(kernel, program).chip_rate(&kernel.target),
            copies: copies_per_tensor(program, critical.first_core),
        },
    );
    Report {
        kernel: kernel.name.clone(),
        schedule: schedule.name.clone(),
        target: kernel.target.name.clone(),
        cores: program.active_cores(),
        requested_cores: program.requested_cores,
        critical_core: critical.first_core,
        total_cycles,
        instructions: program.instruction_count(),
        pipes,
        traffic,
        memory,
        memory_bound_ratio,
        vector_score,
        roofline_cycles: bound.cycles,
        roofline_bound: bound.bound().to_string(),
        efficiency: ratio(bound.cycles),
        machine_roofline_cycles: machine.cycles,
        machine_efficiency: ratio(machine.cycles),
        attainable_cycles: attainable.cycles,
        attainable_efficiency: ratio(attainable.cycles),
        bottleneck,
        symptom,
    }
}

fn percent(ratio: f64) -> String {
    format!("{:.0}%", ratio * 100.0)
}

/// How the cores with work share global memory, and how often the critical core copies
/// each tensor: what the symptom needs beyond the critical core's run.
struct Sharing {
    cores: u64,
    chip_rate: f64,
    /// Global-memory copies of each tensor (kernel order) on the critical core.
    copies: Vec<u64>,
}

/// Global-memory copies of each tensor (kernel order) on `core`.
fn copies_per_tensor(program: &Program, core: u32) -> Vec<u64> {
    let mut copies = vec![0; program.tensors.len()];
    let Some(assignment) = program.cores.iter().find(|c| c.core == core) else {
        return copies;
    };
    for (instr, weight) in program.code(assignment).weighted(Pipe::Mte2) {
        if let Op::CopyIn { tensor, .. } = instr.op
            && let Some(count) = copies.get_mut(usize::from(tensor))
        {
            *count += weight;
        }
    }
    copies
}

fn symptom(
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

/// The traffic lines of a report: global memory against the minimum, then each
/// on-chip level's bytes in and out, when any moved.
fn write_traffic(f: &mut fmt::Formatter<'_>, t: &Traffic) -> fmt::Result {
    let times = |moved: u64, minimum: u64| {
        if minimum > 0 {
            format!("{:.2}x", moved as f64 / minimum as f64)
        } else {
            "-".into()
        }
    };
    writeln!(
        f,
        "gm read {} B ({} the minimum {} B), gm written {} B ({} the minimum {} B)",
        t.gm_read,
        times(t.gm_read, t.minimum_gm_read),
        t.minimum_gm_read,
        t.gm_written,
        times(t.gm_written, t.minimum_gm_written),
        t.minimum_gm_written
    )?;
    let mut moved = Vec::new();
    for (name, bytes) in [
        ("ub in", t.ub_in),
        ("ub out", t.ub_out),
        ("l1 in", t.l1_in),
        ("l1 out", t.l1_out),
        ("l0a in", t.l0a_in),
        ("l0b in", t.l0b_in),
        ("l0c out", t.l0c_out),
    ] {
        if bytes > 0 {
            moved.push(format!("{name} {bytes} B"));
        }
    }
    if !moved.is_empty() {
        writeln!(f, "{}", moved.join(", "))?;
    }
    Ok(())
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}.{} on {}: {} cycles on {} of {} cores (slowest core {}), {} instructions",
            self.kernel,
            self.schedule,
            self.target,
            self.total_cycles,
            self.cores,
            self.requested_cores,
            self.critical_core,
            self.instructions
        )?;
        writeln!(
            f,
            "roofline {} cycles ({}-bound), efficiency {:.1}%; machine roofline {} cycles, {:.1}%; attainable {} cycles, {:.1}%",
            self.roofline_cycles,
            self.roofline_bound,
            self.efficiency * 100.0,
            self.machine_roofline_cycles,
            self.machine_efficiency * 100.0,
            self.attainable_cycles,
            self.attainable_efficiency * 100.0
        )?;
        writeln!(
            f,
            "pipe  instructions       busy      stall       idle   busy%  stall%"
        )?;
        for p in &self.pipes {
            writeln!(
                f,
                "{:<5} {:>12} {:>10} {:>10} {:>10} {:>6.1}% {:>6.1}%",
                p.pipe.name(),
                p.instructions,
                p.busy,
                p.stall,
                p.idle,
                p.busy_ratio * 100.0,
                p.stall_ratio * 100.0
            )?;
        }
        write_traffic(f, &self.traffic)?;
        let used: Vec<String> = self
            .memory
            .iter()
            .filter(|m| m.peak > 0)
            .map(|m| {
                format!(
                    "{} {} of {} B ({:.1}%)",
                    m.level,
                    m.peak,
                    m.capacity,
                    m.peak as f64 * 100.0 / m.capacity as f64
                )
            })
            .collect();
        writeln!(
            f,
            "peak {}",
            if used.is_empty() {
                "none".to_string()
            } else {
                used.join(", ")
            }
        )?;
        writeln!(
            f,
            "memory-bound ratio {:.2}, vector score {:.1}%",
            self.memory_bound_ratio,
            self.vector_score * 100.0
        )?;
        writeln!(f, "bottleneck {}: {}", self.bottleneck, self.symptom)
    }
}
