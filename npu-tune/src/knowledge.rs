//! A hardware-aware knowledge base, in the spirit of Hawk (arXiv 2607.01590): entries
//! of a trigger (kernel class, dtype, diagnostic code, bottleneck class), a rationale
//! (a short rule about the hardware) and a template (a schedule the checker accepts for
//! a named bundled kernel, which a test checks).
//!
//! Entries live in human-readable TOML files under `knowledge/` (compiled in as the
//! default base; `KnowledgeBase::load` reads a directory instead, through npu-core's
//! bounded reader: a FIFO or a device named `*.toml` is an error, not a hang). Each file
//! is schema-checked on load, and an error names the file, the line and what is wrong.
//!
//! [`KnowledgeBase::retrieve`] ranks entries in two spaces and fuses the rankings:
//! syntax (the diagnostic codes of the latest failures and the words of the failing
//! schedule against each entry's codes and template) and hardware (the report's
//! bottleneck class, memory-bound ratio and buffer pressure against each entry's
//! bottlenecks). Reciprocal-rank fusion keeps either space from drowning the other;
//! ties go by entry id, so retrieval is deterministic.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::Path;

use npu_core::ir::{CheckedKernel, KernelClass};
use npu_core::{Code, Dtype};
use serde::Deserialize;

use super::record::{CandidateRecord, Verdict};

pub mod distill;

/// The file of a knowledge directory that `--learn` writes learned entries to.
pub const LEARNED_FILE: &str = "learned.toml";
/// How every file `--learn` writes begins: a [`LEARNED_FILE`] without it is not its own,
/// and is never overwritten.
pub const LEARNED_HEADER: &str = "# Knowledge entries, written by `autotune --learn`. Each entry: a trigger, a\n# rationale and a template the checker accepts for the named bundled kernel.\n";
/// The file that lists pruned entry ids, which loading skips.
pub const PRUNED_FILE: &str = "pruned.toml";
/// The audit log `--learn` appends to.
pub const AUDIT_FILE: &str = "audit.log";

/// The bottleneck classes a trigger may name, as the simulator's symptom says them.
pub const BOTTLENECKS: [&str; 7] = [
    "memory-bound",
    "compute-bound",
    "latency-bound",
    "serialised",
    "loop overhead",
    "no overlap",
    "idle cores",
];

/// The kernel classes a trigger may name.
pub const CLASSES: [&str; 3] = ["elementwise", "reduction", "matmul"];

/// The files of the default base, compiled in.
const BUILTIN: [(&str, &str); 4] = [
    (
        "knowledge/capacity.toml",
        include_str!("../../knowledge/capacity.toml"),
    ),
    (
        "knowledge/copies.toml",
        include_str!("../../knowledge/copies.toml"),
    ),
    (
        "knowledge/machine.toml",
        include_str!("../../knowledge/machine.toml"),
    ),
    (
        "knowledge/bottlenecks.toml",
        include_str!("../../knowledge/bottlenecks.toml"),
    ),
];

/// One entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// A unique name, which records, pruning and the audit log refer to it by.
    pub id: String,
    /// When the entry applies.
    pub trigger: Trigger,
    /// The rule about the hardware, in a sentence or two, as prompts show it.
    pub rationale: String,
    /// The bundled kernel the template is written for.
    pub kernel: String,
    /// A `schedule` block for `kernel` that the checker accepts, ending in a newline.
    pub template: String,
    /// Where it was read from: `file:line`.
    pub origin: String,
}

/// When an entry applies. An empty list matches anything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trigger {
    /// Kernel classes it is eligible for, of [`CLASSES`].
    pub classes: Vec<String>,
    /// Dtypes it is eligible for: the kernel must use one of them.
    pub dtypes: Vec<Dtype>,
    /// Diagnostic codes that rank it up in the syntax space.
    pub codes: Vec<Code>,
    /// Bottleneck classes, of [`BOTTLENECKS`], that rank it up in the hardware space.
    pub bottlenecks: Vec<String>,
}

/// Every entry, sorted by id.
#[derive(Clone, Debug, Default)]
pub struct KnowledgeBase {
    /// The entries; ids are unique.
    pub entries: Vec<Entry>,
}

/// A knowledge file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnowledgeError {
    /// `file:line`, or the file alone when the problem has no line.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for KnowledgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

impl std::error::Error for KnowledgeError {}

/// What retrieval is asked about: the kernel and what its latest candidates showed.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// The kernel's class, one of [`CLASSES`].
    pub class: String,
    /// The dtypes of the kernel's tensors, each once, sorted by name.
    pub dtypes: Vec<Dtype>,
    /// Diagnostic codes of the latest rejected candidates, most recent first.
    pub codes: Vec<Code>,
    /// Words of the latest failing schedule.
    pub words: BTreeSet<String>,
    /// Bottleneck classes of the best correct candidate.
    pub bottlenecks: Vec<String>,
    /// Cores of the kernel's class on its target: advice to spread over cores is no
    /// use on a target with one.
    pub cores: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    // A file of comments only is empty, as `--learn` writes when nothing is learned.
    #[serde(default)]
    entry: Vec<toml::Spanned<RawEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: String,
    #[serde(default)]
    classes: Vec<String>,
    #[serde(default)]
    dtypes: Vec<String>,
    #[serde(default)]
    codes: Vec<String>,
    #[serde(default)]
    bottlenecks: Vec<String>,
    rationale: String,
    kernel: String,
    template: String,
}

