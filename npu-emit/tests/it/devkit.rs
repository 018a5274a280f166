//! The emitted Ascend C kernels against the real Ascend C headers (opt-in).
//!
//! The CPU model (`tests/model/`) checks what an emitted kernel does, but it is our own
//! reading of the API: a name, a template argument or a struct field it accepts could
//! still be wrong. With `NPU_ASC_DEVKIT=DIR`, DIR a checkout of the public asc-devkit
//! (Huawei's Ascend C headers), every kernel [`kernels::cases`] emits is
//! syntax-compiled (`-fsyntax-only`, C++17 as the devkit's kernel build) by clang 16
//! or later (`$CXX`, else `clang++`) against DIR's `kernel_operator.h`, a dozen
//! kernels per translation unit, two compilers at a time; a unit that fails is
//! compiled again kernel by kernel, so each rejected kernel is named. Each unit starts with `tests/devkit/prelude.h`, which stands in for the
//! device compiler (bisheng): its keywords, attributes and built-in intrinsics, and
//! nothing of the API. The core's macros (`__NPU_ARCH__`, `__DAV_VEC__`, ...) come
//! on the command line, as the device compiler sets them for `--cce-aicore-arch`.
//!
//! Negative controls show the prelude hides no API mistake: an emitted kernel with a
//! misspelled call, a `HardEvent` that does not exist, a `DataCopyPadExtParams` of
//! another element type than its tensors' and a `DataCopyExtParams` field that does
//! not exist must each fail to compile, with an error naming the mistake.
//!
//! Without the variable the test says it was skipped and passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::kernels;
use crate::support::{self, Case};

/// The variable naming the asc-devkit checkout.
const VARIABLE: &str = "NPU_ASC_DEVKIT";

/// Kernels per translation unit, as in the model's builds: the headers take most of
/// a unit's compile time, so few units keep the check fast.
const CASES_PER_UNIT: usize = 12;

/// The include paths of a kernel build, relative to the checkout: those the devkit's
/// own build gives the device compiler (`cmake/asc/legacy_modules/bisheng_intf.cmake`,
/// whose `asc/` prefix is the installed layout of the repository's root).
const INCLUDE_DIRS: [&str; 15] = [
    "impl/adv_api",
    "impl/basic_api",
    "impl/c_api",
    "impl/basic_api/reg_compute",
    "impl/simt_api",
    "impl/utils",
    ".",
    "include",
    "include/adv_api",
    "include/basic_api",
    "include/aicpu_api",
    "include/c_api",
    "include/basic_api/reg_compute",
    "include/simt_api",
    "include/utils",
];

/// A mistake a negative control makes in an emitted kernel: its name, the text the
/// compiler's error must name, and the edit (`None` when the kernel lacks the spot).
type Control = (&'static str, &'static str, fn(&str) -> Option<String>);

/// The negative controls; each must fail to compile.
const CONTROLS: [Control; 4] = [
    ("a misspelled call", "Addd", |source| {
        replace_once(source, "AscendC::Add(", "AscendC::Addd(")
    }),
    ("a hard event that does not exist", "MTE2_XX", |source| {
        replace_once(source, "HardEvent::MTE2_V>", "HardEvent::MTE2_XX>")
    }),
    (
        "a template argument of another element type",
        "DataCopyPad",
        |source| {
            replace_once(
                source,
                "DataCopyPadExtParams<float>",
                "DataCopyPadExtParams<int32_t>",
            )
        },
    ),
    (
        "a DataCopyExtParams field that does not exist",
        "blockLenBytes",
        |source| {
            replace_once(
                source,
                "AscendC::TPipe pipe;",
                "AscendC::TPipe pipe;\n    AscendC::DataCopyExtParams wrong{};\n    wrong.blockLenBytes = 32;",
            )
        },
    ),
];

/// An asc-devkit checkout.
struct Devkit {
    root: PathBuf,
    /// The checkout's commit, or a note that it is not a git checkout.
    commit: String,
    /// A clang of version 16 or later.
    compiler: String,
    /// The headers the devkit's build generates (`kernel_tiling/kernel_tiling.h`).
    generated: PathBuf,
}

/// A translation unit to compile: its kernels (indices into the cases) and the
/// core it is compiled for.
struct Unit {
    name: String,
    text: String,
    macros: &'static [&'static str],
    kernels: Vec<usize>,
}

#[test]
fn emitted_ascend_kernels_compile_against_the_real_headers() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(devkit) = Devkit::from_env(dir.path()) else {
        println!(
            "skipped devkit: {VARIABLE} is not set (a checkout of the public asc-devkit to compile the emitted Ascend C kernels against)"
        );
        return;
    };
    let cases: Vec<Case> = kernels::cases().0.into_iter().map(|(c, _)| c).collect();
    let rejected = rejected_kernels(&devkit, dir.path(), &cases);
    let controls = control_units(&cases);
    let outputs = compile(&devkit, dir.path(), &controls);
    let refused = refused_controls(&controls, &outputs);
    println!(
        "asc-devkit {}: {} of {} emitted Ascend C kernels compile against the real headers, {} rejected; negative controls refused: {} of {}",
        devkit.commit,
        cases.len() - rejected.len(),
        cases.len(),
        rejected.len(),
        refused.iter().filter(|r| r.is_ok()).count(),
        CONTROLS.len()
    );
    let mut wrong = rejected;
    wrong.extend(refused.into_iter().filter_map(Result::err));
    if !wrong.is_empty() {
        panic!(
            "{}\n(the units are kept in {}; the first line of each gives its core's macros)",
            wrong.join("\n"),
            dir.keep().display()
        );
    }
}

