//! The timing of one instruction: what it costs the pipe that runs it, how a
//! global-memory transfer shares the core's port, and the counters a run reports.

use npu_core::program::{Instr, Op, Program};
use npu_core::target::Level;

use super::{CoreRun, Engine, collapse};

impl Engine<'_> {
    /// Runs the timing of one instruction; returns its duration.
    pub(super) fn execute(
        &mut self,
        program: &Program,
        pipe: usize,
        instr: &Instr,
        start: f64,
        run: &mut CoreRun,
    ) -> f64 {
        let costs = self.costs;
        // Time spent waiting for the port: part of the instruction, but a stall.
        let (duration, port_wait) = match instr.op {
            Op::Loop => {
                self.issued.push(start + costs.loop_cycles);
                (costs.loop_cycles, 0.0)
            }
            Op::SetFlag { from, to, event } => {
                // Posted: the flag goes up when the pipe's earlier transfers have landed,
                // without holding the pipe.
                let flag = self.flag(from, to, event);
                let at = start.max(self.landed[pipe]);
                let queue = &mut self.flags[flag];
                queue.pending.push_back(at);
                queue.sets += 1;
                (0.0, 0.0)
            }
            Op::WaitFlag { from, to, event } => {
                let flag = self.flag(from, to, event);
                let queue = &mut self.flags[flag];
                queue.pending.pop_front();
                queue.waits += 1;
                let waited = start - self.time[pipe];
                self.stall[pipe] += waited;
                self.stall_by[pipe][from.index()] += waited;
                (0.0, 0.0)
            }
            Op::Barrier => {
                // A pipe that finished early and waits for the others is idle, not stalled.
                self.barriers[pipe] += 1;
                (0.0, 0.0)
            }
            Op::CopyIn { .. } | Op::CopyOut { .. } | Op::Fixpipe { .. } => {
                self.global_transfer(program, pipe, &instr.op, start, run)
            }
            Op::Vector(v) => {
                let op = v.kind.cost_op() as usize;
                let cycles = costs.vector_cycles(&v, program);
                run.vector_by_op[op] += cycles;
                (costs.vector_issue + cycles, 0.0)
            }
            Op::LoadL0 { .. } | Op::Mmad { .. } => (self.cube_side(&instr.op, run), 0.0),
        };
        self.time[pipe] = start + duration;
        self.busy[pipe] += duration - port_wait;
        self.stall[pipe] += port_wait;
        self.count[pipe] += 1;
        self.pc[pipe] += 1;
        self.next[pipe] = self.streams[pipe].get(self.pc[pipe]);
        self.previous_tile[pipe] = Some(instr.tile);
        duration
    }

    /// The timing of an instruction that moves data to or from global memory (a copy
    /// in or out, a fixpipe): its duration and how much of it waited for the port.
    fn global_transfer(
        &mut self,
        program: &Program,
        pipe: usize,
        op: &Op,
        start: f64,
        run: &mut CoreRun,
    ) -> (f64, f64) {
        let costs = self.costs;
        match *op {
            Op::CopyIn {
                shape,
                padded,
                level,
                ..
            } => {
                let copy = &program.copies[shape as usize];
                let (duration, wait) =
                    self.transfer(pipe, start, copy.moved, copy.bursts, padded, costs.rate);
                run.gm_read += copy.moved;
                run.into[level_index(level)] += copy.moved;
                run.copies_in += 1;
                run.copy_in_cycles += duration - wait;
                run.copy_in_bytes += copy.bytes;
                (duration, wait)
            }
            Op::CopyOut { shape, padded, .. } => {
                let copy = &program.copies[shape as usize];
                run.gm_written += copy.moved;
                run.out_of[level_index(Level::Ub)] += copy.moved;
                self.transfer(pipe, start, copy.moved, copy.bursts, padded, costs.rate)
            }
            Op::Fixpipe {
                rows, cols, dtype, ..
            } => {
                let bytes = u64::from(rows) * u64::from(cols) * dtype.size();
                run.gm_written += bytes;
                run.out_of[level_index(Level::L0c)] += bytes;
                self.transfer(pipe, start, bytes, u64::from(rows), false, costs.fix_rate)
            }
            _ => (0.0, 0.0),
        }
    }

    /// The cycles of a cube-side instruction: a load into L0A or L0B (whole fractals
    /// move) or a matrix multiply (per fractal).
    fn cube_side(&self, op: &Op, run: &mut CoreRun) -> f64 {
        let costs = self.costs;
        let [fm, fn_, fk] = costs.fractal;
        match *op {
            Op::LoadL0 {
                level,
                rows,
                cols,
                dtype,
                ..
            } => {
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
                collapse::to_grain(bytes as f64 / costs.mte1_rate)
            }
            Op::Mmad { m, n, k, .. } => {
                let fractals = u64::from(m).div_ceil(fm)
                    * u64::from(n).div_ceil(fn_)
                    * u64::from(k).div_ceil(fk);
                costs.cube_issue + fractals as f64 * costs.cube_cycles
            }
            _ => 0.0,
        }
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
        let occupancy = collapse::to_grain(
            bytes as f64 / rate * penalty + bursts.saturating_sub(1) as f64 * costs.burst,
        );
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
