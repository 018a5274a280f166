//! Reading a knowledge base: the compiled-in files, a directory's `*.toml` files through
//! npu-core's bounded reader, and the schema check that turns each entry's TOML into an
//! [`Entry`] or an error naming the file and the line.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use npu_core::{Code, Dtype};
use serde::Deserialize;

use super::{
    BOTTLENECKS, CLASSES, Entry, KnowledgeBase, KnowledgeError, LEARNED_FILE, LEARNED_HEADER,
    PRUNED_FILE, Trigger, tally,
};

/// The files of the default base, compiled in.
const BUILTIN: [(&str, &str); 4] = [
    (
        "knowledge/capacity.toml",
        include_str!("../../../knowledge/capacity.toml"),
    ),
    (
        "knowledge/copies.toml",
        include_str!("../../../knowledge/copies.toml"),
    ),
    (
        "knowledge/machine.toml",
        include_str!("../../../knowledge/machine.toml"),
    ),
    (
        "knowledge/bottlenecks.toml",
        include_str!("../../../knowledge/bottlenecks.toml"),
    ),
];

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
            if crate::atomic::refuse_read_only(path).is_err() {
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
