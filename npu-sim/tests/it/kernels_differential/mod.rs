//! The kernel-level differential test: random kernels over the whole language
//! (`npu-testgen`), each checked against every preset with several random schedules,
//! legal or not. For every schedule the checker accepts, the lowered program must pass
//! the validator (a refusal is a failure: the two guards must agree), and the IR
//! interpreter ([`npu_sim::reference`]) and the simulator (functional) must compute
//! bit-identical outputs (any NaN equals any NaN; +0 and −0 differ) on random data and
//! on edge data (zeros, ±0, extremes, ±inf, NaN; gather indices always in range). A
//! panic anywhere is a failure. Each class of failure is shrunk to a small kernel and
//! printed as DSL text.
//!
//! `NPU_DIFF_KERNELS=N` (default [`DEFAULT_KERNELS`]) and `NPU_DIFF_SEED=S` run a long
//! or another campaign; the coverage table (accepted kernels per construct × dtype ×
//! preset) is printed, its minimum per cell enforced ([`coverage`]), and for the
//! default campaign compared with the committed `coverage.txt`.

mod compare;
mod coverage;
mod orders;
mod shrink;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use npu_core::Target;
use npu_core::ir::CheckedKernel;
use npu_testgen::{Case, Preset};

/// Kernels in the default run (over every preset: 100 per vector dtype of each),
/// sized to stay within a minute of a debug `cargo test` on a two-core machine.
const DEFAULT_KERNELS: usize = 2600;
const DEFAULT_SEED: u64 = 0x6b65_726e_656c_7321;
/// Schedules per kernel: the plain one, then random ones.
const SCHEDULES: usize = 4;

/// How a case failed: the stage that disagrees and what it said.
#[derive(Clone, Debug)]
pub(crate) struct Failure {
    /// The class: the stage, the kernel's form and dtype, e.g. `mismatch/reduce/f16`.
    pub class: String,
    pub detail: String,
}

fn presets() -> Vec<(Target, Preset)> {
    Target::preset_names()
        .into_iter()
        .map(|name| {
            let target = Target::preset(name).expect("a preset");
            let preset = Preset {
                name: name.to_string(),
                vector_dtypes: target
                    .vector
                    .dtypes
                    .iter()
                    .map(|d| d.name().to_string())
                    .collect(),
                cube_dtypes: target
                    .cube
                    .as_ref()
                    .map(|c| c.dtypes.iter().map(|d| d.name().to_string()).collect())
                    .unwrap_or_default(),
                cores: u64::from(target.cores.vector.max(target.cores.cube)),
            };
            (target, preset)
        })
        .collect()
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| {
            let v = v.trim();
            v.strip_prefix("0x")
                .map_or_else(|| v.parse().ok(), |hex| u64::from_str_radix(hex, 16).ok())
        })
        .unwrap_or(default)
}

#[test]
fn random_kernels_agree_between_checker_validator_interpreter_and_simulator() {
    let kernels = env_number("NPU_DIFF_KERNELS", DEFAULT_KERNELS as u64) as usize;
    let seed = env_number("NPU_DIFF_SEED", DEFAULT_SEED);
    let default_run = kernels == DEFAULT_KERNELS && seed == DEFAULT_SEED;
    let presets = presets();
    let dtypes: usize = presets.iter().map(|(_, p)| p.vector_dtypes.len()).sum();
    let mut coverage = coverage::Table::default();
    let mut failures: BTreeMap<String, (Case, usize, Failure)> = BTreeMap::new();
    let mut counted = 0usize;
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (target, preset) in &presets {
        let name_hash = npu_core::variants::fnv1a64_hash(preset.name.bytes());
        let mut rng = fastrand::Rng::with_seed(seed ^ name_hash);
        // Each preset's share of the kernels is in proportion to its dtypes, which
        // take turns, so every dtype of every preset gets as many kernels.
        let share = kernels * preset.vector_dtypes.len() / dtypes;
        for number in 0..share {
            let dtype = &preset.vector_dtypes[number % preset.vector_dtypes.len()];
            let case = Case::random(&mut rng, preset, dtype, SCHEDULES);
            let mut accepted = false;
            for index in 0..case.schedules.len() {
                match run(&case, index, target) {
                    Outcome::Rejected => {}
                    Outcome::Agreed => accepted = true,
                    Outcome::Failed(failure) => {
                        accepted = true;
                        failures.entry(failure.class.clone()).or_insert((
                            case.clone(),
                            index,
                            failure,
                        ));
                    }
                }
            }
            if accepted {
                counted += 1;
                coverage.count(&case);
            }
        }
    }
    let table = coverage.render();
    println!(
        "{counted} accepted kernels of {kernels} over {} presets\n{table}",
        presets.len()
    );
    let mut report = Vec::new();
    for (class, (case, index, failure)) in &failures {
        let target = &presets
            .iter()
            .find(|(_, p)| p.name == case.target)
            .expect("preset")
            .0;
        let small = shrink::shrink(case, *index, class, target);
        let detail = match run(&small, 0, target) {
            Outcome::Failed(f) => f.detail,
            _ => failure.detail.clone(),
        };
        report.push(format!("--- {class} ---\n{}\n{detail}", small.text(0)));
    }
    std::panic::set_hook(previous_hook);
    assert!(
        report.is_empty(),
        "{} classes of disagreement:\n{}",
        report.len(),
        report.join("\n\n")
    );
    if kernels >= DEFAULT_KERNELS {
        let thin = coverage.thin_cells(&presets.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>());
        assert!(
            thin.is_empty(),
            "cells with fewer than {} accepted kernels:\n{}",
            coverage::MIN_PER_CELL,
            thin.join("\n")
        );
    }
    if default_run {
        coverage::compare_with_committed(&table);
    }
}

/// What one schedule of a case did.
#[derive(Debug)]
pub(crate) enum Outcome {
    Rejected,
    Agreed,
    Failed(Failure),
}

/// Checks schedule `index` of `case` and, if accepted, validates, interprets and
/// simulates it; a panic anywhere is a failure.
pub(crate) fn run(case: &Case, index: usize, target: &Target) -> Outcome {
    let text = case.text(index);
    let form = format!("{}/{}", case.kernel.form.construct(), case.kernel.dtype);
    let fail = |stage: &str, detail: String| {
        Outcome::Failed(Failure {
            class: format!("{stage}/{form}"),
            detail,
        })
    };
    let checked = catch_unwind(AssertUnwindSafe(|| npu_core::check_source(&text, target)));
    let kernel = match checked {
        Err(panic) => return fail("panic-check", panic_text(&panic)),
        Ok(Err(_)) => return Outcome::Rejected,
        Ok(Ok(kernel)) => kernel,
    };
    match catch_unwind(AssertUnwindSafe(|| compare::agree(&kernel))) {
        Err(panic) => fail("panic", panic_text(&panic)),
        Ok(Err((stage, detail))) => fail(stage, detail),
        Ok(Ok(())) => Outcome::Agreed,
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

#[allow(dead_code)] // Used by the shrinker's and the comparison's modules alike.
fn kernel_name(kernel: &CheckedKernel) -> &str {
    &kernel.name
}
