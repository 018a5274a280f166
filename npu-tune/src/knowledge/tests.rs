//! Loading the shipped base, schema errors, and retrieval: what it picks and how its work grows.

use super::retrieve::{eligible, hardware_score, syntax_score, words};
use super::*;
use crate::kernels::Bundled;

#[test]
fn every_builtin_template_passes_the_checker() {
    let base = KnowledgeBase::builtin();
    assert!(base.entries.len() >= 25, "{} entries", base.entries.len());
    let mut problems = std::collections::BTreeMap::new();
    for entry in &base.entries {
        let problem = problems.entry(entry.kernel.clone()).or_insert_with(|| {
            Bundled::find(&entry.kernel)
                .unwrap_or_else(|| panic!("{}: no bundled kernel `{}`", entry.origin, entry.kernel))
                .problem(0, None)
                .expect("a bundled problem")
        });
        if let Err(rejected) = problem.check(&entry.template) {
            panic!(
                "{}: `{}` does not check:\n{}",
                entry.origin,
                entry.id,
                rejected.render()
            );
        }
    }
    // Every diagnostic class a schedule can draw, and every bottleneck, has an entry.
    for code in [
        Code::E020,
        Code::E021,
        Code::E022,
        Code::E023,
        Code::E024,
        Code::E025,
        Code::E031,
        Code::E032,
        Code::E033,
    ] {
        assert!(
            base.entries.iter().any(|e| e.trigger.codes.contains(&code)),
            "no entry for {code}"
        );
    }
    for bottleneck in BOTTLENECKS {
        assert!(
            base.entries
                .iter()
                .any(|e| e.trigger.bottlenecks.iter().any(|b| b == bottleneck)),
            "no entry for {bottleneck}"
        );
    }
}

#[test]
fn corrupt_files_name_file_and_line() {
    let check = |text: &str| {
        KnowledgeBase::parse(&[("k.toml".into(), text.into())])
            .map(|_| String::new())
            .unwrap_or_else(|e| e.to_string())
    };
    let entry = |extra: &str| {
        format!(
            "[[entry]]\nid = \"a\"\n{extra}rationale = \"r\"\nkernel = \"vmla\"\ntemplate = \"schedule t {{}}\"\n"
        )
    };
    insta::assert_snapshot!(check("[[entry]\nid = 1"), @"k.toml:1: unclosed array table, expected `]`");
    insta::assert_snapshot!(check(&entry("codes = [\"E999\"]\n")), @"k.toml:1: entry `a`: unknown diagnostic code `E999`");
    insta::assert_snapshot!(check(&format!("\n\n{}", entry("bottlenecks = [\"slow\"]\n"))), @"k.toml:3: entry `a`: unknown bottleneck `slow`; one of memory-bound, compute-bound, latency-bound, serialised, loop overhead, no overlap, idle cores");
    insta::assert_snapshot!(check(&format!("{}{}", entry(""), entry(""))), @"k.toml:6: entry `a`: the id is used already at k.toml:1");
    insta::assert_snapshot!(check(&entry("colour = \"red\"\n")), @"k.toml:3: unknown field `colour`, expected one of `id`, `classes`, `dtypes`, `codes`, `bottlenecks`, `rationale`, `kernel`, `template`");
}

#[test]
fn retrieval_fuses_diagnostics_and_bottlenecks() {
    let base = KnowledgeBase::builtin();
    let query = Query {
        class: "elementwise".into(),
        dtypes: vec![Dtype::F16],
        codes: vec![Code::E020],
        words: words("split i by 16384; stage a, b, c, y in ub depth 2;"),
        bottlenecks: vec![],
        cores: 1,
    };
    let found = base.retrieve(&query, 3);
    assert!(!found.is_empty());
    assert!(
        found[0].trigger.codes.contains(&Code::E020),
        "{}",
        found[0].id
    );
    assert!(
        found
            .iter()
            .all(|e| !e.trigger.classes.contains(&"matmul".to_string())
                || e.trigger.classes.len() > 1)
    );
    let memory = Query {
        class: "reduction".into(),
        bottlenecks: vec!["memory-bound".into()],
        cores: 40,
        ..Query::default()
    };
    let found = base.retrieve(&memory, 2);
    assert!(
        found
            .iter()
            .all(|e| e.trigger.bottlenecks.contains(&"memory-bound".to_string()))
    );
    // No advice to spread over cores for a one-core target.
    let one_core = Query {
        cores: 1,
        ..memory.clone()
    };
    assert!(
        base.retrieve(&one_core, 5)
            .iter()
            .all(|e| !e.template.contains("parallel"))
    );
    // Same query, same answer.
    let ids = |q: &Query| {
        base.retrieve(q, 5)
            .iter()
            .map(|e| e.id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&query), ids(&query));
}

/// `count` entries: the built-in ones copied under new ids, sorted by id as a
/// loaded base is (the base of `benches/knowledge.rs`).
fn copies(count: usize) -> KnowledgeBase {
    let builtin = KnowledgeBase::builtin().entries;
    let mut entries: Vec<Entry> = (0..count)
        .map(|index| {
            let mut entry = builtin[index % builtin.len()].clone();
            entry.id = format!("{}-{:05}", entry.id, index / builtin.len());
            entry
        })
        .collect();
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    KnowledgeBase { entries }
}

