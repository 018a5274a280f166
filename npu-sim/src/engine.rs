//! The core model: runs one core's streams, in order within each pipe and concurrently
//! across pipes, with flags, barriers and the scalar unit's issue order: timing only
//! (a run on data executes the values apart, in `functional`).
//!
//! Instructions are taken in order of their start times across the pipes (the
//! earliest startable instruction of any pipe next), so the core's DMA port is handed
//! out first come, first served.
//!
//! What one instruction costs is in the private `timing` module, the steady-state
//! collapse in `collapse`, what a deadlock says in `deadlock`.

use npu_core::program::{CoreCode, Instr, Op, Pipe, Program, StreamView};

mod collapse;
mod deadlock;
mod state;
mod timing;

pub(crate) use state::CoreRun;
use state::{Blocked, Engine, FlagQueue};
pub(crate) use timing::level_index;

use crate::SimError;
use crate::costs::Costs;
use crate::trace::TraceEvent;

/// Most cycles a simulation may take: every whole number up to 2^53 is exact in the
/// `f64` times the engine keeps, so a count past it is an error, never a result.
pub const MAX_CYCLES: u64 = 1 << 53;

/// Runs one core. `collapse` (without a trace) advances over repeating iterations by
/// arithmetic (see [`collapse`]) and issues S's loops by formula when S runs nothing
/// else.
#[allow(clippy::too_many_arguments)] // The engine's inputs are all distinct; a struct would only rename them.
pub(crate) fn run(
    program: &Program,
    code: &CoreCode,
    core: u32,
    costs: &Costs,
    mut trace: Option<&mut Vec<TraceEvent>>,
    budget: u64,
    collapse: bool,
) -> Result<CoreRun, SimError> {
    let mut engine = Engine::new(code, costs);
    let mut run = CoreRun::default();
    // A trace shows every instruction.
    let collapse = collapse && trace.is_none();
    if collapse {
        engine.issue_by_formula(&mut run);
    }
    let mut collapse = collapse.then(collapse::Collapse::default);
    // Instructions run one at a time: a compact program's budget counts only these,
    // as the collapse advances over the rest by arithmetic.
    let one_at_a_time = |run: &CoreRun| {
        if code.repeats.is_empty() {
            run.executed
        } else {
            run.executed - run.collapsed
        }
    };
    loop {
        let (best, best_start) = match engine.earliest() {
            Next::Done => break,
            Next::Stuck => return Err(engine.deadlock(program, core)),
            Next::Start { pipe, start } => (pipe, start),
        };
        if let Some(collapse) = collapse.as_mut()
            && collapse::Collapse::at_checkpoint(&engine, best)
        {
            // A full program's budget counts the instructions skipped too, so the
            // skip stops short of it and the ordinary loop meets it, as a full run
            // does; a compact program's counts only those run one at a time.
            let outside = collapse::Outside {
                run: &mut run,
                budget: if code.repeats.is_empty() {
                    budget
                } else {
                    u64::MAX
                },
            };
            if collapse.checkpoint(&mut engine, best_start, outside) {
                continue;
            }
        }
        run.executed += 1;
        if one_at_a_time(&run) > budget {
            return Err(SimError::InstructionBudget {
                limit: budget,
                // A compact program's refusal states the real count of a timing-only
                // run (`simulate` checks a full one's before it starts).
                needed: if code.repeats.is_empty() {
                    run.executed
                } else {
                    program.class_instruction_count()
                },
            });
        }
        let instr = &engine.next[best].expect("an unfinished pipe has a next instruction");
        let start = best_start;
        engine.count_issue_bound(best, instr);
        let duration = engine.execute(program, best, instr, start, &mut run);
        // A sum of finite costs can still leave the exact range (or reach infinity):
        // stop rather than report a rounded or saturated count.
        let end = engine.time[best].max(engine.landed[best]);
        if end.is_nan() || end > MAX_CYCLES as f64 {
            return Err(cycle_overflow(program, core, best, instr));
        }
        engine.wake(best, &instr.op);
        if duration > 0.0 {
            engine.overlap(best, start, start + duration);
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
    engine.finish(&mut run);
    Ok(run)
}

/// What the engine does next: nothing (every pipe is done), nothing it can (a
/// deadlock), or start the next instruction of `pipe` at `start`.
enum Next {
    Done,
    Stuck,
    Start { pipe: usize, start: f64 },
}

/// The error of an instruction that ends past [`MAX_CYCLES`] (or at no number).
fn cycle_overflow(program: &Program, core: u32, pipe: usize, instr: &Instr) -> SimError {
    SimError::CycleOverflow {
        core,
        pipe: Pipe::ALL[pipe],
        instruction: program.instruction_text(&instr.op),
        limit: MAX_CYCLES,
    }
}

impl<'a> Engine<'a> {
    /// The pipe whose next instruction can start earliest (the first such pipe on a
    /// tie), bringing each start time up to date first.
    fn earliest(&mut self) -> Next {
        let mut best = None;
        let mut best_start = f64::INFINITY;
        let mut unfinished = false;
        for slot in 0..self.active.len() {
            let pipe = self.active[slot];
            if self.next[pipe].is_none() {
                continue;
            }
            unfinished = true;
            if self.dirty[pipe] {
                self.update(pipe);
            }
            if self.blocked[pipe] == Blocked::No && self.candidate[pipe] < best_start {
                best_start = self.candidate[pipe];
                best = Some(pipe);
            }
        }
        match best {
            _ if !unfinished => Next::Done,
            None => Next::Stuck,
            Some(pipe) => Next::Start {
                pipe,
                start: best_start,
            },
        }
    }

    /// With S issuing by formula, counts an instruction of another pipe that waits
    /// for its loop iteration's issue.
    fn count_issue_bound(&mut self, pipe: usize, instr: &Instr) {
        if self.by_formula && pipe != Pipe::S.index() {
            let tile = (instr.tile as usize).min(self.loops - 1);
            if self.issued_at(tile).is_some_and(|at| at > self.time[pipe]) {
                self.issue_bound += 1;
            }
        }
    }

    /// Copies what the engine measured into `run`, the core's total last.
    fn finish(&self, run: &mut CoreRun) {
        run.total = self
            .time
            .iter()
            .chain(&self.landed)
            .copied()
            .fold(0.0, f64::max);
        run.busy = self.busy;
        run.stall = self.stall;
        run.stall_by = self.stall_by;
        run.instructions = self.count;
        run.overlap = self.overlap;
    }

    fn new(code: &'a CoreCode, costs: &'a Costs) -> Engine<'a> {
        let mut engine = Engine::empty(code, costs);
        for pipe in 0..Pipe::COUNT {
            engine.moved(pipe);
        }
        engine
    }

    /// Reads the instruction a pipe's `pc` now points at, after `pc` changed.
    fn moved(&mut self, pipe: usize) {
        let pc = self.pc[pipe];
        self.next[pipe] = self.streams[pipe].get(pc);
        self.previous_tile[pipe] = pc
            .checked_sub(1)
            .and_then(|before| self.streams[pipe].get(before))
            .map(|i| i.tile);
    }

    fn empty(code: &'a CoreCode, costs: &'a Costs) -> Engine<'a> {
        let streams: [StreamView; Pipe::COUNT] =
            std::array::from_fn(|pipe| StreamView::new(code, pipe));
        let events = code.event_ids();
        // Dense ids for the flags the program uses.
        let mut flag_ids = vec![u32::MAX; Pipe::COUNT * Pipe::COUNT * events];
        let mut flags: Vec<FlagQueue> = Vec::new();
        for stream in &code.streams {
            for instr in stream {
                if let Op::SetFlag { from, to, event } | Op::WaitFlag { from, to, event } = instr.op
                {
                    let slot = &mut flag_ids
                        [(from.index() * 7 + to.index()) * events + usize::from(event)];
                    if *slot == u32::MAX {
                        *slot = flags.len() as u32;
                        flags.push(FlagQueue::default());
                    }
                }
            }
        }
        let loops = code
            .weighted(Pipe::S)
            .filter(|(i, _)| matches!(i.op, Op::Loop))
            .map(|(_, weight)| weight as usize)
            .sum();
        let compute = if code.stream(Pipe::M).is_empty() {
            Pipe::V.index()
        } else {
            Pipe::M.index()
        };
        Engine {
            code,
            costs,
            active: (0..Pipe::COUNT)
                .filter(|p| !streams[*p].is_empty())
                .collect(),
            streams,
            pc: [0; Pipe::COUNT],
            next: [None; Pipe::COUNT],
            previous_tile: [None; Pipe::COUNT],
            time: [0.0; Pipe::COUNT],
            busy: [0.0; Pipe::COUNT],
            stall: [0.0; Pipe::COUNT],
            stall_by: [[0.0; Pipe::COUNT]; Pipe::COUNT],
            count: [0; Pipe::COUNT],
            candidate: [0.0; Pipe::COUNT],
            blocked: [Blocked::No; Pipe::COUNT],
            reads: [None; Pipe::COUNT],
            dirty: [true; Pipe::COUNT],
            flag_ids,
            events,
            flags,
            issued: Vec::new(),
            loops,
            by_formula: false,
            issue_bound: 0,
            compute,
            last_busy: [(0.0, 0.0); 2],
            overlap: 0.0,
            barriers: [0; Pipe::COUNT],
            releases: Vec::new(),
            port: 0.0,
            landed: [0.0; Pipe::COUNT],
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
        let instr = self.next[pipe].expect("an unfinished pipe has a next instruction");
        let mut start = self.time[pipe];
        if pipe != Pipe::S.index() && self.loops > 0 {
            let tile = (instr.tile as usize).min(self.loops - 1);
            start = start.max(self.issued_at(tile).ok_or(Blocked::Issue)?);
        }
        match instr.op {
            Op::WaitFlag { from, to, event } => {
                let flag = self.flag(from, to, event);
                let Some(&at) = self.flags[flag].pending.front() else {
                    return Err(Blocked::Flag(flag));
                };
                start = start.max(at);
                self.reads[pipe] = Some(flag);
            }
            Op::Barrier => {
                let epoch = self.barriers[pipe];
                if self.releases.len() <= epoch {
                    let mut release = 0.0f64;
                    for &other in &self.active {
                        let next = self.next[other];
                        let done = next.is_none();
                        let waiting = next.is_some_and(|i| matches!(i.op, Op::Barrier))
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
        let arrived = match self.next[pipe] {
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

    /// When S issued loop iteration `tile`, if it has.
    fn issued_at(&self, tile: usize) -> Option<f64> {
        if self.by_formula {
            (tile < self.loops).then(|| (tile + 1) as f64 * self.costs.loop_cycles)
        } else {
            self.issued.get(tile).copied()
        }
    }

    /// Runs S at once when it has nothing but its loops and the closing barrier: it
    /// never waits, so loop `t` runs from `t × loop_cycles` whatever the other pipes
    /// do, and nothing S does reaches them but those issue times. S is left at its
    /// barrier with the time, count and busy time the loops give it, and its loops
    /// count as executed, by arithmetic (collapsed).
    fn issue_by_formula(&mut self, run: &mut CoreRun) {
        let s = Pipe::S.index();
        let stream = &self.streams[s];
        let loops = self.loops;
        let only_loops = stream.len() == loops + 1
            && stream
                .get(loops)
                .is_some_and(|i| matches!(i.op, Op::Barrier))
            && self.code.streams[s][..self.code.streams[s].len() - 1]
                .iter()
                .all(|i| matches!(i.op, Op::Loop));
        let cycles = loops as f64 * self.costs.loop_cycles;
        if !only_loops || loops == 0 {
            return;
        }
        self.by_formula = true;
        self.pc[s] = loops;
        self.moved(s);
        self.time[s] = cycles;
        self.busy[s] = cycles;
        self.count[s] = loops as u64;
        run.executed += loops as u64;
        run.collapsed += loops as u64;
    }

    /// Adds the part of a busy interval of `pipe` that overlaps the other pipe's
    /// latest one (MTE2 against the compute pipe). The engine starts instructions in
    /// time order, so an interval starting earlier that it overlaps is the other
    /// pipe's latest: the ones before that end before it starts.
    fn overlap(&mut self, pipe: usize, start: f64, end: f64) {
        let (mine, other) = if pipe == Pipe::Mte2.index() {
            (0, 1)
        } else if pipe == self.compute {
            (1, 0)
        } else {
            return;
        };
        let (other_start, other_end) = self.last_busy[other];
        let both = end.min(other_end) - start.max(other_start);
        if both > 0.0 {
            self.overlap += both;
        }
        self.last_busy[mine] = (start, end);
    }
}
