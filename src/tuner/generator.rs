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
//! The model-backed generators live in [`model`].
//!
//! Generators keep no state between rounds beyond what they are given (the history of
//! their evaluated candidates), so a resumed run proposes exactly what it would have.

use std::collections::HashSet;
use std::fmt;

use npu_core::ir::{KernelClass, Tail};

use super::evaluate::Problem;
use super::knowledge::KnowledgeBase;
#[cfg(feature = "llm")]
use super::llm::LlmError;
use super::record::{CandidateRecord, Verdict};
use super::space::{Space, Spec, align_elements};

mod draft;
mod model;
mod repair;
mod steer;

use draft::Draft;
use repair::legalize;

#[cfg(feature = "llm")]
pub use model::Llm;
pub use model::{Hybrid, Replay, proposals_from_replies};

/// What a generator is asked for in one round.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    pub problem: &'a Problem,
    pub round: u32,
    /// Candidates wanted this round.
    pub count: usize,
    /// This generator's evaluated candidates so far, in order.
    pub history: &'a [CandidateRecord],
    /// The kernel's own schedules, as the loop evaluated them before the search.
    pub hand: &'a [CandidateRecord],
    /// The evaluations this generator may spend in the whole run.
    pub budget: u64,
    pub seed: u64,
}

/// One proposed candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proposed {
    /// A schedule block, as DSL text.
    Schedule(String),
    /// Something that is not a schedule; the reason goes back in the next prompt.
    Unparsable { reason: String, excerpt: String },
}

/// A failure that ends the run: the generator cannot work at all.
#[derive(Debug)]
pub enum GenerateError {
    #[cfg(feature = "llm")]
    Llm(LlmError),
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
    /// The name reports use: `heuristic`, `random`, `grid`, `llm`, `replay`.
    fn name(&self) -> &'static str;

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
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let key = format!(
        "{}:{}:{}:{salt}",
        request.seed, request.problem.name, request.round
    );
    for byte in key.bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    fastrand::Rng::with_seed(hash)
}

