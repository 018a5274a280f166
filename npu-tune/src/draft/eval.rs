//! The frozen evaluation set of the drafting loop (`autotune draft-eval`): two bundled
//! kernels per category, picked by a fixed seed, each with a description specific
//! enough to determine its function (`eval/subset.toml`), and kernels written for the
//! evaluation only (`eval/fresh/*.npu`), which retrieval and the knowledge base never
//! see. Each kernel's reference body gives the examples (the host reference on seeded
//! random and on edge inputs); the task is the kernel with its body emptied.

use std::path::Path;

use npu_core::Target;
use npu_core::ir::CheckedKernel;
use serde::Deserialize;

use super::Task;
use super::examples::Example;
use crate::kernels::{self, Bundled, Category};

/// How many bundled kernels of each category the subset holds.
pub const PER_CATEGORY: usize = 2;
/// The group name of the kernels written for the evaluation.
pub const FRESH: &str = "fresh";
/// The seed of every example's inputs.
const EXAMPLE_SEED: u64 = 2027;

/// One kernel of the evaluation set.
#[derive(Clone, Debug)]
pub struct EvalKernel {
    /// The category of a bundled kernel, or [`FRESH`].
    pub group: String,
    /// The kernel with its description, signature, target and an empty body.
    pub task: Task,
    /// The kernel's target, resolved from its text.
    pub target: Target,
    /// The reference body's statements, as the kernel's text writes them.
    pub reference: String,
    /// The reference body's outputs on seeded random and on edge inputs.
    pub examples: Vec<Example>,
}

/// `eval/subset.toml`: the seed and, for each kernel it picks, the description.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubsetFile {
    seed: u64,
    kernel: Vec<Described>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Described {
    name: String,
    description: String,
}

/// The bundled kernels `seed` picks: of each category in table order, [`PER_CATEGORY`]
/// drawn from its kernels sorted by name, listed by name.
pub fn subset(seed: u64) -> Vec<Bundled> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut picked = Vec::new();
    for category in Category::ALL {
        let mut members: Vec<Bundled> = kernels::all()
            .into_iter()
            .filter(|b| b.category == category)
            .collect();
        members.sort_by_key(|b| b.name);
        rng.shuffle(&mut members);
        members.truncate(PER_CATEGORY);
        members.sort_by_key(|b| b.name);
        picked.extend(members);
    }
    picked
}

/// The evaluation set in `dir` (`subset.toml` and `fresh/*.npu`): the subset's kernels
/// in its order, then the fresh kernels by file name.
pub fn load(dir: &Path) -> Result<Vec<EvalKernel>, String> {
    let mut set = load_subset(&dir.join("subset.toml"))?;
    let fresh_dir = dir.join("fresh");
    let entries = std::fs::read_dir(&fresh_dir)
        .map_err(|e| format!("cannot read {}: {e}", fresh_dir.display()))?;
    let mut paths: Vec<_> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "npu"))
        .collect();
    paths.sort();
    for path in paths {
        let text =
            npu_core::file::read(npu_core::file::Kind::Kernel, &path).map_err(|e| e.to_string())?;
        let kernel =
            from_reference(&text, FRESH).map_err(|e| format!("{}: {e}", path.display()))?;
        set.push(kernel);
    }
    Ok(set)
}

/// The subset's kernels with the file's descriptions; the file must list exactly
/// the kernels its seed picks.
fn load_subset(path: &Path) -> Result<Vec<EvalKernel>, String> {
    let text =
        npu_core::file::read(npu_core::file::Kind::Examples, path).map_err(|e| e.to_string())?;
    let file: SubsetFile = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let picked: Vec<&str> = subset(file.seed).iter().map(|b| b.name).collect();
    let listed: Vec<&str> = file.kernel.iter().map(|k| k.name.as_str()).collect();
    if picked != listed {
        return Err(format!(
            "{}: seed {} picks {picked:?}, the file lists {listed:?}",
            path.display(),
            file.seed
        ));
    }
    file.kernel
        .iter()
        .map(|described| {
            let bundled = Bundled::find(&described.name).expect("the seed picked it");
            let text = described_text((bundled.kernel)(), &described.description);
            from_reference(&text, bundled.category.name())
                .map_err(|e| format!("{}: {}: {e}", path.display(), described.name))
        })
        .collect()
}

/// A bundled kernel's canonical text with `description` for its doc comment.
fn described_text(kernel: &CheckedKernel, description: &str) -> String {
    let doc: String = description
        .lines()
        .map(|line| format!("/// {}\n", line.trim()))
        .collect();
    let rest: String = kernel
        .header
        .lines()
        .filter(|line| !line.trim_start().starts_with("///"))
        .map(|line| format!("{line}\n"))
        .collect();
    doc + &rest
}

/// The task and examples of a kernel text with its reference body.
fn from_reference(text: &str, group: &str) -> Result<EvalKernel, String> {
    let located = super::locate(text, None);
    proc_macro2::extra::invalidate_current_thread_spans();
    let located = located?;
    let emptied = format!(
        "{}{{}}{}",
        &text[..located.body.start],
        &text[located.body.end..]
    );
    let task = Task::parse(&emptied)?;
    let target = task.target(Path::new("."))?;
    let reference = super::check_algorithm(text, &target).map_err(|d| d.render(text))?;
    let examples = [
        npu_sim::testing::seeded_inputs(&reference, EXAMPLE_SEED),
        npu_sim::testing::edge_inputs(&reference, EXAMPLE_SEED),
    ]
    .into_iter()
    .map(|(inputs, expected)| Example { inputs, expected })
    .collect();
    Ok(EvalKernel {
        group: group.to_string(),
        task,
        target,
        reference: text[located.body.start + 1..located.body.end - 1].to_string(),
        examples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draft::Outcome;

    fn eval_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("eval")
    }

    /// Every kernel's own reference body checks and matches its examples, so a
    /// reply that writes the same function passes.
    #[test]
    fn the_frozen_set_loads_and_each_reference_body_matches() {
        let set = load(&eval_dir()).unwrap();
        let fresh = set.iter().filter(|k| k.group == FRESH).count();
        assert!(fresh >= 20, "{fresh} fresh kernels");
        assert_eq!(set.len() - fresh, PER_CATEGORY * Category::ALL.len());
        // Retrieval draws on the bundled kernels only: a fresh kernel must not be one.
        let fresh_names = set.iter().filter(|k| k.group == FRESH);
        for kernel in fresh_names {
            assert!(
                Bundled::find(&kernel.task.name).is_none(),
                "{}",
                kernel.task.name
            );
        }
        for kernel in &set {
            let outcome =
                kernel
                    .task
                    .try_body(&kernel.reference, &kernel.target, &kernel.examples, None);
            assert!(
                matches!(outcome, Outcome::Matches { verified: true, .. }),
                "{}: {outcome:?}",
                kernel.task.name
            );
        }
    }

    #[test]
    fn a_subset_file_that_is_not_the_seeds_pick_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(eval_dir().join("subset.toml")).unwrap();
        std::fs::write(
            dir.path().join("subset.toml"),
            text.replace("seed = 27", "seed = 28"),
        )
        .unwrap();
        let error = load(dir.path()).unwrap_err();
        assert!(error.contains("seed 28 picks"), "{error}");
    }
}
