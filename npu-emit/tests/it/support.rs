//! Compiling emitted kernels against the CPU model and running them.
//!
//! Cases are batched into a few translation units: each unit includes the model
//! (`tests/model/kernel_operator.h`), the emitted sources of its cases and a driver
//! whose `main` runs one case, named on the command line, on inputs read from a
//! directory, every core in turn, and writes the outputs there. A model check that
//! fails exits with status 3 and says why on stderr.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use npu_core::host::HostTensor;
use npu_core::ir::Role;
use npu_core::{Program, Target};

/// Kernels per translation unit: few units keep the compiler's start-up cost low,
/// and more than one lets two compile at once.
const CASES_PER_UNIT: usize = 12;

/// One emitted kernel to compile.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    /// The kernel's symbol, e.g. `relu_hand`.
    pub function: String,
    /// The emitted kernel source.
    pub source: String,
    pub program: Program,
    pub target: Target,
}

/// Compiled cases: which binary holds each.
#[derive(Debug)]
pub(crate) struct Build {
    pub dir: tempfile::TempDir,
    binaries: Vec<(String, PathBuf)>,
}

/// The system C++ compiler; the tests cannot verify anything without one.
pub(crate) fn compiler() -> String {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let found = Command::new(&compiler).arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "no C++ compiler: `{compiler} --version` failed; install g++ (or set CXX) to verify emitted kernels"
    );
    compiler
}

/// The directory of the CPU model's headers.
pub(crate) fn model_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model")
}

/// Compiles `cases` in batches, two compilers at a time; a failure to compile is a
/// test failure that shows the compiler's message.
pub(crate) fn build(cases: &[Case]) -> Build {
    build_units(cases, unit)
}

/// As [`build`], each translation unit written by `unit`.
pub(crate) fn build_units(cases: &[Case], unit: fn(&[Case]) -> String) -> Build {
    let compiler = compiler();
    // Under Cargo's directory for test scratch files, not the system's: a build a
    // `static` holds is never dropped, and what it leaves stays within `cargo clean`.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temporary directory");
    let units: Vec<(PathBuf, &[Case])> = cases
        .chunks(CASES_PER_UNIT)
        .enumerate()
        .map(|(index, chunk)| {
            let path = dir.path().join(format!("unit{index}.cpp"));
            std::fs::write(&path, unit(chunk)).expect("the unit is written");
            (path, chunk)
        })
        .collect();
    let commands = units
        .iter()
        .map(|(path, _)| {
            let mut command = Command::new(&compiler);
            command
                .args(["-std=c++17", "-O1", "-w", "-I"])
                .arg(model_dir())
                .arg("-I")
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it"))
                .arg(path)
                .arg("-o")
                .arg(path.with_extension("bin"));
            command
        })
        .collect();
    let mut binaries = Vec::new();
    for (output, (path, chunk)) in run_in_pairs(commands).into_iter().zip(&units) {
        assert!(
            output.status.success(),
            "{} does not compile:\n{}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        for case in *chunk {
            binaries.push((case.function.clone(), path.with_extension("bin")));
        }
    }
    Build { dir, binaries }
}

/// Runs `commands` two at a time (the compilers keep both cores busy), each to its
/// end; their outputs in order.
pub(crate) fn run_in_pairs(commands: Vec<Command>) -> Vec<Output> {
    let mut outputs = Vec::new();
    let mut commands = commands.into_iter();
    loop {
        let children: Vec<Child> = commands
            .by_ref()
            .take(2)
            .map(|mut command| {
                command
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"))
            })
            .collect();
        if children.is_empty() {
            return outputs;
        }
        for child in children {
            outputs.push(child.wait_with_output().expect("the compiler finishes"));
        }
    }
}

