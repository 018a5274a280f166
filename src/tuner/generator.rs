//! Generators: where candidate schedules come from. All of them produce DSL text, which
//! the loop evaluates through the shared parser and checker.
//!
//! - [`Heuristic`] (the default, offline): reads each result's diagnostics and the
//!   simulator's symptom and edits schedules the way an expert would.
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

use npu_core::Code;
use npu_core::ir::{KernelClass, Tail};

use super::evaluate::Problem;
#[cfg(feature = "llm")]
use super::llm::LlmError;
use super::record::{CandidateRecord, Verdict};
use super::space::{Space, Spec, align_elements};

mod model;

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

    /// The knowledge entries the last `propose` used, recorded with its candidates.
    fn knowledge_used(&self) -> Vec<String> {
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

/// The offline expert: starts from the schedules an expert would write first, then
/// edits the best results by what the simulator says limits them. It checks its own
/// proposals against the target's rules (as an expert knows the capacities) and
/// repairs them from the checker's help lines before spending an evaluation on them.
#[derive(Debug, Default)]
pub struct Heuristic;

impl Generator for Heuristic {
    fn name(&self) -> &'static str {
        "heuristic"
    }

    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError> {
        let problem = request.problem;
        let kernel = &problem.kernel;
        let space = Space::of(kernel);
        let mut seen = seen(request);
        let mut ideas: Vec<Spec> = Vec::new();

        let mut correct: Vec<&CandidateRecord> = request
            .history
            .iter()
            .filter(|r| r.verdict == Verdict::Correct && r.cycles.is_some())
            .collect();
        correct.sort_by_key(|r| r.cycles);
        if correct.is_empty() {
            ideas.extend(first_drafts(problem, &space));
        }
        for record in correct.iter().take(3) {
            let Some(spec) = spec_of(problem, &record.source) else {
                continue;
            };
            let symptom = record
                .report
                .as_ref()
                .map(|r| r.symptom.to_ascii_lowercase())
                .unwrap_or_default();
            ideas.extend(neighbours(problem, &space, &spec, &symptom));
        }
        // Rejected candidates of the last round are repaired from their diagnostics.
        for record in request
            .history
            .iter()
            .rev()
            .take(request.count)
            .filter(|r| r.verdict == Verdict::Rejected)
        {
            if let Some(spec) = spec_of(problem, &record.source) {
                ideas.push(spec);
            }
        }
        let mut out = Vec::new();
        for idea in ideas {
            if out.len() == request.count {
                break;
            }
            if let Some(text) = legalize(problem, idea, &name("heuristic", request, out.len()))
                && seen.insert(canonical(problem, &text))
            {
                out.push(Proposed::Schedule(text));
            }
        }
        // Fill the round with legal random points when the ideas run out.
        let mut rng = round_rng(request, "heuristic");
        for _ in 0..request.count * 50 {
            if out.len() == request.count {
                break;
            }
            let spec = space.point(kernel, rng.u64(0..space.size()));
            if let Some(text) = legalize(problem, spec, &name("heuristic", request, out.len()))
                && seen.insert(canonical(problem, &text))
            {
                out.push(Proposed::Schedule(text));
            }
        }
        Ok(out)
    }
}

