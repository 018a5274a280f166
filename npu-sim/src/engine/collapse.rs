//! Steady-state collapse of a timing-only run: once a core's loop iterations repeat
//! with the same timing, the engine simulates a few and advances over the rest by
//! arithmetic, so the cost of a run grows with its distinct tile shapes rather than its
//! tile count.
//!
//! # How
//!
//! A *checkpoint* is the moment the engine is about to run S's `loop` for tile `t`. It
//! records a snapshot of everything the future of the run depends on, relative to the
//! loop's start time `T`: each pipe's time and landed time (the landed time raised to
//! the pipe's time, which changes none of its uses: every use takes the maximum with a
//! time at least the pipe's), the port's free time, each flag's pending set times, the
//! issue times of the tiles still referenced, and the barrier counts. The counters
//! (busy, stall, bytes, ...) and the stream positions are recorded too, absolute.
//!
//! When the snapshot at tile `t` equals the one at tile `t - p` (checkpoint A, then B),
//! and each pipe's stream from A's position on is periodic with B's offset — the same
//! instruction shapes (everything the cost reads; addresses and tensor offsets do not
//! matter to the timing), the tile shifted by `p` — then the engine, which is
//! deterministic and reads only that state and those instructions, runs B → B + p
//! exactly as it ran A → B, shifted by `delta = T_B - T_A`. By induction over `m` such
//! periods, the run after them is B's state with every time plus `m·delta`, every
//! stream position plus `m` times its per-period advance, and every counter plus `m`
//! times its per-period increment. The check stops before the tail (whose tiles have
//! other shapes) and before any barrier.
//!
//! # Why it is exact
//!
//! Translation needs exact arithmetic, so the collapse runs only while every cost the
//! core has met is a whole number of [`GRAIN`]s (2^-16 cycle: 0.5 and 0.25 are, 1/3
//! is not): then every time, wait and sum is a multiple of the grain below
//! [`EXACT_LIMIT`] (2^37 cycles), which `f64`, with 53 bits, adds, subtracts and
//! multiplies by a count without rounding. A target or schedule with other costs (a
//! bandwidth share such as 888/40 B/cycle) is simply simulated in full, as is a run
//! past the limit. The skip is also shortened so that the instruction budget is hit by
//! the ordinary loop, with the same error as a full run.
//! The busy intervals of MTE2 and the compute pipe (for the overlap figure) and the
//! tiles' issue times are replicated shifted, so they are the lists a full run builds.
//!
//! `tests/collapse.rs` compares reports with and without the collapse over random
//! legal schedules on every preset.

use npu_core::program::{Instr, Op, Pipe};

use super::{CoreRun, Engine};
/// The finest fraction of a cycle the collapse handles exactly.
pub(super) const GRAIN: f64 = 1.0 / 65536.0;

/// The most cycles a collapsed run reaches: multiples of [`GRAIN`] below it need
/// 37 + 16 = 53 bits, exactly what an `f64` holds.
const EXACT_LIMIT: f64 = (1u64 << 37) as f64;

/// Whether a cost is a whole number of [`GRAIN`]s (scaling by a power of two is exact).
pub(super) fn on_grain(cost: f64) -> bool {
    (cost / GRAIN).fract() == 0.0
}

/// The longest period, in tiles, the collapse looks for.
const MAX_PERIOD: usize = 64;

/// One checkpoint: the relative snapshot and the absolute figures a skip extrapolates.
struct Checkpoint {
    tile: usize,
    issued: usize,
    start: f64,
    relative: Vec<u64>,
    pc: [usize; 7],
    count: [u64; 7],
    busy: [f64; 7],
    stall: [f64; 7],
    stall_by: [[f64; 7]; 7],
    flags: Vec<(usize, usize)>,
    run: CoreRun,
    mte2_intervals: usize,
    compute_intervals: usize,
}

/// The checkpoints of the current run, newest last.
#[derive(Default)]
pub(super) struct Collapse {
    history: Vec<Checkpoint>,
}

/// What a skip may touch besides the engine.
pub(super) struct Outside<'a> {
    pub run: &'a mut CoreRun,
    pub mte2_busy: &'a mut Vec<(f64, f64)>,
    pub compute_busy: &'a mut Vec<(f64, f64)>,
    pub budget: u64,
}

impl Collapse {
    /// Whether the engine, about to run the next instruction of `pipe`, is at a
    /// checkpoint: the first instruction of a tile on the reference pipe (the first
    /// pipe after S with instructions).
    pub fn at_checkpoint(engine: &Engine, pipe: usize) -> bool {
        let reference = engine
            .active
            .iter()
            .copied()
            .find(|p| *p != Pipe::S.index());
        if reference != Some(pipe) {
            return false;
        }
        let stream = &engine.code.streams[pipe];
        let pc = engine.pc[pipe];
        pc == 0 || stream[pc].tile != stream[pc - 1].tile
    }

