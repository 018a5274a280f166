//! Properties over random legal schedules: for schedules a seeded generator writes as
//! DSL text and the checker accepts, the lowered program places the plan exactly, the
//! outputs match the reference interpreter, and the simulated cycles are never below
//! the roofline bound or the attainable bound.

use crate::support;

use npu_core::{Level, Target, check_source};
use npu_sim::{Correctness, SimOptions, evaluate, reference};
use support::schedules::{KERNELS, Random, schedule};

#[test]
fn random_legal_schedules_are_correct_and_above_the_roofline() {
    let mut random = Random::new(0x5eed);
    let mut total = 0;
    for (target_name, kernel_text, probe_items) in KERNELS {
        let target = Target::preset(target_name).expect("preset");
        let base = format!("{kernel_text}\ntarget {target_name};\n");
        // The kernel alone (any legal schedule) gives the axes and tensors to draw from.
        let probe = check_source(
            &format!("{base}schedule probe {{ {probe_items} }}"),
            &target,
        )
        .unwrap_or_else(|d| panic!("{}", d.render(kernel_text)));
        let inputs = support::inputs(&probe, 7);
        let expected = reference(&probe, &inputs).unwrap();
        let mut accepted = 0;
        for attempt in 0..80 {
            let text = format!(
                "{base}{}",
                schedule(&probe, &target, &format!("r{attempt}"), &mut random)
            );
            let Ok(kernel) = check_source(&text, &target) else {
                continue;
            };
            accepted += 1;
            let checked = &kernel.schedules[0];
            let what = format!(
                "{}:\n{}",
                probe.name,
                text.lines().last().unwrap_or_default()
            );
            let program = npu_core::lower(&kernel, 0);
            for level in Level::ALL {
                assert_eq!(
                    program.peak(level),
                    checked.used(level),
                    "{what}: peak of {level}"
                );
            }
            let evaluation = evaluate(&kernel, 0, &inputs, Some(&expected), &SimOptions::default())
                .unwrap_or_else(|error| panic!("{what}: {error}"));
            assert!(
                matches!(evaluation.correctness, Correctness::Passed { .. }),
                "{what}: {:?}",
                evaluation.correctness
            );
            let report = &evaluation.report;
            assert!(
                report.total_cycles >= report.roofline_cycles,
                "{what}: {} cycles below the roofline {}",
                report.total_cycles,
                report.roofline_cycles
            );
            assert!(
                report.total_cycles >= report.machine_roofline_cycles,
                "{what}: below the machine roofline"
            );
            assert!(
                report.total_cycles >= report.attainable_cycles,
                "{what}: {} cycles below the attainable bound {}",
                report.total_cycles,
                report.attainable_cycles
            );
            assert!(report.attainable_cycles >= report.machine_roofline_cycles);
        }
        assert!(
            accepted >= 8,
            "{}: only {accepted} of 80 random schedules were legal",
            probe.name
        );
        total += accepted;
    }
    assert!(total >= 150, "{total} legal schedules in all");
}