/// Queries that fill both spaces, one of them, or neither.
fn queries() -> Vec<Query> {
    let schedule = words(
        "parallel i over 8 cores; split i by 16384; stage a, b, c, y in ub depth 2; tail pad;",
    );
    let mut queries = Vec::new();
    for class in CLASSES {
        for cores in [1, 8] {
            queries.push(Query {
                class: class.into(),
                dtypes: vec![Dtype::F16],
                codes: vec![Code::E020, Code::E021, Code::E033],
                words: schedule.clone(),
                bottlenecks: vec!["memory-bound".into(), "no overlap".into()],
                cores,
            });
            queries.push(Query {
                class: class.into(),
                dtypes: vec![Dtype::F32, Dtype::I8],
                bottlenecks: BOTTLENECKS.iter().map(|b| b.to_string()).collect(),
                cores,
                ..Query::default()
            });
            queries.push(Query {
                class: class.into(),
                codes: vec![Code::E024],
                words: words("split j by 64;"),
                cores,
                ..Query::default()
            });
        }
    }
    queries
}

/// Retrieval as it was before it was made n log n: each entry's rank found by a
/// scan of each ranking. The reference the faster one must agree with.
fn retrieve_by_scanning<'a>(
    base: &'a KnowledgeBase,
    query: &Query,
    count: usize,
) -> Vec<&'a Entry> {
    let eligible: Vec<&Entry> = base.entries.iter().filter(|e| eligible(query, e)).collect();
    let syntax = |e: &Entry| syntax_score(query, e);
    let hardware = |e: &Entry| hardware_score(query, e);
    let rank = |score: &dyn Fn(&Entry) -> f64| -> Vec<(String, usize)> {
        let mut scored: Vec<(f64, &Entry)> = eligible
            .iter()
            .map(|e| (score(e), *e))
            .filter(|(s, _)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
        scored
            .iter()
            .enumerate()
            .map(|(rank, (_, e))| (e.id.clone(), rank))
            .collect()
    };
    let (by_syntax, by_hardware) = (rank(&syntax), rank(&hardware));
    let mut fused: Vec<(f64, &Entry)> = eligible
        .iter()
        .filter_map(|e| {
            let score: f64 = [&by_syntax, &by_hardware]
                .iter()
                .filter_map(|ranking| ranking.iter().find(|(id, _)| *id == e.id))
                .map(|(_, rank)| 1.0 / (60.0 + *rank as f64))
                .sum();
            (score > 0.0).then_some((score, *e))
        })
        .collect();
    fused.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
    fused.into_iter().take(count).map(|(_, e)| e).collect()
}

/// Same entries, same order as the scanning retrieval, for every query on bases of
/// several sizes, the built-in one, and one with repeated ids (which `parse` refuses
/// but a base built in memory may have).
#[test]
fn retrieval_picks_what_the_scanning_retrieval_picked() {
    let mut repeated = copies(120);
    let twins: Vec<Entry> = repeated.entries.iter().step_by(7).cloned().collect();
    repeated.entries.extend(twins);
    let bases = [
        KnowledgeBase::default(),
        KnowledgeBase::builtin(),
        copies(1),
        copies(97),
        copies(600),
        repeated,
    ];
    let mut compared = 0;
    for base in &bases {
        for query in queries() {
            for count in [1, 3, 10, usize::MAX] {
                let ids = |entries: Vec<&Entry>| -> Vec<*const Entry> {
                    entries.into_iter().map(|e| e as *const Entry).collect()
                };
                assert_eq!(
                    ids(base.retrieve(&query, count)),
                    ids(retrieve_by_scanning(base, &query, count)),
                    "{query:?}, {count} of {} entries",
                    base.entries.len()
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, bases.len() * 18 * 4);
    // The queries do fill the rankings: for some, half of a large base scores.
    let base = copies(600);
    let found = queries()
        .iter()
        .map(|query| base.retrieve(query, usize::MAX).len())
        .max();
    assert!(found > Some(300), "{found:?}");
}

/// The work of loading and of one retrieval, counted (never timed) at n, 4n and 16n
/// entries: n log n grows 16 x log(16n) / log(n) times (about 23 at n = 500), n^2
/// 256 times. Counting the newlines before each entry for its line, as loading did,
/// and scanning each ranking for each entry, as retrieval did, were both n^2.
#[test]
fn loading_and_retrieval_work_grows_as_n_log_n() {
    let work = |run: &dyn Fn()| -> u64 {
        WORK.with(|work| work.set(0));
        run();
        WORK.with(std::cell::Cell::get)
    };
    let query = &queries()[0];
    let mut loads = Vec::new();
    let mut retrievals = Vec::new();
    for count in [500, 2_000, 8_000] {
        let base = copies(count);
        let files = [("k.toml".to_string(), base.to_toml())];
        loads.push(work(&|| {
            assert_eq!(KnowledgeBase::parse(&files).unwrap().entries.len(), count);
        }));
        retrievals.push(work(&|| {
            assert_eq!(base.retrieve(query, 3).len(), 3);
        }));
    }
    for (what, counts) in [("loading", &loads), ("retrieval", &retrievals)] {
        let growth = counts[2] as f64 / counts[0] as f64;
        assert!(
            growth < 32.0,
            "{what}: {counts:?} units of work at 500, 2000 and 8000 entries: x{growth:.1}"
        );
        assert!(
            counts[1] < counts[2] && counts[0] < counts[1],
            "{what}: {counts:?}"
        );
    }
}
