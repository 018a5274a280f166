//! The instructions of a matmul class, step by step: MTE2 copies the L1 tiles, MTE1
//! loads the base blocks into L0A and L0B, M multiplies them into L0C, and FIX writes
//! each finished block to global memory.

use super::facts::Facts;
use super::queues::{Operand, Queues};
use super::steps::repeats_copy_1;
use crate::lower::Lowering;
use crate::program::{CoreCode, Op, Pipe, Repeat};
use crate::target::Level;

/// Emits a matmul class's steps; the queues' fills change from step to step.
pub(super) struct MatmulLowering<'l, 'a> {
    pub(super) lowering: &'l mut Lowering<'a>,
    pub(super) facts: &'l Facts<'a>,
    pub(super) queues: Queues,
    /// The tile coordinates of the current step, one per kernel axis.
    pub(super) coords: Vec<u64>,
}

/// One base-block load from L1 into L0A or L0B.
struct L0Load {
    operand: Operand,
    /// The block is not in L0 yet (the previous block multiplied was another).
    new: bool,
    source_row_bytes: u64,
    /// The block's offset in its L1 tile.
    offset: u64,
    dest_row_bytes: u64,
    rows: u64,
    cols: u64,
}

impl MatmulLowering<'_, '_> {
    /// Emits every step into `code`; the copies a compact class leaves out go to
    /// scratch streams, each checked to be copy 1 moved on. `false` when one is not.
    pub(super) fn emit_steps(&mut self, code: &mut CoreCode) -> bool {
        let facts = self.facts;
        let runs = &facts.runs;
        // Stream lengths where each run's copies 0, 1 and 2 start.
        let mut marks: Vec<[[usize; Pipe::COUNT]; 3]> = vec![[[0; Pipe::COUNT]; 3]; runs.len()];
        let mut scratch = CoreCode::default();
        for index in 0..facts.steps.len() {
            // A copy after a run's second is lowered into the scratch streams.
            let copy = facts.copy_of[index];
            if let Some((r, c)) = copy
                && c < 3
                && (index - runs[r].first).is_multiple_of(runs[r].steps)
            {
                marks[r][c as usize] = code.streams.each_ref().map(Vec::len);
            }
            let out: &mut CoreCode = match copy {
                Some((_, c)) if c >= 2 => &mut scratch,
                _ => &mut *code,
            };
            self.emit_step(out, index);
            // The end of a left-out copy: it must be copy 1 moved on.
            if let Some((r, c)) = copy
                && c >= 2
                && (index + 1 - runs[r].first).is_multiple_of(runs[r].steps)
            {
                if !repeats_copy_1(code, &scratch, &marks[r], c - 1, runs[r].steps as u32) {
                    return false;
                }
                scratch.streams.iter_mut().for_each(Vec::clear);
            }
        }
        for (run, marks) in runs.iter().zip(&marks) {
            let len: [usize; Pipe::COUNT] =
                std::array::from_fn(|pipe| marks[1][pipe] - marks[0][pipe]);
            code.repeats.push(Repeat {
                start: marks[0],
                len,
                tiles: run.steps as u32,
                count: run.count,
            });
        }
        true
    }

    /// Emits one step: its L1 copies, its `k` blocks, the L1 frees, and on the last k
    /// tile the finished block.
    fn emit_step(&mut self, out: &mut CoreCode, index: usize) {
        let facts = self.facts;
        let (mm, step) = (facts.mm, &facts.steps[index]);
        if let Some(t) = mm.batch {
            self.coords[t] = step.t;
        }
        self.coords[mm.m] = step.m;
        self.coords[mm.n] = step.n;
        self.coords[mm.k] = step.k;
        out.push(Pipe::S, index as u32, Op::Loop);
        // MTE2: the L1 tiles the buffers do not hold yet.
        self.queues.l1a.current = facts.resident_a.slot[index];
        self.queues.l1b.current = facts.resident_b.slot[index];
        self.copy_l1_tile(out, index, Operand::A);
        self.copy_l1_tile(out, index, Operand::B);
        // MTE1 and M: the base blocks of this k tile.
        for bk in 0..facts.blocks_k(step.k) {
            self.emit_block(out, index, bk);
        }
        // MTE1 has read the L1 tiles for the last time before their slots are refilled.
        self.free_l1_tile(out, index, Operand::A);
        self.free_l1_tile(out, index, Operand::B);
        // FIX: the finished block to global memory.
        if step.k + 1 == facts.count_k {
            self.write_block(out, index);
        }
    }

