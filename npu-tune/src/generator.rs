//! Generators: where candidate schedules come from. All of them produce DSL text, which
//! the loop evaluates through the shared parser and checker.
//!
//! - [`Heuristic`] (the default, offline): starts from the hand schedules and first
//!   drafts, reads each result's diagnostics and the simulator's symptom, and edits
//!   schedules the way an expert would, steered by the knowledge base (`steer`);
//!   schedules the space cannot write are edited as text (`draft`).
//! - [`Random`] and [`Grid`]: baselines over the same [`Space`].
//! - [`Llm`]: any OpenAI-compatible chat-completions endpoint.
//! - [`Replay`]: recorded LLM replies, for tests and demos.
//!
//! The model-backed generators live in the `model` module.
//!
//! Generators keep no state between rounds beyond what they are given (the history of
//! their evaluated candidates), so a resumed run proposes exactly what it would have.

use std::collections::HashSet;
use std::fmt;

use super::evaluate::Problem;
use super::knowledge::KnowledgeBase;
#[cfg(feature = "llm")]
use super::llm::LlmError;
use super::record::{CandidateRecord, Verdict};
use super::space::{Space, Spec};

mod draft;
mod expert;
mod model;
mod repair;
mod steer;

use draft::Draft;
use expert::{first_drafts, neighbours};
use repair::legalize;
use steer::Idea;

#[cfg(feature = "llm")]
pub use model::Llm;
pub use model::{Hybrid, Replay, proposals_from_replies};

/// What a generator is asked for in one round.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The kernel to propose schedules for.
    pub problem: &'a Problem,
    /// The 0-based round within this generator's search.
    pub round: u32,
    /// Candidates wanted this round.
    pub count: usize,
    /// This generator's evaluated candidates so far, in order.
    pub history: &'a [CandidateRecord],
    /// The kernel's own schedules, as the loop evaluated them before the search.
    pub hand: &'a [CandidateRecord],
    /// The evaluations this generator may spend in the whole run.
    pub budget: u64,
    /// The run's seed: a generator's randomness is a function of it, the kernel and the
    /// round.
    pub seed: u64,
}

/// One proposed candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proposed {
    /// A schedule block, as DSL text.
    Schedule(String),
    /// Something that is not a schedule; the reason goes back in the next prompt.
    Unparsable {
        /// What the model is told was wrong.
        reason: String,
        /// The start of the offending text; empty when there was no reply.
        excerpt: String,
    },
}

/// A failure that ends the run: the generator cannot work at all.
#[derive(Debug)]
pub enum GenerateError {
    /// The LLM server failed in a way no later round will fix (unreachable,
    /// unauthorized, the request refused).
    #[cfg(feature = "llm")]
    Llm(LlmError),
    /// The recording has no replies for a kernel of the run.
    Replay(String),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            #[cfg(feature = "llm")]
            GenerateError::Llm(error) => write!(f, "the LLM generator cannot continue: {error}"),
            GenerateError::Replay(message) => {
                write!(f, "the replay generator cannot continue: {message}")
            }
        }
    }
}

impl std::error::Error for GenerateError {}

/// A source of candidate schedules.
pub trait Generator: Send {
    /// The name reports use: `heuristic`, `random`, `grid`, `llm`, `llm+heuristic`,
    /// `replay`.
    fn name(&self) -> &'static str;

    /// Up to `request.count` candidates for this round; fewer, or none, when the
    /// generator has nothing new (an empty round ends the search).
    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError>;

    /// The knowledge entries each candidate of the last `propose` drew on, in proposal
    /// order, recorded with the candidates; empty when none did.
    fn knowledge_used(&self) -> Vec<Vec<String>> {
        Vec::new()
    }