impl KnowledgeBase {
    /// The base compiled in from the repository's `knowledge/` files.
    pub fn builtin() -> KnowledgeBase {
        let files: Vec<(String, String)> = BUILTIN
            .iter()
            .map(|(name, text)| (name.to_string(), text.to_string()))
            .collect();
        // The compiled-in files are checked by a test; they always parse.
        KnowledgeBase::parse(&files).unwrap_or_default()
    }

    /// Reads every `*.toml` file of `dir`, in name order.
    pub fn load(dir: &Path) -> Result<KnowledgeBase, KnowledgeError> {
        let mut files = Vec::new();
        for path in entry_files(dir)? {
            let text = read_entry_file(&path)?;
            files.push((path.display().to_string(), text));
        }
        let mut base = KnowledgeBase::parse(&files)?;
        let pruned = read_pruned(dir)?;
        base.entries.retain(|e| !pruned.contains(&e.id));
        Ok(base)
    }

    /// Whether `--learn` may write into `dir`: an error when its [`LEARNED_FILE`] is not
    /// one `--learn` wrote (by its first lines) or is read-only, or when [`PRUNED_FILE`]
    /// is read-only. Called before a run, so a refusal costs nothing, and again before
    /// writing.
    pub fn check_learn_into(dir: &Path) -> Result<(), KnowledgeError> {
        let learned = dir.join(LEARNED_FILE);
        let refuse = |message: String| KnowledgeError {
            at: learned.display().to_string(),
            message,
        };
        for path in [&learned, &dir.join(PRUNED_FILE)] {
            if super::atomic::refuse_read_only(path).is_err() {
                return Err(KnowledgeError {
                    at: path.display().to_string(),
                    message: "is read-only; --learn does not replace a read-only file (make it writable to let it)".into(),
                });
            }
        }
        let text = match std::fs::metadata(&learned) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Ok(metadata) if metadata.is_file() => {
                std::fs::read(&learned).map_err(|e| refuse(format!("cannot read: {e}")))?
            }
            _ => {
                return Err(refuse(
                    "is not a regular file; --learn writes only its own learned.toml".into(),
                ));
            }
        };
        if text.starts_with(LEARNED_HEADER.as_bytes()) {
            Ok(())
        } else {
            Err(refuse(
                "was not written by `autotune --learn` (it does not begin with its header), and --learn never overwrites it; move it away or rename it (any other *.toml of the directory is read as entries)".into(),
            ))
        }
    }

    /// Parses and schema-checks `(file name, text)` pairs.
    pub fn parse(files: &[(String, String)]) -> Result<KnowledgeBase, KnowledgeError> {
        let mut entries: Vec<Entry> = Vec::new();
        // Where each id is in `entries`: a duplicate is found in constant time.
        let mut ids: HashMap<String, usize> = HashMap::new();
        for (name, text) in files {
            // Where each line ends, so that the line of an entry is a binary search and
            // not a count of the newlines before it (which made loading n^2).
            let newlines: Vec<usize> = text.match_indices('\n').map(|(at, _)| at).collect();
            let line_of = |offset: usize| {
                if !text.is_char_boundary(offset) {
                    return 1;
                }
                newlines.partition_point(|&newline| {
                    tally(1);
                    newline < offset
                }) + 1
            };
            let raw: RawFile = toml::from_str(text).map_err(|error| KnowledgeError {
                at: match error.span() {
                    Some(span) => format!("{name}:{}", line_of(span.start)),
                    None => name.clone(),
                },
                message: error.message().to_string(),
            })?;
            for spanned in raw.entry {
                let at = format!("{name}:{}", line_of(spanned.span().start));
                let raw = spanned.into_inner();
                let fail = |message: String| KnowledgeError {
                    at: at.clone(),
                    message: format!("entry `{}`: {message}", raw.id),
                };
                if raw.id.trim().is_empty() || raw.rationale.trim().is_empty() {
                    return Err(fail("`id` and `rationale` must not be empty".into()));
                }
                tally(1);
                if let Some(&other) = ids.get(&raw.id) {
                    let other: &Entry = &entries[other];
                    return Err(fail(format!("the id is used already at {}", other.origin)));
                }
                ids.insert(raw.id.clone(), entries.len());
                let codes = raw
                    .codes
                    .iter()
                    .map(|c| {
                        Code::ALL
                            .into_iter()
                            .find(|code| code.to_string() == *c)
                            .ok_or_else(|| fail(format!("unknown diagnostic code `{c}`")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let dtypes = raw
                    .dtypes
                    .iter()
                    .map(|d| {
                        Dtype::from_name(d).ok_or_else(|| fail(format!("unknown dtype `{d}`")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                for class in &raw.classes {
                    if !CLASSES.contains(&class.as_str()) {
                        return Err(fail(format!(
                            "unknown kernel class `{class}`; one of {}",
                            CLASSES.join(", ")
                        )));
                    }
                }
                for bottleneck in &raw.bottlenecks {
                    if !BOTTLENECKS.contains(&bottleneck.as_str()) {
                        return Err(fail(format!(
                            "unknown bottleneck `{bottleneck}`; one of {}",
                            BOTTLENECKS.join(", ")
                        )));
                    }
                }
                if !raw.template.trim_start().starts_with("schedule ") {
                    return Err(fail("the template is not a `schedule` block".into()));
                }
                entries.push(Entry {
                    id: raw.id,
                    trigger: Trigger {
                        classes: raw.classes,
                        dtypes,
                        codes,
                        bottlenecks: raw.bottlenecks,
                    },
                    rationale: raw.rationale.trim().to_string(),
                    kernel: raw.kernel,
                    template: raw.template.trim().to_string() + "\n",
                    origin: at,
                });
            }
        }
        entries.sort_by(|a, b| {
            tally(1);
            a.id.cmp(&b.id)
        });
        Ok(KnowledgeBase { entries })
    }

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
fn eligible(query: &Query, e: &Entry) -> bool {
    (e.trigger.classes.is_empty() || e.trigger.classes.contains(&query.class))
        && (e.trigger.dtypes.is_empty()
            || e.trigger.dtypes.iter().any(|d| query.dtypes.contains(d)))
        && (query.cores > 1 || !e.template.contains("parallel"))
}

/// The syntax space's score: the query's codes the entry triggers on (earlier codes
/// weigh more), then the words its template shares with the query.
fn syntax_score(query: &Query, e: &Entry) -> f64 {
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
fn hardware_score(query: &Query, e: &Entry) -> f64 {
    query
        .bottlenecks
        .iter()
        .filter(|b| e.trigger.bottlenecks.contains(b))
        .count() as f64
}

/// A knowledge file's text, through npu-core's bounded reader (a FIFO is refused, not
/// waited on).
fn read_entry_file(path: &Path) -> Result<String, KnowledgeError> {
    npu_core::file::read(npu_core::file::Kind::Knowledge, path).map_err(|e| KnowledgeError {
        at: path.display().to_string(),
        message: format!("cannot read: {}", e.reason()),
    })
}

/// The entry files of a knowledge directory: its `*.toml` files but [`PRUNED_FILE`], in
/// name order.
fn entry_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, KnowledgeError> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| KnowledgeError {
            at: dir.display().to_string(),
            message: format!("cannot read the knowledge directory: {e}"),
        })?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .filter(|path| !path.ends_with(PRUNED_FILE))
        .collect();
    paths.sort();
    Ok(paths)
}

/// The ids the entry files of `dir` other than [`LEARNED_FILE`] define, as they are on
/// disk now (pruned ones included: an id is taken while a file holds it).
pub(super) fn ids_outside_learned(dir: &Path) -> Result<BTreeSet<String>, KnowledgeError> {
    let mut files = Vec::new();
    for path in entry_files(dir)?
        .into_iter()
        .filter(|p| !p.ends_with(LEARNED_FILE))
    {
        let text = read_entry_file(&path)?;
        files.push((path.display().to_string(), text));
    }
    let base = KnowledgeBase::parse(&files)?;
    Ok(base.entries.into_iter().map(|entry| entry.id).collect())
}

/// The ids [`PRUNED_FILE`] of `dir` lists; none when there is no such file.
pub(super) fn read_pruned(dir: &Path) -> Result<Vec<String>, KnowledgeError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Pruned {
        ids: Vec<String>,
    }
    let path = dir.join(PRUNED_FILE);
    let at = path.display().to_string();
    let text = match npu_core::file::read(npu_core::file::Kind::Knowledge, &path) {
        Ok(text) => text,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => {
            return Err(KnowledgeError {
                at,
                message: format!("cannot read: {}", e.reason()),
            });
        }
    };
    let pruned: Pruned = toml::from_str(&text).map_err(|e| KnowledgeError {
        at,
        message: e.message().to_string(),
    })?;
    Ok(pruned.ids)
}

// Counts units of work of loading and retrieval (an entry scored, two entries compared,
// an id looked up, a step of a line's binary search) on this thread, in unit tests
// only: they show how the work grows with the entries without timing it.
#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline]
fn tally(units: u64) {
    #[cfg(test)]
    WORK.with(|work| work.set(work.get() + units));
    #[cfg(not(test))]
    let _ = units;
}

/// The words of a schedule text, for the syntax space.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() > 1 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
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
                    .unwrap_or_else(|| {
                        panic!("{}: no bundled kernel `{}`", entry.origin, entry.kernel)
                    })
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
}