    /// Called at a checkpoint, the reference pipe about to start at `start`. Records
    /// the checkpoint and, when it repeats an earlier one, advances the engine over the
    /// identical periods ahead; returns whether it did (the caller then chooses the
    /// next instruction anew).
    pub fn checkpoint(&mut self, engine: &mut Engine, start: f64, outside: Outside) -> bool {
        if engine.inexact {
            return false;
        }
        let Some(current) = snapshot(engine, start, &outside) else {
            self.history.clear();
            return false;
        };
        for earlier in self.history.iter().rev() {
            if earlier.relative != current.relative || earlier.tile >= current.tile {
                continue;
            }
            let periods = periods(engine, earlier, &current);
            let periods = advance(engine, earlier, &current, periods, outside.budget);
            if periods > 0 {
                replicate(earlier, &current, periods, outside);
                self.history.clear();
                return true;
            }
        }
        if self.history.len() == MAX_PERIOD {
            self.history.remove(0);
        }
        self.history.push(current);
        false
    }
}

/// Whether a pipe has nothing left but its closing barrier (or nothing at all).
fn parked(engine: &Engine, pipe: usize) -> bool {
    let stream = &engine.code.streams[pipe];
    let pc = engine.pc[pipe];
    pc >= stream.len() || (pc + 1 == stream.len() && matches!(stream[pc].op, Op::Barrier))
}

/// The checkpoint at `start`, or `None` when no pipe is left to work.
///
/// Times are taken relative to `start` and raised to `floor`, the earliest time of a
/// pipe still working: every time the engine reads (an issue time, a flag's set time,
/// the port's free time, a parked pipe's time at the barrier) it reads as the maximum
/// with the reader's own time, which is at least `floor` from now on, so two states
/// that agree after raising agree in everything the future does.
fn snapshot(engine: &mut Engine, start: f64, outside: &Outside) -> Option<Checkpoint> {
    let reference = engine
        .active
        .iter()
        .copied()
        .find(|p| *p != Pipe::S.index())?;
    let tile = engine.code.streams[reference][engine.pc[reference]].tile as usize;
    let floor = engine
        .active
        .iter()
        .filter(|p| !parked(engine, **p))
        .map(|p| engine.time[*p])
        .fold(f64::INFINITY, f64::min);
    if !floor.is_finite() {
        return None;
    }
    let relative_to = |at: f64| (at.max(floor) - start).to_bits();
    let mut relative = Vec::with_capacity(64);
    for pipe in 0..7 {
        // Raising landed to the pipe's time changes none of its uses (see the module doc).
        engine.landed[pipe] = engine.landed[pipe].max(engine.time[pipe]);
        relative.push(relative_to(engine.time[pipe]));
        relative.push(relative_to(engine.landed[pipe]));
        relative.push(engine.barriers[pipe] as u64);
        relative.push(u64::from(parked(engine, pipe)));
    }
    relative.push(relative_to(engine.port));
    relative.push(engine.releases.len() as u64);
    for queue in &engine.flags {
        relative.push((queue.len - queue.head) as u64);
        for at in &engine.times[queue.first + queue.head..queue.first + queue.len] {
            relative.push(relative_to(*at));
        }
    }
    // The oldest tile any working pipe's next instruction belongs to; the periodic
    // windows keep tiles non-decreasing, so no later instruction reads an older issue
    // time. Issue times only grow, so those at or below the floor are a prefix; when
    // S has issued every tile and none is above the floor, how long that prefix is
    // does not matter.
    let mut oldest = engine.issued.len();
    for &pipe in &engine.active {
        if pipe == Pipe::S.index() || parked(engine, pipe) {
            continue;
        }
        if let Some(next) = engine.code.streams[pipe].get(engine.pc[pipe]) {
            oldest = oldest.min(next.tile as usize);
        }
    }
    let relevant = &engine.issued[oldest.min(engine.issued.len())..];
    let below = relevant.iter().take_while(|at| **at <= floor).count();
    let all_issued = engine.issued.len() == engine.loops;
    relative.push(u64::from(all_issued));
    if !(all_issued && below == relevant.len()) {
        relative.push(below as u64);
        relative.push(engine.issued.len().saturating_sub(oldest) as u64);
        for at in &relevant[below..] {
            relative.push(relative_to(*at));
        }
    }
    Some(Checkpoint {
        tile,
        issued: engine.issued.len(),
        start,
        relative,
        pc: engine.pc,
        count: engine.count,
        busy: engine.busy,
        stall: engine.stall,
        stall_by: engine.stall_by,
        flags: engine.flags.iter().map(|q| (q.len, q.head)).collect(),
        run: outside.run.clone(),
        mte2_intervals: outside.mte2_busy.len(),
        compute_intervals: outside.compute_busy.len(),
    })
}

