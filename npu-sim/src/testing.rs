//! Test helpers: benchmark every schedule of a kernel on the simulator, for snapshots,
//! and the seeded inputs (with the host reference's outputs) the tools check
//! schedules on. The facade re-exports this module as `npu::testing`.
//!
//! ```
//! let source = "
//!     kernel scale(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] * 2.0; }
//!     target npueval_demo;
//!     schedule hand { split i by 512; stage x, y in ub depth 1; }
//!     schedule wide { split i by 2048; stage x, y in ub depth 2; }
//! ";
//! let target = npu_core::Target::preset("npueval_demo").unwrap();
//! let kernel = npu_core::check_source(source, &target).unwrap();
//! let table = npu_sim::testing::bench_variants(&kernel);
//! assert!(table.rows.iter().all(|row| row.correct));
//! assert!(table.to_string().contains("| wide "));
//! ```

use std::fmt;

use npu_core::CheckedKernel;
use npu_core::host::HostTensor;

use crate::{Correctness, SimOptions};

/// The seed of the inputs [`bench_variants`] simulates on.
pub const BENCH_SEED: u64 = 0;

/// Every schedule of a kernel, simulated; `Display` is a stable markdown table.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchTable {
    /// The kernel's name.
    pub kernel: String,
    /// The target's name.
    pub target: String,
    /// One row per schedule, in the kernel's order.
    pub rows: Vec<BenchRow>,
}

/// One schedule's row.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRow {
    /// The schedule's name.
    pub schedule: String,
    /// Simulated cycles; `None` when the simulator refused the program.
    pub cycles: Option<u64>,
    /// Whether the outputs match the host reference.
    pub correct: bool,
    /// The first schedule's cycles over this one's.
    pub speedup: Option<f64>,
    /// The machine roofline bound over the cycles.
    pub efficiency: Option<f64>,
    /// The busiest pipe, or why the schedule did not run or was wrong.
    pub bottleneck: String,
}

/// Simulates every schedule of `kernel` (hand schedules first, then variants) on
/// inputs drawn from [`BENCH_SEED`], checks each against the host reference, and
/// tabulates cycles, speedup over the first (hand) schedule, roofline efficiency and
/// bottleneck. Never panics: a schedule that fails says why in its row.
pub fn bench_variants(kernel: &CheckedKernel) -> BenchTable {
    let (inputs, expected) = seeded_inputs(kernel, BENCH_SEED);
    let options = SimOptions {
        functional: true,
        trace: false,
        ..SimOptions::default()
    };
    let mut rows: Vec<BenchRow> = kernel
        .schedules
        .iter()
        .enumerate()
        .map(|(index, schedule)| {
            let evaluation = crate::evaluate(kernel, index, &inputs, Some(&expected), &options);
            match evaluation {
                Err(error) => BenchRow {
                    schedule: schedule.name.clone(),
                    cycles: None,
                    correct: false,
                    speedup: None,
                    efficiency: None,
                    bottleneck: format!("not run: {error}"),
                },
                Ok(evaluation) => {
                    let report = evaluation.report;
                    let wrong = match evaluation.correctness {
                        Correctness::Mismatch(mismatch) => Some(mismatch.to_string()),
                        _ => None,
                    };
                    BenchRow {
                        schedule: schedule.name.clone(),
                        cycles: Some(report.total_cycles),
                        correct: wrong.is_none(),
                        speedup: None,
                        efficiency: Some(report.machine_efficiency),
                        bottleneck: match wrong {
                            Some(why) => format!("wrong: {why}"),
                            None => report.bottleneck.to_string(),
                        },
                    }
                }
            }
        })
        .collect();
    let first = rows.first().and_then(|row| row.cycles);
    for row in &mut rows {
        if let (Some(first), Some(cycles)) = (first, row.cycles) {
            row.speedup = Some(first as f64 / cycles.max(1) as f64);
        }
    }
    BenchTable {
        kernel: kernel.name.clone(),
        target: kernel.target.name.clone(),
        rows,
    }
}

/// Inputs of `kernel` drawn from `seed` (input `i` from `seed + i`), and the outputs of
/// the simulator's host reference on them: the data the tuner and [`bench_variants`]
/// check every schedule on.
pub fn seeded_inputs(kernel: &CheckedKernel, seed: u64) -> (Vec<HostTensor>, Vec<HostTensor>) {
    let inputs = kernel.random_inputs(seed);
    let expected = reference(kernel, &inputs);
    (inputs, expected)
}

/// Inputs of `kernel` made of edge values ([`CheckedKernel::edge_inputs`]: every other
/// element from [`HostTensor::edges`], zeros, ±1, halves, the dtype's extremes and, for
/// floats, ±infinity and NaN, in turn; the rest drawn from `seed` as in
/// [`seeded_inputs`]). Returns the inputs and the host reference's outputs on them.
pub fn edge_inputs(kernel: &CheckedKernel, seed: u64) -> (Vec<HostTensor>, Vec<HostTensor>) {
    let inputs = kernel.edge_inputs(seed);
    let expected = reference(kernel, &inputs);
    (inputs, expected)
}

/// The simulator's host reference on inputs [`CheckedKernel::fit_inputs`] made valid:
/// every gather index is in range, so it has outputs.
fn reference(kernel: &CheckedKernel, inputs: &[HostTensor]) -> Vec<HostTensor> {
    crate::reference(kernel, inputs)
        .expect("fit_inputs wraps every gather index into the dimension it indexes")
}

impl fmt::Display for BenchTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hand = self.rows.first().map_or("-", |row| row.schedule.as_str());
        writeln!(f, "kernel `{}` on {}", self.kernel, self.target)?;
        writeln!(
            f,
            "| schedule | cycles | correct | speedup over {hand} | roofline | bottleneck |"
        )?;
        writeln!(f, "|---|---:|---|---:|---:|---|")?;
        for row in &self.rows {
            let cycles = row.cycles.map_or("-".to_string(), |c| c.to_string());
            let speedup = row.speedup.map_or("-".to_string(), |s| format!("{s:.2}x"));
            let efficiency = row
                .efficiency
                .map_or("-".to_string(), |e| format!("{:.1}%", e * 100.0));
            let correct = if row.correct { "yes" } else { "no" };
            writeln!(
                f,
                "| {} | {cycles} | {correct} | {speedup} | {efficiency} | {} |",
                row.schedule, row.bottleneck
            )?;
        }
        Ok(())
    }
}