fn spec_of(problem: &Problem, text: &str) -> Option<Spec> {
    let schedules = npu_core::parse::parse_schedules_str(text).ok()?;
    schedules
        .first()
        .map(|s| Spec::from_schedule(&problem.kernel, s))
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
            let mut blocks = space.cube.clone();
            blocks.sort_by_key(|[m, n, k]| std::cmp::Reverse((m * n * k, m * n)));
            for block in blocks.into_iter().take(24) {
                let mut tiles = vec![None; axes];
                tiles[mm.k] = Some(block[2].max(kernel.axes[mm.k].extent.min(block[2] * 4)));
                let mut spec = Spec {
                    cores: max_cores,
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
            // The innermost output axis gets the big tile; outer axes take one core's share.
            let inner = *kernel.output_axes().last().unwrap_or(&0);
            let outer = kernel.output_axes()[0];
            let mut options: Vec<u64> = space.tiles[inner].iter().flatten().copied().collect();
            options.push(kernel.axes[inner].extent);
            options.sort_unstable_by(|a, b| b.cmp(a));
            for depth in [2, 1] {
                for cores in [max_cores, (max_cores / 2).max(1)] {
                    for tile in &options {
                        let mut tiles = vec![None; axes];
                        tiles[inner] = Some(*tile);
                        if inner != outer {
                            tiles[outer] = Some(align_elements(kernel, outer).max(1));
                        }
                        let mut spec = Spec {
                            cores,
                            tiles,
                            depth,
                            l0_depth: 1,
                            l0c_depth: 1,
                            cube: None,
                            tail: Tail::None,
                        };
                        spec.fix_tail(kernel);
                        drafts.push(spec);
                    }
                }
            }
        }
    }
    drafts
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

/// Checks a spec and repairs it from the checker's help lines, up to a few times.
/// Returns the legal schedule text, or `None` when it cannot be made legal.
fn legalize(problem: &Problem, mut spec: Spec, name: &str) -> Option<String> {
    for _ in 0..4 {
        let text = spec.to_dsl(&problem.kernel, name);
        let (diagnostics, _) = match problem.check(&text) {
            Ok(_) => return Some(text),
            Err(error) => error,
        };
        let records = diagnostics.records();
        let fixes: Vec<Option<npu_core::Fix>> = diagnostics
            .iter()
            .map(|d| d.fixes.first().cloned())
            .collect();
        let mut changed = false;
        for (record, fix) in records.iter().zip(fixes) {
            changed |= match fix {
                Some(fix) => apply_fix(problem, &mut spec, &fix),
                None => repair(
                    problem,
                    &mut spec,
                    record.code,
                    record.help.as_deref().unwrap_or(""),
                ),
            };
        }
        if !changed {
            return None;
        }
        spec.fix_tail(&problem.kernel);
    }
    None
}

/// Applies a checked fix (see [`npu_core::fix`]) to the spec. Returns whether it changed.
fn apply_fix(problem: &Problem, spec: &mut Spec, fix: &npu_core::Fix) -> bool {
    use npu_core::{Edit, Level};
    let kernel = &problem.kernel;
    let axis = |name: &str| kernel.axes.iter().position(|a| a.name == name);
    let before = spec.clone();
    for edit in &fix.edits {
        match edit {
            Edit::Split { axis: name, tile } => {
                if let Some(a) = axis(name) {
                    spec.tiles[a] = Some(*tile);
                }
            }
            Edit::Cores { axis: name, cores } if axis(name) == Some(kernel.output_axes()[0]) => {
                spec.cores = *cores;
            }
            Edit::Tail { .. } => spec.tail = Tail::Pad,
            Edit::Depth { level, depth, .. } => match level {
                Level::L0a | Level::L0b => spec.l0_depth = *depth,
                Level::L0c => spec.l0c_depth = *depth,
                Level::Ub | Level::L1 => spec.depth = *depth,
            },
            Edit::Cube { axis: name, tile } => {
                if let (Some(a), npu_core::ir::KernelClass::Matmul(mm), Some(cube)) =
                    (axis(name), &kernel.class, spec.cube.as_mut())
                {
                    let slot = [mm.m, mm.n, mm.k].iter().position(|x| *x == a);
                    if let Some(slot) = slot {
                        cube[slot] = *tile;
                    }
                }
            }
            Edit::Cores { .. } | Edit::Stage { .. } => {}
        }
    }
    *spec != before
}

/// Applies the fix a diagnostic's help line names. Returns whether the spec changed.
fn repair(problem: &Problem, spec: &mut Spec, code: Code, help: &str) -> bool {
    let kernel = &problem.kernel;
    let before = spec.clone();
    // "split i by 4096", "split i by 992 and add `tail pad;`".
    if let Some((axis, value)) = split_in_help(kernel, help) {
        spec.tiles[axis] = Some(value);
    } else {
        match code {
            Code::E020 if spec.cube.is_some() => {
                let [m, n, k] = spec.cube.unwrap_or([16, 16, 16]);
                spec.l0_depth = 1;
                if before.l0_depth == 1 {
                    spec.cube = Some([(m / 2).max(16), (n / 2).max(16), k]);
                }
            }
            Code::E020 | Code::E025 => spec.depth = 1,
            Code::E024 => spec.cores = (spec.cores / 2).max(1),
            Code::E033 | Code::E021 => spec.tail = Tail::Pad,
            _ => {}
        }
    }
    *spec != before
}

/// Reads "split AXIS by N" out of a help line.
fn split_in_help(kernel: &npu_core::CheckedKernel, help: &str) -> Option<(usize, u64)> {
    let rest = &help[help.find("split ")? + "split ".len()..];
    let mut words = rest.split_whitespace();
    let axis_name = words.next()?;
    (words.next()? == "by").then_some(())?;
    let value: u64 = words
        .next()?
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    let axis = kernel.axes.iter().position(|a| a.name == axis_name)?;
    Some((axis, value))
}