    /// How each candidate of the last `propose` was constrained (`exact set`, `syntax`,
    /// `json schema`), in proposal order; empty when nothing was.
    fn constraints_used(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The RNG of one round: a function of the seed, the kernel and the round only.
fn round_rng(request: &Request, salt: &str) -> fastrand::Rng {
    let key = format!(
        "{}:{}:{}:{salt}",
        request.seed, request.problem.name, request.round
    );
    fastrand::Rng::with_seed(npu_core::variants::fnv1a64_hash(key.bytes()))
}

/// Canonical text of a candidate in the tuner's knobs, so that two spellings of one
/// schedule count once; text that is not one block is kept as is.
pub(crate) fn canonical(problem: &Problem, text: &str) -> String {
    match npu_core::internal::parse_schedules_str(text) {
        Ok(schedules) if schedules.len() == 1 => {
            Spec::from_schedule(&problem.kernel, &schedules[0]).to_dsl(&problem.kernel, "s")
        }
        _ => text.trim().to_string(),
    }
}

fn seen(request: &Request) -> HashSet<String> {
    request
        .history
        .iter()
        .map(|record| canonical(request.problem, &record.source))
        .collect()
}

fn name(generator: &str, request: &Request, index: usize) -> String {
    format!("{generator}_r{}_{index}", request.round)
}

/// Random search: every knob drawn uniformly from the space.
#[derive(Debug, Default)]
pub struct Random;

impl Generator for Random {
    fn name(&self) -> &'static str {
        "random"
    }

    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError> {
        let problem = request.problem;
        let space = Space::of(&problem.kernel);
        let mut rng = round_rng(request, "random");
        let mut seen = seen(request);
        let mut out = Vec::new();
        for _ in 0..request.count * 50 {
            if out.len() == request.count {
                break;
            }
            let spec = space.point(&problem.kernel, rng.u64(0..space.size()));
            let text = spec.to_dsl(&problem.kernel, &name("random", request, out.len()));
            if seen.insert(canonical(problem, &text)) {
                out.push(Proposed::Schedule(text));
            }
        }
        Ok(out)
    }
}

/// Grid search, AutoTVM style: the space enumerated in a fixed order. With a budget
/// smaller than the grid, the points are taken at an even stride so they cover the
/// whole grid rather than a corner of it.
#[derive(Debug, Default)]
pub struct Grid;

impl Generator for Grid {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError> {
        let problem = request.problem;
        let space = Space::of(&problem.kernel);
        let size = space.size();
        let budget = request.budget.clamp(1, size);
        let start = request.history.len() as u64;
        let out = (start..(start + request.count as u64).min(budget))
            .map(|j| {
                let index = (u128::from(j) * u128::from(size) / u128::from(budget)) as u64;
                let spec = space.point(&problem.kernel, index);
                Proposed::Schedule(spec.to_dsl(&problem.kernel, &format!("grid_{j}")))
            })
            .collect();
        Ok(out)
    }
}

/// The offline expert: starts from the kernel's own (hand) schedules and the schedules
/// an expert would write first, then edits the best results by what the simulator says
/// limits them and by what the knowledge base advises for that. It checks its own
/// proposals against the target's rules (as an expert knows the capacities) and
/// repairs them from the checker's help lines before spending an evaluation on them.
///
/// Its reported best is never slower than the best hand schedule: when nothing it
/// found beats that one by the last round, it proposes it again (the loop records the
/// repeat as a duplicate carrying the hand schedule's cycles).
#[derive(Debug)]
pub struct Heuristic {
    /// The hardware knowledge that steers the edits; `None` edits by the symptom alone.
    pub knowledge: Option<KnowledgeBase>,
    /// The entries each candidate of the last round drew on.
    used: Vec<Vec<String>>,
}

impl Default for Heuristic {
    /// The heuristic with the built-in knowledge base.
    fn default() -> Heuristic {
        Heuristic::with_knowledge(Some(KnowledgeBase::builtin()))
    }
}

impl Heuristic {
    /// The heuristic steered by `knowledge`; `None` edits by the symptom alone.
    pub fn with_knowledge(knowledge: Option<KnowledgeBase>) -> Heuristic {
        Heuristic {
            knowledge,
            used: Vec::new(),
        }
    }
}

impl Generator for Heuristic {
    fn name(&self) -> &'static str {
        "heuristic"
    }

