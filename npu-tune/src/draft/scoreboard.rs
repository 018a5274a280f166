//! The drafting loop measured on an evaluation set: each kernel drafted under each
//! prompt variant, scored by Comp@1 (first-round candidates that check), Pass@1
//! (first-round candidates that also match the examples) and Pass@(R×K) (kernels
//! solved within R rounds of K candidates, with feedback), and tabled per group.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::eval::{EvalKernel, FRESH};
use super::idioms::Idiom;
use super::prompt::Parts;
use super::run::{BodySource, DraftConfig, draft};
use crate::kernels::Category;

/// A prompt-and-decoding variant the evaluation compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// The language contract, the task and the feedback; free decoding.
    Plain,
    /// As `Plain`, decoded under the signature's body grammar.
    Grammar,
    /// The grammar, worked examples retrieved from the bundled kernels and idioms.
    Full,
}

impl Variant {
    /// Every variant, in table order.
    pub const ALL: [Variant; 3] = [Variant::Plain, Variant::Grammar, Variant::Full];

    /// The variant's lower-case name, as `--variants` and recording keys spell it.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::Grammar => "grammar",
            Variant::Full => "full",
        }
    }

    /// The variant named `name`.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether replies are decoded under the body grammar (or its JSON Schema).
    pub fn constrained(self) -> bool {
        self != Variant::Plain
    }

    fn parts(self) -> Parts {
        let full = self == Variant::Full;
        Parts {
            worked_examples: full,
            idioms: full,
        }
    }
}

/// One kernel drafted under one variant.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Score {
    /// The kernel's name.
    pub kernel: String,
    /// The kernel's [`EvalKernel::group`]: its category's name, or [`FRESH`].
    pub group: String,
    /// The variant it was drafted under.
    pub variant: Variant,
    /// Of the first round's candidates, the share that checks.
    pub comp1: f64,
    /// Of the first round's candidates, the share that checks and matches.
    pub pass1: f64,
    /// Whether a body checked and matched within the budget.
    pub solved: bool,
    /// Whether that body is a reply rewritten ([`Drafted::chosen_rewritten`]).
    ///
    /// [`Drafted::chosen_rewritten`]: super::run::Drafted::chosen_rewritten
    pub solved_rewritten: bool,
    /// Rounds the drafting run spent.
    pub rounds: u32,
    /// Candidate bodies evaluated, over every round.
    pub attempts: usize,
    /// Why the rounds ended early ([`Drafted::stopped`](super::run::Drafted::stopped)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// The budget of every drafting run of an evaluation.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Most rounds per kernel (R of Pass@(R×K)).
    pub rounds: u32,
    /// Candidate bodies per round (K of Pass@(R×K)).
    pub candidates: usize,
}

/// Drafts every kernel of `set` under every variant of `variants` (variant by
/// variant, kernels in set order), with the body source `source` makes for a
/// variant, the full variant's prompts picking from `idioms`; `progress` hears of
/// each score as it comes.
pub fn score_set(
    set: &[EvalKernel],
    variants: &[Variant],
    budget: Budget,
    idioms: &[Idiom],
    source: &mut dyn FnMut(Variant) -> Result<Box<dyn BodySource>, String>,
    progress: &mut dyn FnMut(&Score),
) -> Result<Vec<Score>, String> {
    let mut scores = Vec::new();
    for &variant in variants {
        let mut bodies = source(variant)?;
        let config = DraftConfig {
            rounds: budget.rounds,
            candidates: budget.candidates,
            tolerance: None,
            parts: variant.parts(),
            idioms: idioms.to_vec(),
            variant: Some(variant.name()),
        };
        for kernel in set {
            let drafted = draft(
                &kernel.task,
                &kernel.target,
                &kernel.examples,
                bodies.as_mut(),
                &config,
            )?;
            let (comp1, pass1) = drafted.first_round();
            let score = Score {
                kernel: kernel.task.name.clone(),
                group: kernel.group.clone(),
                variant,
                comp1,
                pass1,
                solved: drafted.chosen.is_some(),
                solved_rewritten: drafted.chosen_rewritten(),
                rounds: drafted.rounds,
                attempts: drafted.attempts.len(),
                stopped: drafted.stopped,
            };
            progress(&score);
            scores.push(score);
        }
    }
    Ok(scores)
}

/// The table of `scores`: a row per group (the categories in table order, then the
/// fresh kernels, then all), for each variant Comp@1, Pass@1 and Pass@(R×K) in
/// percent, averaged over the group's kernels the variant ran on ("–" where it ran on
/// none of them).
pub fn table(scores: &[Score], budget: Budget) -> String {
    let mut variants: Vec<Variant> = scores.iter().map(|s| s.variant).collect();
    variants.sort();
    variants.dedup();
    let mut out = String::from("| group | kernels |");
    let mut rule = String::from("|---|---:|");
    for variant in &variants {
        let name = variant.name();
        let _ = write!(
            out,
            " {name} Comp@1 | {name} Pass@1 | {name} Pass@({}×{}) |",
            budget.rounds, budget.candidates
        );
        rule += "---:|---:|---:|";
    }
    out = format!("{out}\n{rule}\n");
    for group in groups(scores) {
        out += &row(scores, &variants, &group, |s| {
            group == "all" || s.group == group
        });
    }
    out
}

/// The groups present in `scores`, in table order (the categories, the fresh
/// kernels, then any other group, such as the users' set's folders, by name), and
/// "all".
fn groups(scores: &[Score]) -> Vec<String> {
    let mut order: Vec<String> = Category::ALL.iter().map(|c| c.name().to_string()).collect();
    order.push(FRESH.to_string());
    let others: BTreeSet<&str> = scores
        .iter()
        .map(|s| s.group.as_str())
        .filter(|g| !order.iter().any(|o| o == g))
        .collect();
    order.extend(others.into_iter().map(str::to_string));
    let mut present: Vec<String> = order
        .into_iter()
        .filter(|g| scores.iter().any(|s| &s.group == g))
        .collect();
    present.push("all".to_string());
    present
}

/// One group's row: for each variant, the means over the group's kernels.
fn row(
    scores: &[Score],
    variants: &[Variant],
    group: &str,
    within: impl Fn(&Score) -> bool,
) -> String {
    let kernels: BTreeSet<&str> = scores
        .iter()
        .filter(|s| within(s))
        .map(|s| s.kernel.as_str())
        .collect();
    let mut out = format!("| {group} | {} |", kernels.len());
    for &variant in variants {
        let of: Vec<&Score> = scores
            .iter()
            .filter(|s| within(s) && s.variant == variant)
            .collect();
        if of.is_empty() {
            out += " – | – | – |";
            continue;
        }
        let mean = |value: &dyn Fn(&Score) -> f64| {
            of.iter().map(|s| value(s)).sum::<f64>() / of.len().max(1) as f64 * 100.0
        };
        let _ = write!(
            out,
            " {:.0}% | {:.0}% | {:.0}% |",
            mean(&|s| s.comp1),
            mean(&|s| s.pass1),
            mean(&|s| f64::from(u8::from(s.solved)))
        );
    }
    out + "\n"
}
