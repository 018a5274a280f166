//! Which candidate a record is: the key finished work is looked up by on `--resume`.

use std::collections::HashMap;

use crate::record::CandidateRecord;

/// Which candidate a record is: what the tuning loop looks finished work up by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CandidateKey {
    /// The problem's name.
    pub kernel: String,
    /// The search: `hand`, the main generator's name, `random` or `grid`.
    pub generator: String,
    /// The 0-based round of that search.
    pub round: u32,
    /// The 0-based position within the round.
    pub index: u32,
}

impl CandidateKey {
    /// The key of `kernel`'s candidate `index` in `round` of `generator`'s search.
    pub fn new(
        kernel: impl Into<String>,
        generator: impl Into<String>,
        round: u32,
        index: u32,
    ) -> Self {
        CandidateKey {
            kernel: kernel.into(),
            generator: generator.into(),
            round,
            index,
        }
    }

    /// The key of the candidate `record` holds.
    pub fn of(record: &CandidateRecord) -> Self {
        CandidateKey::new(
            &*record.kernel,
            &*record.generator,
            record.round,
            record.index,
        )
    }
}

/// Indexes records by [`CandidateKey`], so the loop can skip finished evaluations. When
/// a key occurs twice, the later record wins.
pub fn completed(
    records: impl IntoIterator<Item = CandidateRecord>,
) -> HashMap<CandidateKey, CandidateRecord> {
    records
        .into_iter()
        .map(|record| (CandidateKey::of(&record), record))
        .collect()
}
