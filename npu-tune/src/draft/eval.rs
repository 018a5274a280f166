//! The frozen evaluation set of the drafting loop (`autotune draft-eval`): two bundled
//! kernels per category, picked by a fixed seed, each with a description specific
//! enough to determine its function (`eval/subset.toml`), and kernels written for the
//! evaluation only (`eval/fresh/*.npu`), which retrieval and the knowledge base never
//! see. Each kernel's reference body gives the examples (the host reference on seeded
//! random and on edge inputs); the task is the kernel with its body emptied.
//!
//! A second set, [`USERS`] (`eval/users/CATEGORY/*.npu`), holds kernels written as
//! users write them (their names, prose descriptions, scalar parameters, gathers); it is
//! loaded apart, by name ([`load_named`]), so the first set's scores stay comparable.

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
/// The name of the users' set, and the folder that holds it.
pub const USERS: &str = "users";
/// The name of the first set: the subset and the fresh kernels.
pub const FIRST: &str = "first";
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
    set.extend(load_folder(&dir.join(FRESH), FRESH)?);
    Ok(set)
}

/// The set named `name` in `dir`: [`FIRST`] is [`load`]'s, [`USERS`] the users' set,
/// its kernels grouped by the folder of `users/` that holds them, folders and files
/// by name.
pub fn load_named(dir: &Path, name: &str) -> Result<Vec<EvalKernel>, String> {
    match name {
        FIRST => load(dir),
        USERS => {
            let mut set = Vec::new();
            for folder in sorted_entries(&dir.join(USERS), |path| path.is_dir())? {
                let group = folder.file_name().unwrap_or_default().to_string_lossy();
                set.extend(load_folder(&folder, &group)?);
            }
            Ok(set)
        }
        other => Err(format!(
            "no evaluation set is named `{other}`: the sets are `{FIRST}` and `{USERS}`"
        )),
    }
}

/// The kernels of the `.npu` files in `folder`, by file name, in `group`.
fn load_folder(folder: &Path, group: &str) -> Result<Vec<EvalKernel>, String> {
    let is_kernel = |path: &Path| path.extension().is_some_and(|e| e == "npu");
    sorted_entries(folder, is_kernel)?
        .iter()
        .map(|path| {
            let text = npu_core::file::read(npu_core::file::Kind::Kernel, path)
                .map_err(|e| e.to_string())?;
            from_reference(&text, group).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}

/// The paths in `dir` that `keep` keeps, sorted.
fn sorted_entries(
    dir: &Path,
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<std::path::PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<_> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| keep(path))
        .collect();
    paths.sort();
    Ok(paths)
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
        set.iter().for_each(assert_reference_matches);
    }

    /// Asserts that `kernel`'s reference body checks and matches its examples.
    fn assert_reference_matches(kernel: &EvalKernel) {
        let task = &kernel.task;
        let outcome = task.try_body(&kernel.reference, &kernel.target, &kernel.examples, None);
        assert!(
            matches!(outcome, Outcome::Matches { verified: true, .. }),
            "{}: {outcome:?}",
            task.name
        );
    }

    /// The users' set loads by name; each kernel's reference body checks and matches
    /// its examples, no kernel is bundled or in the first set, and each category holds
    /// the kernels its README's quota says.
    #[test]
    fn the_users_set_loads_by_name_and_each_reference_body_matches() {
        let set = load_named(&eval_dir(), USERS).unwrap();
        assert!(set.len() >= 40, "{} kernels", set.len());
        let first: Vec<String> = load(&eval_dir())
            .unwrap()
            .into_iter()
            .map(|k| k.task.name)
            .collect();
        let mut counts = std::collections::BTreeMap::<&str, usize>::new();
        for kernel in &set {
            let name = &kernel.task.name;
            assert!(
                Bundled::find(name).is_none() && !first.contains(name),
                "{name}"
            );
            *counts.entry(kernel.group.as_str()).or_default() += 1;
            assert_reference_matches(kernel);
        }
        let readme = std::fs::read_to_string(eval_dir().join(USERS).join("README.md")).unwrap();
        assert_eq!(counts, quotas(&readme));
    }

    /// The quota table of the users' set's README: its rows `| category | count | ...`.
    fn quotas(readme: &str) -> std::collections::BTreeMap<&str, usize> {
        readme
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                let count = cells.get(2)?.parse().ok()?;
                Some((*cells.get(1)?, count))
            })
            .collect()
    }

    #[test]
    fn an_unknown_set_name_is_an_error_naming_the_sets() {
        let error = load_named(&eval_dir(), "user").unwrap_err();
        assert_eq!(
            error,
            "no evaluation set is named `user`: the sets are `first` and `users`"
        );
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
