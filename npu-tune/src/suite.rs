//! The suite table: every bundled kernel ([`crate::kernels::all`]) tuned by the offline
//! heuristic against grid and random search with the same budget, one row per kernel,
//! as docs/suite.md holds it.
//!
//! `autotune --all --suite-table docs/suite.md` writes the page and, beside it,
//! docs/suite.json: the rows with the schedule behind every tuned number. Each number
//! is reproducible from that file alone, so npu-tune's `tests/it/suite.rs` re-simulates every hand
//! schedule and every recorded best, renders the page from the file, and fails when a
//! cycle count, a kernel, or the page differs: the table is stale.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::kernels::{Bundled, Category};
use crate::record::KernelResult;

/// The budget the suite table is tuned with: small enough that the whole suite tunes
/// in a test, large enough that the heuristic's first edits show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuiteBudget {
    /// Rounds of the heuristic per kernel.
    pub rounds: u32,
    /// Candidates per round.
    pub candidates: usize,
    /// The run's seed.
    pub seed: u64,
}

impl SuiteBudget {
    /// The budget of docs/suite.md.
    pub const TABLE: SuiteBudget = SuiteBudget {
        rounds: 3,
        candidates: 4,
        seed: 0,
    };

    /// The command that writes the table with this budget.
    pub fn command(&self) -> String {
        format!(
            "cargo run --release --bin autotune -- --all --rounds {} --candidates {} --seed {} --suite-table docs/suite.md",
            self.rounds, self.candidates, self.seed
        )
    }
}

/// One kernel's row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteRow {
    /// The bundled kernel's name.
    pub kernel: String,
    /// Its category, which groups the table's rows.
    pub category: Category,
    /// The target it was tuned on.
    pub target: String,
    /// The best hand schedule's cycles; `None` when none was correct.
    pub hand: Option<u64>,
    /// Grid search's best cycles, with as many evaluations as the heuristic.
    pub grid: Option<u64>,
    /// Random search's best cycles, with as many evaluations as the heuristic.
    pub random: Option<u64>,
    /// The heuristic's best cycles; `None` when it found nothing correct.
    pub heuristic: Option<u64>,
    /// Hand cycles over the heuristic's best.
    pub speedup: Option<f64>,
    /// Roofline cycles over the heuristic's best.
    pub efficiency: Option<f64>,
    /// For a matmul: the cube peak (every multiply-add on every cube core, one fractal
    /// per cycle) over the heuristic's best.
    #[serde(default)]
    pub cube_peak: Option<f64>,
    /// The busiest pipe of the heuristic's best schedule.
    pub bottleneck: String,
    /// The schedule blocks behind `grid`, `random` and `heuristic`.
    pub grid_schedule: Option<String>,
    /// The schedule block behind `random`.
    pub random_schedule: Option<String>,
    /// The schedule block behind `heuristic`.
    pub heuristic_schedule: Option<String>,
}

/// The suite's data file: the budget and every row (docs/suite.json).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteFile {
    /// Rounds of the budget the rows were tuned with.
    pub rounds: u32,
    /// Candidates per round of that budget.
    pub candidates: usize,
    /// The seed of that budget.
    pub seed: u64,
    /// One row per kernel, in the order they were tuned.
    pub rows: Vec<SuiteRow>,
}

impl SuiteFile {
    /// The budget the rows were tuned with.
    pub fn budget(&self) -> SuiteBudget {
        SuiteBudget {
            rounds: self.rounds,
            candidates: self.candidates,
            seed: self.seed,
        }
    }
}

