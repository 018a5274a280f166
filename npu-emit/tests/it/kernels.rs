//! The bundled kernels' hand schedules on the Ascend presets: emitted, compiled
//! against the CPU model, run on seeded random and edge inputs, and compared bit for
//! bit with the simulator's functional outputs. A kernel the backend cannot write
//! yet is named with the reason; one it writes must match.

use npu_core::CheckedKernel;
use npu_core::host::HostTensor;
use npu_emit::{Backend, emit};
use npu_sim::{SimOptions, simulate};

use crate::support::{self, Case};

/// Kernels the backend writes today; fewer means a regression (the skip list printed
/// by the test says which kernel stopped being written, and why).
const AT_LEAST_WRITTEN: usize = 10;

/// Emitted cases with their kernels, and skipped kernels with the reason.
type Suite = (Vec<(Case, &'static CheckedKernel)>, Vec<(String, String)>);

/// The Ascend kernels of the suite as cases, and the skipped ones with reasons.
pub fn cases() -> Suite {
    let mut cases = Vec::new();
    let mut skipped = Vec::new();
    for bundled in npu::kernels::all() {
        let kernel = (bundled.kernel)();
        if !kernel.target.name.starts_with("ascend") {
            continue;
        }
        let schedule = kernel
            .schedules
            .iter()
            .position(|s| s.name == "hand")
            .unwrap_or(0);
        let program = npu_core::lower::lower_compact(kernel, schedule);
        match emit(&program, &kernel.target, kernel, Backend::AscendC) {
            Ok(emitted) => {
                let function = format!("{}_{}", program.kernel, program.schedule);
                let source = emitted
                    .file(&format!("{function}.cpp"))
                    .expect("the kernel source")
                    .text
                    .clone();
                let target = kernel.target.clone();
                let case = Case {
                    function,
                    source,
                    program,
                    target,
                };
                cases.push((case, kernel));
            }
            Err(unsupported) => skipped.push((bundled.name.to_string(), unsupported.to_string())),
        }
    }
    (cases, skipped)
}

/// The simulator's outputs of `case` on `inputs`, as bytes.
pub fn simulated(case: &Case, kernel: &CheckedKernel, inputs: &[HostTensor]) -> Vec<Vec<u8>> {
    let simulation = simulate(kernel, &case.program, inputs, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{} does not simulate: {e}", case.function));
    simulation
        .outputs
        .iter()
        .map(|t| t.bytes().to_vec())
        .collect()
}

/// The first element where two outputs differ, for the failure message.
fn first_difference(expected: &[Vec<u8>], got: &[Vec<u8>]) -> String {
    for (index, (e, g)) in expected.iter().zip(got).enumerate() {
        if let Some(byte) = e.iter().zip(g).position(|(a, b)| a != b) {
            return format!("output {index} differs first at byte {byte}");
        }
        if e.len() != g.len() {
            return format!("output {index} has {} bytes, not {}", g.len(), e.len());
        }
    }
    "outputs differ in number".into()
}

#[test]
fn bundled_ascend_kernels_match_the_simulator_bit_for_bit() {
    let (cases, skipped) = cases();
    for (kernel, reason) in &skipped {
        println!("skipped {kernel}: {reason}");
    }
    let plain: Vec<Case> = cases.iter().map(|(c, _)| c.clone()).collect();
    let build = support::build(&plain);
    let mut failures = Vec::new();
    for (case, kernel) in &cases {
        for (tag, inputs) in [
            ("random", kernel.random_inputs(1)),
            ("edges", kernel.edge_inputs(2)),
        ] {
            let expected = simulated(case, kernel, &inputs);
            match build.run(case, &inputs, tag) {
                Ok(got) if got == expected => {}
                Ok(got) => failures.push(format!(
                    "{} on {tag} inputs: {}",
                    case.function,
                    first_difference(&expected, &got)
                )),
                Err(model) => failures.push(format!("{} on {tag} inputs: {model}", case.function)),
            }
        }
    }
    println!(
        "{} of {} Ascend kernels written and matched bit for bit",
        cases.len() - failures.len().min(cases.len()),
        cases.len() + skipped.len()
    );
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
    assert!(
        cases.len() >= AT_LEAST_WRITTEN,
        "only {} kernels written; skipped:\n{skipped:#?}",
        cases.len()
    );
}
