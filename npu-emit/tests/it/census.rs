//! The census: which unit does a kernel's element work once it is emitted. Every
//! bundled Ascend kernel's emitted code runs on the CPU model, which counts the
//! element operations of each pipe as the calls run (model_core.h: a vector call its
//! elements, a `SetValue` one, an `Mmad` its multiply-adds), beside what the simulator
//! charges for the same program (`Program::element_ops`) and its cycles.
//! docs/census.md is that table; this test fails when the page is stale.
//!
//! Where the model counts scalar operations the simulator charges no pipe for them:
//! that work is missing from the tuned cycle count. `NPU_BLESS=1` rewrites the page.

use std::fmt::Write as _;

use npu_core::{CheckedKernel, Pipe};
use npu_sim::{SimOptions, simulate};
use rayon::prelude::*;

use crate::kernels::compiled;
use crate::support::{Case, Census};

/// One emitted program's row: what the model counted and what the simulator charges.
struct Row {
    function: String,
    model: Census,
    simulator: [u64; Pipe::COUNT],
    cycles: u64,
}

impl Row {
    /// The share of the model's element operations on the vector and cube units.
    fn unit_share(&self) -> f64 {
        let [scalar, vector, cube] = self.model;
        let all = scalar + vector + cube;
        if all == 0 {
            return 1.0;
        }
        (vector + cube) as f64 / all as f64
    }
}

fn row(build: &crate::support::Build, case: &Case, kernel: &CheckedKernel) -> Row {
    let inputs = kernel.random_inputs(1);
    build
        .run(case, &inputs, "census")
        .unwrap_or_else(|e| panic!("{} does not run: {e}", case.function));
    let model = build
        .census(case, "census")
        .unwrap_or_else(|e| panic!("{e}"));
    let options = SimOptions {
        functional: false,
        ..SimOptions::default()
    };
    let simulation = simulate(kernel, &case.program, &inputs, &options)
        .unwrap_or_else(|e| panic!("{} does not simulate: {e}", case.function));
    Row {
        function: case.function.clone(),
        model,
        simulator: case.program.element_ops(),
        cycles: simulation.report.total_cycles,
    }
}

fn render(rows: &[Row]) -> String {
    let share = |unit: f64| format!("{:.1}%", 100.0 * unit);
    let kept = rows.iter().filter(|r| r.unit_share() >= 0.95).count();
    let mut page = String::from(
        "# Census of emitted Ascend C kernels\n\n\
         Which unit does the element work of each bundled Ascend kernel once it is emitted\n\
         (hand schedules, then the tuned schedules docs/suite.json records), counted by the\n\
         CPU model while the emitted code runs on seeded random inputs: `S` scalar\n\
         operations (`SetValue`), `V` elements of vector calls, `M` cube multiply-adds.\n\
         Beside them, the element operations the simulator charges for the same program\n\
         (vector and cube; it charges the scalar unit only for loop control) and its\n\
         cycles. Scalar work the simulator does not charge is missing from the cycles.\n\
         Written by `NPU_BLESS=1 cargo test -p npu-emit --test it census`; the test\n\
         fails when this page is stale.\n\n",
    );
    let _ = writeln!(
        page,
        "{kept} of {} programs do at least 95% of their element work on the vector or cube unit.\n",
        rows.len()
    );
    page.push_str("| program | model S | model V | model M | vector/cube share | simulator V | simulator M | cycles |\n");
    page.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for row in rows {
        let [s, v, m] = row.model;
        let _ = writeln!(
            page,
            "| {} | {s} | {v} | {m} | {} | {} | {} | {} |",
            row.function,
            share(row.unit_share()),
            row.simulator[Pipe::V.index()],
            row.simulator[Pipe::M.index()],
            row.cycles
        );
    }
    page
}

#[test]
fn the_census_of_emitted_ascend_kernels_is_docs_census_md() {
    let compiled = compiled();
    let mut rows: Vec<Row> = compiled
        .cases
        .par_iter()
        .map(|(case, kernel)| row(&compiled.build, case, kernel))
        .collect();
    rows.sort_by(|a, b| a.function.cmp(&b.function));
    for row in &rows {
        // The cube's work is the program's: one Mmad per mmad instruction.
        assert_eq!(
            row.model[2],
            row.simulator[Pipe::M.index()],
            "{}: cube work",
            row.function
        );
    }
    let page = render(&rows);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/census.md");
    if std::env::var_os("NPU_BLESS").is_some() {
        std::fs::write(path, &page).expect("docs/census.md is written");
    }
    let recorded = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        recorded == page,
        "docs/census.md is stale; rewrite it with `NPU_BLESS=1 cargo test -p npu-emit --test it census`"
    );
}