impl Build {
    /// Runs `case` on `inputs` (signature order); its outputs' bytes, or the model's
    /// complaint.
    pub(crate) fn run(
        &self,
        case: &Case,
        inputs: &[HostTensor],
        tag: &str,
    ) -> Result<Vec<Vec<u8>>, String> {
        let binary = &self
            .binaries
            .iter()
            .find(|(name, _)| *name == case.function)
            .expect("the case was built")
            .1;
        let dir = self.dir.path().join(format!("{}-{tag}", case.function));
        std::fs::create_dir_all(&dir).expect("a case directory");
        let names = input_names(&case.program);
        for (name, tensor) in names.iter().zip(inputs) {
            std::fs::write(dir.join(format!("{name}.bin")), tensor.bytes()).expect("an input file");
        }
        let output = Command::new(binary)
            .arg(&case.function)
            .arg(&dir)
            .output()
            .expect("the binary runs");
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        let outputs = output_names(&case.program)
            .iter()
            .map(|name| std::fs::read(dir.join(format!("{name}.out"))).expect("an output file"))
            .collect();
        // The tensors are read; only the small census stays for `census` to read.
        for name in names.iter().map(|n| format!("{n}.bin")).chain(
            output_names(&case.program)
                .iter()
                .map(|n| format!("{n}.out")),
        ) {
            let _ = std::fs::remove_file(dir.join(name));
        }
        Ok(outputs)
    }
}

/// Element operations the CPU model counted on pipes S, V and M (model_core.h's census)
/// in one run of a case.
pub(crate) type Census = [u64; 3];

impl Build {
    /// The census of `case`'s last run on `tag` inputs, as the driver wrote it.
    pub(crate) fn census(&self, case: &Case, tag: &str) -> Result<Census, String> {
        let path = self
            .dir
            .path()
            .join(format!("{}-{tag}", case.function))
            .join("census.out");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: no census ({e})", case.function))?;
        let mut census = [0; 3];
        for (slot, (line, pipe)) in census.iter_mut().zip(text.lines().zip(["S", "V", "M"])) {
            let count = line.strip_prefix(pipe).map(str::trim);
            *slot = count
                .and_then(|c| c.parse().ok())
                .ok_or_else(|| format!("{}: census line `{line}`", case.function))?;
        }
        Ok(census)
    }
}

fn input_names(program: &Program) -> Vec<String> {
    program
        .signature
        .iter()
        .filter(|t| t.role == Role::Input)
        .map(|t| t.name.clone())
        .collect()
}

fn output_names(program: &Program) -> Vec<String> {
    program
        .signature
        .iter()
        .filter(|t| t.role == Role::Output)
        .map(|t| t.name.clone())
        .collect()
}

/// A translation unit: the model, the cases' sources, one driver per case, `main`.
fn unit(cases: &[Case]) -> String {
    let mut text = String::from("#include \"kernel_operator.h\"\n#include \"driver.h\"\n");
    for case in cases {
        text.push_str(&case.source);
        text.push_str(&driver(case));
    }
    text.push_str(
        "int main(int argc, char **argv) {\n    if (argc != 3) {\n        return 2;\n    }\n",
    );
    for case in cases {
        let _ = writeln!(
            text,
            "    if (std::strcmp(argv[1], \"{0}\") == 0) {{\n        return run_{0}(argv[2]);\n    }}",
            case.function
        );
    }
    text.push_str("    return 2;\n}\n");
    text
}

