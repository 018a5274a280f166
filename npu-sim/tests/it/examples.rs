//! Every schedule of every example kernel in `tests/kernels/`: simulated on data,
//! checked against the reference interpreter, never below its roofline bound, and its
//! report kept as a snapshot (one per kernel file).

use crate::support;

use insta::assert_snapshot;
use npu_sim::{Correctness, SimOptions, evaluate};

#[test]
fn every_schedule_of_every_example() {
    for (stem, source) in support::kernel_files() {
        let kernel = support::check(&source);
        let inputs = support::inputs(&kernel, 1);
        let mut text = String::new();
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let what = format!("{stem}.{}", schedule.name);
            let evaluation = evaluate(&kernel, index, &inputs, None, &SimOptions::default())
                .unwrap_or_else(|error| panic!("{what}: {error}"));
            let report = &evaluation.report;
            assert!(
                matches!(evaluation.correctness, Correctness::Passed { .. }),
                "{what}: {:?}",
                evaluation.correctness
            );
            assert!(
                report.total_cycles >= report.roofline_cycles,
                "{what}: below its roofline\n{report}"
            );
            assert!(
                report.roofline_cycles >= report.machine_roofline_cycles,
                "{what}: machine bound above the schedule's"
            );
            // Timing alone gives the same report.
            let timing = SimOptions {
                functional: false,
                ..SimOptions::default()
            };
            let timed = evaluate(&kernel, index, &[], None, &timing)
                .unwrap_or_else(|error| panic!("{what}: {error}"));
            assert_eq!(&timed.report, report, "{what}: timing-only report differs");
            text.push_str(&report.to_string());
            text.push_str(&format!("correctness: {:?}\n\n", evaluation.correctness));
        }
        assert_snapshot!(stem.as_str(), text);
    }
}
