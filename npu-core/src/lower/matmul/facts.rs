//! What stays fixed while a matmul class is lowered: its block and tile sizes, operand
//! layouts, steps, L1 residency and the runs its compact form holds.

use super::queues::{Operand, Queues, Residency};
use super::steps::{Run, Step, runs, steps};
use crate::dtype::Dtype;
use crate::ir::MatmulShape;
use crate::lower::{AxisRange, Compact, Lowering, vector};

/// Which L0 block of an operand a step multiplies: its batch index (tile and matrix),
/// its tile's two coordinates, and its block's two.
pub(super) type L0Key = ((u64, u64), u64, u64, u64, u64);

/// What stays fixed while a matmul class is lowered: its shapes and sizes, its steps,
/// where each step finds its L1 tiles, and the runs its compact form holds.
pub(super) struct Facts<'k> {
    pub(super) mm: &'k MatmulShape,
    pub(super) ranges: &'k [AxisRange],
    /// The base block: `m`, `n` and `k` extents.
    pub(super) cm: u64,
    pub(super) cn: u64,
    pub(super) ck: u64,
    /// The tile extents along `m`, `n` and `k`.
    pub(super) tm: u64,
    pub(super) tn: u64,
    pub(super) tk: u64,
    /// The k tiles of a core and the matrices of a batch tile.
    pub(super) count_k: u64,
    pub(super) tt: u64,
    pub(super) size_a: u64,
    pub(super) size_b: u64,
    pub(super) input_dtype: Dtype,
    pub(super) output_dtype: Dtype,
    pub(super) acc_bytes: u64,
    /// The rows and columns of one output matrix.
    pub(super) c_rows: u64,
    pub(super) c_columns: u64,
    /// Whether each operand has the batch axis (one without it the whole batch shares).
    pub(super) a_batched: bool,
    pub(super) b_batched: bool,
    pub(super) steps: Vec<Step>,
    pub(super) resident_a: Residency,
    pub(super) resident_b: Residency,
    pub(super) runs: Vec<Run>,
    /// Per step: the run it belongs to and its copy there.
    pub(super) copy_of: Vec<Option<(usize, u64)>>,
}

impl<'k> Facts<'k> {
    /// The facts of the class `lowering` lowers.
    pub(super) fn new(lowering: &Lowering<'k>, mm: &'k MatmulShape, queues: &Queues) -> Facts<'k> {
        let (kernel, schedule) = (lowering.kernel, lowering.schedule);
        let [cm, cn, ck] = schedule
            .cube
            .expect("a checked matmul schedule has a cube block");
        let steps = steps(lowering, mm, cm, cn);
        let runs = compact_runs(lowering, mm, queues, &steps);
        let c_shape = &kernel.tensors[mm.c].shape;
        let a_batched = mm.is_batched(&kernel.tensors, mm.a);
        let b_batched = mm.is_batched(&kernel.tensors, mm.b);
        let keys_a: Vec<_> = steps
            .iter()
            .map(|s| (batch_index(a_batched, s).0, s.m, s.k))
            .collect();
        let keys_b: Vec<_> = steps
            .iter()
            .map(|s| (batch_index(b_batched, s).0, s.k, s.n))
            .collect();
        Facts {
            mm,
            ranges: lowering.ranges,
            cm,
            cn,
            ck,
            tm: schedule.tiles[mm.m],
            tn: schedule.tiles[mm.n],
            tk: schedule.tiles[mm.k],
            count_k: lowering.ranges[mm.k].count,
            tt: mm.batch.map_or(1, |t| schedule.tiles[t]),
            size_a: kernel.tensors[mm.a].dtype.size(),
            size_b: kernel.tensors[mm.b].dtype.size(),
            input_dtype: kernel.tensors[mm.a].dtype,
            output_dtype: kernel.tensors[mm.c].dtype,
            acc_bytes: kernel.tensors[mm.c].dtype.accumulator().size(),
            c_rows: c_shape[c_shape.len() - 2],
            c_columns: c_shape[c_shape.len() - 1],
            a_batched,
            b_batched,
            resident_a: Residency::plan(&keys_a, queues.l1a.depth),
            resident_b: Residency::plan(&keys_b, queues.l1b.depth),
            copy_of: copies_of_runs(&runs, steps.len()),
            runs,
            steps,
        }
    }

    /// An operand's tensor.
    pub(super) fn tensor(&self, operand: Operand) -> usize {
        match operand {
            Operand::A => self.mm.a,
            Operand::B => self.mm.b,
        }
    }

    /// Where each step finds an operand's L1 tile.
    pub(super) fn residency(&self, operand: Operand) -> &Residency {
        match operand {
            Operand::A => &self.resident_a,
            Operand::B => &self.resident_b,
        }
    }

    /// An operand's batch index at a step (see `batch_index`).
    pub(super) fn batch_of(&self, operand: Operand, s: &Step) -> (u64, u64) {
        match operand {
            Operand::A => batch_index(self.a_batched, s),
            Operand::B => batch_index(self.b_batched, s),
        }
    }

    /// The L0A and L0B blocks a step's `k` block `bk` multiplies.
    pub(super) fn l0_key(&self, s: &Step, bk: u64) -> (L0Key, L0Key) {
        let (a, b) = (self.batch_of(Operand::A, s), self.batch_of(Operand::B, s));
        ((a, s.m, s.k, s.block_m, bk), (b, s.k, s.n, bk, s.block_n))
    }

    /// The `k` blocks of k tile `k`.
    pub(super) fn blocks_k(&self, k: u64) -> u64 {
        self.ranges[self.mm.k].extent(k).div_ceil(self.ck)
    }
}

/// The runs of alike output tiles a compact class holds as two copies, along the order
/// axis `vector::choose_skip` picks; a copy is one output tile
/// (`Compact::SingleTiles`) or as many as every queue's depth divides.
fn compact_runs(
    lowering: &Lowering,
    mm: &MatmulShape,
    queues: &Queues,
    steps: &[Step],
) -> Vec<Run> {
    let copy = match lowering.compact {
        Compact::No => None,
        Compact::SingleTiles => Some(1),
        Compact::Yes => Some(
            [
                &queues.l1a,
                &queues.l1b,
                &queues.l0a,
                &queues.l0b,
                &queues.l0c,
            ]
            .iter()
            .fold(1, |copy, q| vector::lcm(copy, q.depth.max(1))),
        ),
    };
    let order = &lowering.schedule.order;
    let skip = copy.and_then(|copy| vector::choose_skip(lowering.ranges, order, copy));
    skip.map_or_else(Vec::new, |(_, skip)| runs(steps, mm, order, skip))
}

/// An operand's batch index at a step: the step's batch tile and matrix for an operand
/// with the batch axis, 0 for one the whole batch shares.
fn batch_index(batched: bool, s: &Step) -> (u64, u64) {
    if batched { (s.t, s.bt) } else { (0, 0) }
}

/// Per step: the run it belongs to and its copy there.
fn copies_of_runs(runs: &[Run], steps: usize) -> Vec<Option<(usize, u64)>> {
    let mut copy_of: Vec<Option<(usize, u64)>> = vec![None; steps];
    for (r, run) in runs.iter().enumerate() {
        for (i, slot) in copy_of[run.first..run.first + run.steps * run.count as usize]
            .iter_mut()
            .enumerate()
        {
            *slot = Some((r, (i / run.steps) as u64));
        }
    }
    copy_of
}
