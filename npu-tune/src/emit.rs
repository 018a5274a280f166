//! Writing a tuned schedule as device source: the schedule checked against its
//! kernel, lowered, and emitted by npu-emit into a directory of its own.

use std::path::{Path, PathBuf};

use npu_core::ir::Role;
use npu_emit::Backend;

use crate::atomic::write_atomic;
use crate::evaluate::Problem;
use crate::record::{KernelResult, Verdict};

/// The backends by the names the command line takes.
pub const BACKENDS: [(&str, Backend); 2] = [("ascend-c", Backend::AscendC), ("aie", Backend::Aie)];

/// The backend named `name`, or an error listing the names.
pub fn backend(name: &str) -> Result<Backend, String> {
    BACKENDS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, backend)| *backend)
        .ok_or_else(|| {
            let names: Vec<&str> = BACKENDS.iter().map(|(known, _)| *known).collect();
            format!(
                "no backend `{name}`; the backends are: {}",
                names.join(", ")
            )
        })
}

/// A correct schedule of a run that `--emit` may write: the search that found it, its
/// cycles and its schedule block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice<'r> {
    /// The search: the main generator's name, `hand`, `grid` or `random`.
    pub origin: &'r str,
    /// Its simulated cycles.
    pub cycles: u64,
    /// Its schedule block.
    pub source: &'r str,
}

/// A run's correct schedules, fastest first (ties in this order): the main generator's
/// best, the hand schedule's, grid search's and random search's, then every other
/// correct candidate; each schedule block once.
pub fn choices(result: &KernelResult) -> Vec<Choice<'_>> {
    let best = result
        .best
        .iter()
        .map(|b| (result.generator.as_str(), b.cycles, &b.source));
    let baselines = &result.baselines;
    let searches = [
        ("hand", &baselines.hand),
        ("grid", &baselines.grid),
        ("random", &baselines.random),
    ];
    let baselines = searches
        .into_iter()
        .filter_map(|(origin, b)| Some((origin, b.cycles?, b.source.as_ref()?)));
    let candidates = result
        .candidates
        .iter()
        .filter(|c| c.verdict == Verdict::Correct)
        .filter_map(|c| Some((c.generator.as_str(), c.cycles?, &c.source)));
    let mut seen = std::collections::BTreeSet::new();
    let mut all: Vec<Choice> = best
        .chain(baselines)
        .chain(candidates)
        .filter(|(_, _, source)| seen.insert(source.as_str()))
        .map(|(origin, cycles, source)| Choice {
            origin,
            cycles,
            source,
        })
        .collect();
    all.sort_by_key(|choice| choice.cycles);
    all
}

/// Writes the fastest of `result`'s correct schedules that `backend` can write into
/// `dir`: the one written, and each faster one with why it was not.
pub fn emit_fastest<'r>(
    problem: &Problem,
    result: &'r KernelResult,
    backend: Backend,
    dir: &Path,
) -> Result<(Choice<'r>, Vec<(Choice<'r>, String)>), String> {
    let mut passed = Vec::new();
    for choice in choices(result) {
        match emit_schedule(problem, choice.source, backend, dir) {
            Ok(_) => return Ok((choice, passed)),
            Err(why) => passed.push((choice, why)),
        }
    }
    let alike = passed.windows(2).all(|pair| pair[0].1 == pair[1].1);
    match passed.first() {
        None => Err("no correct schedule".to_string()),
        Some((_, why)) if alike => Err(why.clone()),
        Some((fastest, why)) => Err(format!(
            "none of its {} correct schedules can be written; the fastest ({}, {} cycles): {why}",
            passed.len(),
            fastest.origin,
            fastest.cycles
        )),
    }
}

/// Emits `schedule` (a schedule block of `problem`'s kernel) for `backend` into `dir`,
/// one file per emitted file, each written atomically; the directory on success.
pub fn emit_schedule(
    problem: &Problem,
    schedule: &str,
    backend: Backend,
    dir: &Path,
) -> Result<PathBuf, String> {
    let kernel = problem
        .check(schedule)
        .map_err(|rejected| rejected.render())?;
    let program = npu_core::lower::lower_compact(&kernel, 0);
    let emitted = npu_emit::emit(&program, &kernel.target, &kernel, backend)
        .map_err(|unsupported| unsupported.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for file in &emitted.files {
        let path = dir.join(&file.path);
        write_atomic(&path, file.text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if backend == Backend::AscendC {
        write_data(problem, dir)?;
    }
    Ok(dir.to_path_buf())
}

/// The data the host launch reads: `input/NAME.bin` per input (scalar parameters too)
/// and `golden/NAME.bin` per output, the host reference's outputs on those inputs,
/// each the tensor's raw little-endian bytes; and an empty `output/` for what it writes.
fn write_data(problem: &Problem, dir: &Path) -> Result<(), String> {
    let output = dir.join("output");
    std::fs::create_dir_all(&output)
        .map_err(|e| format!("cannot create {}: {e}", output.display()))?;
    let kernel = &problem.kernel;
    let inputs = kernel.tensors.iter().filter(|t| t.role == Role::Input);
    let outputs = kernel.tensors.iter().filter(|t| t.role == Role::Output);
    let files = inputs
        .zip(&problem.inputs)
        .map(|(tensor, data)| ("input", tensor, data))
        .chain(
            outputs
                .zip(&problem.expected)
                .map(|(tensor, data)| ("golden", tensor, data)),
        );
    for (folder, tensor, data) in files {
        let path = dir.join(folder).join(format!("{}.bin", tensor.name));
        std::fs::create_dir_all(dir.join(folder))
            .map_err(|e| format!("cannot create {}: {e}", dir.join(folder).display()))?;
        write_atomic(&path, data.bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Bundled;

    #[test]
    fn a_hand_schedule_is_emitted_with_its_data_and_npueval_demo_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let relu = Bundled::find("relu").unwrap().problem(0, None).unwrap();
        let hand = relu.kernel.schedules[0].source.clone();
        let out = emit_schedule(&relu, &hand, Backend::AscendC, &dir.path().join("relu")).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let expected = [
            "CMakeLists.txt",
            "golden",
            "input",
            "main.cpp",
            "output",
            "relu_hand.cpp",
        ];
        assert_eq!(names, expected);
        assert_eq!(
            std::fs::read(out.join("input/x.bin")).unwrap(),
            relu.inputs[0].bytes()
        );
        assert_eq!(
            std::fs::read(out.join("golden/y.bin")).unwrap(),
            relu.expected[0].bytes()
        );
        let vmla = Bundled::find("vmla").unwrap().problem(0, None).unwrap();
        let hand = vmla.kernel.schedules[0].source.clone();
        let refused = emit_schedule(&vmla, &hand, Backend::AscendC, &dir.path().join("vmla"));
        assert!(refused.unwrap_err().contains("npueval_demo"));
        assert!(
            backend("cuda")
                .unwrap_err()
                .contains("the backends are: ascend-c")
        );
    }
}
