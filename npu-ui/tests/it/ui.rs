//! The `npu_kernel!` macro through the real compiler: every diagnostic class points at
//! the offending token (tests/ui/fail, a folder per code), and checked kernels compile
//! and run their generated host reference (tests/ui/pass).
//!
//! rustc compiles the first case of each code's folder and every pass case; the other
//! fail cases are held to their reviewed `.stderr` through the string API, which reports
//! the same diagnostics (ui_positions.rs). `NPU_UI_ALL=1` compiles every case. The
//! `.stderr` files are generated with `NPU_UI_ALL=1 TRYBUILD=overwrite cargo test -p
//! npu-ui --test it ui` and reviewed, never written by hand.

use std::path::{Path, PathBuf};

#[test]
fn ui() {
    copy_target_files_into_trybuild_project();
    let t = trybuild::TestCases::new();
    let all = std::env::var_os("NPU_UI_ALL").is_some();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in folders(&root.join("tests/ui/fail")) {
        for case in cases(&folder).iter().take(if all { usize::MAX } else { 1 }) {
            t.compile_fail(case.strip_prefix(root).unwrap_or(case));
        }
    }
    t.pass("tests/ui/pass/*.rs");
}

/// The compile-fail cases, every code's folder in order.
pub(crate) fn fail_cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let folders = folders(&root.join("tests/ui/fail"));
    folders.iter().flat_map(|folder| cases(folder)).collect()
}

/// The `.rs` files of `dir`, sorted.
pub(crate) fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} is readable: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    cases
}

/// The folders of `dir`, sorted.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} is readable: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    folders
}

/// trybuild compiles each case as a crate of its own in `<target>/tests/trybuild/npu-ui`,
/// which is the `CARGO_MANIFEST_DIR` the macro resolves `target "tests/ui/targets/..";`
/// against. The target files are copied there, so the cases read them as a user's crate
/// would read its own.
fn copy_target_files_into_trybuild_project() {
    let project = target_dir().join("tests").join("trybuild").join("npu-ui");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/targets");
    let to = project.join("tests/ui/targets");
    std::fs::create_dir_all(&to).expect("create the trybuild project's target directory");
    for entry in std::fs::read_dir(&from).expect("tests/ui/targets exists") {
        let path = entry.expect("a readable directory entry").path();
        if let Some(name) = path.file_name() {
            std::fs::copy(&path, to.join(name)).expect("copy a target file");
        }
    }
}

/// Cargo's target directory, found as trybuild finds it: from `cargo metadata`.
fn target_dir() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version=1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    PathBuf::from(
        metadata["target_directory"]
            .as_str()
            .expect("metadata names the target directory"),
    )
}