    /// Copies an operand's L1 tile in, unless its buffer still holds it.
    fn copy_l1_tile(&mut self, out: &mut CoreCode, index: usize, operand: Operand) {
        let facts = self.facts;
        if !facts.residency(operand).load[index] {
            return;
        }
        let (tensor, tile) = (facts.tensor(operand), index as u32);
        let queue = self.queues.l1(operand);
        let slot = queue.next_slot();
        debug_assert_eq!(slot, queue.current, "slots are refilled in turn");
        if queue.count >= queue.depth {
            out.wait_flag(tile, Pipe::Mte1, Pipe::Mte2, queue.event(slot));
        }
        let address = self.lowering.program.buffers[queue.buffer].slot(slot) as u32;
        let (shape, gm, padded) = self.lowering.copy(tensor, Level::L1, &self.coords);
        let copy_in = Op::CopyIn {
            tensor: tensor as u16,
            gm,
            level: Level::L1,
            address,
            shape,
            padded,
        };
        out.push(Pipe::Mte2, tile, copy_in);
        out.set_flag(tile, Pipe::Mte2, Pipe::Mte1, queue.event(slot));
        queue.count += 1;
        queue.pending = true;
    }

    /// Emits `k` block `bk` of a step: the L0 loads of the blocks not yet there, the
    /// multiply, and the frees of the L0 blocks the next multiply does not use.
    fn emit_block(&mut self, out: &mut CoreCode, index: usize, bk: u64) {
        let facts = self.facts;
        let step = &facts.steps[index];
        let (rows, cols) = self.block_extent(index);
        let depth_k = (facts.ranges[facts.mm.k].extent(step.k) - bk * facts.ck).min(facts.ck);
        let (key_a, key_b) = facts.l0_key(step, bk);
        let before = if bk > 0 {
            Some(facts.l0_key(step, bk - 1))
        } else {
            let previous = index.checked_sub(1).map(|p| &facts.steps[p]);
            previous.map(|p| facts.l0_key(p, facts.blocks_k(p.k) - 1))
        };
        let after = if bk + 1 < facts.blocks_k(step.k) {
            Some(facts.l0_key(step, bk + 1))
        } else {
            facts.steps.get(index + 1).map(|n| facts.l0_key(n, 0))
        };
        let mut load_a = self.l0_load_a(index, bk, rows, depth_k);
        load_a.new = before.is_none_or(|b| b.0 != key_a);
        let mut load_b = self.l0_load_b(index, bk, depth_k, cols);
        load_b.new = before.is_none_or(|b| b.1 != key_b);
        self.load_l0(out, index as u32, &load_a);
        self.load_l0(out, index as u32, &load_b);
        self.multiply(out, index, bk, [rows, cols, depth_k]);
        let tile = index as u32;
        if after.is_none_or(|a| a.0 != key_a) {
            let l0a = &self.queues.l0a;
            out.set_flag(tile, Pipe::M, Pipe::Mte1, l0a.event(l0a.slot()));
        }
        if after.is_none_or(|a| a.1 != key_b) {
            let l0b = &self.queues.l0b;
            out.set_flag(tile, Pipe::M, Pipe::Mte1, l0b.event(l0b.slot()));
        }
    }

