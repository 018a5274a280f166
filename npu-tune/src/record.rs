//! What the tuner keeps of every evaluation and every run: the records the journal
//! appends, the reports are written from, and the next round's feedback is built from.
//! Every candidate is kept, not only the winner.

use npu_core::DiagnosticRecord;
use npu_sim::Report;
use serde::{Deserialize, Serialize};

/// How one candidate schedule fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Checked, simulated, and the outputs match the reference.
    Correct,
    /// Checked and simulated, but the outputs differ from the reference.
    Wrong,
    /// The checker rejected it (diagnostics say why).
    Rejected,
    /// Not a schedule at all: no block in the reply, a reply cut short, a transport error.
    Unparsable,
    /// The simulator stopped it (deadlock or instruction budget).
    Failed,
    /// The same schedule (by canonical text) as an earlier candidate of this search or
    /// a hand schedule: not evaluated again, and not counted in Comp@1 or Pass@1.
    Duplicate,
}

impl Verdict {
    /// Whether the candidate compiled (passed the checker): the Comp@1 numerator.
    pub fn compiled(self) -> bool {
        matches!(self, Verdict::Correct | Verdict::Wrong | Verdict::Failed)
    }
}

/// One evaluated candidate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CandidateRecord {
    /// The problem's name (the kernel's name), as the journal keys it.
    pub kernel: String,
    /// The search that proposed it: `hand`, the main generator's name, `random` or
    /// `grid`.
    pub generator: String,
    /// 0-based round.
    pub round: u32,
    /// 0-based position within the round.
    pub index: u32,
    /// The schedule block as proposed (or the reply excerpt, when unparsable).
    pub source: String,
    /// What came of it.
    pub verdict: Verdict,
    /// Simulated cycles, when it ran.
    pub cycles: Option<u64>,
    /// The checker's diagnostics, for a `Rejected` candidate; empty otherwise.
    pub diagnostics: Vec<DiagnosticRecord>,
    /// The text the generator is shown about this candidate in the next round.
    pub feedback: String,
    /// The simulator's report, when it ran.
    pub report: Option<Report>,
    /// The knowledge entries the generator was shown for this candidate's round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knowledge: Vec<String>,
    /// Whether a `Correct` verdict was checked on data against the reference, or rests
    /// on the timing simulation alone (see [`crate::run::Verify`]).
    #[serde(default = "verified_by_default")]
    pub verified: bool,
    /// How the model was held to legal schedules for this candidate (`exact set`,
    /// `syntax`, `json schema`), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<String>,
}

/// Journals written before timing-first tuning verified every candidate.
fn verified_by_default() -> bool {
    true
}

/// What the candidates decoded under one constraint gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintShare {
    /// The constraint's name, as in [`CandidateRecord::constraint`].
    pub constraint: String,
    /// The main generator's candidates decoded under it.
    pub candidates: u64,
    /// How many of those were `Correct`.
    pub correct: u64,
}

/// The best cycles a generator had reached after each evaluation.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Convergence {
    /// Whose curve it is: the main generator's name, `random` or `grid`.
    pub generator: String,
    /// `(evaluations so far, best cycles so far)`, one point per evaluation that ran.
    pub points: Vec<(u64, u64)>,
}

/// A baseline's result in the same run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BaselineResult {
    /// The fastest correct cycles; `None` when nothing was correct or the baseline did
    /// not run.
    pub cycles: Option<u64>,
    /// Candidates it evaluated, duplicates included; 0 when it did not run.
    pub evaluations: u64,
    /// The schedule block that reached `cycles`.
    pub source: Option<String>,
}

/// What the main generator is compared with in the same run: the hand schedules and
/// the random and grid searches.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Baselines {
    /// The kernel's own schedules, evaluated as written.
    pub hand: BaselineResult,
    /// Random schedules, with as many evaluations as the main generator spent.
    pub random: BaselineResult,
    /// Grid search, at an even stride over the space, with as many evaluations as the
    /// main generator spent.
    pub grid: BaselineResult,
}

/// The best schedule the main generator found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Best {
    /// Its simulated cycles.
    pub cycles: u64,
    /// Its schedule block, as proposed.
    pub source: String,
    /// Roofline cycles / cycles.
    pub efficiency: f64,
    /// Hand schedule cycles / `cycles`; `None` when no hand schedule was correct.
    pub speedup_over_hand: Option<f64>,
    /// The main generator's first correct cycles / `cycles`.
    pub speedup_over_first_correct: Option<f64>,
    /// Evaluations the generator spent before it first reached `cycles`.
    pub evaluations_to_best: u64,
    /// Vector busy / total, as NPUEval defines it.
    pub vector_score: f64,
    /// The simulator's one-line symptom for it (`Report::symptom`); empty without a
    /// report.
    pub symptom: String,
}

/// Everything the tuner learned about one kernel: what `KERNEL.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KernelResult {
    /// The problem's name, as in its records.
    pub kernel: String,
    /// The target's name.
    pub target: String,
    /// The main generator (heuristic, llm or replay).
    pub generator: String,
    /// Evaluations the main generator spent.
    pub evaluations: u64,
    /// The whole machine's roofline bound in cycles
    /// (`Report::machine_roofline_cycles`), from the best result's report (the
    /// generator's, else the hand schedules'); 0 when none ran.
    pub roofline_cycles: u64,
    /// The roofline plus what no schedule avoids (per-core copy latency, work that
    /// cannot spread over every core); see `npu_sim::roofline::attainable`.
    #[serde(default)]
    pub attainable_cycles: u64,
    /// The fastest correct result of the main generator; `None` when it found none.
    pub best: Option<Best>,
    /// The hand schedules' and the random and grid searches' results.
    pub baselines: Baselines,
    /// Share of the first round's distinct candidates that passed the checker.
    pub comp_at_1: f64,
    /// Share of the first round's distinct candidates that were correct.
    pub pass_at_1: f64,
    /// Share of the main generator's candidates that repeated an earlier schedule.
    #[serde(default)]
    pub duplicate_share: f64,
    /// Per constraint the model decoded under: candidates, and how many were correct
    /// (the exploration share and what it produced).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<ConstraintShare>,
    /// Share of candidates at least p times faster than the hand schedule, for
    /// p = 1.0 and 1.5 (fast_1 and fast_1.5 in the literature).
    pub fast_1: f64,
    /// The same share for p = 1.5.
    pub fast_1_5: f64,
    /// Candidates per round that were not correct, for the main generator.
    pub failures_per_round: Vec<u32>,
    /// Wall-clock seconds of the main generator's search, divided by the configured
    /// rounds.
    pub mean_round_seconds: f64,
    /// Best-so-far curves of the main generator and the baselines that ran, in that
    /// order.
    pub convergence: Vec<Convergence>,
    /// Every candidate of every generator, in evaluation order.
    pub candidates: Vec<CandidateRecord>,
}