    fn knowledge_used(&self) -> Vec<Vec<String>> {
        self.used.clone()
    }

    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError> {
        let problem = request.problem;
        let mut round = HeuristicRound {
            request,
            space: Space::of(&problem.kernel),
            seen: seen(request),
            out: Vec::new(),
            knowledge: self.knowledge.as_ref(),
        };
        // The hand schedules were evaluated already: an edit that lands on one is no news.
        round
            .seen
            .extend(request.hand.iter().map(|r| canonical(problem, &r.source)));
        round.keep_the_hand_schedule(false);
        let mut ideas = Vec::new();
        if !request.history.iter().any(|r| is_result(&r)) {
            ideas.extend(round.first_drafts());
        }
        ideas.extend(round.edits_of_the_best());
        ideas.extend(repairs(request));
        round.legalize(ideas, request.count);
        round.fill_with_random_points();
        if round.out.is_empty() {
            round.keep_the_hand_schedule(true);
        }
        self.used = round.out.iter().map(|(_, used)| used.clone()).collect();
        Ok(round
            .out
            .into_iter()
            .map(|(text, _)| Proposed::Schedule(text))
            .collect())
    }
}

/// One round of the heuristic: what it has proposed so far and what it has seen.
struct HeuristicRound<'a> {
    request: &'a Request<'a>,
    space: Space,
    seen: HashSet<String>,
    /// Each proposal with the knowledge entries it drew on.
    out: Vec<(String, Vec<String>)>,
    knowledge: Option<&'a KnowledgeBase>,
}

impl HeuristicRound<'_> {
    /// The guarantee: in the last round, or in a round that would otherwise be empty
    /// (`ending`: an empty round ends the search), when the search has not beaten the
    /// best hand schedule, that schedule is proposed again, so the search's best is
    /// never slower.
    fn keep_the_hand_schedule(&mut self, ending: bool) {
        let request = self.request;
        let own_best = request
            .history
            .iter()
            .filter(is_result)
            .filter_map(|r| r.cycles)
            .min();
        // The round's place, not the history's length: a space that runs out of new
        // candidates early leaves the history short of the rounds.
        let last_round = u64::from(request.round + 1) * request.count as u64 >= request.budget;
        if let Some(hand) = hand_best(request)
            && (last_round || ending)
            && own_best.is_none_or(|own| Some(own) > hand.cycles)
            && let Some(text) =
                npu_core::canonical_schedule(&hand.source, &name("heuristic", request, 0))
        {
            self.seen.insert(canonical(request.problem, &text));
            self.out.push((text, Vec::new()));
        }
    }

    /// Before the search has results: first drafts in two of three slots (a draft
    /// often beats a hand schedule outright), and edits of the best hand schedule as
    /// ideas for the rest (an edit of it is a safer step).
    fn first_drafts(&mut self) -> Vec<Idea> {
        let (request, problem) = (self.request, self.request.problem);
        let drafts = first_drafts(problem, &self.space)
            .into_iter()
            .map(|spec| Idea::plain(Draft::of(spec)));
        let quota = request.count - request.count / 3;
        self.legalize(drafts, quota);
        let Some(hand) = hand_best(request) else {
            return Vec::new();
        };
        let Some(base) = Draft::parse(problem, &hand.source) else {
            return Vec::new();
        };
        let mut ideas = self.steer(&base, request.hand);
        ideas.extend(
            neighbours(problem, &self.space, &base.spec, &symptom(hand))
                .into_iter()
                .map(|spec| Idea::plain(base.edited(spec))),
        );
        ideas
    }

    /// Edits of the three fastest results known (this search's and the hand
    /// schedules'): the knowledge base's for the fastest, neighbours for each.
    fn edits_of_the_best(&self) -> Vec<Idea> {
        let (request, problem) = (self.request, self.request.problem);
        let mut known: Vec<&CandidateRecord> = request
            .history
            .iter()
            .chain(request.hand)
            .filter(is_result)
            .collect();
        known.sort_by_key(|r| r.cycles);
        let records: Vec<CandidateRecord> = request
            .history
            .iter()
            .chain(request.hand)
            .cloned()
            .collect();
        let mut ideas = Vec::new();
        for (rank, record) in known.iter().take(3).enumerate() {
            let Some(base) = Draft::parse(problem, &record.source) else {
                continue;
            };
            if rank == 0 {
                ideas.extend(self.steer(&base, &records));
            }
            ideas.extend(
                neighbours(problem, &self.space, &base.spec, &symptom(record))
                    .into_iter()
                    .map(|spec| Idea::plain(base.edited(spec))),
            );
        }
        ideas
    }

    /// The knowledge base's edits of `base` given `records`; none without one.
    fn steer(&self, base: &Draft, records: &[CandidateRecord]) -> Vec<Idea> {
        match self.knowledge {
            Some(knowledge) => {
                steer::edits(self.request.problem, &self.space, knowledge, records, base)
            }
            None => Vec::new(),
        }
    }

    /// Legalizes `ideas` into the round until it holds `until` proposals.
    fn legalize(&mut self, ideas: impl IntoIterator<Item = Idea>, until: usize) {
        let (problem, request) = (self.request.problem, self.request);
        propose_from(
            problem,
            request,
            ideas,
            until,
            &mut self.seen,
            &mut self.out,
        );
    }

    /// Fills the round with legal random points when the ideas run out.
    fn fill_with_random_points(&mut self) {
        let request = self.request;
        let kernel = &request.problem.kernel;
        let mut rng = round_rng(request, "heuristic");
        for _ in 0..request.count * 50 {
            if self.out.len() == request.count {
                break;
            }
            let spec = self.space.point(kernel, rng.u64(0..self.space.size()));
            let name = name("heuristic", request, self.out.len());
            if let Some(text) = legalize(request.problem, Draft::of(spec), &name)
                && self.seen.insert(canonical(request.problem, &text))
            {
                self.out.push((text, Vec::new()));
            }
        }
    }
}