/// How many whole periods after `b` repeat the period `a` → `b` instruction for
/// instruction: each pipe's stream from `a`'s position must equal itself `d` further
/// on (`d` the pipe's advance per period), tiles shifted by the period, for `m·d + 1`
/// instructions (the `+ 1`: the next instruction is read before it runs).
fn periods(engine: &Engine, a: &Checkpoint, b: &Checkpoint) -> u64 {
    let period = (b.tile - a.tile) as u32;
    let loops = engine.loops as u64;
    let mut most = u64::MAX;
    for pipe in 0..7 {
        let stream = &engine.code.streams[pipe];
        let advance = b.pc[pipe] - a.pc[pipe];
        if advance == 0 {
            // A pipe that does nothing per period must be parked at its closing
            // barrier (or done), as at both checkpoints; any other next instruction
            // would be the same one at both, not a shifted one.
            if !parked(engine, pipe) {
                return 0;
            }
            continue;
        }
        let mut matched = 0usize;
        let mut previous_tile = 0u32;
        while let (Some(earlier), Some(later)) = (
            stream.get(a.pc[pipe] + matched),
            stream.get(b.pc[pipe] + matched),
        ) {
            let repeats = later.tile.checked_sub(earlier.tile) == Some(period)
                && u64::from(later.tile) < loops
                && later.tile >= previous_tile
                && same_timing(earlier, later);
            if !repeats {
                break;
            }
            previous_tile = later.tile;
            matched += 1;
            // Enough for what the other pipes allow already.
            if (matched.saturating_sub(1) / advance) as u64 >= most {
                break;
            }
        }
        if matched == 0 {
            return 0;
        }
        most = most.min(((matched - 1) / advance) as u64);
    }
    if most == u64::MAX { 0 } else { most }
}

/// Whether two instructions cost the same and count the same: everything but
/// addresses, tensors and global-memory offsets. Barriers never repeat: each one is a
/// new epoch.
fn same_timing(a: &Instr, b: &Instr) -> bool {
    match (a.op, b.op) {
        (Op::Loop, Op::Loop) => true,
        (Op::Barrier, _) | (_, Op::Barrier) => false,
        (
            Op::CopyIn {
                level,
                shape,
                padded,
                ..
            },
            Op::CopyIn {
                level: level_b,
                shape: shape_b,
                padded: padded_b,
                ..
            },
        ) => (level, shape, padded) == (level_b, shape_b, padded_b),
        (
            Op::CopyOut { shape, padded, .. },
            Op::CopyOut {
                shape: shape_b,
                padded: padded_b,
                ..
            },
        ) => (shape, padded) == (shape_b, padded_b),
        (Op::Vector(v), Op::Vector(w)) => {
            (v.kind, v.width, v.elements) == (w.kind, w.width, w.elements)
        }
        (
            Op::LoadL0 {
                level,
                rows,
                cols,
                dtype,
                ..
            },
            Op::LoadL0 {
                level: level_b,
                rows: rows_b,
                cols: cols_b,
                dtype: dtype_b,
                ..
            },
        ) => (level, rows, cols, dtype) == (level_b, rows_b, cols_b, dtype_b),
        (
            Op::Mmad { m, n, k, .. },
            Op::Mmad {
                m: mb,
                n: nb,
                k: kb,
                ..
            },
        ) => (m, n, k) == (mb, nb, kb),
        (
            Op::Fixpipe {
                rows, cols, dtype, ..
            },
            Op::Fixpipe {
                rows: rows_b,
                cols: cols_b,
                dtype: dtype_b,
                ..
            },
        ) => (rows, cols, dtype) == (rows_b, cols_b, dtype_b),
        (a, b) => matches!(a, Op::SetFlag { .. } | Op::WaitFlag { .. }) && a == b,
    }
}

