//! Algorithm idioms for drafting: how the language writes a numerically stable
//! softmax, a normalisation, pooling and convolution windows, argmax, scans, saturating
//! casts, wider accumulators and matmuls. Each idiom has the words of a description
//! that call for it, a rationale and a whole example kernel (knowledge/idioms.toml; a
//! test checks every example on its target).

use std::collections::BTreeSet;

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
    idiom: Vec<Idiom>,
}

/// The built-in idioms, in file order.
pub fn builtin() -> Vec<Idiom> {
    const TEXT: &str = include_str!("../../../knowledge/idioms.toml");
    parse(TEXT).unwrap_or_default()
}

/// The idioms of a TOML text, or why it is not one.
pub fn parse(text: &str) -> Result<Vec<Idiom>, String> {
    toml::from_str::<File>(text)
        .map(|file| file.idiom)
        .map_err(|e| format!("idioms: {e}"))
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
        assert!(
            parse("[[idiom]]\nid = 1")
                .unwrap_err()
                .starts_with("idioms:")
        );
    }
}
