//! The core model: runs one core's streams, in order within each pipe and concurrently
//! across pipes, with flags, barriers and the scalar unit's issue order; optionally
//! executes every instruction on real data as it starts.
//!
//! Instructions are taken in order of their start times across the pipes (the
//! earliest startable instruction of any pipe next), so the core's DMA port is handed
//! out first come, first served, and data effects happen in an order a correctly
//! synchronised program cannot tell from the hardware's.

use npu_core::program::{CoreCode, Instr, Op, Pipe, Program};
use npu_core::target::{Level, VectorOp};

mod collapse;
mod deadlock;

use crate::costs::Costs;
use crate::machine::{Fault, Machine};
use crate::trace::TraceEvent;
use crate::{MAX_CYCLES, SimError};

/// What one run of a core measured.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoreRun {
    pub total: f64,
    pub busy: [f64; 7],
    pub stall: [f64; 7],
    /// Stall of each pipe by the pipe whose flag it waited for.
    pub stall_by: [[f64; 7]; 7],
    pub instructions: [u64; 7],
    pub gm_read: u64,
    pub gm_written: u64,
    pub into: [u64; 5],
    pub out_of: [u64; 5],
    pub copies_in: u64,
    pub copy_in_cycles: f64,
    pub copy_in_bytes: u64,
    pub vector_by_op: ByOp,
    /// Cycles in which MTE2 and the compute pipe (V or M) were both busy.
    pub overlap: f64,
    pub executed: u64,
    /// Of `executed`, the instructions the collapse advanced over.
    pub collapsed: u64,
}

/// Vector cycles per operation, indexed by `VectorOp as usize`. A newtype because
/// arrays longer than 32 have no `Default`.
#[derive(Clone, Debug)]
pub(crate) struct ByOp(pub [f64; VectorOp::ALL.len()]);

impl Default for ByOp {
    fn default() -> ByOp {
        ByOp([0.0; VectorOp::ALL.len()])
    }
}