/// Canonical text of a candidate in the tuner's knobs, so that two spellings of one
/// schedule count once; text that is not one block is kept as is.
pub(crate) fn canonical(problem: &Problem, text: &str) -> String {
    match npu_core::parse::parse_schedules_str(text) {
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
    pub fn with_knowledge(knowledge: Option<KnowledgeBase>) -> Heuristic {
        Heuristic {
            knowledge,
            used: Vec::new(),
        }
    }
}

/// A schedule the heuristic may propose, and the knowledge entries it came from.
#[derive(Clone, Debug)]
struct Idea {
    draft: Draft,
    knowledge: Vec<String>,
}

impl Idea {
    fn plain(draft: Draft) -> Idea {
        Idea {
            draft,
            knowledge: Vec::new(),
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
        let kernel = &problem.kernel;
        let space = Space::of(kernel);
        let mut seen = seen(request);
        // The hand schedules were evaluated already: an edit that lands on one is no news.
        seen.extend(request.hand.iter().map(|r| canonical(problem, &r.source)));
        let mut out: Vec<(String, Vec<String>)> = Vec::new();

        // What is known: this search's results and the hand schedules', fastest first.
        let mut known: Vec<&CandidateRecord> = request
            .history
            .iter()
            .chain(request.hand)
            .filter(is_result)
            .collect();
        known.sort_by_key(|r| r.cycles);
        let hand_best = request
            .hand
            .iter()
            .filter(is_result)
            .min_by_key(|r| r.cycles);
        let own_best = request
            .history
            .iter()
            .filter(is_result)
            .filter_map(|r| r.cycles)
            .min();
        let last_round = request.history.len() + request.count >= request.budget as usize;
        if let Some(hand) = hand_best
            && last_round
            && own_best.is_none_or(|own| Some(own) > hand.cycles)
            && let Some(text) =
                super::variants::renamed(&hand.source, &name("heuristic", request, 0))
        {
            // The guarantee: the search's best is never slower than the hand schedule.
            seen.insert(canonical(problem, &text));
            out.push((text, Vec::new()));
        }

        let mut ideas: Vec<Idea> = Vec::new();
        let steer = |base: &Draft, records: &[CandidateRecord]| -> Vec<Idea> {
            match &self.knowledge {
                Some(knowledge) => steer::edits(problem, &space, knowledge, records, base),
                None => Vec::new(),
            }
        };
        let own_results = request.history.iter().any(|r| is_result(&r));
        if !own_results {
            // First drafts, and in every third slot an edit of the best hand schedule: a
            // draft often beats a hand schedule outright, an edit of it is a safer step.
            let drafts = first_drafts(problem, &space)
                .into_iter()
                .map(|spec| Idea::plain(Draft::of(spec)));
            let mut from_hand: Vec<Idea> = Vec::new();
            if let Some(hand) = hand_best
                && let Some(base) = Draft::parse(problem, &hand.source)
            {
                let symptom = symptom(hand);
                from_hand.extend(steer(&base, request.hand));
                from_hand.extend(
                    neighbours(problem, &space, &base.spec, &symptom)
                        .into_iter()
                        .map(|spec| Idea::plain(base.edited(spec))),
                );
            }
            let quota = request.count - request.count / 3;
            propose_from(problem, request, drafts, quota, &mut seen, &mut out);
            ideas.extend(from_hand);
        }
        let records: Vec<CandidateRecord> = request
            .history
            .iter()
            .chain(request.hand)
            .cloned()
            .collect();
        for (rank, record) in known.iter().take(3).enumerate() {
            let Some(base) = Draft::parse(problem, &record.source) else {
                continue;
            };
            if rank == 0 {
                ideas.extend(steer(&base, &records));
            }
            ideas.extend(
                neighbours(problem, &space, &base.spec, &symptom(record))
                    .into_iter()
                    .map(|spec| Idea::plain(base.edited(spec))),
            );
        }
        // Rejected candidates of the last round are repaired from their diagnostics.
        for record in request
            .history
            .iter()
            .rev()
            .take(request.count)
            .filter(|r| r.verdict == Verdict::Rejected)
        {
            if let Some(draft) = Draft::parse(problem, &record.source) {
                ideas.push(Idea::plain(draft));
            }
        }
        propose_from(problem, request, ideas, request.count, &mut seen, &mut out);
        // Fill the round with legal random points when the ideas run out.
        let mut rng = round_rng(request, "heuristic");
        for _ in 0..request.count * 50 {
            if out.len() == request.count {
                break;
            }
            let spec = space.point(kernel, rng.u64(0..space.size()));
            if let Some(text) = legalize(
                problem,
                Draft::of(spec),
                &name("heuristic", request, out.len()),
            ) && seen.insert(canonical(problem, &text))
            {
                out.push((text, Vec::new()));
            }
        }
        self.used = out.iter().map(|(_, used)| used.clone()).collect();
        Ok(out
            .into_iter()
            .map(|(text, _)| Proposed::Schedule(text))
            .collect())
    }
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

/// What an expert writes first: every core, double buffering, and the largest tiles
/// that fit, then the same with a step down in tile or cores.
fn first_drafts(problem: &Problem, space: &Space) -> Vec<Spec> {
    let kernel = &problem.kernel;
    let max_cores = *space.cores.last().unwrap_or(&1);
    let axes = kernel.axes.len();
    let mut drafts = Vec::new();
    match &kernel.class {
        KernelClass::Matmul(mm) => {
            // Blocks that fit the shape, the largest first, each on as many cores as
            // get a whole block row of m (a block past a core's share is E023).
            let extent = |axis: usize| kernel.axes[axis].extent;
            let mut blocks: Vec<[u64; 3]> = space
                .cube
                .iter()
                .copied()
                .filter(|[m, n, k]| *m <= extent(mm.m) && *n <= extent(mm.n) && *k <= extent(mm.k))
                .collect();
            blocks.sort_by_key(|[m, n, k]| std::cmp::Reverse((m * n * k, m * n)));
            for block in blocks.into_iter().take(24) {
                let mut tiles = vec![None; axes];
                tiles[mm.k] = Some(block[2].max(extent(mm.k).min(block[2] * 4)));
                // A batch spreads over the cores (the first output axis), one matrix per
                // L1 tile so that depth 2 copies the next matrix during this one's product.
                if let Some(batch) = mm.batch {
                    tiles[batch] = Some(1);
                }
                let cores = match mm.batch {
                    Some(_) => max_cores,
                    None => (extent(mm.m) / block[0]).clamp(1, max_cores),
                };
                let mut spec = Spec {
                    cores,
                    tiles,
                    depth: 2,
                    l0_depth: 2,
                    l0c_depth: 1,
                    cube: Some(block),
                    tail: Tail::None,
                };
                spec.fix_tail(kernel);
                drafts.push(spec);
            }
        }
        _ => {
            // Tiles filled from the innermost axis out to a budget of elements, so that
            // reduced axes and whole rows stay whole while they fit (an expert sizes a
            // vector tile by what one copy moves, not axis by axis).
            let largest = (0..axes).fold(1u64, |product, a| {
                product.saturating_mul(kernel.axes[a].extent)
            });
            for depth in [2, 1] {
                for cores in [max_cores, (max_cores / 2).max(1)] {
                    let mut budget = largest.next_power_of_two().min(1 << 20);
                    while budget >= 16 {
                        let mut spec = Spec {
                            cores,
                            tiles: filled(kernel, space, cores, budget),
                            depth,
                            l0_depth: 1,
                            l0c_depth: 1,
                            cube: None,
                            tail: Tail::None,
                        };
                        spec.fix_tail(kernel);
                        if !drafts.contains(&spec) {
                            drafts.push(spec);
                        }
                        budget /= 2;
                    }
                }
            }
        }
    }
    drafts
}

/// The axes from the innermost out: the reduced axes (innermost last in the kernel's
/// order), then the output axes from the innermost.
fn fill_order(kernel: &npu_core::CheckedKernel) -> Vec<usize> {
    let outputs = kernel.output_axes();
    let mut order: Vec<usize> = (0..kernel.axes.len())
        .rev()
        .filter(|a| !outputs.contains(a))
        .collect();
    order.extend(outputs.iter().rev());
    order
}

/// Tiles holding about `budget` elements on one core: each axis from the innermost out
/// stays whole while the budget allows, the first that does not fit gets the largest
/// aligned power-of-two multiple that does, and the axes outside it their minimum.
/// Axes the space keeps whole (a fused kernel's reduced axes) stay whole regardless.
fn filled(
    kernel: &npu_core::CheckedKernel,
    space: &Space,
    cores: u64,
    budget: u64,
) -> Vec<Option<u64>> {
    let first = kernel.output_axes()[0];
    let mut tiles = vec![None; kernel.axes.len()];
    let mut left = budget;
    for axis in fill_order(kernel) {
        let extent = kernel.axes[axis].extent;
        let share = if axis == first {
            extent.div_ceil(cores.max(1))
        } else {
            extent
        };
        let step = align_elements(kernel, axis).max(1);
        if space.tiles[axis].len() <= 1 || left >= share {
            left /= share.max(1);
            continue;
        }
        let units = (left / step).max(1);
        let tile = (step * (1 << units.ilog2())).min(share);
        tiles[axis] = Some(tile);
        left = 1;
    }
    tiles
}

/// One-knob edits of `spec`, the likeliest first given the simulator's symptom.
fn neighbours(problem: &Problem, space: &Space, spec: &Spec, symptom: &str) -> Vec<Spec> {
    let kernel = &problem.kernel;
    let max_cores = *space.cores.last().unwrap_or(&1);
    let memory_bound = symptom.contains("memory-bound") || symptom.contains("mte2");
    let no_overlap = symptom.contains("depth") || symptom.contains("overlap");
    let mut bigger = Vec::new();
    let mut smaller = Vec::new();
    for axis in 0..kernel.axes.len() {
        let tile = spec.effective_tile(kernel, axis);
        let step =
            align_elements(kernel, axis).max(if matches!(kernel.class, KernelClass::Matmul(_)) {
                16
            } else {
                1
            });
        // An axis shorter than one aligned step (a single row, say) keeps its extent.
        let extent = kernel.axes[axis].extent;
        for (numerator, denominator) in [(2, 1), (3, 2), (1, 2), (3, 4)] {
            let value =
                (tile * numerator / denominator / step * step).clamp(step.min(extent), extent);
            if value != tile {
                let mut next = spec.clone();
                next.tiles[axis] = Some(value);
                next.fix_tail(kernel);
                if value > tile {
                    bigger.push(next)
                } else {
                    smaller.push(next)
                }
            }
        }
    }
    let mut cores = Vec::new();
    for value in [spec.cores * 2, max_cores, spec.cores / 2] {
        if value >= 1 && value <= max_cores && value != spec.cores {
            let mut next = spec.clone();
            next.cores = value;
            next.fix_tail(kernel);
            cores.push(next);
        }
    }
    let mut depth = Vec::new();
    let mut toggle = spec.clone();
    toggle.depth = if spec.depth == 2 { 1 } else { 2 };
    depth.push(toggle);
    if space.tails.contains(&Tail::Pad) {
        // Padded copies of whole unaligned rows: legal, and sometimes the faster copy.
        let mut padded = spec.clone();
        padded.tail = if spec.tail == Tail::Pad {
            Tail::None
        } else {
            Tail::Pad
        };
        padded.fix_tail(kernel);
        if padded != *spec {
            smaller.push(padded);
        }
    }
    if let Some([m, n, k]) = spec.cube {
        for block in [
            [m * 2, n, k],
            [m, n * 2, k],
            [m, n, k * 2],
            [m / 2, n, k],
            [m, n / 2, k],
            [m, n, k / 2],
        ] {
            let mut next = spec.clone();
            next.cube = Some(block);
            bigger.push(next);
        }
        for (l0, l0c) in [(2, 1), (1, 1), (2, 2), (1, 2)] {
            let mut next = spec.clone();
            (next.l0_depth, next.l0c_depth) = (l0, l0c);
            depth.push(next);
        }
    }
    let mut ordered = Vec::new();
    if no_overlap {
        ordered.append(&mut depth);
    }
    if memory_bound {
        ordered.append(&mut cores);
        ordered.append(&mut bigger);
    } else {
        ordered.append(&mut bigger);
        ordered.append(&mut cores);
    }
    ordered.append(&mut depth);
    ordered.append(&mut smaller);
    ordered
}
