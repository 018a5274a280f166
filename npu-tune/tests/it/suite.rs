//! The bundled kernel suite: every schedule of every kernel matches the host reference
//! on seeded random data and on edge values, the macro's reference agrees with the
//! simulator's, and docs/suite.md is what the tuner produces today.

use npu_core::host::HostTensor;
use npu_sim::testing::{edge_inputs, seeded_inputs};
use npu_sim::{Correctness, SimOptions};
use npu_tune::evaluate::Problem;
use npu_tune::kernels::{self, Bundled};
use npu_tune::suite::{self, SuiteBudget, SuiteFile};
use rayon::prelude::*;

/// Simulates schedule `index` of `bundled` on `inputs`; `Err` says what went wrong.
fn run(
    bundled: &Bundled,
    index: usize,
    inputs: &[HostTensor],
    expected: &[HostTensor],
) -> Result<(), String> {
    let kernel = (bundled.kernel)();
    let options = SimOptions {
        functional: true,
        trace: false,
        ..SimOptions::default()
    };
    let evaluation = npu_sim::evaluate(kernel, index, inputs, Some(expected), &options)
        .map_err(|e| format!("not run: {e}"))?;
    match evaluation.correctness {
        Correctness::Passed { .. } => Ok(()),
        Correctness::Mismatch(mismatch) => Err(format!("wrong: {mismatch}")),
        Correctness::NotChecked => Err("not checked".into()),
    }
}

/// Whether two references' outputs are the same values (NaN equal to NaN).
fn same(a: &[HostTensor], b: &[HostTensor]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.dtype() == b.dtype()
                && a.shape() == b.shape()
                && a.values().iter().zip(&b.values()).all(|(x, y)| {
                    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) || x == y
                })
        })
}

#[test]
fn the_suite_has_at_least_seventy_kernels_with_unique_names() {
    let all = kernels::all();
    let mut names: Vec<&str> = all.iter().map(|b| b.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len(), "kernel names repeat");
    assert!(all.len() >= 70, "the suite has {} kernels", all.len());
}

#[test]
fn every_schedule_matches_the_reference_on_random_and_edge_data() {
    let failures: Vec<String> = kernels::all()
        .par_iter()
        .flat_map_iter(|bundled| {
            let kernel = (bundled.kernel)();
            let mut failures = Vec::new();
            for (data, (inputs, expected)) in [
                ("random", seeded_inputs(kernel, 7)),
                ("edge", edge_inputs(kernel, 7)),
            ] {
                match (bundled.reference)(&inputs) {
                    Ok(macro_outputs) if same(&macro_outputs, &expected) => {}
                    Ok(_) => failures.push(format!(
                        "{}: the macro's reference and the simulator's differ on {data} data",
                        bundled.name
                    )),
                    Err(error) => failures.push(format!("{}: reference: {error}", bundled.name)),
                }
                for (index, schedule) in kernel.schedules.iter().enumerate() {
                    if let Err(why) = run(bundled, index, &inputs, &expected) {
                        failures.push(format!(
                            "{} {} on {data} data: {why}",
                            bundled.name, schedule.name
                        ));
                    }
                }
            }
            failures
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The cycles of schedule block `schedule` of `problem`'s kernel, timed on the
/// simulator (timing needs no data).
fn timed(problem: &Problem, schedule: &str) -> Option<u64> {
    problem.evaluate_with(schedule, |_| false).cycles
}

#[test]
fn the_suite_table_is_fresh() {
    let root = crate::repo_root().join("docs");
    let regenerate = SuiteBudget::TABLE.command();
    let text = std::fs::read_to_string(root.join("suite.json"))
        .unwrap_or_else(|e| panic!("docs/suite.json: {e}; regenerate it with `{regenerate}`"));
    let file: SuiteFile = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("docs/suite.json: {e}; regenerate it with `{regenerate}`"));
    assert_eq!(
        file.budget(),
        SuiteBudget::TABLE,
        "regenerate with `{regenerate}`"
    );
    let all = kernels::all();
    let listed: Vec<&str> = file.rows.iter().map(|r| r.kernel.as_str()).collect();
    let bundled: Vec<&str> = all.iter().map(|b| b.name).collect();
    assert_eq!(
        listed, bundled,
        "the suite changed; regenerate with `{regenerate}`"
    );

    let mut stale: Vec<String> = file
        .rows
        .par_iter()
        .zip(&all)
        .flat_map_iter(|(row, bundled)| {
            let mut stale = Vec::new();
            let kernel = (bundled.kernel)();
            if row.category != bundled.category || row.target != kernel.target.name {
                stale.push(format!("{}: category or target changed", row.kernel));
            }
            let problem = Problem::new(kernel.clone(), Vec::new(), Vec::new());
            let hand = timed(&problem, &kernel.schedules[0].source);
            let columns = [
                ("hand", row.hand, hand),
                (
                    "grid",
                    row.grid,
                    row.grid_schedule.as_ref().and_then(|s| timed(&problem, s)),
                ),
                (
                    "random",
                    row.random,
                    row.random_schedule
                        .as_ref()
                        .and_then(|s| timed(&problem, s)),
                ),
                (
                    "heuristic",
                    row.heuristic,
                    row.heuristic_schedule
                        .as_ref()
                        .and_then(|s| timed(&problem, s)),
                ),
            ];
            for (column, recorded, now) in columns {
                if recorded != now {
                    stale.push(format!(
                        "{} {column}: table {recorded:?}, now {now:?}",
                        row.kernel
                    ));
                }
            }
            stale
        })
        .collect();
    let page = std::fs::read_to_string(root.join("suite.md")).unwrap_or_default();
    if page != suite::render(&file.rows, &file.budget()) {
        stale.push("docs/suite.md is not the rendering of docs/suite.json".into());
    }
    assert!(
        stale.is_empty(),
        "docs/suite.md is stale; regenerate it with `{regenerate}`:\n{}",
        stale.join("\n")
    );
}