/// The rows of `results`, each matched with its kernel's category by name.
pub fn rows(kernels: &[Bundled], results: &[KernelResult]) -> Vec<SuiteRow> {
    results
        .iter()
        .map(|result| {
            let bundled = kernels.iter().find(|k| k.name == result.kernel);
            let category = bundled.map_or(Category::Movement, |k| k.category);
            let best = result.best.as_ref();
            let cube_peak = bundled
                .map(|k| (k.kernel)())
                .filter(|kernel| matches!(kernel.class, npu_core::ir::KernelClass::Matmul(_)))
                .zip(best)
                .map(|(kernel, best)| {
                    npu_sim::machine_roofline(kernel).cube_cycles / best.cycles.max(1) as f64
                });
            let bottleneck = best
                .and_then(|best| {
                    result.candidates.iter().find(|c| {
                        c.generator == result.generator
                            && c.cycles == Some(best.cycles)
                            && c.source == best.source
                    })
                })
                .and_then(|c| c.report.as_ref())
                .map_or("-".to_string(), |report| report.bottleneck.to_string());
            SuiteRow {
                kernel: result.kernel.clone(),
                category,
                target: result.target.clone(),
                hand: result.baselines.hand.cycles,
                grid: result.baselines.grid.cycles,
                random: result.baselines.random.cycles,
                heuristic: best.map(|b| b.cycles),
                speedup: best.and_then(|b| b.speedup_over_hand),
                efficiency: best.map(|b| b.efficiency),
                cube_peak,
                bottleneck,
                grid_schedule: result.baselines.grid.source.clone(),
                random_schedule: result.baselines.random.source.clone(),
                heuristic_schedule: best.map(|b| b.source.clone()),
            }
        })
        .collect()
}

/// The median of `values` (the mean of the middle two for an even count).
fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len().is_multiple_of(2) {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    })
}

/// The markdown page: how it was made, the headline (kernels per category, median
/// speedup and roofline efficiency), then one row per kernel.
pub fn render(rows: &[SuiteRow], budget: &SuiteBudget) -> String {
    let mut out = String::new();
    out.push_str("# The kernel suite\n\n");
    out.push_str(
        "Every bundled kernel (`npu-tune/src/kernels/`), its hand schedule simulated and tuned by the \
         offline heuristic against grid and random search with the same budget \
         (cycles of the best correct schedule each found). Generated; do not edit. \
         `cargo test -p npu-tune --test it suite` fails when this page is stale. `roofline` is the \
         tuned schedule's efficiency against the machine's roofline; `cube peak`, for a \
         matmul, the cube's peak (every multiply-add on every cube core at one fractal per \
         cycle) over its cycles. To regenerate:\n\n",
    );
    let _ = writeln!(out, "```sh\n{}\n```\n", budget.command());

    let mut per_category: BTreeMap<Category, usize> = BTreeMap::new();
    for row in rows {
        *per_category.entry(row.category).or_default() += 1;
    }
    let counts: Vec<String> = per_category
        .iter()
        .map(|(category, count)| format!("{} {count}", category.name()))
        .collect();
    let mut speedups: Vec<f64> = rows.iter().filter_map(|r| r.speedup).collect();
    let mut efficiencies: Vec<f64> = rows.iter().filter_map(|r| r.efficiency).collect();
    let _ = writeln!(
        out,
        "**{} kernels** ({}). Median speedup of the tuned schedule over the hand schedule: \
         **{}**; median roofline efficiency of the tuned schedule: **{}**.\n",
        rows.len(),
        counts.join(", "),
        median(&mut speedups).map_or("-".into(), |s| format!("{s:.2}x")),
        median(&mut efficiencies).map_or("-".into(), |e| format!("{:.1}%", e * 100.0)),
    );

    out.push_str(
        "| kernel | category | target | hand | grid | random | heuristic | speedup | roofline | cube peak | bottleneck |\n",
    );
    out.push_str("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    let cycles = |c: Option<u64>| c.map_or("-".to_string(), |c| c.to_string());
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.kernel,
            row.category.name(),
            row.target,
            cycles(row.hand),
            cycles(row.grid),
            cycles(row.random),
            cycles(row.heuristic),
            row.speedup.map_or("-".into(), |s| format!("{s:.2}x")),
            row.efficiency
                .map_or("-".into(), |e| format!("{:.1}%", e * 100.0)),
            row.cube_peak
                .map_or("-".into(), |e| format!("{:.1}%", e * 100.0)),
            row.bottleneck,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }
}
