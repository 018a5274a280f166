//! What a kernel's records add up to: its best result, each baseline's, the
//! convergence curve and the share of correct candidates per decoding constraint.

use std::collections::BTreeMap;

use crate::record::*;

/// Per constraint the candidates were decoded under, in name order: how many, and how
/// many were correct.
pub(super) fn constraint_shares(records: &[CandidateRecord]) -> Vec<ConstraintShare> {
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
pub(super) fn counts_as_result(record: &CandidateRecord) -> bool {
    matches!(record.verdict, Verdict::Correct | Verdict::Duplicate) && record.cycles.is_some()
}

/// The fastest correct result.
pub(super) fn best(records: &[CandidateRecord]) -> Option<&CandidateRecord> {
    records
        .iter()
        .filter(|r| counts_as_result(r))
        .min_by_key(|r| r.cycles)
}

pub(super) fn baseline(records: &[CandidateRecord]) -> BaselineResult {
    let best = best(records);
    BaselineResult {
        cycles: best.and_then(|r| r.cycles),
        evaluations: records.len() as u64,
        source: best.map(|r| r.source.clone()),
    }
}

pub(super) fn convergence(generator: &str, records: &[CandidateRecord]) -> Convergence {
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