/// `run_NAME(dir)`: read inputs, run every core, write outputs.
fn driver(case: &Case) -> String {
    let program = &case.program;
    let mut text = format!("static int run_{}(const char *dir) {{\n", case.function);
    text.push_str("    npu_model::allocations().clear();\n");
    text.push_str("    for (uint64_t &count : npu_model::census()) {\n        count = 0;\n    }\n");
    let mut arguments = Vec::new();
    for tensor in program.signature.iter().filter(|t| t.role != Role::Local) {
        let bytes = tensor.bytes();
        let name = &tensor.name;
        let ty = match tensor.dtype {
            npu_core::Dtype::F16 => "half",
            npu_core::Dtype::I16 => "int16_t",
            npu_core::Dtype::I32 => "int32_t",
            _ => "float",
        };
        if tensor.role == Role::Input && tensor.shape.is_empty() {
            let _ = writeln!(
                text,
                "    {ty} {name} = npu_driver::read_scalar<{ty}>(dir, \"{name}\");"
            );
            arguments.push(name.clone());
            continue;
        }
        if tensor.role == Role::Input {
            let _ = writeln!(
                text,
                "    std::vector<uint8_t> {name} = npu_driver::read(dir, \"{name}\", {bytes});"
            );
        } else {
            let _ = writeln!(text, "    std::vector<uint8_t> {name}({bytes}, 0xCD);");
        }
        let _ = writeln!(
            text,
            "    npu_model::register_global({name}.data(), {bytes});"
        );
        arguments.push(format!("{name}.data()"));
    }
    // The entry takes global tensors first, then parameters (a stable sort).
    arguments.sort_by_key(|argument| !argument.ends_with(".data()"));
    let memory = &case.target.memory;
    let _ = writeln!(
        text,
        "    for (uint32_t block = 0; block < npu_{0}::BLOCK_DIM; ++block) {{\n        npu_model::start_core(block, {1}, {2});\n        npu_model::set_api_scratch({8});\n        npu_model::start_cube({4}, {5}, {6}, {7});\n        {0}({3});\n        npu_model::finish_core();\n    }}",
        case.function,
        memory.ub,
        case.target.events,
        arguments.join(", "),
        memory.l1,
        memory.l0a,
        memory.l0b,
        memory.l0c,
        memory.api_scratch.unwrap_or(memory.ub)
    );
    for tensor in program.signature.iter().filter(|t| t.role == Role::Output) {
        let _ = writeln!(
            text,
            "    npu_driver::write(dir, \"{0}\", {0});",
            tensor.name
        );
    }
    text.push_str("    npu_driver::write_census(dir);\n    return 0;\n}\n");
    text
}

/// A model's own cases: `(name, body, expected)`, where `expected` is the stdout of a
/// case that runs, or a part of the complaint (exit status 3) of one the model refuses.
pub(crate) type ModelCase = (
    &'static str,
    &'static str,
    Result<&'static str, &'static str>,
);

/// Compiles `program` (every case as a function, `main` running the one named by its
/// argument) against the models, runs each case, and returns what went wrong.
pub(crate) fn run_model_cases(stem: &str, program: &str, cases: &[ModelCase]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let source = dir.path().join(format!("{stem}.cpp"));
    std::fs::write(&source, program).expect("the program is written");
    let binary = dir.path().join(stem);
    let compiled = Command::new(compiler())
        .args(["-std=c++17", "-O1", "-w", "-I"])
        .arg(model_dir())
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .output()
        .expect("the compiler runs");
    assert!(
        compiled.status.success(),
        "{stem} does not compile:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let mut wrong = Vec::new();
    for (name, _, expected) in cases {
        let run = Command::new(&binary)
            .arg(name)
            .output()
            .expect("the cases run");
        let printed = String::from_utf8_lossy(&run.stdout).into_owned();
        let complaint = String::from_utf8_lossy(&run.stderr).into_owned();
        let ok = match expected {
            Ok(text) => run.status.success() && printed == *text,
            Err(part) => run.status.code() == Some(3) && complaint.contains(part),
        };
        if !ok {
            wrong.push(format!(
                "{name}: expected {expected:?}, got status {:?}, stdout `{printed}`, stderr `{}`",
                run.status.code(),
                complaint.trim()
            ));
        }
    }
    wrong
}

/// A mutation of emitted source: its name, the kernel it applies to, and the edit
/// (`None` when the source has nothing to change).
pub(crate) type Mutation = (&'static str, &'static str, fn(&str) -> Option<String>);

/// The original cases, then one case per mutant of the original it names, each
/// renamed `{prefix}{index}`; a mutant that changes nothing fails the test.
pub(crate) fn with_mutants(
    originals: &[(&str, Case)],
    mutants: &[Mutation],
    prefix: &str,
) -> Vec<Case> {
    let mut cases: Vec<Case> = originals.iter().map(|(_, c)| c.clone()).collect();
    for (index, (name, kernel, mutate)) in mutants.iter().enumerate() {
        let base = &originals
            .iter()
            .find(|(source, _)| source == kernel)
            .expect("a listed kernel")
            .1;
        let mutated = mutate(&base.source).unwrap_or_else(|| {
            panic!(
                "mutant `{name}` finds nothing to change in:\n{}",
                base.source
            )
        });
        assert_ne!(mutated, base.source, "mutant `{name}` changes nothing");
        let function = format!("{prefix}{index}");
        cases.push(Case {
            source: mutated.replace(&base.function, &function),
            function,
            ..base.clone()
        });
    }
    cases
}
