//! A program a profiler measured: a kernel with one of its schedules, lowered once, and
//! the symbol its emitted source carries, which is how a profiler's row finds it.

use std::collections::BTreeSet;

use npu_core::CheckedKernel;
use npu_core::program::{Op, Pipe, Program};
use npu_core::target::{Target, VectorOp};
use npu_sim::{SimOptions, simulate};

use super::columns::{Core, Quantity};

/// A kernel's schedule as the device ran it.
#[derive(Clone, Debug)]
pub struct Subject {
    /// `KERNEL_SCHEDULE_HASH`, as npu-emit writes it (`npu_emit::symbol`).
    pub symbol: String,
    /// The kernel, checked, with the schedule among its schedules.
    pub kernel: CheckedKernel,
    program: Program,
}

/// The simulator's figures for one subject under one target, in cycles.
#[derive(Clone, Debug, PartialEq)]
pub struct Simulated {
    /// Cycles until the last core finished.
    pub total: f64,
    /// Busy cycles of each pipe of the slowest core, by [`Pipe::index`].
    pub pipes: [f64; Pipe::COUNT],
    /// Cores that got work.
    pub cores: u64,
}

impl Simulated {
    /// The figure of `quantity`.
    pub fn get(&self, quantity: Quantity) -> f64 {
        match quantity {
            Quantity::Pipe(pipe) => self.pipes[pipe.index()],
            Quantity::Total => self.total,
        }
    }
}

impl Subject {
    /// Schedule `schedule` (an index into `kernel.schedules`) of `kernel`.
    pub fn new(kernel: &CheckedKernel, schedule: usize) -> Subject {
        let name = &kernel.schedules[schedule].name;
        Subject {
            symbol: npu_emit::symbol(kernel, name),
            kernel: kernel.clone(),
            program: npu_core::lower::lower_compact(kernel, schedule),
        }
    }

    /// Every schedule of `kernel`.
    pub fn every_schedule(kernel: &CheckedKernel) -> Vec<Subject> {
        (0..kernel.schedules.len())
            .map(|index| Subject::new(kernel, index))
            .collect()
    }

    /// Which core's profiler columns describe it: the cube core's for a matmul.
    pub(crate) fn core(&self) -> Core {
        match self.program.cube {
            Some(_) => Core::Cube,
            None => Core::Vector,
        }
    }

    /// The vector cost classes its program's instructions are charged by.
    pub(crate) fn vector_ops(&self) -> BTreeSet<VectorOp> {
        let mut ops = BTreeSet::new();
        for code in &self.program.classes {
            for (instr, _) in code.weighted(Pipe::V) {
                if let Op::Vector(vector) = &instr.op {
                    ops.insert(vector.kind.cost_op());
                }
            }
        }
        ops
    }

    /// Times the program on the kernel's target with `target`'s cost constants (the
    /// two differ in costs only: capacities and alignments decide the program, and a
    /// calibration never changes them).
    pub fn simulate(&self, target: &Target) -> Result<Simulated, String> {
        let mut kernel = self.kernel.clone();
        kernel.target = target.clone();
        kernel.target.name.clone_from(&self.kernel.target.name);
        let options = SimOptions {
            functional: false,
            ..SimOptions::default()
        };
        let simulation = simulate(&kernel, &self.program, &[], &options)
            .map_err(|e| format!("{}: the simulator refused it: {e}", self.symbol))?;
        let report = simulation.report;
        let mut pipes = [0.0; Pipe::COUNT];
        for pipe in &report.pipes {
            pipes[pipe.pipe.index()] = pipe.busy as f64;
        }
        Ok(Simulated {
            total: report.total_cycles as f64,
            pipes,
            cores: report.cores,
        })
    }
}
