//! The report's advice is checked: wherever a report of an example schedule tells the
//! user to use depth 2, doing so (on every depth-1 input the advice is about) must pass
//! the checker and make the schedule faster in the simulator.

use crate::support;

use npu_core::ir::Role;
use npu_core::target::Level;
use npu_core::{Edit, Fix};
use npu_sim::{SimOptions, evaluate};

fn timing() -> SimOptions {
    SimOptions {
        functional: false,
        ..SimOptions::default()
    }
}

#[test]
fn depth_two_advice_helps_wherever_it_is_given() {
    let mut advised = 0;
    for (stem, source) in support::kernel_files() {
        let kernel = support::check(&source);
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let report = evaluate(&kernel, index, &[], None, &timing())
                .unwrap_or_else(|error| panic!("{stem}.{}: {error}", schedule.name))
                .report;
            if !report.symptom.contains("depth 2") {
                continue;
            }
            advised += 1;
            // The edit the advice names: depth 2 for the depth-1 inputs it is about.
            let mut edits: Vec<Edit> = Vec::new();
            for stage in &schedule.stages {
                let input = kernel.tensors[stage.tensor].role == Role::Input;
                if stage.depth == 1 && input && !matches!(stage.level, Level::L0a | Level::L0b) {
                    edits.push(Edit::Depth {
                        tensors: vec![kernel.tensors[stage.tensor].name.clone()],
                        level: stage.level,
                        depth: 2,
                    });
                }
            }
            let fix = Fix {
                schedule: schedule.name.clone(),
                edits,
            };
            let mut def = npu_core::internal::parse_str(&source).expect("parses");
            assert!(fix.apply(&mut def));
            let edited = npu_core::print::kernel(&def);
            let checked = npu_core::check_source_with(&edited, |path| Err(path.to_string()))
                .unwrap_or_else(|diagnostics| {
                    panic!(
                        "{stem}.{}: the advice `{}` does not check:\n{}",
                        schedule.name,
                        report.symptom,
                        diagnostics.render(&edited)
                    )
                });
            let after = evaluate(&checked, index, &[], None, &timing())
                .expect("simulates")
                .report;
            assert!(
                after.total_cycles < report.total_cycles,
                "{stem}.{}: the advice `{}` gives {} cycles, was {}",
                schedule.name,
                report.symptom,
                after.total_cycles,
                report.total_cycles
            );
        }
    }
    assert!(advised > 0, "no example schedule gets the depth-2 advice");
}
