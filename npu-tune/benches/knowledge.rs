//! How the knowledge base scales with its entries: `cargo bench --bench knowledge`.
//!
//! A base of n entries is the built-in entries copied under new ids (`ID-00042`), so
//! every trigger, template and rationale is a real one. Rows at n = 2,000, 8,000 and
//! 32,000 (n, 4n and 16n):
//!
//! - `knowledge/load/N`: parsing and schema-checking the base's TOML text, as
//!   `autotune --knowledge DIR` does once per run;
//! - `knowledge/retrieve/N`: one retrieval, as every round of the heuristic (and every
//!   LLM prompt) makes, for a query with diagnostic codes, failing-schedule words and
//!   bottlenecks, so that both rankings and their fusion hold many entries.
//!
//! Both grow as n log n at most: a row at 16n should cost about 16 to 25 times the row
//! at n. The unit tests in `npu-tune/src/knowledge.rs` count the work instead of timing it.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use npu_core::Code;
use npu_core::Dtype;
use npu_tune::knowledge::{KnowledgeBase, Query};

/// `count` entries: the built-in ones, copied under new ids, sorted by id as a loaded
/// base is.
fn base(count: usize) -> KnowledgeBase {
    let builtin = KnowledgeBase::builtin().entries;
    let mut entries: Vec<_> = (0..count)
        .map(|index| {
            let mut entry = builtin[index % builtin.len()].clone();
            entry.id = format!("{}-{:05}", entry.id, index / builtin.len());
            entry
        })
        .collect();
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    KnowledgeBase { entries }
}

/// A query as a round of tuning an elementwise f16 kernel on eight cores asks it.
fn query() -> Query {
    Query {
        class: "elementwise".into(),
        dtypes: vec![Dtype::F16],
        codes: vec![Code::E020, Code::E021],
        words: ["split", "stage", "ub", "depth", "parallel", "cores", "tail"]
            .iter()
            .map(|w| w.to_string())
            .collect(),
        bottlenecks: vec!["memory-bound".into(), "no overlap".into()],
        cores: 8,
    }
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("knowledge");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(4));
    let query = query();
    for count in [2_000, 8_000, 32_000] {
        let base = base(count);
        let files = [("knowledge.toml".to_string(), base.to_toml())];
        group.bench_with_input(BenchmarkId::new("load", count), &files, |b, files| {
            b.iter(|| KnowledgeBase::parse(black_box(files)).map(|base| base.entries.len()))
        });
        group.bench_with_input(BenchmarkId::new("retrieve", count), &base, |b, base| {
            b.iter(|| base.retrieve(black_box(&query), 3).len())
        });
    }
    group.finish();
}

criterion_group!(knowledge, benches);
criterion_main!(knowledge);
