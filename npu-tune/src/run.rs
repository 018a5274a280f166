//! The tuning loop: for each kernel, the hand schedules, then the main generator's
//! rounds (propose → check → simulate → feedback), then the random and grid baselines
//! with the same budget, all in one run, every evaluation journalled as it finishes.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::evaluate::{Outcome, Problem};
use super::generator::{GenerateError, Generator, Grid, Proposed, Random, Request};
use super::journal::{CandidateKey, Journal, JournalError, JournalHeader, completed, content_hash};
use super::record::*;

mod summary;

use summary::Searches;

/// How a run is set up.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Rounds of the main generator per kernel.
    pub rounds: u32,
    /// Candidates per round.
    pub candidates: usize,
    /// The seed of every generator's randomness; the journal header records it.
    pub seed: u64,
    /// Worker threads for evaluation; 0 uses every core.
    pub jobs: usize,
    /// Where the journal and the reports go.
    pub report_dir: PathBuf,
    /// Continue the journal in `report_dir` (its header must match) instead of starting
    /// afresh.
    pub resume: bool,
    /// Whether to run the random and grid baselines.
    pub baselines: bool,
    /// Which candidates are simulated on data and checked against the reference.
    pub verify: Verify,
}

/// Which candidates the loop checks against the host reference. Every candidate is
/// simulated for its timing; the functional simulation on data costs far more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Every candidate.
    All,
    /// Those that enter the search's best `k` (by cycles) when they are evaluated, and
    /// any that would be reported as a best: a best is always verified, and one that
    /// fails verification is a wrong schedule, never a best.
    Best(usize),
}

/// What a round's evaluation needs besides its proposals.
#[derive(Clone, Copy, Debug, Default)]
struct RoundContext<'a> {
    /// Canonical texts already evaluated, and what each was: repeats are duplicates.
    seen: Option<&'a BTreeMap<String, Earlier>>,
    /// The knowledge entries and the constraints each candidate of the round drew on.
    knowledge: &'a [Vec<String>],
    constraints: &'a [String],
    /// Candidates at or above this many cycles are timed only (see [`Verify`]).
    verify_below: Option<u64>,
}

/// An evaluated schedule a later proposal may repeat.
#[derive(Clone, Debug)]
struct Earlier {
    /// What it was, for the duplicate's feedback: "hand schedule (3618 cycles)".
    what: String,
    /// A hand schedule's result, which a repeat of it carries: the search proposed that
    /// schedule, so its best is never slower than a hand schedule it repeats.
    result: Option<(u64, npu_sim::Report)>,
}

/// What the loop reports while it works (progress bars, or nothing in tests).
pub trait Progress: Sync {
    /// A phase starts: `total` evaluations for `generator` on `kernel`.
    fn start(&self, kernel: &str, generator: &str, total: u64);
    /// One evaluation finished.
    fn advance(&self, record: &CandidateRecord);
    /// The run is over: close whatever display is still open.
    fn finish(&self);
}

