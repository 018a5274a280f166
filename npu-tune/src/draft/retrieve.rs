//! Worked examples for a drafting prompt: the bundled kernels most like the task, by
//! the words of their names and descriptions and the shape of their signatures, never
//! the kernel being written nor its family.

use std::collections::BTreeSet;

use super::Task;
use crate::kernels::{self, Bundled};

/// Words too common in descriptions to tell kernels apart.
const STOPWORDS: [&str; 16] = [
    "a", "an", "and", "by", "each", "for", "in", "into", "is", "of", "on", "over", "the", "to",
    "with", "x",
];

/// The lower-case words of `text` (letters and digits), without stop words.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// Whether `bundled` is the task's kernel or of its family: the same name, a name
/// sharing its first word (`relu`, `relu_aie`), or, when the task is itself a bundled
/// kernel, the same category (`add`, `sub`, `mul`; the convolutions).
pub fn same_family(task: &str, bundled: &Bundled) -> bool {
    let stem = |name: &str| name.split('_').next().unwrap_or(name).to_string();
    if bundled.name == task || stem(bundled.name) == stem(task) {
        return true;
    }
    Bundled::find(task).is_some_and(|own| own.category == bundled.category)
}

/// How alike `bundled` is to the task: two points a shared word (of the name, the
/// description and, for the bundled kernel, the body's functions), one each for the
/// same number of inputs, the same output rank and a shared dtype.
fn score(task: &Task, task_words: &BTreeSet<String>, bundled: &Bundled) -> usize {
    let kernel = (bundled.kernel)();
    let mut theirs = words(&kernel.name);
    theirs.extend(words(&kernel.doc));
    theirs.extend(words(&kernel.header));
    let shared = task_words.intersection(&theirs).count();
    let inputs = task.ports.iter().filter(|p| !p.output).count();
    let their_inputs = kernel
        .tensors
        .iter()
        .filter(|t| t.role == npu_core::ir::Role::Input);
    let same_inputs = usize::from(their_inputs.clone().count() == inputs);
    let output_rank = task.ports.iter().find(|p| p.output).map(|p| p.rank);
    let their_rank = kernel
        .tensors
        .iter()
        .find(|t| t.role == npu_core::ir::Role::Output)
        .map(|t| t.shape.len());
    let same_rank = usize::from(output_rank == their_rank);
    let dtypes: BTreeSet<_> = task.ports.iter().filter_map(|p| p.dtype).collect();
    let shared_dtype = usize::from(kernel.tensors.iter().any(|t| dtypes.contains(&t.dtype)));
    2 * shared + same_inputs + same_rank + shared_dtype
}

/// The kernel text (without schedules) of the `count` bundled kernels most like
/// `task`, best first, ties by name; its family left out.
pub fn worked_examples(task: &Task, count: usize) -> Vec<String> {
    let mut task_words = words(&task.name);
    task_words.extend(words(&task.doc));
    let mut scored: Vec<(usize, &'static str, Bundled)> = kernels::all()
        .into_iter()
        .filter(|b| !same_family(&task.name, b))
        .map(|b| (score(task, &task_words, &b), b.name, b))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(count)
        .map(|(_, _, b)| (b.kernel)().header.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_alike_and_never_of_the_family() {
        let task = Task::parse(
            "/// Softmax over each row, subtracting the row maximum first.\nkernel softmax_rows(x: [f32; 8, 64]) -> y: [f32; 8, 64] {}\ntarget ascend910b;\n",
        )
        .unwrap();
        let examples = worked_examples(&task, 3);
        assert_eq!(examples.len(), 3);
        assert!(
            examples.iter().all(|e| !e.contains("kernel softmax")),
            "{examples:?}"
        );
        assert!(examples.iter().any(|e| e.contains("max[")), "{examples:?}");
        // A bundled kernel's own family is its category.
        let relu = Bundled::find("relu_aie").unwrap();
        assert!(same_family("relu", &relu));
        assert!(same_family("add", &Bundled::find("sub").unwrap()));
        assert!(!same_family("add", &Bundled::find("rowsum").unwrap()));
    }
}