/// Moves the engine up to `periods` periods past `b`, shortened so that the budget and
/// the cycle limit are reached by the ordinary loop; returns how many it moved.
fn advance(engine: &mut Engine, a: &Checkpoint, b: &Checkpoint, periods: u64, budget: u64) -> u64 {
    if periods == 0 {
        return 0;
    }
    let delta = b.start - a.start;
    let per_period = engine
        .pc
        .iter()
        .zip(&a.pc)
        .map(|(x, y)| (x - y) as u64)
        .sum::<u64>();
    let executed = b.run.executed;
    let mut periods = periods.min(budget.saturating_sub(executed) / per_period.max(1));
    // Every time grows by `delta` per period and every counter by less; keeping the
    // latest time below EXACT_LIMIT keeps them all exact.
    let latest = engine
        .time
        .iter()
        .chain(&engine.landed)
        .chain([&engine.port])
        .copied()
        .fold(0.0, f64::max);
    if latest >= EXACT_LIMIT {
        return 0;
    }
    if delta > 0.0 {
        let room = ((EXACT_LIMIT - latest) / delta).floor();
        periods = periods.min((room.max(0.0) as u64).saturating_sub(1));
    }
    // Every set of a flag has its place in `times`; a period that sets more than the
    // stream holds would not be periodic, but refuse rather than write past it.
    for (index, queue) in engine.flags.iter().enumerate() {
        let end = engine
            .flags
            .get(index + 1)
            .map_or(engine.times.len(), |next| next.first);
        let (len_a, _) = a.flags[index];
        let (len_b, _) = b.flags[index];
        let sets = (len_b - len_a) as u64;
        let len = sets
            .checked_mul(periods)
            .and_then(|more| more.checked_add(len_b as u64));
        if len.is_none_or(|len| queue.first as u64 + len > end as u64) {
            return 0;
        }
    }
    if periods == 0 {
        return 0;
    }
    let shift = periods as f64 * delta;
    let times = periods as f64;
    for pipe in 0..7 {
        let advance = engine.pc[pipe] - a.pc[pipe];
        // A parked pipe does not run in the skipped periods: its times stay.
        if advance > 0 {
            engine.time[pipe] += shift;
            engine.landed[pipe] += shift;
        }
        engine.pc[pipe] += advance * periods as usize;
        engine.count[pipe] += (b.count[pipe] - a.count[pipe]) * periods;
        engine.busy[pipe] += (b.busy[pipe] - a.busy[pipe]) * times;
        engine.stall[pipe] += (b.stall[pipe] - a.stall[pipe]) * times;
        for from in 0..7 {
            engine.stall_by[pipe][from] +=
                (b.stall_by[pipe][from] - a.stall_by[pipe][from]) * times;
        }
        engine.dirty[pipe] = true;
    }
    engine.port += shift;
    for (index, queue) in engine.flags.iter_mut().enumerate() {
        let (len_a, head_a) = a.flags[index];
        let (len_b, head_b) = b.flags[index];
        let len = len_b + (len_b - len_a) * periods as usize;
        let head = head_b + (head_b - head_a) * periods as usize;
        // The pending sets keep their relative times; copy from the last down, as the
        // new places may overlap the old ones further up.
        for offset in (0..len_b - head_b).rev() {
            engine.times[queue.first + head + offset] =
                engine.times[queue.first + head_b + offset] + shift;
        }
        queue.len = len;
        queue.head = head;
    }
    // The issue times S would have pushed in the skipped periods, each a period's
    // worth later than the one a period before.
    let issued = b.issued - a.issued;
    for _ in 0..issued * periods as usize {
        let at = engine.issued[engine.issued.len() - issued] + delta;
        engine.issued.push(at);
    }
    periods
}

/// The counters outside the engine, and the busy intervals, over the skipped periods.
fn replicate(a: &Checkpoint, b: &Checkpoint, periods: u64, outside: Outside) {
    let delta = b.start - a.start;
    let run = outside.run;
    let times = periods as f64;
    let skipped = (b.run.executed - a.run.executed) * periods;
    run.executed += skipped;
    run.collapsed += skipped;
    run.gm_read += (b.run.gm_read - a.run.gm_read) * periods;
    run.gm_written += (b.run.gm_written - a.run.gm_written) * periods;
    for level in 0..5 {
        run.into[level] += (b.run.into[level] - a.run.into[level]) * periods;
        run.out_of[level] += (b.run.out_of[level] - a.run.out_of[level]) * periods;
    }
    run.copies_in += (b.run.copies_in - a.run.copies_in) * periods;
    run.copy_in_bytes += (b.run.copy_in_bytes - a.run.copy_in_bytes) * periods;
    run.copy_in_cycles += (b.run.copy_in_cycles - a.run.copy_in_cycles) * times;
    for op in 0..run.vector_by_op.len() {
        run.vector_by_op[op] += (b.run.vector_by_op[op] - a.run.vector_by_op[op]) * times;
    }
    for (intervals, from, to) in [
        (outside.mte2_busy, a.mte2_intervals, b.mte2_intervals),
        (
            outside.compute_busy,
            a.compute_intervals,
            b.compute_intervals,
        ),
    ] {
        for period in 1..=periods {
            let shift = period as f64 * delta;
            for index in from..to {
                let (start, end) = intervals[index];
                intervals.push((start + shift, end + shift));
            }
        }
    }
}