    /// The rows and columns of a step's base block (less than a block at a tail).
    fn block_extent(&self, index: usize) -> (u64, u64) {
        let facts = self.facts;
        let step = &facts.steps[index];
        let extent_m = facts.ranges[facts.mm.m].extent(step.m);
        let extent_n = facts.ranges[facts.mm.n].extent(step.n);
        let rows = (extent_m - step.block_m * facts.cm).min(facts.cm);
        let cols = (extent_n - step.block_n * facts.cn).min(facts.cn);
        (rows, cols)
    }

    /// The load of a step's `a` block `bk`: `rows` by `depth_k` out of its L1 tile.
    fn l0_load_a(&self, index: usize, bk: u64, rows: u64, depth_k: u64) -> L0Load {
        let facts = self.facts;
        let step = &facts.steps[index];
        let (tm, tk, cm, ck) = (facts.tm, facts.tk, facts.cm, facts.ck);
        let matrix = facts.batch_of(Operand::A, step).1;
        L0Load {
            operand: Operand::A,
            new: true,
            source_row_bytes: tk * facts.size_a,
            offset: (matrix * tm * tk + step.block_m * cm * tk + bk * ck) * facts.size_a,
            dest_row_bytes: ck * facts.size_a,
            rows,
            cols: depth_k,
        }
    }

    /// The load of a step's `b` block `bk`: `depth_k` by `cols` out of its L1 tile.
    fn l0_load_b(&self, index: usize, bk: u64, depth_k: u64, cols: u64) -> L0Load {
        let facts = self.facts;
        let step = &facts.steps[index];
        let (tn, tk, cn, ck) = (facts.tn, facts.tk, facts.cn, facts.ck);
        let matrix = facts.batch_of(Operand::B, step).1;
        L0Load {
            operand: Operand::B,
            new: true,
            source_row_bytes: tn * facts.size_b,
            offset: (matrix * tk * tn + bk * ck * tn + step.block_n * cn) * facts.size_b,
            dest_row_bytes: cn * facts.size_b,
            rows: depth_k,
            cols,
        }
    }

    /// Loads a base block into L0 once its L1 tile is there and M has freed the slot.
    fn load_l0(&mut self, out: &mut CoreCode, tile: u32, load: &L0Load) {
        if !load.new {
            return;
        }
        let (l0, l1) = self.queues.l0_and_l1(load.operand);
        if l1.pending {
            out.wait_flag(tile, Pipe::Mte2, Pipe::Mte1, l1.event(l1.current));
            l1.pending = false;
        }
        let slot = l0.next_slot();
        if l0.count >= l0.depth {
            out.wait_flag(tile, Pipe::M, Pipe::Mte1, l0.event(slot));
        }
        let buffers = &self.lowering.program.buffers;
        let load_l0 = Op::LoadL0 {
            level: match load.operand {
                Operand::A => Level::L0a,
                Operand::B => Level::L0b,
            },
            source: (buffers[l1.buffer].slot(l1.current) + load.offset) as u32,
            source_row_bytes: load.source_row_bytes as u32,
            dest: buffers[l0.buffer].slot(slot) as u32,
            dest_row_bytes: load.dest_row_bytes as u32,
            rows: load.rows as u32,
            cols: load.cols as u32,
            dtype: self.facts.input_dtype,
        };
        out.push(Pipe::Mte1, tile, load_l0);
        out.set_flag(tile, Pipe::Mte1, Pipe::M, l0.event(slot));
        l0.count += 1;
        l0.pending = true;
    }