/// Progress that shows nothing.
#[derive(Debug)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: &str, _: &str, _: u64) {}
    fn advance(&self, _: &CandidateRecord) {}
    fn finish(&self) {}
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum RunError {
    /// The generator cannot continue.
    Generate(GenerateError),
    /// The journal cannot be opened or resumed.
    Journal(JournalError),
    /// The worker thread pool could not be built.
    Thread(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Generate(error) => error.fmt(f),
            RunError::Journal(error) => error.fmt(f),
            RunError::Thread(message) => write!(f, "cannot start the worker threads: {message}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Tunes every problem with `generator` and the baselines; returns one result each.
pub fn run(
    problems: &[Problem],
    generator: &mut dyn Generator,
    config: &RunConfig,
    progress: &dyn Progress,
) -> Result<Vec<KernelResult>, RunError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs)
        .build()
        .map_err(|e| RunError::Thread(e.to_string()))?;
    let mut targets: Vec<String> = problems
        .iter()
        .map(|p| p.kernel.target.name.clone())
        .collect();
    targets.dedup();
    let header = JournalHeader {
        kernels: problems.iter().map(|p| p.name.clone()).collect(),
        target: targets.join(","),
        generator: generator.name().to_string(),
        seed: config.seed,
        rounds: config.rounds,
        candidates: config.candidates as u32,
        kernel_hashes: problems
            .iter()
            .map(|p| content_hash(p.kernel.source.as_bytes()))
            .collect(),
        target_hashes: problems
            .iter()
            .map(|p| target_hash(&p.kernel.target))
            .collect(),
        model_version: Some(npu_sim::MODEL_VERSION),
    };
    let (journal, done) =
        Journal::open(&config.report_dir, &header, config.resume).map_err(RunError::Journal)?;
    for note in journal.notes() {
        eprintln!("warning: {note}");
    }
    let done = completed(done);
    let journal = Mutex::new(journal);
    let mut results = Vec::new();
    for problem in problems {
        let session = KernelSession {
            problem,
            config,
            journal: &journal,
            done: &done,
            progress,
            pool: &pool,
        };
        results.push(session.tune(generator)?);
    }
    progress.finish();
    Ok(results)
}

/// [`content_hash`] of a target's every figure, as canonical JSON (field order fixed by
/// the type, floats printed exactly).
pub(crate) fn target_hash(target: &npu_core::target::Target) -> String {
    // A target always serialises: it has no maps with non-string keys.
    content_hash(&serde_json::to_vec(target).unwrap_or_default())
}

/// One kernel's tuning within a run: its problem and what the run shares (settings,
/// journal, the candidates a resumed run has done, progress, the worker pool).
struct KernelSession<'a> {
    problem: &'a Problem,
    config: &'a RunConfig,
    journal: &'a Mutex<Journal>,
    done: &'a HashMap<CandidateKey, CandidateRecord>,
    progress: &'a dyn Progress,
    pool: &'a rayon::ThreadPool,
}

