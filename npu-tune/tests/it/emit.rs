//! `autotune --emit BACKEND DIR`: the best schedule of each kernel as device source,
//! a kernel the backend cannot write named in the error, a bad backend refused before
//! the run.

#[test]
fn the_best_schedules_are_emitted_and_the_refused_ones_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |backend: &str, kernels: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"));
        for kernel in kernels {
            command.args(["--kernel", kernel]);
        }
        command
            .args([
                "--rounds",
                "1",
                "--candidates",
                "1",
                "--no-baselines",
                "--emit",
                backend,
            ])
            .arg(&out)
            .arg("--report-dir")
            .arg(dir.path().join("report"))
            .output()
            .unwrap()
    };
    let refused = run("cuda", &["relu"]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("no backend `cuda`; the backends are: ascend-c"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("report").exists(),
        "refused before the run"
    );

    let output = run("ascend-c", &["relu", "vmla"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "vmla's target has no backend");
    assert!(
        stderr.contains("--emit: 1 of 2 kernels not written"),
        "{stderr}"
    );
    assert!(stderr.contains("vmla: ascend-c cannot express"), "{stderr}");
    let written: Vec<String> = std::fs::read_dir(out.join("relu"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        written
            .iter()
            .any(|name| name.starts_with("relu_") && name.ends_with(".cpp"))
    );
    assert!(
        written.contains(&"CMakeLists.txt".to_string()),
        "{written:?}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("relu"),
        "the table is printed before the error: {stdout}"
    );
}
