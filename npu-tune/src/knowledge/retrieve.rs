//! Retrieval: ranking a base's entries for a [`Query`] in the syntax space and the
//! hardware space, fused by reciprocal rank.

use std::collections::{BTreeSet, HashMap};

use npu_core::Dtype;
use npu_core::ir::{CheckedKernel, KernelClass};

use super::{BOTTLENECKS, Entry, KnowledgeBase, Query, tally};
use crate::record::{CandidateRecord, Verdict};

impl KnowledgeBase {
    /// The `count` entries that fit `query` best, best first. Entries whose class or
    /// dtype trigger excludes the kernel are never returned.
    pub fn retrieve(&self, query: &Query, count: usize) -> Vec<&Entry> {
        let eligible: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| {
                tally(1);
                eligible(query, e)
            })
            .collect();
        let syntax = |e: &Entry| syntax_score(query, e);
        let hardware = |e: &Entry| hardware_score(query, e);
        // Each space's ranking, as a map from id to rank: the rank of an id is that of
        // its first (best) place, looked up in constant time, so that fusing costs
        // n lookups and retrieval is n log n (the sorts), not n^2.
        let rank = |score: &dyn Fn(&Entry) -> f64| -> HashMap<&str, usize> {
            let mut scored: Vec<(f64, &Entry)> = eligible
                .iter()
                .map(|e| {
                    tally(1);
                    (score(e), *e)
                })
                .filter(|(s, _)| *s > 0.0)
                .collect();
            scored.sort_by(|a, b| {
                tally(1);
                b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id))
            });
            let mut ranks = HashMap::with_capacity(scored.len());
            for (rank, (_, e)) in scored.iter().enumerate() {
                tally(1);
                ranks.entry(e.id.as_str()).or_insert(rank);
            }
            ranks
        };
        let (by_syntax, by_hardware) = (rank(&syntax), rank(&hardware));
        let mut fused: Vec<(f64, &Entry)> = eligible
            .iter()
            .filter_map(|e| {
                let score: f64 = [&by_syntax, &by_hardware]
                    .iter()
                    .filter_map(|ranking| {
                        tally(1);
                        ranking.get(e.id.as_str())
                    })
                    .map(|rank| 1.0 / (60.0 + *rank as f64))
                    .sum();
                (score > 0.0).then_some((score, *e))
            })
            .collect();
        fused.sort_by(|a, b| {
            tally(1);
            b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id))
        });
        fused.into_iter().take(count).map(|(_, e)| e).collect()
    }
}

impl Query {
    /// What a round of tuning `kernel` asks about, from its history so far.
    pub fn from_history(kernel: &CheckedKernel, history: &[CandidateRecord]) -> Query {
        let class = match kernel.class {
            KernelClass::Matmul(_) => "matmul",
            KernelClass::Reduction => "reduction",
            KernelClass::Elementwise => "elementwise",
        };
        let mut dtypes: Vec<Dtype> = kernel.tensors.iter().map(|t| t.dtype).collect();
        dtypes.sort_by_key(|d| d.name());
        dtypes.dedup();
        let mut codes = Vec::new();
        let mut failing = None;
        for record in history
            .iter()
            .rev()
            .filter(|r| r.verdict == Verdict::Rejected)
        {
            failing.get_or_insert(record.source.as_str());
            for diagnostic in &record.diagnostics {
                if !codes.contains(&diagnostic.code) {
                    codes.push(diagnostic.code);
                }
            }
        }
        let available = match kernel.class {
            KernelClass::Matmul(_) => u64::from(kernel.target.cores.cube),
            _ => u64::from(kernel.target.cores.vector),
        };
        let best = history
            .iter()
            .filter(|r| r.verdict == Verdict::Correct)
            .min_by_key(|r| r.cycles);
        let bottlenecks = best
            .and_then(|r| r.report.as_ref())
            .map(|report| {
                let symptom = report.symptom.to_ascii_lowercase();
                let mut found: Vec<String> = BOTTLENECKS
                    .iter()
                    .filter(|b| symptom.contains(*b))
                    .map(|b| b.to_string())
                    .collect();
                if symptom.contains("depth 2") {
                    found.push("no overlap".into());
                }
                if report.cores < available {
                    found.push("idle cores".into());
                }
                found
            })
            .unwrap_or_default();
        Query {
            class: class.into(),
            dtypes,
            codes,
            words: failing.map(words).unwrap_or_default(),
            bottlenecks,
            cores: available,
        }
    }
}

/// Whether `e`'s trigger admits `query`: its class, a dtype, and cores for a template
/// that spreads over them.
pub(super) fn eligible(query: &Query, e: &Entry) -> bool {
    (e.trigger.classes.is_empty() || e.trigger.classes.contains(&query.class))
        && (e.trigger.dtypes.is_empty()
            || e.trigger.dtypes.iter().any(|d| query.dtypes.contains(d)))
        && (query.cores > 1 || !e.template.contains("parallel"))
}

/// The syntax space's score: the query's codes the entry triggers on (earlier codes
/// weigh more), then the words its template shares with the query.
pub(super) fn syntax_score(query: &Query, e: &Entry) -> f64 {
    let codes = query
        .codes
        .iter()
        .enumerate()
        .filter(|(_, c)| e.trigger.codes.contains(c))
        .map(|(rank, _)| 1.0 / (1.0 + rank as f64))
        .sum::<f64>();
    let words: BTreeSet<String> = words(&e.template);
    let shared = words.intersection(&query.words).count() as f64;
    codes * 10.0 + shared / (1.0 + words.len() as f64)
}

/// The hardware space's score: the query's bottlenecks the entry triggers on.
pub(super) fn hardware_score(query: &Query, e: &Entry) -> f64 {
    query
        .bottlenecks
        .iter()
        .filter(|b| e.trigger.bottlenecks.contains(b))
        .count() as f64
}

/// The words of a schedule text, for the syntax space.
pub(super) fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() > 1 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}
