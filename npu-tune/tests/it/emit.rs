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

/// A user's kernel whose tuned schedules need an offset table that does not fit after
/// their buffers: `--emit` writes the fastest schedule the backend can write and names
/// the faster one it could not; with a search that finds nothing correct, the hand
/// schedule.
#[test]
fn the_fastest_schedule_the_backend_can_write_is_emitted() {
    let dir = tempfile::tempdir().unwrap();
    let run = |rows: u32, extra: &[&str]| {
        let kernel = dir.path().join(format!("bias_{rows}.npu"));
        let source = format!(
            "kernel bias_add_bcast(x: [f32; 4096, 1000], s: [f32; 4096], b: [f32; 1000]) -> y: [f32; 4096, 1000] {{
                y[r, c] = x[r, c] * s[r] + b[c];
            }}
            target ascend910b;
            schedule s {{ parallel r over 40 cores; split r by {rows}; split c by 840; stage x, s, b, y in ub depth 2; tail pad; }}"
        );
        std::fs::write(&kernel, source).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
            .arg(&kernel)
            .args(extra)
            .arg("--emit")
            .arg("ascend-c")
            .arg(dir.path().join(format!("out_{rows}")))
            .arg("--report-dir")
            .arg(dir.path().join(format!("report_{rows}")))
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let tuned = run(8, &["--rounds", "2", "--candidates", "4"]);
    assert!(
        tuned.contains("cycles) cannot be written: ascend-c cannot express an offset table"),
        "{tuned}"
    );
    assert!(tuned.contains("wrote `bias_add_bcast` ("), "{tuned}");
    let grid = run(
        2,
        &["--rounds", "1", "--candidates", "1", "--generator", "grid"],
    );
    assert!(grid.contains("wrote `bias_add_bcast` (hand, "), "{grid}");
    let hand_only = run(2, &["--rounds", "0"]);
    assert!(
        hand_only.contains("wrote `bias_add_bcast` (hand, "),
        "{hand_only}"
    );
}
