//! What a kernel's records add up to: its best result, each baseline's, the
//! convergence curve and the share of correct candidates per decoding constraint.

use std::collections::BTreeMap;

use crate::evaluate::Problem;
use crate::record::*;

/// A kernel's searches: the hand schedules, the generator's and the baselines'.
pub(super) struct Searches<'a> {
    pub(super) generator: &'a str,
    pub(super) hand: Vec<CandidateRecord>,
    pub(super) main: Vec<CandidateRecord>,
    pub(super) random: Vec<CandidateRecord>,
    pub(super) grid: Vec<CandidateRecord>,
}

impl Searches<'_> {
    /// What the searches add up to, for `rounds` rounds of `round_seconds` each.
    pub(super) fn result(self, problem: &Problem, rounds: u32, round_seconds: f64) -> KernelResult {
        let main = &self.main;
        let report = best(main)
            .or(best(&self.hand))
            .and_then(|r| r.report.as_ref());
        let first_round: Vec<&CandidateRecord> = main
            .iter()
            .filter(|r| r.round == 0 && r.verdict != Verdict::Duplicate)
            .collect();
        let all_main: Vec<&CandidateRecord> = main.iter().collect();
        let hand_cycles = best(&self.hand).and_then(|r| r.cycles);
        let fast = |p: f64| fast_share(&all_main, hand_cycles, p);
        KernelResult {
            kernel: problem.name.clone(),
            target: problem.kernel.target.name.clone(),
            generator: self.generator.to_string(),
            evaluations: main.len() as u64,
            roofline_cycles: report.map_or(0, |report| report.machine_roofline_cycles),
            attainable_cycles: report.map_or(0, |report| report.attainable_cycles),
            best: best_result(main, hand_cycles),
            baselines: Baselines {
                hand: baseline(&self.hand),
                random: baseline(&self.random),
                grid: baseline(&self.grid),
            },
            comp_at_1: share(&first_round, |r| r.verdict.compiled()),
            pass_at_1: share(&first_round, |r| r.verdict == Verdict::Correct),
            constraints: constraint_shares(main),
            duplicate_share: share(&all_main, |r| r.verdict == Verdict::Duplicate),
            fast_1: fast(1.0),
            fast_1_5: fast(1.5),
            failures_per_round: failures_per_round(main, rounds),
            mean_round_seconds: round_seconds,
            convergence: self.convergences(),
            candidates: self.into_candidates(),
        }
    }

    /// The convergence curve of each search that ran; the hand schedule is the plot's
    /// dashed reference line, not a search.
    fn convergences(&self) -> Vec<Convergence> {
        [
            (self.generator, &self.main),
            ("random", &self.random),
            ("grid", &self.grid),
        ]
        .into_iter()
        .filter(|(_, list)| !list.is_empty())
        .map(|(name, list)| convergence(name, list))
        .collect()
    }

    /// Every candidate: the hand schedules, the generator's, then the baselines'.
    fn into_candidates(self) -> Vec<CandidateRecord> {
        let mut candidates = self.hand;
        candidates.extend(self.main);
        candidates.extend(self.random);
        candidates.extend(self.grid);
        candidates
    }
}

/// The share of `records` that `pass`; 0 of none.
fn share(records: &[&CandidateRecord], pass: impl Fn(&CandidateRecord) -> bool) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    records.iter().filter(|r| pass(r)).count() as f64 / records.len() as f64
}

/// The share of `records` correct and at least `p` times as fast as the hand schedule.
fn fast_share(records: &[&CandidateRecord], hand_cycles: Option<u64>, p: f64) -> f64 {
    share(records, |r| {
        r.verdict == Verdict::Correct
            && matches!((r.cycles, hand_cycles), (Some(c), Some(h)) if (h as f64) >= p * c as f64)
    })
}

/// The generator's fastest correct result with its speedups and report figures.
fn best_result(main: &[CandidateRecord], hand_cycles: Option<u64>) -> Option<Best> {
    let first_correct = main
        .iter()
        .find(|r| r.verdict == Verdict::Correct)
        .and_then(|r| r.cycles);
    best(main).map(|record| {
        let cycles = record.cycles.unwrap_or(0);
        let report = record.report.as_ref();
        Best {
            cycles,
            source: record.source.clone(),
            efficiency: report.map_or(0.0, |r| r.machine_efficiency),
            speedup_over_hand: hand_cycles.map(|h| h as f64 / cycles.max(1) as f64),
            speedup_over_first_correct: first_correct.map(|f| f as f64 / cycles.max(1) as f64),
            evaluations_to_best: main
                .iter()
                .position(|r| r.cycles == Some(cycles) && counts_as_result(r))
                .map_or(0, |i| i as u64 + 1),
            vector_score: report.map_or(0.0, |r| r.vector_score),
            symptom: report.map(|r| r.symptom.clone()).unwrap_or_default(),
        }
    })
}

/// Per round, the generator's candidates that were neither correct nor repeats.
fn failures_per_round(main: &[CandidateRecord], rounds: u32) -> Vec<u32> {
    (0..rounds)
        .map(|round| {
            main.iter()
                .filter(|r| {
                    r.round == round && !matches!(r.verdict, Verdict::Correct | Verdict::Duplicate)
                })
                .count() as u32
        })
        .collect()
}

/// Per constraint the candidates were decoded under, in name order: how many, and how
/// many were correct.
fn constraint_shares(records: &[CandidateRecord]) -> Vec<ConstraintShare> {
    let mut shares: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for record in records {
        if let Some(constraint) = &record.constraint {
            let entry = shares.entry(constraint).or_default();
            entry.0 += 1;
            entry.1 += u64::from(record.verdict == Verdict::Correct);
        }
    }
    shares
        .into_iter()
        .map(|(constraint, (candidates, correct))| ConstraintShare {
            constraint: constraint.to_string(),
            candidates,
            correct,
        })
        .collect()
}

/// Whether a record is a correct result: a correct candidate, or the repeat of a hand
/// schedule (which carries the hand schedule's cycles).
fn counts_as_result(record: &CandidateRecord) -> bool {
    matches!(record.verdict, Verdict::Correct | Verdict::Duplicate) && record.cycles.is_some()
}

/// The fastest correct result.
fn best(records: &[CandidateRecord]) -> Option<&CandidateRecord> {
    records
        .iter()
        .filter(|r| counts_as_result(r))
        .min_by_key(|r| r.cycles)
}

fn baseline(records: &[CandidateRecord]) -> BaselineResult {
    let best = best(records);
    BaselineResult {
        cycles: best.and_then(|r| r.cycles),
        evaluations: records.len() as u64,
        source: best.map(|r| r.source.clone()),
    }
}

fn convergence(generator: &str, records: &[CandidateRecord]) -> Convergence {
    let mut points = Vec::new();
    let mut best = u64::MAX;
    for (i, record) in records.iter().enumerate() {
        if counts_as_result(record)
            && let Some(cycles) = record.cycles
        {
            best = best.min(cycles);
        }
        if best != u64::MAX {
            points.push((i as u64 + 1, best));
        }
    }
    Convergence {
        generator: generator.to_string(),
        points,
    }
}