    /// Multiplies the L0 blocks into L0C once they are loaded; the first block of a
    /// step's first k tile starts the accumulation, once FIX has freed the slot.
    fn multiply(&mut self, out: &mut CoreCode, index: usize, bk: u64, [m, n, k]: [u64; 3]) {
        let tile = index as u32;
        let queues = &mut self.queues;
        for l0 in [&mut queues.l0a, &mut queues.l0b] {
            if l0.pending {
                out.wait_flag(tile, Pipe::Mte1, Pipe::M, l0.event(l0.slot()));
                l0.pending = false;
            }
        }
        let init = self.facts.steps[index].k == 0 && bk == 0;
        let l0c = &queues.l0c;
        if init && l0c.count >= l0c.depth {
            out.wait_flag(tile, Pipe::Fix, Pipe::M, l0c.event(l0c.next_slot()));
        }
        let buffers = &self.lowering.program.buffers;
        let mmad = Op::Mmad {
            a: buffers[queues.l0a.buffer].slot(queues.l0a.slot()) as u32,
            b: buffers[queues.l0b.buffer].slot(queues.l0b.slot()) as u32,
            c: buffers[l0c.buffer].slot(l0c.next_slot()) as u32,
            m: m as u32,
            n: n as u32,
            k: k as u32,
            init,
            dtype: self.facts.input_dtype,
        };
        out.push(Pipe::M, tile, mmad);
    }

    /// Frees an operand's L1 slot after the tile's last use before it is refilled.
    fn free_l1_tile(&mut self, out: &mut CoreCode, index: usize, operand: Operand) {
        if !self.facts.residency(operand).release[index] {
            return;
        }
        let tile = index as u32;
        let l1 = self.queues.l1(operand);
        if l1.pending {
            out.wait_flag(tile, Pipe::Mte2, Pipe::Mte1, l1.event(l1.current));
            l1.pending = false;
        }
        out.set_flag(tile, Pipe::Mte1, Pipe::Mte2, l1.event(l1.current));
    }

    /// Writes the finished L0C block to global memory in the output's dtype.
    fn write_block(&mut self, out: &mut CoreCode, index: usize) {
        let facts = self.facts;
        let (step, tile) = (&facts.steps[index], index as u32);
        let (rows, cols) = self.block_extent(index);
        let l0c = &mut self.queues.l0c;
        let slot = l0c.next_slot();
        out.set_flag(tile, Pipe::M, Pipe::Fix, l0c.event(slot));
        out.wait_flag(tile, Pipe::M, Pipe::Fix, l0c.event(slot));
        let matrix = (step.t * facts.tt + step.bt) * facts.c_rows * facts.c_columns;
        let row = matrix + (step.m * facts.tm + step.block_m * facts.cm) * facts.c_columns;
        let column = step.n * facts.tn + step.block_n * facts.cn;
        let fixpipe = Op::Fixpipe {
            source: self.lowering.program.buffers[l0c.buffer].slot(slot) as u32,
            source_row_bytes: (facts.cn * facts.acc_bytes) as u32,
            tensor: facts.mm.c as u16,
            gm: row + column,
            gm_row_stride: facts.c_columns,
            rows: rows as u32,
            cols: cols as u32,
            dtype: facts.output_dtype,
        };
        out.push(Pipe::Fix, tile, fixpipe);
        out.set_flag(tile, Pipe::Fix, Pipe::M, l0c.event(slot));
        l0c.count += 1;
    }

    /// Closes the class: every producer waits for the frees it has not consumed, then
    /// all pipes meet.
    pub(super) fn close(&self, code: &mut CoreCode) {
        let end = self.facts.steps.len() as u32;
        let queues = &self.queues;
        queues.l1a.drain(code, end, Pipe::Mte1, Pipe::Mte2);
        queues.l1b.drain(code, end, Pipe::Mte1, Pipe::Mte2);
        queues.l0a.drain(code, end, Pipe::M, Pipe::Mte1);
        queues.l0b.drain(code, end, Pipe::M, Pipe::Mte1);
        queues.l0c.drain(code, end, Pipe::Fix, Pipe::M);
        for pipe in [Pipe::S, Pipe::Mte2, Pipe::Mte1, Pipe::M, Pipe::Fix] {
            code.push(pipe, end, Op::Barrier);
        }
        code.tiles = end;
    }
}
