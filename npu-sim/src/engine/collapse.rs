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
//! Translation needs exact arithmetic. Every cost is a whole number of [`GRAIN`]s
//! (2^-16 cycle): the target's cycle counts are whole, and a transfer's bytes over a
//! bandwidth share (888/40 B/cycle, say) are rounded up to the grain ([`to_grain`]).
//! So every time, wait and sum is a multiple of the grain below [`EXACT_LIMIT`]
//! (2^37 cycles), which `f64`, with 53 bits, adds, subtracts and multiplies by a count
//! without rounding; a run past the limit is simulated in full. The skip is also
//! shortened so that the instruction budget is hit by the ordinary loop, with the same
//! error as a full run. The overlap of MTE2 and the compute pipe grows by its
//! per-period gain, and S issuing by formula needs nothing replicated; the issue times
//! S pushed otherwise are replicated shifted, so they are the list a full run builds.
//!
//! `tests/it/collapse.rs` compares reports with and without the collapse over random
//! legal schedules on every preset.

use npu_core::program::{Instr, Op, Pipe};

use super::{CoreRun, Engine};
/// The finest fraction of a cycle the collapse handles exactly.
pub(super) const GRAIN: f64 = 1.0 / 65536.0;

/// The most cycles a collapsed run reaches: multiples of [`GRAIN`] below it need
/// 37 + 16 = 53 bits, exactly what an `f64` holds.
const EXACT_LIMIT: f64 = (1u64 << 37) as f64;

/// A cost rounded up to a whole number of [`GRAIN`]s (scaling by a power of two is
/// exact): what the engine charges for a transfer, whose bytes over a bandwidth share
/// (888/40 B/cycle, say) need not be one. Up, so no run is ever shorter than its
/// costs; by under 2^-16 cycle.
pub(crate) fn to_grain(cost: f64) -> f64 {
    (cost / GRAIN).ceil() * GRAIN
}

/// The longest period, in tiles, the collapse looks for.
const MAX_PERIOD: usize = 64;

/// One checkpoint: the relative snapshot and the absolute figures a skip extrapolates.
struct Checkpoint {
    tile: usize,
    issued: usize,
    start: f64,
    relative: Vec<u64>,
    pc: [usize; Pipe::COUNT],
    count: [u64; Pipe::COUNT],
    busy: [f64; Pipe::COUNT],
    stall: [f64; Pipe::COUNT],
    stall_by: [[f64; Pipe::COUNT]; Pipe::COUNT],
    flags: Vec<(usize, usize)>,
    run: CoreRun,
    overlap: f64,
    /// With S issuing by formula: how far past the oldest tile the first issue time
    /// above the floor is, and that time relative to the checkpoint (`None` when none
    /// is above it); and how many instructions so far started at their issue time.
    issue: Option<(usize, u64)>,
    issue_bound: u64,
}

/// The checkpoints of the current run, newest last.
#[derive(Default)]
pub(super) struct Collapse {
    history: Vec<Checkpoint>,
}

/// What a skip may touch besides the engine.
pub(super) struct Outside<'a> {
    pub run: &'a mut CoreRun,
    pub budget: u64,
}

impl Collapse {
    /// Whether the engine, about to run the next instruction of `pipe`, is at a
    /// checkpoint: the first instruction of a tile on the reference pipe (the first
    /// pipe after S with instructions).
    pub(super) fn at_checkpoint(engine: &Engine, pipe: usize) -> bool {
        let reference = engine
            .active
            .iter()
            .copied()
            .find(|p| *p != Pipe::S.index());
        if reference != Some(pipe) {
            return false;
        }
        engine.next[pipe].map(|i| i.tile) != engine.previous_tile[pipe]
    }

