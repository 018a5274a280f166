//! The host launch (`main.cpp`) as a user with a card runs it: `autotune --emit`'s
//! directory (kernel, `main.cpp`, `input/`, `golden/`) built with the system C++
//! compiler against a stand-in of the ACL runtime (npu-emit's
//! `tests/model/host/acl/acl.h`: device memory on the host, the kernel run on every
//! core through npu-emit's CPU model) and run in that directory. It must print
//! `PASS`; with a golden element changed, `FAIL` naming it, with exit status 1.

use std::path::Path;
use std::process::Command;

use npu_emit::Backend;
use npu_tune::kernels::Bundled;

/// npu-emit's CPU model of the Ascend C API, and the ACL stand-in under it.
const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../npu-emit/tests/model");

/// The system C++ compiler (`$CXX`, else `c++`), as npu-emit's tests use it.
fn compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// Bundled kernels whose hand schedules cover the host side's cases: f16 and f32, an
/// integer tensor, scalar parameters of two types, several cores,
/// and a matmul on the cube.
const KERNELS: [&str; 6] = [
    "relu",
    "clamp",
    "bit_and",
    "mul_scalar",
    "softmax",
    "matmul",
];

/// Emits `name`'s hand schedule with its data into `dir` and builds `main` there.
fn build(name: &str, dir: &Path) -> Result<(), String> {
    let bundled = Bundled::find(name).ok_or(format!("no bundled kernel {name}"))?;
    let problem = bundled.problem(7, None)?;
    let hand = &problem.kernel.schedules[0];
    let stem = format!("{name}_{}", hand.name);
    let symbol = npu_emit::symbol(&problem.kernel, &hand.name);
    npu_tune::emit::emit_schedule(&problem, &hand.source, Backend::AscendC, dir)?;
    std::fs::write(
        dir.join(format!("aclrtlaunch_{symbol}.h")),
        format!("#pragma once\n#include \"{stem}.cpp\"\n"),
    )
    .map_err(|e| e.to_string())?;
    let memory = &problem.kernel.target.memory;
    let defines = [
        ("NPU_UB_BYTES", memory.ub),
        ("NPU_EVENTS", u64::from(problem.kernel.target.events)),
        ("NPU_L1_BYTES", memory.l1),
        ("NPU_L0A_BYTES", memory.l0a),
        ("NPU_L0B_BYTES", memory.l0b),
        ("NPU_L0C_BYTES", memory.l0c),
    ];
    let output = Command::new(compiler())
        .args(["-std=c++17", "-O1", "-w"])
        .args(defines.map(|(name, value)| format!("-D{name}={value}")))
        .arg("-I")
        .arg(MODEL)
        .arg("-I")
        .arg(Path::new(MODEL).join("host"))
        .arg("-I")
        .arg(dir)
        .arg(dir.join("main.cpp"))
        .arg("-o")
        .arg(dir.join("main"))
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(())
}

/// Runs `main` in `dir`: its exit status and what it printed.
fn run(dir: &Path) -> (Option<i32>, String) {
    let output = Command::new(dir.join("main"))
        .current_dir(dir)
        .output()
        .expect("main runs");
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), printed)
}

/// Changes the first element of the first golden file by a lot: an exponent bit of a
/// 16- or 32-bit float, a high bit of an integer (byte 1 or 3, little-endian).
fn spoil_golden(dir: &Path) -> String {
    let golden = dir.join("golden");
    let mut files: Vec<_> = std::fs::read_dir(&golden)
        .expect("golden/")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    files.sort();
    let mut bytes = std::fs::read(&files[0]).expect("a golden file");
    bytes[1] ^= 0x40;
    bytes[3] ^= 0x40;
    std::fs::write(&files[0], bytes).expect("written");
    files[0].file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn the_host_launch_reads_its_data_and_says_pass_or_fail() {
    let root = tempfile::tempdir().expect("a temporary directory");
    for name in KERNELS {
        let dir = root.path().join(name);
        build(name, &dir).unwrap_or_else(|e| panic!("{name} does not build:\n{e}"));
        let (status, printed) = run(&dir);
        assert_eq!(status, Some(0), "{name}:\n{printed}");
        assert!(printed.ends_with("PASS\n"), "{name}:\n{printed}");
        let tensor = spoil_golden(&dir);
        let (status, printed) = run(&dir);
        assert_eq!(status, Some(1), "{name} with a spoiled golden:\n{printed}");
        assert!(
            printed.starts_with(&format!("{tensor}[0]: expected")) && printed.ends_with("FAIL\n"),
            "{name} with a spoiled golden:\n{printed}"
        );
    }
}