impl KernelSession<'_> {
    fn tune(&self, generator: &mut dyn Generator) -> Result<KernelResult, RunError> {
        let hand = self.hand();
        let budget = u64::from(self.config.rounds) * self.config.candidates as u64;
        let started = Instant::now();
        let main = self.search(generator, budget, &hand)?;
        let round_seconds = started.elapsed().as_secs_f64() / f64::from(self.config.rounds.max(1));
        let evaluations = main.len() as u64;
        let (random, grid) = if self.config.baselines {
            (
                self.search(&mut Random, evaluations, &hand)?,
                self.search(&mut Grid, evaluations, &hand)?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let searches = Searches {
            generator: generator.name(),
            hand,
            main,
            random,
            grid,
        };
        Ok(searches.result(self.problem, self.config.rounds, round_seconds))
    }

    /// The kernel's own schedules, evaluated as written.
    fn hand(&self) -> Vec<CandidateRecord> {
        let kernel = &self.problem.kernel;
        let texts: Vec<Proposed> = kernel
            .schedules
            .iter()
            .map(|s| Proposed::Schedule(s.source.clone()))
            .collect();
        self.progress
            .start(&self.problem.name, "hand", texts.len() as u64);
        let records = self.evaluate_round("hand", 0, texts, &RoundContext::default());
        self.sync_journal();
        records
    }

    /// Rounds of `generator` until `budget` evaluations are spent.
    fn search(
        &self,
        generator: &mut dyn Generator,
        budget: u64,
        hand: &[CandidateRecord],
    ) -> Result<Vec<CandidateRecord>, RunError> {
        let name = generator.name();
        self.progress.start(&self.problem.name, name, budget);
        let mut history: Vec<CandidateRecord> = Vec::new();
        // What was already evaluated, by canonical text: the hand schedules, then this
        // search's candidates.
        let mut seen: BTreeMap<String, Earlier> = BTreeMap::new();
        for record in hand {
            seen.entry(canonical(&record.source))
                .or_insert_with(|| Earlier {
                    what: format!("hand schedule {}", describe(record)),
                    result: match (record.verdict, record.cycles, &record.report) {
                        (Verdict::Correct, Some(cycles), Some(report)) => {
                            Some((cycles, report.clone()))
                        }
                        _ => None,
                    },
                });
        }
        let mut round = 0;
        while (history.len() as u64) < budget {
            let count = (budget - history.len() as u64).min(self.config.candidates as u64) as usize;
            let finished: Vec<CandidateRecord> = (0..count as u32)
                .filter_map(|index| {
                    self.done
                        .get(&CandidateKey::new(&self.problem.name, name, round, index))
                        .cloned()
                })
                .collect();
            let records = if finished.len() == count {
                // Resumed: this round is in the journal already.
                for record in &finished {
                    self.progress.advance(record);
                }
                finished
            } else {
                let request = Request {
                    problem: self.problem,
                    round,
                    count,
                    history: &history,
                    hand,
                    budget,
                    seed: self.config.seed,
                };
                let proposals = generator.propose(&request).map_err(RunError::Generate)?;
                if proposals.is_empty() {
                    break; // The generator has nothing new to offer.
                }
                let knowledge = generator.knowledge_used();
                let constraints = generator.constraints_used();
                let verify_below = self.verify_below(&history);
                let context = RoundContext {
                    seen: Some(&seen),
                    knowledge: &knowledge,
                    constraints: &constraints,
                    verify_below,
                };
                self.evaluate_round(name, round, proposals, &context)
            };
            for record in &records {
                if record.verdict != Verdict::Duplicate && record.verdict != Verdict::Unparsable {
                    seen.entry(canonical(&record.source))
                        .or_insert_with(|| Earlier {
                            what: format!(
                                "candidate r{}_{} {}",
                                record.round,
                                record.index,
                                describe(record)
                            ),
                            result: None,
                        });
                }
            }
            history.extend(records);
            self.sync_journal();
            round += 1;
        }
        self.verify_best(&mut history);
        self.sync_journal();
        Ok(history)
    }

    /// Makes the round's records durable: one sync per round, not per record.
    fn sync_journal(&self) {
        if let Ok(mut journal) = self.journal.lock()
            && let Err(error) = journal.sync()
        {
            eprintln!("warning: could not sync the journal: {error}");
        }
    }

    /// Candidates at or above this many cycles are not verified on data: the `k`-th
    /// best of the history, under [`Verify::Best`]; `None` verifies every candidate.
    fn verify_below(&self, history: &[CandidateRecord]) -> Option<u64> {
        let Verify::Best(k) = self.config.verify else {
            return None;
        };
        let mut cycles: Vec<u64> = history
            .iter()
            .filter(|r| r.verdict == Verdict::Correct)
            .filter_map(|r| r.cycles)
            .collect();
        cycles.sort_unstable();
        cycles.get(k.max(1) - 1).copied()
    }

    /// Verifies the fastest correct candidate until the fastest is verified: a best is
    /// never a timing-only result, and one whose outputs are wrong becomes `Wrong`.
    fn verify_best(&self, history: &mut [CandidateRecord]) {
        loop {
            let fastest = history
                .iter_mut()
                .filter(|r| r.verdict == Verdict::Correct && r.cycles.is_some())
                .min_by_key(|r| r.cycles);
            let Some(record) = fastest else { return };
            if record.verified {
                return;
            }
            let outcome = self.problem.verify(&record.source);
            record.verdict = outcome.verdict;
            record.cycles = outcome.cycles;
            record.feedback = outcome.feedback;
            record.report = outcome.report;
            record.verified = true;
            if let Ok(mut journal) = self.journal.lock()
                && let Err(error) = journal.append(record)
            {
                eprintln!("warning: could not append to the journal: {error}");
            }
        }
    }

    /// Evaluates one round's proposals in parallel, journalling each as it finishes.
    fn evaluate_round(
        &self,
        generator: &str,
        round: u32,
        proposals: Vec<Proposed>,
        context: &RoundContext,
    ) -> Vec<CandidateRecord> {
        let repeats = context
            .seen
            .map(|seen| repeats(seen, round, &proposals))
            .unwrap_or_default();
        let mut records: Vec<CandidateRecord> = self.pool.install(|| {
            proposals
                .into_par_iter()
                .enumerate()
                .map(|(index, proposal)| {
                    let key = CandidateKey::new(&self.problem.name, generator, round, index as u32);
                    if let Some(record) = self.done.get(&key) {
                        self.progress.advance(record);
                        return record.clone();
                    }
                    let repeat = repeats.get(index).cloned().flatten();
                    let (source, outcome) = self.judge(proposal, repeat, context.verify_below);
                    let record = CandidateRecord {
                        kernel: self.problem.name.clone(),
                        generator: generator.to_string(),
                        round,
                        index: index as u32,
                        source,
                        verdict: outcome.verdict,
                        cycles: outcome.cycles,
                        diagnostics: outcome.diagnostics,
                        feedback: outcome.feedback,
                        report: outcome.report,
                        knowledge: context.knowledge.get(index).cloned().unwrap_or_default(),
                        verified: outcome.verified,
                        constraint: context.constraints.get(index).cloned(),
                    };
                    self.keep(&record);
                    record
                })
                .collect()
        });
        records.sort_by_key(|r| r.index);
        records
    }

    /// A proposal's source and outcome: a repeat is not evaluated again, a schedule
    /// is (verified when faster than `verify_below`), an unparsable reply says why.
    fn judge(
        &self,
        proposal: Proposed,
        repeat: Option<Earlier>,
        verify_below: Option<u64>,
    ) -> (String, Outcome) {
        match (proposal, repeat) {
            (Proposed::Schedule(text), Some(earlier)) => {
                let (cycles, report) = earlier.result.unzip();
                let feedback = format!(
                    "the same schedule as {}: not evaluated again; propose a different one",
                    earlier.what
                );
                (
                    text,
                    unevaluated(Verdict::Duplicate, cycles, feedback, report),
                )
            }
            (Proposed::Schedule(text), None) => {
                let outcome = self.problem.evaluate_with(&text, |cycles| {
                    verify_below.is_none_or(|threshold| cycles < threshold)
                });
                (text, outcome)
            }
            (Proposed::Unparsable { reason, excerpt }, _) => (
                excerpt,
                unevaluated(Verdict::Unparsable, None, reason, None),
            ),
        }
    }

    /// Appends a record to the journal and reports it to the progress display.
    fn keep(&self, record: &CandidateRecord) {
        if let Ok(mut journal) = self.journal.lock()
            && let Err(error) = journal.append(record)
        {
            eprintln!("warning: could not append to the journal: {error}");
        }
        self.progress.advance(record);
    }
}

/// For each proposal, the earlier schedule it repeats (of an earlier round in `seen`,
/// or an earlier proposal of this round), if any: those are recorded as duplicates
/// instead of evaluated.
fn repeats(
    seen: &BTreeMap<String, Earlier>,
    round: u32,
    proposals: &[Proposed],
) -> Vec<Option<Earlier>> {
    let mut this_round: BTreeMap<String, usize> = BTreeMap::new();
    let mut repeats = Vec::with_capacity(proposals.len());
    for (index, proposal) in proposals.iter().enumerate() {
        let Proposed::Schedule(text) = proposal else {
            repeats.push(None);
            continue;
        };
        let key = canonical(text);
        repeats.push(match (seen.get(&key), this_round.get(&key)) {
            (Some(earlier), _) => Some(earlier.clone()),
            (None, Some(first)) => Some(Earlier {
                what: format!("candidate r{round}_{first} of this round"),
                result: None,
            }),
            (None, None) => {
                this_round.insert(key, index);
                None
            }
        });
    }
    repeats
}

/// The outcome of a proposal that was not simulated.
fn unevaluated(
    verdict: Verdict,
    cycles: Option<u64>,
    feedback: String,
    report: Option<npu_sim::Report>,
) -> Outcome {
    Outcome {
        verdict,
        cycles,
        diagnostics: Vec::new(),
        feedback,
        report,
        verified: true,
    }
}

/// A schedule's text with its name (`s`) and layout made canonical, so that two
/// spellings of one schedule compare equal; text that is not one block is kept as is.
pub(crate) fn canonical(text: &str) -> String {
    npu_core::canonical_schedule(text, "s").unwrap_or_else(|| text.trim().to_string() + "\n")
}

/// "(1511 cycles)" or "(rejected)": what an earlier candidate gave, for feedback.
fn describe(record: &CandidateRecord) -> String {
    match record.cycles {
        Some(cycles) => format!("({cycles} cycles)"),
        None => format!("({:?})", record.verdict).to_lowercase(),
    }
}
