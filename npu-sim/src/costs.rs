//! The target's costs in the form the engine's inner loop uses: floats ready to add,
//! the global-memory bandwidth already shared among the active cores.
//!
//! The chip's bandwidth is shared evenly among the cores with work, once per run:
//! `share = chip rate / active cores`. Without an L2 (or when the inputs a kernel
//! reads do not fit in it) the chip rate is `dma.gm_bytes_per_cycle`. With one, only
//! the first read of each input byte and every write go to global memory; re-reads
//! (another core reading the same `b` tile, a tile read again after eviction from L1)
//! are served by the L2. Over the whole run, with `R` bytes read and `W` written by
//! all cores and `F` the bytes of the inputs:
//!
//! ```text
//! global-memory bytes   H = min(R, F) + W
//! chip time             T = max(H / gm_bytes_per_cycle, (R + W) / l2_bytes_per_cycle)
//! chip rate               = (R + W) / T
//! ```
//!
//! so a kernel that reads every byte once runs exactly as without an L2, and `H` is
//! never below the roofline's minimum bytes: no schedule beats the roofline.

use npu_core::ir::{CheckedKernel, Role};
use npu_core::program::{Op, Pipe, Program, VectorInstr, VectorKind};
use npu_core::target::{Target, VectorOp};

/// Every cost constant of the target, in the form the inner loop uses.
#[derive(Clone, Debug)]
pub(crate) struct Costs {
    pub loop_cycles: f64,
    pub vector_issue: f64,
    pub repeat_bytes: u64,
    pub vector: [f64; VectorOp::ALL.len()],
    pub latency: f64,
    /// Global-memory bytes per cycle of MTE2/MTE3 and of FIX on one core.
    pub rate: f64,
    pub fix_rate: f64,
    pub burst: f64,
    pub pad_penalty: f64,
    pub mte1_rate: f64,
    pub fractal: [u64; 3],
    pub cube_cycles: f64,
    pub cube_issue: f64,
}

/// Global-memory bytes a whole program moves, over every core.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Demand {
    /// Bytes read by `copy_in`s (as moved, padding included).
    pub reads: u64,
    /// Bytes written by `copy_out`s and `fixpipe`s.
    pub writes: u64,
    /// Bytes of the input tensors: what global memory must deliver at least once.
    pub inputs: u64,
}

impl Demand {
    pub(crate) fn of(kernel: &CheckedKernel, program: &Program) -> Demand {
        let mut per_class = vec![(0u64, 0u64); program.classes.len()];
        for (class, code) in program.classes.iter().enumerate() {
            for pipe in [Pipe::Mte2, Pipe::Mte3, Pipe::Fix] {
                for (instr, weight) in code.weighted(pipe) {
                    match instr.op {
                        Op::CopyIn { shape, .. } => {
                            per_class[class].0 += program.copies[shape as usize].moved * weight;
                        }
                        Op::CopyOut { shape, .. } => {
                            per_class[class].1 += program.copies[shape as usize].moved * weight;
                        }
                        Op::Fixpipe {
                            rows, cols, dtype, ..
                        } => {
                            per_class[class].1 +=
                                u64::from(rows) * u64::from(cols) * dtype.size() * weight;
                        }
                        _ => {}
                    }
                }
            }
        }
        let mut traffic = Demand::default();
        for core in &program.cores {
            let (reads, writes) = per_class[core.class as usize];
            traffic.reads += reads;
            traffic.writes += writes;
        }
        traffic.inputs = kernel
            .tensors
            .iter()
            .filter(|t| t.role == Role::Input)
            .map(|t| t.shape.iter().product::<u64>() * t.dtype.size())
            .sum();
        traffic
    }

    /// The bytes per cycle the chip delivers to all cores together (module doc).
    pub(crate) fn chip_rate(&self, target: &Target) -> f64 {
        let gm = target.dma.gm_bytes_per_cycle;
        let moved = self.reads + self.writes;
        if target.dma.l2_bytes == 0 || self.inputs > target.dma.l2_bytes || moved == 0 {
            return gm;
        }
        let global = self.reads.min(self.inputs) + self.writes;
        let time = (global as f64 / gm).max(moved as f64 / target.dma.l2_bytes_per_cycle);
        moved as f64 / time
    }
}

impl Costs {
    pub(crate) fn new(target: &Target, active_cores: u64, chip_rate: f64) -> Costs {
        let share = chip_rate / active_cores.max(1) as f64;
        let mut vector = [1.0; VectorOp::ALL.len()];
        for op in VectorOp::ALL {
            vector[op as usize] = target.vector_cycles(op) as f64;
        }
        let cube = target.cube.as_ref();
        Costs {
            loop_cycles: target.scalar.loop_cycles as f64,
            vector_issue: target.vector.issue_cycles as f64,
            repeat_bytes: target.vector.repeat_bytes.max(1),
            vector,
            latency: target.dma.latency_cycles as f64,
            rate: target.dma.core_bytes_per_cycle.min(share),
            fix_rate: target.dma.fix_bytes_per_cycle.min(share),
            burst: target.dma.burst_cycles as f64,
            pad_penalty: target.dma.pad_penalty,
            mte1_rate: target.dma.mte1_bytes_per_cycle,
            fractal: cube.map_or([16, 16, 16], |c| [c.m.max(1), c.n.max(1), c.k.max(1)]),
            cube_cycles: cube.map_or(1.0, |c| c.cycles_per_fractal as f64),
            cube_issue: cube.map_or(0.0, |c| c.issue_cycles as f64),
        }
    }
}

impl Costs {
    /// The cycles a vector instruction holds V beyond its issue cost (see
    /// [`npu_core::program`]): `repeats × cycles[op]`, and for a scan one step per
    /// position along its axis over the other elements, each issued on its own: every
    /// running value steps in index order, so its positions wait on each other (the
    /// emitted code steps across the rows the same way).
    pub(crate) fn vector_cycles(&self, v: &VectorInstr, program: &Program) -> f64 {
        let repeats = |elements: u64| (elements * u64::from(v.width)).div_ceil(self.repeat_bytes);
        let per_repeat = self.vector[v.kind.cost_op() as usize];
        let elements = u64::from(v.elements);
        // A gather reads one address per element; the rest work a repeat at a time.
        if matches!(v.kind, VectorKind::Gather(_)) {
            return elements as f64 * per_repeat;
        }
        let Some(dim) = program.scan_dimension(v) else {
            return repeats(elements) as f64 * per_repeat;
        };
        let steps = program
            .boxes
            .get(v.shape as usize)
            .and_then(|extents| extents.get(dim))
            .copied()
            .unwrap_or(1)
            .max(1);
        let step = self.vector_issue + repeats(elements / steps) as f64 * per_repeat;
        steps as f64 * step - self.vector_issue
    }
}
