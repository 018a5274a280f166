//! Algorithm idioms for drafting: how the language writes a numerically stable
//! softmax, a normalisation, pooling and convolution windows, argmax, scans, saturating
//! casts, wider accumulators and matmuls. Each idiom has the words of a description
//! that call for it, a rationale and a whole example kernel.
//!
//! The idioms live in `idioms/idioms.toml` (compiled in as the default, and a test
//! checks every example on its target); [`load`] reads a directory of such files
//! instead (`autotune draft --idioms DIR`), through npu-core's bounded reader. They
//! have a folder of their own because `knowledge/` is read whole as schedule entries
//! by `autotune --knowledge DIR`, and an idioms file there failed that load. An error
//! names the file, the line and what is wrong.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One idiom.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Idiom {
    /// A short kebab-case name (`softmax-stable`).
    pub id: String,
    /// Words of a description (lower case) that call for it.
    pub words: Vec<String>,
    /// Why the idiom is written so; the prompt shows it before the example.
    pub rationale: String,
    /// A whole kernel without a schedule.
    pub example: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    // A file of comments only holds no idioms.
    #[serde(default)]
    idiom: Vec<toml::Spanned<Idiom>>,
}

/// The file of the built-in idioms, as errors name it.
const BUILTIN_NAME: &str = "idioms/idioms.toml";

/// The built-in idioms, in file order.
pub fn builtin() -> Vec<Idiom> {
    const TEXT: &str = include_str!("../../../idioms/idioms.toml");
    // The compiled-in file is checked by a test; it always parses.
    parse(&[(BUILTIN_NAME.to_string(), TEXT.to_string())]).unwrap_or_default()
}

/// The idioms of every `*.toml` file of `dir`, files in name order, idioms in file
/// order; an error names the file (and the line) that cannot be used.
pub fn load(dir: &Path) -> Result<Vec<Idiom>, String> {
    let mut files = Vec::new();
    for path in idiom_files(dir)? {
        let text = npu_core::file::read(npu_core::file::Kind::Idioms, &path)
            .map_err(|e| format!("{}: cannot read: {}", path.display(), e.reason()))?;
        files.push((path.display().to_string(), text));
    }
    parse(&files)
}

/// The idioms of `(file name, text)` pairs, or `file:line: what is wrong`. Ids are
/// unique over all the files.
pub fn parse(files: &[(String, String)]) -> Result<Vec<Idiom>, String> {
    let mut idioms = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for (name, text) in files {
        let line_of = |offset: usize| {
            let before = &text.as_bytes()[..offset.min(text.len())];
            before.iter().filter(|&&byte| byte == b'\n').count() + 1
        };
        let file: File = toml::from_str(text).map_err(|error| match error.span() {
            Some(span) => format!("{name}:{}: {}", line_of(span.start), error.message()),
            None => format!("{name}: {}", error.message()),
        })?;
        for spanned in file.idiom {
            let at = format!("{name}:{}", line_of(spanned.span().start));
            let idiom = spanned.into_inner();
            if let Some(first) = seen.insert(idiom.id.clone(), at.clone()) {
                return Err(format!(
                    "{at}: idiom `{}`: the id is used already at {first}",
                    idiom.id
                ));
            }
            idioms.push(idiom);
        }
    }
    Ok(idioms)
}

/// The idiom files of a directory: its `*.toml` files, in name order.
fn idiom_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read the idioms directory: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// Up to `count` idioms whose words the description (and name) use, most shared
/// words first, ties in file order.
pub fn relevant<'a>(idioms: &'a [Idiom], description: &str, count: usize) -> Vec<&'a Idiom> {
    let said: BTreeSet<String> = description
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let mut scored: Vec<(usize, usize, &Idiom)> = idioms
        .iter()
        .enumerate()
        .map(|(index, idiom)| {
            let shared = idiom.words.iter().filter(|w| said.contains(*w)).count();
            (shared, index, idiom)
        })
        .filter(|(shared, _, _)| *shared > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(count)
        .map(|(_, _, idiom)| idiom)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_example_checks_on_its_target() {
        let idioms = builtin();
        assert!(idioms.len() >= 8, "{} idioms", idioms.len());
        for idiom in &idioms {
            let (def, parsed) = npu_core::internal::parse_str_partial(&idiom.example);
            let result = def
                .ok_or(parsed)
                .and_then(|def| {
                    let target =
                        npu_core::internal::resolve_target(&def, |_| Err("no files".into()))?;
                    npu_core::internal::check_algorithm(&def, &target)
                })
                .map(|_| ())
                .map_err(|d| d.render(&idiom.example));
            proc_macro2::extra::invalidate_current_thread_spans();
            if let Err(rendered) = result {
                panic!("idiom `{}`:\n{rendered}", idiom.id);
            }
        }
    }

    #[test]
    fn idioms_are_chosen_by_the_words_of_the_description() {
        let idioms = builtin();
        let ids = |text: &str| -> Vec<String> {
            relevant(&idioms, text, 2)
                .iter()
                .map(|i| i.id.clone())
                .collect()
        };
        assert_eq!(
            ids("Softmax over each row of a bf16 tensor"),
            ["softmax-stable", "accumulate-wider"]
        );
        assert_eq!(ids("2x2 max pooling with stride 2"), ["pooling-window"]);
        assert!(ids("bitwise xor of two masks").is_empty());
    }

    /// `files` as `(name, text)` pairs parse to the idiom ids `expected`, or to the
    /// error `expected` starts with `error: `.
    fn check(files: &[(&str, &str)], expected: &str) {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(name, text)| (name.to_string(), text.to_string()))
            .collect();
        let got = match parse(&files) {
            Ok(idioms) => idioms
                .iter()
                .map(|i| i.id.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            Err(error) => format!("error: {error}"),
        };
        assert_eq!(got, expected);
    }

    const ONE: &str = "[[idiom]]\nid = \"one\"\nwords = []\nrationale = \"r\"\nexample = \"e\"\n";

    #[test]
    fn a_file_that_cannot_be_used_is_named_with_its_line() {
        check(&[("a.toml", ONE), ("b.toml", "# none\n")], "one");
        check(
            &[("a.toml", "# idioms\n\n[[idiom]]\nid = 1\n")],
            "error: a.toml:4: invalid type: integer `1`, expected a string",
        );
        check(
            &[("capacity.toml", "# schedules\n[[entry]]\nid = \"x\"\n")],
            "error: capacity.toml:2: unknown field `entry`, expected `idiom`",
        );
        check(
            &[("a.toml", ONE), ("b.toml", &format!("\n{ONE}"))],
            "error: b.toml:2: idiom `one`: the id is used already at a.toml:1",
        );
    }
}
