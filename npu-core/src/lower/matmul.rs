//! Matmul kernels on the cube: MTE2 copies tiles of `a` and `b` from global memory
//! into L1, MTE1 moves base blocks into L0A and L0B, M multiplies them into an L0C
//! block, accumulating across `k`, and FIX writes the finished block to global memory
//! in the output's dtype.
//!
//! L0C holds one base block per slot, so each block of an output tile runs the whole
//! `k` loop before the next block starts. Within an output tile the blocks walk `m`
//! and `n` in `schedule.order`.
//!
//! L1 residency: each L1 buffer keeps the last `depth` tiles it was given, and a step
//! whose tile is still there uses it again instead of copying it. So when `k` is not
//! split, the L1 tiles of an output tile stay put for all its blocks (and an `a` tile
//! stays across the `n` loop when `m` is outermost); when `k` is split into at most
//! `depth` tiles, `stage b in l1 depth 4;` keeps the whole `k` panel of `b` in L1
//! across the `m` loop (`order n, m;`), as Ascend's matmul library keeps a B panel
//! resident while it walks `m`. Otherwise the tiles are copied again for each block,
//! the cost of a small L1 the tuner weighs. A tile is freed for MTE2 after its last
//! use before a copy overwrites its slot (slots are refilled in turn).
//!
//! Compact form ([`super::lower_compact`]): along the order axis
//! [`vector::choose_skip`] picks, a run of alike output tiles is held as its first two
//! copies. The copies after them are still lowered, into a scratch stream, so every
//! queue's state is exactly the full lowering's, and each is checked to be copy 1
//! moved on (its tiles and global-memory offsets); one that is not sends the class
//! back to be lowered in full.

mod steps;

use super::vector;
use super::{Compact, Lowering};
use crate::ir::{BufferKind, KernelClass};
use crate::program::{CoreCode, Op, Pipe, Repeat};
use crate::target::Level;
use steps::{Step, repeats_copy_1, runs, steps};

/// Producer/consumer state of one staged buffer (as in the vector lowering).
#[derive(Clone, Copy, Default)]
struct Queue {
    buffer: usize,
    depth: u64,
    event: u16,
    count: u64,
    pending: bool,
    /// The slot the current step reads (L1 queues).
    current: u64,
}

/// Where each step finds its L1 tile of one operand (module doc: L1 residency).
struct Residency {
    /// The slot holding the step's tile.
    slot: Vec<u64>,
    /// The step copies its tile into that slot.
    load: Vec<bool>,
    /// The step is the tile's last use before its slot is refilled (or the program ends).
    release: Vec<bool>,
}

impl Residency {
    fn plan<K: PartialEq + Copy>(keys: &[K], depth: u64) -> Residency {
        let mut held: Vec<Option<(K, usize)>> = vec![None; depth as usize];
        let mut fills = 0u64;
        let mut residency = Residency {
            slot: Vec::with_capacity(keys.len()),
            load: Vec::with_capacity(keys.len()),
            release: vec![false; keys.len()],
        };
        let mut last_use: Vec<usize> = Vec::new();
        for (step, key) in keys.iter().enumerate() {
            let hit = held.iter().position(|h| h.is_some_and(|(k, _)| k == *key));
            let slot = match hit {
                Some(slot) => {
                    let fill = held[slot].map_or(0, |(_, fill)| fill);
                    last_use[fill] = step;
                    slot
                }
                None => {
                    let slot = (fills % depth) as usize;
                    held[slot] = Some((*key, last_use.len()));
                    last_use.push(step);
                    fills += 1;
                    slot
                }
            };
            residency.slot.push(slot as u64);
            residency.load.push(hit.is_none());
        }
        for step in last_use {
            residency.release[step] = true;
        }
        residency
    }
}

impl Queue {
    fn slot(&self) -> u64 {
        (self.count.max(1) - 1) % self.depth
    }

    fn next_slot(&self) -> u64 {
        self.count % self.depth
    }

    fn event(&self, slot: u64) -> u16 {
        self.event + slot as u16
    }
}