impl std::ops::Deref for ByOp {
    type Target = [f64; VectorOp::ALL.len()];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for ByOp {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// Runs one core. `machine` is given when executing on data; `collapse` (timing only,
/// without a trace) advances over repeating iterations by arithmetic (see
/// [`collapse`]).
#[allow(clippy::too_many_arguments)] // The engine's inputs are all distinct; a struct would only rename them.
pub(crate) fn run(
    program: &Program,
    code: &CoreCode,
    core: u32,
    gm_base: &[u64],
    costs: &Costs,
    mut machine: Option<&mut Machine>,
    mut trace: Option<&mut Vec<TraceEvent>>,
    budget: u64,
    collapse: bool,
) -> Result<CoreRun, SimError> {
    let mut engine = Engine::new(code, costs);
    let mut collapse =
        (collapse && machine.is_none() && trace.is_none()).then(collapse::Collapse::default);
    let compute_pipe = if code.stream(Pipe::M).is_empty() {
        Pipe::V
    } else {
        Pipe::M
    };
    let mut mte2_busy: Vec<(f64, f64)> = Vec::with_capacity(code.stream(Pipe::Mte2).len());
    let mut compute_busy: Vec<(f64, f64)> = Vec::with_capacity(code.stream(compute_pipe).len());
    let mut run = CoreRun::default();
    loop {
        let mut best = usize::MAX;
        let mut best_start = f64::INFINITY;
        let mut unfinished = false;
        for slot in 0..engine.active.len() {
            let pipe = engine.active[slot];
            if engine.pc[pipe] >= code.streams[pipe].len() {
                continue;
            }
            unfinished = true;
            if engine.dirty[pipe] {
                engine.update(pipe);
            }
            if engine.blocked[pipe] == Blocked::No && engine.candidate[pipe] < best_start {
                best_start = engine.candidate[pipe];
                best = pipe;
            }
        }
        if !unfinished {
            break;
        }
        if best == usize::MAX {
            return Err(engine.deadlock(program, core));
        }
        if let Some(collapse) = collapse.as_mut()
            && !engine.inexact
            && collapse::Collapse::at_checkpoint(&engine, best)
        {
            let outside = collapse::Outside {
                run: &mut run,
                mte2_busy: &mut mte2_busy,
                compute_busy: &mut compute_busy,
                budget,
            };
            if collapse.checkpoint(&mut engine, best_start, outside) {
                continue;
            }
        }
        run.executed += 1;
        if run.executed > budget {
            return Err(SimError::InstructionBudget {
                limit: budget,
                needed: run.executed,
            });
        }
        let instr = &code.streams[best][engine.pc[best]];
        let start = best_start;
        let duration = engine.execute(program, best, instr, start, &mut run);
        // A sum of finite costs can still leave the exact range (or reach infinity):
        // stop rather than report a rounded or saturated count.
        let end = engine.time[best].max(engine.landed[best]);
        if end.is_nan() || end > MAX_CYCLES as f64 {
            return Err(SimError::CycleOverflow {
                core,
                pipe: Pipe::ALL[best],
                instruction: program.instruction_text(&instr.op),
                limit: MAX_CYCLES,
            });
        }
        engine.wake(best, &instr.op);
        if let Some(machine) = machine.as_deref_mut() {
            machine
                .execute(program, &instr.op, gm_base)
                .map_err(|fault| match fault {
                    Fault::Bad(message) => SimError::BadProgram {
                        core,
                        pipe: Pipe::ALL[best],
                        instruction: program.instruction_text(&instr.op),
                        message,
                    },
                    Fault::Index(error) => SimError::Index { core, error },
                })?;
        }
        if duration > 0.0 {
            if best == Pipe::Mte2.index() {
                mte2_busy.push((start, start + duration));
            } else if best == compute_pipe.index() {
                compute_busy.push((start, start + duration));
            }
        }
        if let Some(events) = trace.as_deref_mut() {
            events.push(TraceEvent {
                name: program.instruction_text(&instr.op),
                core,
                pipe: Pipe::ALL[best],
                start,
                duration,
            });
        }
    }
    run.total = engine
        .time
        .iter()
        .chain(&engine.landed)
        .copied()
        .fold(0.0, f64::max);
    run.busy = engine.busy;
    run.stall = engine.stall;
    run.stall_by = engine.stall_by;
    run.instructions = engine.count;
    run.overlap = overlap(&mte2_busy, &compute_busy);
    Ok(run)
}

/// Total length of the intersection of two sorted lists of disjoint intervals.
fn overlap(a: &[(f64, f64)], b: &[(f64, f64)]) -> f64 {
    let (mut i, mut j, mut total) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        let start = a[i].0.max(b[j].0);
        let end = a[i].1.min(b[j].1);
        if end > start {
            total += end - start;
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// The set times of one flag: `times[first + head..first + len]` are not consumed yet.
#[derive(Clone, Copy, Debug)]
struct FlagQueue {
    first: usize,
    len: usize,
    head: usize,
}

/// Why a pipe cannot start its next instruction yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blocked {
    No,
    /// Waiting for a set of this (dense) flag.
    Flag(usize),
    /// Waiting for S to issue the instruction's loop iteration.
    Issue,
    /// At a barrier some pipe has not reached.
    Barrier,
}

struct Engine<'a> {
    code: &'a CoreCode,
    costs: &'a Costs,
    /// Pipes with instructions.
    active: Vec<usize>,
    pc: [usize; 7],
    time: [f64; 7],
    busy: [f64; 7],
    stall: [f64; 7],
    stall_by: [[f64; 7]; 7],
    count: [u64; 7],
    /// Each pipe's next start time, valid unless `dirty`; recomputed only when
    /// something it depends on changed.
    candidate: [f64; 7],
    blocked: [Blocked; 7],
    /// The flag a pipe's next start time was read from.
    reads: [Option<usize>; 7],
    dirty: [bool; 7],
    /// Dense flag ids by `(from, to, event)`, each flag's queue of set times, and the
    /// times of all flags.
    flag_ids: Vec<u32>,
    events: usize,
    flags: Vec<FlagQueue>,
    times: Vec<f64>,
    /// When each scalar loop iteration was issued.
    issued: Vec<f64>,
    loops: usize,
    /// Barriers each pipe has passed, and the release time of each barrier.
    barriers: [usize; 7],
    releases: Vec<f64>,
    /// When the core's global-memory port is next free.
    port: f64,
    /// When the last transfer each pipe issued lands.
    landed: [f64; 7],
    /// Whether some instruction so far cost other than a whole number of
    /// [`collapse::GRAIN`]s of a cycle, which ends the collapse: times are then no
    /// longer exact.
    inexact: bool,
}

impl<'a> Engine<'a> {
    fn new(code: &'a CoreCode, costs: &'a Costs) -> Engine<'a> {
        let mut events = 1;
        for stream in &code.streams {
            for instr in stream {
                if let Op::SetFlag { event, .. } | Op::WaitFlag { event, .. } = instr.op {
                    events = events.max(usize::from(event) + 1);
                }
            }
        }
        // Dense ids for the flags the program uses, and room for every set of each in
        // one array: flag `f` keeps its set times in `times[first..first + sets]`.
        let mut flag_ids = vec![u32::MAX; 49 * events];
        let mut sets: Vec<usize> = Vec::new();
        for stream in &code.streams {
            for instr in stream {
                if let Op::SetFlag { from, to, event } | Op::WaitFlag { from, to, event } = instr.op
                {
                    let slot = &mut flag_ids
                        [(from.index() * 7 + to.index()) * events + usize::from(event)];
                    if *slot == u32::MAX {
                        *slot = sets.len() as u32;
                        sets.push(0);
                    }
                    if matches!(instr.op, Op::SetFlag { .. }) {
                        sets[*slot as usize] += 1;
                    }
                }
            }
        }
        let mut first = 0;
        let flags: Vec<FlagQueue> = sets
            .iter()
            .map(|count| {
                let queue = FlagQueue {
                    first,
                    len: 0,
                    head: 0,
                };
                first += count;
                queue
            })
            .collect();
        let loops = code
            .stream(Pipe::S)
            .iter()
            .filter(|i| matches!(i.op, Op::Loop))
            .count();
        Engine {
            code,
            costs,
            active: (0..7).filter(|p| !code.streams[*p].is_empty()).collect(),
            pc: [0; 7],
            time: [0.0; 7],
            busy: [0.0; 7],
            stall: [0.0; 7],
            stall_by: [[0.0; 7]; 7],
            count: [0; 7],
            candidate: [0.0; 7],
            blocked: [Blocked::No; 7],
            reads: [None; 7],
            dirty: [true; 7],
            flag_ids,
            events,
            flags,
            times: vec![0.0; first],
            issued: Vec::with_capacity(loops),
            loops,
            barriers: [0; 7],
            releases: Vec::new(),
            port: 0.0,
            landed: [0.0; 7],
            inexact: false,
        }
    }

    fn flag(&self, from: Pipe, to: Pipe, event: u16) -> usize {
        self.flag_ids[(from.index() * 7 + to.index()) * self.events + usize::from(event)] as usize
    }

    /// Recomputes when the next instruction of `pipe` can start, or what it waits for.
    fn update(&mut self, pipe: usize) {
        self.dirty[pipe] = false;
        self.reads[pipe] = None;
        match self.start_time(pipe) {
            Ok(start) => {
                self.candidate[pipe] = start;
                self.blocked[pipe] = Blocked::No;
            }
            Err(blocked) => self.blocked[pipe] = blocked,
        }
    }

    fn start_time(&mut self, pipe: usize) -> Result<f64, Blocked> {
        let instr = &self.code.streams[pipe][self.pc[pipe]];
        let mut start = self.time[pipe];
        if pipe != Pipe::S.index() && self.loops > 0 {
            let tile = (instr.tile as usize).min(self.loops - 1);
            start = start.max(*self.issued.get(tile).ok_or(Blocked::Issue)?);
        }
        match instr.op {
            Op::WaitFlag { from, to, event } => {
                let flag = self.flag(from, to, event);
                let queue = self.flags[flag];
                if queue.head >= queue.len {
                    return Err(Blocked::Flag(flag));
                }
                start = start.max(self.times[queue.first + queue.head]);
                self.reads[pipe] = Some(flag);
            }
            Op::Barrier => {
                let epoch = self.barriers[pipe];
                if self.releases.len() <= epoch {
                    let mut release = 0.0f64;
                    for &other in &self.active {
                        let stream = &self.code.streams[other];
                        let done = self.pc[other] >= stream.len();
                        let waiting = !done
                            && matches!(stream[self.pc[other]].op, Op::Barrier)
                            && self.barriers[other] == epoch;
                        if !(done || waiting) {
                            return Err(Blocked::Barrier);
                        }
                        release = release.max(self.time[other]).max(self.landed[other]);
                    }
                    self.releases.push(release);
                }
                start = start.max(self.releases[epoch]);
            }
            _ => {}
        }
        Ok(start)
    }

    /// Marks the pipes whose next start time `op`, just run on `pipe`, may change.
    fn wake(&mut self, pipe: usize, op: &Op) {
        self.dirty[pipe] = true;
        let arrived = match self.code.streams[pipe].get(self.pc[pipe]) {
            None => true,
            Some(next) => matches!(next.op, Op::Barrier),
        };
        let flag = match *op {
            Op::SetFlag { from, to, event } | Op::WaitFlag { from, to, event } => {
                Some(self.flag(from, to, event))
            }
            _ => None,
        };
        for &other in &self.active {
            let wake = match self.blocked[other] {
                Blocked::Flag(waited) => flag == Some(waited),
                Blocked::Issue => matches!(op, Op::Loop),
                Blocked::Barrier => arrived,
                // Another pipe waiting on the flag this one consumed saw its set.
                Blocked::No => flag.is_some() && self.reads[other] == flag,
            };
            if wake {
                self.dirty[other] = true;
            }
        }
    }

    /// Runs the timing of one instruction; returns its duration.
    fn execute(
        &mut self,
        program: &Program,
        pipe: usize,
        instr: &Instr,
        start: f64,
        run: &mut CoreRun,
    ) -> f64 {
        let costs = self.costs;
        let waited = start - self.time[pipe];
        // Time spent waiting for the port: part of the instruction, but a stall.
        let mut port_wait = 0.0;
        let duration = match instr.op {
            Op::Loop => {
                self.issued.push(start + costs.loop_cycles);
                costs.loop_cycles
            }
            Op::SetFlag { from, to, event } => {
                // Posted: the flag goes up when the pipe's earlier transfers have landed,
                // without holding the pipe.
                let flag = self.flag(from, to, event);
                let at = start.max(self.landed[pipe]);
                let queue = &mut self.flags[flag];
                self.times[queue.first + queue.len] = at;
                queue.len += 1;
                0.0
            }
            Op::WaitFlag { from, to, event } => {
                let flag = self.flag(from, to, event);
                self.flags[flag].head += 1;
                self.stall[pipe] += waited;
                self.stall_by[pipe][from.index()] += waited;
                0.0
            }
            Op::Barrier => {
                // A pipe that finished early and waits for the others is idle, not stalled.
                self.barriers[pipe] += 1;
                0.0
            }
            Op::CopyIn {
                shape,
                padded,
                level,
                ..
            } => {
                let copy = &program.copies[shape as usize];
                let (duration, wait) =
                    self.transfer(pipe, start, copy.moved, copy.bursts, padded, costs.rate);
                port_wait = wait;
                run.gm_read += copy.moved;
                run.into[level_index(level)] += copy.moved;
                run.copies_in += 1;
                run.copy_in_cycles += duration - wait;
                run.copy_in_bytes += copy.bytes;
                duration
            }
            Op::CopyOut { shape, padded, .. } => {
                let copy = &program.copies[shape as usize];
                run.gm_written += copy.moved;
                run.out_of[level_index(Level::Ub)] += copy.moved;
                let (duration, wait) =
                    self.transfer(pipe, start, copy.moved, copy.bursts, padded, costs.rate);
                port_wait = wait;
                duration
            }
            Op::Vector(v) => {
                let op = v.kind.cost_op() as usize;
                let cycles = costs.vector_cycles(&v, program);
                run.vector_by_op[op] += cycles;
                costs.vector_issue + cycles
            }
            Op::LoadL0 {
                level,
                rows,
                cols,
                dtype,
                ..
            } => {
                let [fm, fn_, fk] = costs.fractal;
                let (unit_rows, unit_cols) = if level == Level::L0a {
                    (fm, fk)
                } else {
                    (fk, fn_)
                };
                let bytes = u64::from(rows).div_ceil(unit_rows)
                    * unit_rows
                    * u64::from(cols).div_ceil(unit_cols)
                    * unit_cols
                    * dtype.size();
                run.out_of[level_index(Level::L1)] += bytes;
                run.into[level_index(level)] += bytes;
                let cycles = bytes as f64 / costs.mte1_rate;
                self.inexact |= !collapse::on_grain(cycles);
                cycles
            }
            Op::Mmad { m, n, k, .. } => {
                let [fm, fn_, fk] = costs.fractal;
                let fractals = u64::from(m).div_ceil(fm)
                    * u64::from(n).div_ceil(fn_)
                    * u64::from(k).div_ceil(fk);
                costs.cube_issue + fractals as f64 * costs.cube_cycles
            }
            Op::Fixpipe {
                rows, cols, dtype, ..
            } => {
                let bytes = u64::from(rows) * u64::from(cols) * dtype.size();
                run.gm_written += bytes;
                run.out_of[level_index(Level::L0c)] += bytes;
                let (duration, wait) =
                    self.transfer(pipe, start, bytes, u64::from(rows), false, costs.fix_rate);
                port_wait = wait;
                duration
            }
        };
        self.time[pipe] = start + duration;
        self.busy[pipe] += duration - port_wait;
        self.stall[pipe] += port_wait;
        self.count[pipe] += 1;
        self.pc[pipe] += 1;
        duration
    }

    /// A global-memory transfer issued at `start`: it holds the pipe and the core's
    /// port for `bytes / rate` (times the pad penalty, plus the extra bursts) once the
    /// port is free, and lands `latency` cycles after that. Returns how long it holds
    /// the pipe and how much of that it waited for the port.
    fn transfer(
        &mut self,
        pipe: usize,
        start: f64,
        bytes: u64,
        bursts: u64,
        padded: bool,
        rate: f64,
    ) -> (f64, f64) {
        let costs = self.costs;
        let penalty = if padded { costs.pad_penalty } else { 1.0 };
        let occupancy =
            bytes as f64 / rate * penalty + bursts.saturating_sub(1) as f64 * costs.burst;
        self.inexact |= !collapse::on_grain(occupancy);
        let data = start.max(self.port);
        self.port = data + occupancy;
        self.landed[pipe] = self.landed[pipe].max(self.port + costs.latency);
        (self.port - start, data - start)
    }
}

pub(crate) fn level_index(level: Level) -> usize {
    match level {
        Level::Ub => 0,
        Level::L1 => 1,
        Level::L0a => 2,
        Level::L0b => 3,
        Level::L0c => 4,
    }
}