/// Compiles the cases a dozen to a unit, then each kernel of a unit that fails on
/// its own; a message per kernel the headers reject.
fn rejected_kernels(devkit: &Devkit, dir: &Path, cases: &[Case]) -> Vec<String> {
    let units = kernel_units(cases);
    let outputs = compile(devkit, dir, &units);
    let alone: Vec<Unit> = units
        .iter()
        .zip(&outputs)
        .filter(|(_, output)| !output.status.success())
        .flat_map(|(unit, _)| unit.kernels.iter())
        .map(|&index| single_unit(cases, index, &cases[index].source))
        .collect();
    let outputs = compile(devkit, dir, &alone);
    alone
        .iter()
        .zip(&outputs)
        .filter(|(_, output)| !output.status.success())
        .map(|(unit, output)| {
            let function = &cases[unit.kernels[0]].function;
            let stderr = String::from_utf8_lossy(&output.stderr);
            format!(
                "{function} is rejected:\n{}",
                errors(&stderr, function).join("\n")
            )
        })
        .collect()
}

impl Devkit {
    /// The checkout `NPU_ASC_DEVKIT` names, its generated headers written in `dir`;
    /// `None` when the variable is unset. A directory that is not an asc-devkit
    /// checkout fails the test, saying so.
    fn from_env(dir: &Path) -> Option<Devkit> {
        let root = PathBuf::from(std::env::var_os(VARIABLE)?);
        for needed in ["include/kernel_operator.h", "impl/basic_api", "impl/utils"] {
            assert!(
                root.join(needed).exists(),
                "{VARIABLE}={} is not an asc-devkit checkout: it has no {needed} (clone the public asc-devkit and name its root)",
                root.display()
            );
        }
        let commit = Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["rev-parse", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map_or("(not a git checkout)".into(), |o| {
                String::from_utf8_lossy(&o.stdout).trim().to_string()
            });
        generate(&root, dir);
        Some(Devkit {
            compiler: clang(),
            generated: dir.to_path_buf(),
            root,
            commit,
        })
    }

    /// The compiler's command for `unit`, written at `path`.
    fn command(&self, path: &Path, unit: &Unit) -> Command {
        let mut command = Command::new(&self.compiler);
        command.args(["-fsyntax-only", "-std=c++17", "-w", "-ferror-limit=30"]);
        // The kernel build's own definition (`bisheng_intf.cmake`).
        command.arg("-DTILING_KEY_VAR=0");
        command.args(unit.macros);
        command.arg("-I").arg(prelude_dir());
        command.arg("-I").arg(&self.generated);
        for dir in INCLUDE_DIRS {
            command.arg("-I").arg(self.root.join(dir));
        }
        command.arg(path);
        command
    }
}

/// Writes `kernel_tiling/kernel_tiling.h` in `dir` with the devkit's own script, as
/// its build does: the advanced API includes it.
fn generate(root: &Path, dir: &Path) {
    let script = root.join("impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py");
    let header = dir.join("kernel_tiling/kernel_tiling.h");
    let output = Command::new("python3")
        .arg(&script)
        .arg(root.join("include/adv_api"))
        .arg(&header)
        .output();
    let generated = output.as_ref().is_ok_and(|o| o.status.success()) && header.exists();
    assert!(
        generated,
        "`python3 {}` does not generate {}: {output:?}",
        script.display(),
        header.display()
    );
}

/// `$CXX`, else `clang++`, when it is clang 16 or later: the prelude gives the device
/// compiler's memories distinct address spaces (clang's `address_space`, so that a
/// global-memory pointer is not a unified-buffer one, as on the device) and `half`
/// is `_Float16`, which clang supports on x86 from version 16.
fn clang() -> String {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "clang++".into());
    let version = Command::new(&compiler).arg("--version").output();
    let text = version.map_or(String::new(), |o| {
        String::from_utf8_lossy(&o.stdout).into_owned()
    });
    let major = text
        .split("clang version ")
        .nth(1)
        .and_then(|rest| rest.split('.').next())
        .and_then(|major| major.parse::<u32>().ok());
    assert!(
        major.is_some_and(|major| major >= 16),
        "{VARIABLE} needs clang 16 or later as the compiler (address spaces, _Float16): `{compiler} --version` says {:?}; set CXX=clang++-16 or later",
        text.lines().next().unwrap_or("nothing")
    );
    compiler
}

/// The directory of the prelude.
fn prelude_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/devkit")
}