/// Lowers one class into `code`; `false` when a compact lowering's runs turned out
/// not to repeat (the caller then lowers the class in full).
pub(super) fn lower_class(lowering: &mut Lowering, code: &mut CoreCode) -> bool {
    let kernel = lowering.kernel;
    let KernelClass::Matmul(mm) = &kernel.class else {
        return true;
    };
    let schedule = lowering.schedule;
    let [cm, cn, ck] = schedule
        .cube
        .expect("a checked matmul schedule has a cube block");
    let ranges = lowering.ranges;
    let (tm, tn, tk) = (
        schedule.tiles[mm.m],
        schedule.tiles[mm.n],
        schedule.tiles[mm.k],
    );

    // Queues by level; events numbered per pipe pair in stage order.
    let queue = |tensor: usize, level: Level| -> Queue {
        let buffer = lowering
            .program
            .buffers
            .iter()
            .position(|b| b.kind == BufferKind::Tensor(tensor) && b.level == level)
            .expect("the checker requires every matmul stage");
        let depth = lowering.program.buffers[buffer].depth;
        Queue {
            buffer,
            depth,
            event: 0,
            count: 0,
            pending: false,
            current: 0,
        }
    };
    let mut l1a = queue(mm.a, Level::L1);
    let mut l1b = queue(mm.b, Level::L1);
    let mut l0a = queue(mm.a, Level::L0a);
    let mut l0b = queue(mm.b, Level::L0b);
    let mut l0c = queue(mm.c, Level::L0c);
    for (first, second) in [(&mut l1a, &mut l1b), (&mut l0a, &mut l0b)] {
        let a_first = schedule.stages.iter().position(|s| s.tensor == mm.a)
            <= schedule.stages.iter().position(|s| s.tensor == mm.b);
        if a_first {
            second.event = first.depth as u16;
        } else {
            first.event = second.depth as u16;
        }
    }

    let steps = steps(lowering, mm, cm, cn);
    let copy = match lowering.compact {
        Compact::No => None,
        Compact::SingleTiles => Some(1),
        Compact::Yes => Some(
            [&l1a, &l1b, &l0a, &l0b, &l0c]
                .iter()
                .fold(1, |copy, q| vector::lcm(copy, q.depth.max(1))),
        ),
    };
    let skip = copy.and_then(|copy| vector::choose_skip(ranges, &schedule.order, copy));
    let skip = skip.map(|(_, skip)| skip);
    let runs = skip.map_or_else(Vec::new, |skip| runs(&steps, mm, &schedule.order, skip));
    // Per step: the run it belongs to and its copy there.
    let mut copy_of: Vec<Option<(usize, u64)>> = vec![None; steps.len()];
    for (r, run) in runs.iter().enumerate() {
        for (i, slot) in copy_of[run.first..run.first + run.steps * run.count as usize]
            .iter_mut()
            .enumerate()
        {
            *slot = Some((r, (i / run.steps) as u64));
        }
    }
    // Stream lengths where each run's copies 0, 1 and 2 start.
    let mut marks: Vec<[[usize; 7]; 3]> = vec![[[0; 7]; 3]; runs.len()];
    let mut scratch = CoreCode::default();
    let (count_k, tt) = (
        ranges[mm.k].count,
        mm.batch.map_or(1, |t| schedule.tiles[t]),
    );

    let size_a = kernel.tensors[mm.a].dtype.size();
    let size_b = kernel.tensors[mm.b].dtype.size();
    let input_dtype = kernel.tensors[mm.a].dtype;
    let acc_bytes = kernel.tensors[mm.c].dtype.accumulator().size();
    let c_shape = &kernel.tensors[mm.c].shape;
    let c_columns = c_shape[c_shape.len() - 1];
    // Where an operand's batch index goes: the step's batch tile and matrix for an
    // operand with the batch axis, 0 for one the whole batch shares.
    let a_batched = mm.is_batched(&kernel.tensors, mm.a);
    let b_batched = mm.is_batched(&kernel.tensors, mm.b);
    let batch_of = |batched: bool, s: &Step| if batched { (s.t, s.bt) } else { (0, 0) };
    let mut coords = vec![0u64; kernel.axes.len()];
    let l1_key = |s: &Step| {
        let (ta, tb) = (batch_of(a_batched, s).0, batch_of(b_batched, s).0);
        ((ta, s.m, s.k), (tb, s.k, s.n))
    };
    let resident_a = Residency::plan(
        &steps.iter().map(|s| l1_key(s).0).collect::<Vec<_>>(),
        l1a.depth,
    );
    let resident_b = Residency::plan(
        &steps.iter().map(|s| l1_key(s).1).collect::<Vec<_>>(),
        l1b.depth,
    );
    let blocks_k = |k: u64| ranges[mm.k].extent(k).div_ceil(ck);
    for (index, step) in steps.iter().enumerate() {
        let tile = index as u32;
        let previous = index.checked_sub(1).map(|p| &steps[p]);
        let next = steps.get(index + 1);
        // A copy after a run's second is lowered into the scratch streams.
        let copy = copy_of[index];
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
        if let Some(t) = mm.batch {
            coords[t] = step.t;
        }
        coords[mm.m] = step.m;
        coords[mm.n] = step.n;
        coords[mm.k] = step.k;
        out.push(Pipe::S, tile, Op::Loop);

        // MTE2: the L1 tiles the buffers do not hold yet.
        l1a.current = resident_a.slot[index];
        l1b.current = resident_b.slot[index];
        for (tensor, queue, new) in [
            (mm.a, &mut l1a, resident_a.load[index]),
            (mm.b, &mut l1b, resident_b.load[index]),
        ] {
            if !new {
                continue;
            }
            let slot = queue.next_slot();
            debug_assert_eq!(slot, queue.current, "slots are refilled in turn");
            if queue.count >= queue.depth {
                out.wait_flag(tile, Pipe::Mte1, Pipe::Mte2, queue.event(slot));
            }
            let address = lowering.program.buffers[queue.buffer].slot(slot) as u32;
            let (shape, gm, padded) = lowering.copy(tensor, Level::L1, &coords);
            out.push(
                Pipe::Mte2,
                tile,
                Op::CopyIn {
                    tensor: tensor as u16,
                    gm,
                    level: Level::L1,
                    address,
                    shape,
                    padded,
                },
            );
            out.set_flag(tile, Pipe::Mte2, Pipe::Mte1, queue.event(slot));
            queue.count += 1;
            queue.pending = true;
        }

        // MTE1 and M: the base blocks of this k tile.
        let extent_m = ranges[mm.m].extent(step.m);
        let extent_n = ranges[mm.n].extent(step.n);
        let extent_k = ranges[mm.k].extent(step.k);
        let rows = (extent_m - step.block_m * cm).min(cm);
        let cols = (extent_n - step.block_n * cn).min(cn);
        let last_k = step.k + 1 == count_k;
        let l0_key = |s: &Step, bk: u64| {
            let (a, b) = (batch_of(a_batched, s), batch_of(b_batched, s));
            ((a, s.m, s.k, s.block_m, bk), (b, s.k, s.n, bk, s.block_n))
        };
        for bk in 0..blocks_k(step.k) {
            let depth_k = (extent_k - bk * ck).min(ck);
            let (key_a0, key_b0) = l0_key(step, bk);
            let before = if bk > 0 {
                Some(l0_key(step, bk - 1))
            } else {
                previous.map(|p| l0_key(p, blocks_k(p.k) - 1))
            };
            let after = if bk + 1 < blocks_k(step.k) {
                Some(l0_key(step, bk + 1))
            } else {
                next.map(|n| l0_key(n, 0))
            };
            let loads = [
                (
                    Level::L0a,
                    &mut l0a,
                    &mut l1a,
                    before.is_none_or(|b| b.0 != key_a0),
                    tk * size_a,
                    (batch_of(a_batched, step).1 * tm * tk + step.block_m * cm * tk + bk * ck)
                        * size_a,
                    ck * size_a,
                    rows,
                    depth_k,
                ),
                (
                    Level::L0b,
                    &mut l0b,
                    &mut l1b,
                    before.is_none_or(|b| b.1 != key_b0),
                    tn * size_b,
                    (batch_of(b_batched, step).1 * tk * tn + bk * ck * tn + step.block_n * cn)
                        * size_b,
                    cn * size_b,
                    depth_k,
                    cols,
                ),
            ];
            for (
                level,
                l0,
                l1,
                new,
                source_row_bytes,
                offset,
                dest_row_bytes,
                block_rows,
                block_cols,
            ) in loads
            {
                if !new {
                    continue;
                }
                if l1.pending {
                    out.wait_flag(tile, Pipe::Mte2, Pipe::Mte1, l1.event(l1.current));
                    l1.pending = false;
                }
                let slot = l0.next_slot();
                if l0.count >= l0.depth {
                    out.wait_flag(tile, Pipe::M, Pipe::Mte1, l0.event(slot));
                }
                let source = (lowering.program.buffers[l1.buffer].slot(l1.current) + offset) as u32;
                let dest = lowering.program.buffers[l0.buffer].slot(slot) as u32;
                out.push(
                    Pipe::Mte1,
                    tile,
                    Op::LoadL0 {
                        level,
                        source,
                        source_row_bytes: source_row_bytes as u32,
                        dest,
                        dest_row_bytes: dest_row_bytes as u32,
                        rows: block_rows as u32,
                        cols: block_cols as u32,
                        dtype: input_dtype,
                    },
                );
                out.set_flag(tile, Pipe::Mte1, Pipe::M, l0.event(slot));
                l0.count += 1;
                l0.pending = true;
            }

            for l0 in [&mut l0a, &mut l0b] {
                if l0.pending {
                    out.wait_flag(tile, Pipe::Mte1, Pipe::M, l0.event(l0.slot()));
                    l0.pending = false;
                }
            }
            let init = step.k == 0 && bk == 0;
            if init && l0c.count >= l0c.depth {
                out.wait_flag(tile, Pipe::Fix, Pipe::M, l0c.event(l0c.next_slot()));
            }
            let c = lowering.program.buffers[l0c.buffer].slot(l0c.next_slot()) as u32;
            let a = lowering.program.buffers[l0a.buffer].slot(l0a.slot()) as u32;
            let b = lowering.program.buffers[l0b.buffer].slot(l0b.slot()) as u32;
            out.push(
                Pipe::M,
                tile,
                Op::Mmad {
                    a,
                    b,
                    c,
                    m: rows as u32,
                    n: cols as u32,
                    k: depth_k as u32,
                    init,
                    dtype: input_dtype,
                },
            );
            if after.is_none_or(|a| a.0 != key_a0) {
                out.set_flag(tile, Pipe::M, Pipe::Mte1, l0a.event(l0a.slot()));
            }
            if after.is_none_or(|a| a.1 != key_b0) {
                out.set_flag(tile, Pipe::M, Pipe::Mte1, l0b.event(l0b.slot()));
            }
        }
        // MTE1 has read the L1 tiles for the last time before their slots are refilled.
        for (l1, release) in [
            (&mut l1a, resident_a.release[index]),
            (&mut l1b, resident_b.release[index]),
        ] {
            if !release {
                continue;
            }
            if l1.pending {
                out.wait_flag(tile, Pipe::Mte2, Pipe::Mte1, l1.event(l1.current));
                l1.pending = false;
            }
            out.set_flag(tile, Pipe::Mte1, Pipe::Mte2, l1.event(l1.current));
        }

        // FIX: the finished block to global memory.
        if last_k {
            let slot = l0c.next_slot();
            out.set_flag(tile, Pipe::M, Pipe::Fix, l0c.event(slot));
            out.wait_flag(tile, Pipe::M, Pipe::Fix, l0c.event(slot));
            let matrix = (step.t * tt + step.bt) * c_shape[c_shape.len() - 2] * c_columns;
            let row = matrix + (step.m * tm + step.block_m * cm) * c_columns;
            let column = step.n * tn + step.block_n * cn;
            out.push(
                Pipe::Fix,
                tile,
                Op::Fixpipe {
                    source: lowering.program.buffers[l0c.buffer].slot(slot) as u32,
                    source_row_bytes: (cn * acc_bytes) as u32,
                    tensor: mm.c as u16,
                    gm: row + column,
                    gm_row_stride: c_columns,
                    rows: rows as u32,
                    cols: cols as u32,
                    dtype: kernel.tensors[mm.c].dtype,
                },
            );
            out.set_flag(tile, Pipe::Fix, Pipe::M, l0c.event(slot));
            l0c.count += 1;
        }

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
        let len: [usize; 7] = std::array::from_fn(|pipe| marks[1][pipe] - marks[0][pipe]);
        code.repeats.push(Repeat {
            start: marks[0],
            len,
            tiles: run.steps as u32,
            count: run.count,
        });
    }

    let end = steps.len() as u32;
    drain(code, end, &l1a, Pipe::Mte1, Pipe::Mte2);
    drain(code, end, &l1b, Pipe::Mte1, Pipe::Mte2);
    drain(code, end, &l0a, Pipe::M, Pipe::Mte1);
    drain(code, end, &l0b, Pipe::M, Pipe::Mte1);
    drain(code, end, &l0c, Pipe::Fix, Pipe::M);
    for pipe in [Pipe::S, Pipe::Mte2, Pipe::Mte1, Pipe::M, Pipe::Fix] {
        code.push(pipe, end, Op::Barrier);
    }
    code.tiles = end;
    true
}

/// Waits for the consumer's frees of the last `min(count, depth)` fills.
fn drain(code: &mut CoreCode, tile: u32, queue: &Queue, from: Pipe, to: Pipe) {
    let outstanding = queue.count.min(queue.depth);
    for fill in queue.count - outstanding..queue.count {
        code.wait_flag(tile, from, to, queue.event(fill % queue.depth));
    }
}
