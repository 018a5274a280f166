//! The units of work of each kind of campaign, in the order a whole run does them.

use super::Unit;
#[cfg(feature = "llm")]
use crate::draft::eval::EvalKernel;
#[cfg(feature = "llm")]
use crate::draft::scoreboard::Variant;
use crate::evaluate::Problem;
use crate::journal::content_hash;
use crate::run::target_hash;

/// A tuning run's units: one per kernel (each on its own target), named by the
/// kernel, with the hashes of its text and its target's figures, which the journal
/// header records too.
pub fn tune_units(problems: &[Problem]) -> Vec<Unit> {
    problems
        .iter()
        .map(|problem| Unit {
            id: problem.name.clone(),
            content: format!(
                "{} {}",
                content_hash(problem.kernel.source.as_bytes()),
                target_hash(&problem.kernel.target)
            ),
        })
        .collect()
}

#[cfg(feature = "llm")]
/// A `draft-eval` run's units: each kernel of `set` under each of `variants`,
/// variant by variant as the run does them, named `variant/kernel` (as recordings
/// key them), with a hash of the kernel's text, reference body and target.
pub fn draft_units(set: &[EvalKernel], variants: &[Variant]) -> Vec<Unit> {
    variants
        .iter()
        .flat_map(|variant| {
            set.iter().map(move |kernel| Unit {
                id: draft_unit_id(*variant, &kernel.task.name),
                content: content_hash(
                    format!(
                        "{}\n{}\n{}\n{}",
                        kernel.group, kernel.target.name, kernel.reference, kernel.task.text
                    )
                    .as_bytes(),
                ),
            })
        })
        .collect()
}

#[cfg(feature = "llm")]
/// The name of the `draft-eval` unit of `kernel` under `variant`: `variant/kernel`.
pub fn draft_unit_id(variant: Variant, kernel: &str) -> String {
    format!("{}/{kernel}", variant.name())
}