/// The macros the device compiler defines for the core `case` runs on: the Atlas A2
/// (ascend910b, `dav-c220`) splits a kernel into a vector (AIV) and a cube (AIC)
/// build; the ascend310p AI core (`dav-m200`) runs both.
fn core_macros(case: &Case) -> &'static [&'static str] {
    match (case.target.name.as_str(), case.program.cube.is_some()) {
        ("ascend310p", _) => &["-D__NPU_ARCH__=2002", "-D__DAV_M200__"],
        (_, true) => &[
            "-D__NPU_ARCH__=2201",
            "-D__DAV_C220_CUBE__",
            "-D__DAV_CUBE__",
        ],
        (_, false) => &["-D__NPU_ARCH__=2201", "-D__DAV_C220_VEC__", "-D__DAV_VEC__"],
    }
}

/// The cases in units of up to a dozen, each unit for one core.
fn kernel_units(cases: &[Case]) -> Vec<Unit> {
    let mut groups: Vec<(&'static [&'static str], Vec<usize>)> = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let macros = core_macros(case);
        match groups.iter_mut().find(|(m, _)| *m == macros) {
            Some((_, group)) => group.push(index),
            None => groups.push((macros, vec![index])),
        }
    }
    let mut units = Vec::new();
    for (macros, group) in groups {
        for chunk in group.chunks(CASES_PER_UNIT) {
            let kernels = chunk
                .iter()
                .map(|&i| (cases[i].function.as_str(), cases[i].source.as_str()));
            units.push(Unit {
                name: format!("unit{}", units.len()),
                text: unit_text(macros, kernels),
                macros,
                kernels: chunk.to_vec(),
            });
        }
    }
    units
}

/// A unit of case `index` alone, its source `source`.
fn single_unit(cases: &[Case], index: usize, source: &str) -> Unit {
    let case = &cases[index];
    let macros = core_macros(case);
    Unit {
        name: case.function.clone(),
        text: unit_text(macros, std::iter::once((case.function.as_str(), source))),
        macros,
        kernels: vec![index],
    }
}

/// The core's macros as a comment, the prelude, then each kernel under a `#line`
/// naming its own file, so an error gives the kernel and the line of the emitted
/// source.
fn unit_text<'a>(macros: &[&str], kernels: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut text = format!("// {}\n#include \"prelude.h\"\n", macros.join(" "));
    for (function, source) in kernels {
        text.push_str(&format!("#line 1 \"{function}.cpp\"\n{source}\n"));
    }
    text
}

/// One unit per negative control: the first case the control's edit applies to,
/// mutated.
fn control_units(cases: &[Case]) -> Vec<Unit> {
    CONTROLS
        .iter()
        .enumerate()
        .map(|(number, (name, _, edit))| {
            let (index, source) = cases
                .iter()
                .enumerate()
                .find_map(|(index, case)| Some((index, edit(&case.source)?)))
                .unwrap_or_else(|| panic!("no emitted kernel has the spot for {name}"));
            Unit {
                name: format!("control{number}"),
                ..single_unit(cases, index, &source)
            }
        })
        .collect()
}

/// Writes and compiles `units` in `dir`, two compilers at a time; each unit's
/// compiler output.
fn compile(devkit: &Devkit, dir: &Path, units: &[Unit]) -> Vec<Output> {
    let commands = units
        .iter()
        .map(|unit| {
            let path = dir.join(format!("{}.cpp", unit.name));
            std::fs::write(&path, &unit.text).expect("the unit is written");
            devkit.command(&path, unit)
        })
        .collect();
    support::run_in_pairs(commands)
}

/// For each control: `Ok` when the compiler refused it with an error naming the
/// mistake, else what happened.
fn refused_controls(units: &[Unit], outputs: &[Output]) -> Vec<Result<(), String>> {
    CONTROLS
        .iter()
        .zip(units.iter().zip(outputs))
        .map(|((name, mistake, _), (unit, output))| {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let errors = errors(&stderr, "");
            if output.status.success() {
                Err(format!(
                    "negative control {name} ({}) compiles: the prelude hides API mistakes",
                    unit.name
                ))
            } else if !errors
                .iter()
                .any(|e| e.contains("error:") && e.contains(mistake))
            {
                Err(format!(
                    "negative control {name} fails, but no error names `{mistake}`:\n{}",
                    errors.join("\n")
                ))
            } else {
                Ok(())
            }
        })
        .collect()
}

/// The compiler's error lines, each once, and the lines of `function`'s source
/// that led to them (an error inside the headers names the kernel's line in a note).
fn errors(stderr: &str, function: &str) -> Vec<String> {
    let kernel = format!("{function}.cpp:");
    let mut lines: Vec<String> = Vec::new();
    for line in stderr.lines() {
        let kept = line.contains("error:") || (!function.is_empty() && line.starts_with(&kernel));
        if kept && !lines.iter().any(|l| l == line) {
            lines.push(line.to_string());
        }
    }
    lines
}

/// `source` with the first `from` replaced, or `None` when it has none.
fn replace_once(source: &str, from: &str, to: &str) -> Option<String> {
    source.contains(from).then(|| source.replacen(from, to, 1))
}