/// The fastest hand schedule with a result.
fn hand_best<'a>(request: &Request<'a>) -> Option<&'a CandidateRecord> {
    request
        .hand
        .iter()
        .filter(is_result)
        .min_by_key(|r| r.cycles)
}

/// Rejected candidates of the last round, to be repaired from their diagnostics.
fn repairs(request: &Request) -> Vec<Idea> {
    request
        .history
        .iter()
        .rev()
        .take(request.count)
        .filter(|r| r.verdict == Verdict::Rejected)
        .filter_map(|record| Draft::parse(request.problem, &record.source))
        .map(Idea::plain)
        .collect()
}

/// Legalizes `ideas` in order into `out` until it holds `until` proposals, skipping
/// those that cannot be made legal and those already seen.
fn propose_from(
    problem: &Problem,
    request: &Request,
    ideas: impl IntoIterator<Item = Idea>,
    until: usize,
    seen: &mut HashSet<String>,
    out: &mut Vec<(String, Vec<String>)>,
) {
    for idea in ideas {
        if out.len() >= until {
            break;
        }
        if let Some(text) = legalize(problem, idea.draft, &name("heuristic", request, out.len()))
            && seen.insert(canonical(problem, &text))
        {
            out.push((text, idea.knowledge));
        }
    }
}

/// Whether a record is a correct result with cycles (a correct candidate, or the repeat
/// of a hand schedule, which carries its cycles).
fn is_result(record: &&CandidateRecord) -> bool {
    matches!(record.verdict, Verdict::Correct | Verdict::Duplicate) && record.cycles.is_some()
}

fn symptom(record: &CandidateRecord) -> String {
    record
        .report
        .as_ref()
        .map(|r| r.symptom.to_ascii_lowercase())
        .unwrap_or_default()
}
