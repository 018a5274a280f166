//! Evaluating one candidate: its schedule text goes through the same parser and checker
//! as any kernel, then lowering and the simulator, on real data checked against the
//! host reference. The outcome carries the feedback the generator sees next round.

use std::fmt::Write as _;

use npu_core::host::HostTensor;
use npu_core::ir::CheckedKernel;
use npu_core::{DiagnosticRecord, Rejected};
use npu_sim::{Correctness, Report, SimOptions};

use super::record::Verdict;

/// A kernel to tune: its checked form with the hand schedules, the text the candidate
/// schedules are appended to, and the data every candidate is checked on.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The kernel's name, which records, journal keys and recordings use.
    pub name: String,
    /// The kernel, checked, with its hand schedules and target.
    pub kernel: CheckedKernel,
    /// Input data every candidate is simulated on, in signature order.
    pub inputs: Vec<HostTensor>,
    /// The host reference's outputs on `inputs`.
    pub expected: Vec<HostTensor>,
}

/// What evaluating one candidate gave.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// What came of it.
    pub verdict: Verdict,
    /// Simulated cycles, when the simulator ran it to the end.
    pub cycles: Option<u64>,
    /// The checker's diagnostics, for a `Rejected` schedule; empty otherwise.
    pub diagnostics: Vec<DiagnosticRecord>,
    /// Short text for the next round's prompt: the diagnostics with carets, or the
    /// cycles and the simulator's symptom.
    pub feedback: String,
    /// The simulator's report, when it ran to the end.
    pub report: Option<Report>,
    /// Whether the outputs were simulated on data and checked against the reference
    /// (a timing-only `Correct` is legal and simulated, its outputs unchecked).
    pub verified: bool,
}

impl Problem {
    /// Builds a problem from a checked kernel and its reference outputs.
    pub fn new(
        kernel: CheckedKernel,
        inputs: Vec<HostTensor>,
        expected: Vec<HostTensor>,
    ) -> Problem {
        Problem {
            name: kernel.name.clone(),
            kernel,
            inputs,
            expected,
        }
    }

    /// Checks a schedule block without simulating it ([`npu_core::check_schedule`]).
    pub fn check(&self, schedule: &str) -> Result<CheckedKernel, Rejected> {
        npu_core::check_schedule(&self.kernel, schedule)
    }

    /// Evaluates one schedule block: check, lower, simulate on data, compare.
    pub fn evaluate(&self, schedule: &str) -> Outcome {
        self.evaluate_with(schedule, |_| true)
    }

    /// Evaluates one schedule block timing first: check, lower, simulate its timing,
    /// and only when `verify(cycles)` says so simulate it on data and compare.
    pub fn evaluate_with(&self, schedule: &str, verify: impl FnOnce(u64) -> bool) -> Outcome {
        match self.check(schedule) {
            Err(rejected) => Outcome {
                verdict: Verdict::Rejected,
                cycles: None,
                diagnostics: rejected.diagnostics.records(),
                feedback: format!("rejected by the checker:\n{}", rejected.render().trim_end()),
                report: None,
                verified: true,
            },
            Ok(checked) if checked.schedules.len() != 1 => Outcome {
                verdict: Verdict::Unparsable,
                cycles: None,
                diagnostics: Vec::new(),
                feedback: format!(
                    "expected one schedule block, found {}",
                    checked.schedules.len()
                ),
                report: None,
                verified: true,
            },
            Ok(checked) => {
                let timed = self.time(&checked);
                match timed.cycles {
                    Some(cycles) if !verify(cycles) => timed,
                    Some(_) => self.simulate(&checked),
                    None => timed, // the simulator stopped it
                }
            }
        }
    }

    /// Checks a timing-only result against the reference: simulates `schedule` on data.
    pub fn verify(&self, schedule: &str) -> Outcome {
        self.evaluate(schedule)
    }

    /// The timing-only simulation: a `Correct` outcome that is not verified, or the
    /// simulator's failure.
    fn time(&self, checked: &CheckedKernel) -> Outcome {
        let options = SimOptions {
            functional: false,
            trace: false,
            ..SimOptions::default()
        };
        match npu_sim::evaluate(checked, 0, &self.inputs, None, &options) {
            Err(error) => failed(&error),
            Ok(evaluation) => {
                let report = evaluation.report;
                Outcome {
                    verdict: Verdict::Correct,
                    cycles: Some(report.total_cycles),
                    diagnostics: Vec::new(),
                    feedback: summary(&report),
                    report: Some(report),
                    verified: false,
                }
            }
        }
    }

    fn simulate(&self, checked: &CheckedKernel) -> Outcome {
        let options = SimOptions {
            functional: true,
            trace: false,
            ..SimOptions::default()
        };
        match npu_sim::evaluate(checked, 0, &self.inputs, Some(&self.expected), &options) {
            Err(error) => failed(&error),
            Ok(evaluation) => {
                let report = evaluation.report;
                let cycles = report.total_cycles;
                let (verdict, feedback) = match &evaluation.correctness {
                    Correctness::Mismatch(mismatch) => (
                        Verdict::Wrong,
                        format!("{cycles} cycles, but the outputs are wrong: {mismatch}"),
                    ),
                    _ => (Verdict::Correct, summary(&report)),
                };
                Outcome {
                    verdict,
                    cycles: Some(cycles),
                    diagnostics: Vec::new(),
                    feedback,
                    report: Some(report),
                    verified: true,
                }
            }
        }
    }
}

fn failed(error: &npu_sim::SimError) -> Outcome {
    Outcome {
        verdict: Verdict::Failed,
        cycles: None,
        diagnostics: Vec::new(),
        feedback: format!("the simulator stopped it: {error}"),
        report: None,
        verified: true,
    }
}

/// One line for a correct candidate: cycles, efficiency, and the simulator's symptom.
fn summary(report: &Report) -> String {
    let mut text = format!(
        "correct, {} cycles, {:.0}% of the roofline bound",
        report.total_cycles,
        report.efficiency * 100.0
    );
    let _ = write!(text, "; {}", report.symptom);
    text
}