    /// Called at a checkpoint, the reference pipe about to start at `start`. Records
    /// the checkpoint and, when it repeats an earlier one, advances the engine over the
    /// identical periods ahead; returns whether it did (the caller then chooses the
    /// next instruction anew).
    pub(super) fn checkpoint(&mut self, engine: &mut Engine, start: f64, outside: Outside) -> bool {
        let Some(current) = snapshot(engine, start, &outside) else {
            self.history.clear();
            return false;
        };
        for earlier in self.history.iter().rev() {
            if earlier.relative != current.relative
                || earlier.tile >= current.tile
                || !same_issue(engine, earlier, &current)
            {
                continue;
            }
            let periods = periods(engine, earlier, &current);
            let periods = advance(engine, earlier, &current, periods, outside.budget);
            if periods > 0 {
                replicate(earlier, &current, periods, outside.run);
                engine.overlap += (current.overlap - earlier.overlap) * periods as f64;
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

/// Whether S's issue times shift with the period from `a` to `b`. They do when they
/// are the same relative progression at both. They also do, for S issuing by formula
/// `p × loop_cycles` further per period of `p` tiles, when S gains no ground on the
/// period (`p × loop_cycles <= delta`) and no instruction between the checkpoints
/// started at its issue time: each issue time read in a later period is then at most
/// the one read a period before plus `delta`, so it stays below the time it is
/// compared with, as it was in `a` → `b`.
fn same_issue(engine: &Engine, a: &Checkpoint, b: &Checkpoint) -> bool {
    if a.issue == b.issue {
        return true;
    }
    let gained = (b.tile - a.tile) as f64 * engine.costs.loop_cycles;
    engine.by_formula && a.issue_bound == b.issue_bound && gained <= b.start - a.start
}

/// Whether a pipe has nothing left but its closing barrier (or nothing at all).
fn parked(engine: &Engine, pipe: usize) -> bool {
    let stream = &engine.streams[pipe];
    let pc = engine.pc[pipe];
    pc >= stream.len()
        || (pc + 1 == stream.len()
            && engine.next[pipe].is_some_and(|i| matches!(i.op, Op::Barrier)))
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
    let tile = engine.next[reference]?.tile as usize;
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
    let mut relative = pipe_states(engine, &relative_to);
    let oldest = oldest_tile(engine);
    let issue = match engine.by_formula {
        true => formula_issue(engine, floor, oldest).map(|(past, at)| (past, relative_to(at))),
        false => None,
    };
    issue_times(engine, floor, oldest, &relative_to, &mut relative);
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
        flags: engine.flags.iter().map(|q| (q.sets, q.waits)).collect(),
        run: outside.run.clone(),
        overlap: engine.overlap,
        issue,
        issue_bound: engine.issue_bound,
    })
}

/// Each pipe's times, barrier and parking, the port, the releases, the pending flags
/// and the latest busy intervals, relative to the checkpoint (times below the floor
/// raised to it).
fn pipe_states(engine: &mut Engine, relative_to: &impl Fn(f64) -> u64) -> Vec<u64> {
    let mut relative = Vec::with_capacity(64);
    for pipe in 0..Pipe::COUNT {
        // Raising landed to the pipe's time changes none of its uses (see the module doc).
        engine.landed[pipe] = engine.landed[pipe].max(engine.time[pipe]);
        if engine.by_formula && pipe == Pipe::S.index() {
            // S waits at its barrier from the start, at `loops × loop_cycles`: every
            // other pipe reaches its own barrier no earlier than the last issue time,
            // which is that, so S's time never decides the barrier's release.
            relative.push(0);
            relative.push(0);
        } else {
            relative.push(relative_to(engine.time[pipe]));
            relative.push(relative_to(engine.landed[pipe]));
        }
        relative.push(engine.barriers[pipe] as u64);
        relative.push(u64::from(parked(engine, pipe)));
    }
    relative.push(relative_to(engine.port));
    relative.push(engine.releases.len() as u64);
    for queue in &engine.flags {
        relative.push(queue.pending.len() as u64);
        for at in &queue.pending {
            relative.push(relative_to(*at));
        }
    }
    // The latest busy intervals of MTE2 and the compute pipe, which the next ones
    // overlap (nothing later starts below the floor).
    for (start, end) in engine.last_busy {
        relative.push(relative_to(start));
        relative.push(relative_to(end));
    }
    relative
}

/// The oldest tile any working pipe's next instruction belongs to (every issued tile
/// when none waits): the periodic windows keep tiles non-decreasing, so no later
/// instruction reads an older issue time.
fn oldest_tile(engine: &Engine) -> usize {
    let issued = if engine.by_formula {
        engine.loops
    } else {
        engine.issued.len()
    };
    let mut oldest = issued;
    for &pipe in &engine.active {
        if pipe == Pipe::S.index() || parked(engine, pipe) {
            continue;
        }
        if let Some(next) = engine.next[pipe] {
            oldest = oldest.min(next.tile as usize);
        }
    }
    oldest
}

/// With S issuing by formula, loop `t` was issued at `(t + 1) × loop_cycles`: from the
/// first above the floor on, the issue times are that progression, which how far past
/// `oldest` it starts and its first term describe (`None` when none is above).
fn formula_issue(engine: &Engine, floor: f64, oldest: usize) -> Option<(usize, f64)> {
    let cycles = engine.costs.loop_cycles;
    let mut above = ((floor / cycles).floor().max(0.0) as usize).max(oldest);
    while above > oldest && engine.issued_at(above - 1).is_some_and(|at| at > floor) {
        above -= 1;
    }
    while engine.issued_at(above).is_some_and(|at| at <= floor) {
        above += 1;
    }
    (above < engine.loops).then(|| (above - oldest, (above + 1) as f64 * cycles))
}

/// The issue times from `oldest` on. They only grow, so those at or below the floor
/// are a prefix; when S has issued every tile and none is above the floor, how long
/// that prefix is does not matter.
fn issue_times(
    engine: &Engine,
    floor: f64,
    oldest: usize,
    relative_to: &impl Fn(f64) -> u64,
    relative: &mut Vec<u64>,
) {
    let relevant = &engine.issued[oldest.min(engine.issued.len())..];
    let below = relevant.iter().take_while(|at| **at <= floor).count();
    let all_issued = engine.issued.len() == engine.loops;
    relative.push(u64::from(all_issued));
    let settled = all_issued && below == relevant.len();
    if !engine.by_formula && !settled {
        relative.push(below as u64);
        relative.push(engine.issued.len().saturating_sub(oldest) as u64);
        for at in &relevant[below..] {
            relative.push(relative_to(*at));
        }
    }
}

/// How many whole periods after `b` repeat the period `a` → `b` instruction for
/// instruction: each pipe's stream from `a`'s position must equal itself `d` further
/// on (`d` the pipe's advance per period), tiles shifted by the period, for `m·d + 1`
/// instructions (the `+ 1`: the next instruction is read before it runs).
fn periods(engine: &Engine, a: &Checkpoint, b: &Checkpoint) -> u64 {
    let period = (b.tile - a.tile) as u32;
    let loops = engine.loops as u64;
    let mut most = u64::MAX;
    for pipe in 0..Pipe::COUNT {
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
        // Where the pairs matched inside the current run began: (the run's start,
        // `matched` then).
        let mut inside: Option<(usize, usize)> = None;
        let stream = &engine.streams[pipe];
        while let (Some(earlier), Some(later)) = (
            stream.get(a.pc[pipe] + matched),
            stream.get(b.pc[pipe] + matched),
        ) {
            // Inside a run of a compact class, instruction `q` is copy 0's instruction
            // `(q - start) mod len` moved on by whole copies, so whether `q` matches
            // `q + advance` depends only on that remainder: once `len` pairs in a row
            // inside the run match, or the advance is a whole number of copies, every
            // pair up to the run's end does. Jump there.
            let run = stream
                .run_at(a.pc[pipe] + matched)
                .filter(|run| b.pc[pipe] + matched < run.end());
            if run.is_none_or(|run| inside.is_none_or(|(at, _)| at != run.at)) {
                inside = run.map(|run| (run.at, matched));
            }
            if let Some(run) = run
                && let Some((_, since)) = inside
                && (matched - since >= run.len
                    || advance.is_multiple_of(run.len)
                        && (advance / run.len) as u64 * u64::from(run.tiles) == u64::from(period))
                && u64::from(later.tile) < loops
            {
                let last = stream
                    .get(run.end() - 1)
                    .expect("a run lies within its stream");
                if u64::from(last.tile) < loops {
                    matched = run.end() - b.pc[pipe];
                    previous_tile = last.tile;
                    inside = None;
                    if (matched.saturating_sub(1) / advance) as u64 >= most {
                        break;
                    }
                    continue;
                }
            }
            let repeats = later.tile.checked_sub(earlier.tile) == Some(period)
                && u64::from(later.tile) < loops
                && later.tile >= previous_tile
                && same_timing(&earlier, &later);
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
    if periods == 0 {
        return 0;
    }
    let shift = periods as f64 * delta;
    let times = periods as f64;
    for pipe in 0..Pipe::COUNT {
        let advance = engine.pc[pipe] - a.pc[pipe];
        // A parked pipe does not run in the skipped periods: its times stay.
        if advance > 0 {
            engine.time[pipe] += shift;
            engine.landed[pipe] += shift;
        }
        engine.pc[pipe] += advance * periods as usize;
        engine.moved(pipe);
        engine.count[pipe] += (b.count[pipe] - a.count[pipe]) * periods;
        engine.busy[pipe] += (b.busy[pipe] - a.busy[pipe]) * times;
        engine.stall[pipe] += (b.stall[pipe] - a.stall[pipe]) * times;
        for from in 0..Pipe::COUNT {
            engine.stall_by[pipe][from] +=
                (b.stall_by[pipe][from] - a.stall_by[pipe][from]) * times;
        }
        engine.dirty[pipe] = true;
    }
    engine.port += shift;
    for (index, queue) in engine.flags.iter_mut().enumerate() {
        let (sets_a, waits_a) = a.flags[index];
        let (sets_b, waits_b) = b.flags[index];
        queue.sets = sets_b + (sets_b - sets_a) * periods as usize;
        queue.waits = waits_b + (waits_b - waits_a) * periods as usize;
        // The pending sets keep their relative times.
        for at in &mut queue.pending {
            *at += shift;
        }
    }
    engine.last_busy = engine
        .last_busy
        .map(|(start, end)| (start + shift, end + shift));
    // The issue times S would have pushed in the skipped periods, each a period's
    // worth later than the one a period before (S issuing by formula pushes none).
    let issued = b.issued - a.issued;
    for _ in 0..issued * periods as usize {
        let at = engine.issued[engine.issued.len() - issued] + delta;
        engine.issued.push(at);
    }
    periods
}

/// The counters outside the engine over the skipped periods.
fn replicate(a: &Checkpoint, b: &Checkpoint, periods: u64, run: &mut CoreRun) {
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
}
