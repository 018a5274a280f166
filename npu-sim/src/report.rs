//! The simulator's report, in msprof's vocabulary: per-pipe busy, idle and stall
//! cycles of the slowest core, data moved against the minimum, buffer use, the
//! memory-bound ratio, the vector score, the roofline bound, and a one-line symptom
//! naming the bottleneck with its numbers.
//!
//! This file holds the report's data and builds it from a run; `symptom` chooses the
//! one-line symptom, and `display` writes the report as text.

use npu_core::ir::{CheckedKernel, CheckedSchedule};
use npu_core::program::{Op, Pipe, Program};
use npu_core::target::Level;
use serde::{Deserialize, Serialize};

use crate::engine::CoreRun;
use crate::roofline::{attainable, machine_roofline, minimum_traffic, roofline};

mod display;
mod symptom;

use symptom::{Sharing, symptom};

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
