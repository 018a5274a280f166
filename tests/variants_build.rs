//! The build helper end to end, in temporary crate directories: generation with the
//! heuristic and with an LLM on 127.0.0.1, a server that is down, stale, foreign,
//! corrupt and hand-edited files, rejected candidates, the rerun lines, and builds that
//! write one file at the same time.

#[path = "support/chat_server.rs"]
#[allow(dead_code)] // Shared with tests/llm_client.rs, which uses the rest of it.
mod chat_server;
#[cfg(unix)]
#[path = "support/hang.rs"]
#[allow(dead_code)] // Shared with other test files.
mod hang;

use std::path::{Path, PathBuf};

use chat_server::{Behaviour, ChatServer};
use npu::build::{Action, Variants, discover};
use npu::variants::Problem;

const KERNELS: &str = r#"
use npu::npu_kernel;

npu_kernel! {
    /// y = a * b + c
    kernel vmla(a: [f16; 16384], b: [f16; 16384], c: [f16; 16384]) -> y: [f16; 16384] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;
    variants 2 from "kernels/vmla.variants.npu";

    schedule hand {
        split i by 1024;
        stage a, b, c, y in ub depth 1;
    }
}

mod more {
    npu::npu_kernel! {
        kernel plain(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] * 2.0; }
        target npueval_demo;
        schedule hand { split i by 1024; stage x, y in ub depth 1; }
    }
}
"#;

const VARIANTS: &str = "kernels/vmla.variants.npu";
const GOOD: &str =
    "```\nschedule fast {\n    split i by 2048;\n    stage a, b, c, y in ub depth 2;\n}\n```";
const GOOD_TOO: &str =
    "schedule small {\n    split i by 512;\n    stage a, b, c, y in ub depth 2;\n}";
const OVERFLOW: &str =
    "schedule big {\n    split i by 16384;\n    stage a, b, c, y in ub depth 2;\n}";

/// A crate directory with `src/kernels.rs` holding `kernels`.
struct Crate {
    dir: tempfile::TempDir,
}

impl Crate {
    fn new(kernels: &str) -> Crate {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/kernels.rs"), kernels).unwrap();
        Crate { dir }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn variants(&self) -> Option<String> {
        std::fs::read_to_string(self.path(VARIANTS)).ok()
    }

    fn write_variants(&self, text: &str) {
        std::fs::create_dir_all(self.path("kernels")).unwrap();
        std::fs::write(self.path(VARIANTS), text).unwrap();
    }

    /// Runs the helper with `env`; returns the actions and the `cargo:` lines.
    fn build(&self, env: &[(&str, &str)]) -> (Vec<(String, Action)>, Vec<String>) {
        let mut out = Vec::new();
        let mut vars = vec![("SOURCE_DATE_EPOCH", "1796083200")];
        vars.extend_from_slice(env);
        let actions = Variants::new()
            .kernel_files(["src/kernels.rs"])
            .rounds(1)
            .candidates(3)
            .crate_dir(self.dir.path())
            .out_dir(self.path("out"))
            .env(vars.iter().copied())
            .run_to(&mut out)
            .unwrap();
        let lines = String::from_utf8(out).unwrap();
        (actions, lines.lines().map(str::to_string).collect())
    }

    /// What the macro would say about the variants file: its check of the file.
    fn check_variants(&self) -> Result<Vec<String>, String> {
        let found = discover(&self.path("src/kernels.rs")).unwrap();
        let vmla = found.iter().find(|f| f.name == "vmla").unwrap();
        let target = vmla.target(self.dir.path()).unwrap();
        let text = self.variants().unwrap_or_default();
        npu::variants::check(&vmla.def, &target, &text, 2)
            .map(|kernel| kernel.schedules.iter().map(|s| s.name.clone()).collect())
            .map_err(|problem: Problem| problem.render(VARIANTS))
    }
}

fn warnings(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("cargo:warning="))
        .collect()
}

fn written(generator: &str, variants: usize) -> Vec<(String, Action)> {
    let generator = generator.to_string();
    vec![(
        "vmla".into(),
        Action::Written {
            generator,
            variants,
        },
    )]
}

#[test]
fn a_missing_file_is_generated_with_the_heuristic_and_then_left_alone() {
    let krate = Crate::new(KERNELS);
    let (actions, lines) = krate.build(&[]);
    assert_eq!(actions, written("heuristic", 2));
    let text = krate.variants().unwrap();
    assert!(
        text.contains("// generator: heuristic\n// model: none\n"),
        "{text}"
    );
    assert!(text.contains("// date: 2026-12-01\n"), "{text}");
    assert!(text.contains("// v1: "), "{text}");
    assert_eq!(
        krate.check_variants(),
        Ok(vec!["hand".into(), "v1".into(), "v2".into()])
    );
    assert!(warnings(&lines).is_empty(), "{lines:?}");

    // The hash matches: the next build does not touch the file.
    let modified = std::fs::metadata(krate.path(VARIANTS))
        .unwrap()
        .modified()
        .unwrap();
    let (actions, _) = krate.build(&[]);
    assert_eq!(actions, vec![("vmla".into(), Action::Kept)]);
    assert_eq!(krate.variants().unwrap(), text);
    let again = std::fs::metadata(krate.path(VARIANTS))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(modified, again);

    // Regenerating with the same inputs writes the same bytes.
    let (actions, _) = krate.build(&[("NPU_REGEN_VARIANTS", "vmla")]);
    assert_eq!(actions, written("heuristic", 2));
    assert_eq!(krate.variants().unwrap(), text);
}

#[test]
fn the_rerun_lines_name_the_kernel_files_the_variants_files_and_the_variables() {
    let krate = Crate::new(KERNELS);
    let (_, lines) = krate.build(&[]);
    let kernels = krate.path("src/kernels.rs");
    let variants = krate.path(VARIANTS);
    let expected = [
        "cargo:rerun-if-env-changed=NPU_REGEN_VARIANTS".to_string(),
        "cargo:rerun-if-env-changed=NPU_LLM_URL".into(),
        "cargo:rerun-if-env-changed=NPU_LLM_MODEL".into(),
        "cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH".into(),
        format!("cargo:rerun-if-changed={}", kernels.display()),
        format!("cargo:rerun-if-changed={}", variants.display()),
    ];
    assert_eq!(lines, expected);
}

#[test]
fn a_changed_kernel_is_regenerated_with_a_warning_naming_it() {
    let krate = Crate::new(KERNELS);
    krate.build(&[]);
    std::fs::write(
        krate.path("src/kernels.rs"),
        KERNELS.replace("+ c[i]", "- c[i]"),
    )
    .unwrap();
    assert!(krate.check_variants().unwrap_err().contains(&format!(
        "{VARIANTS}:3:1: variants file is for another kernel"
    )));
    let (actions, lines) = krate.build(&[]);
    assert_eq!(actions, written("heuristic", 2));
    let warnings = warnings(&lines);
    assert!(
        warnings[0].starts_with(&format!(
            "cargo:warning=kernel `vmla` changed since {}:3 was written",
            krate.path(VARIANTS).display()
        )),
        "{warnings:?}"
    );
    assert!(krate.check_variants().is_ok());
}

#[test]
fn another_kernels_corrupt_or_hand_edited_file_is_never_overwritten() {
    let krate = Crate::new(KERNELS);
    krate.build(&[]);
    let good = krate.variants().unwrap();

    // Another kernel's file, copied over this one's.
    let other = good
        .replace("// kernel: vmla", "// kernel: gelu")
        .replace("fnv1a64:", "fnv1a64:0");
    krate.write_variants(&other);
    let (actions, lines) = krate.build(&[]);
    assert_eq!(actions, vec![("vmla".into(), Action::LeftAlone)]);
    assert_eq!(krate.variants().unwrap(), other);
    assert!(
        warnings(&lines)[0].contains("was not written for kernel `vmla`"),
        "{lines:?}"
    );
    assert!(krate.check_variants().unwrap_err().starts_with(&format!(
        "{VARIANTS}:3:1: variants file is for another kernel"
    )));

    // Not a variants file at all.
    krate.write_variants("\u{0}\u{1}garbage {");
    let (actions, _) = krate.build(&[]);
    assert_eq!(actions, vec![("vmla".into(), Action::LeftAlone)]);
    assert_eq!(krate.variants().unwrap(), "\u{0}\u{1}garbage {");
    assert!(
        krate
            .check_variants()
            .unwrap_err()
            .starts_with(&format!("{VARIANTS}:1:1: variants file has no"))
    );

    // A variant edited into one that does not fit: the hash still matches, so the file
    // is kept, and the check points at the edited line.
    let line = good.lines().position(|l| l.contains("split i by")).unwrap() + 1;
    let edited: String = good
        .lines()
        .enumerate()
        .map(|(index, text)| match index + 1 == line {
            true => "    split i by 16384;\n".to_string(),
            false => format!("{text}\n"),
        })
        .collect();
    krate.write_variants(&edited);
    let (actions, _) = krate.build(&[]);
    assert_eq!(actions, vec![("vmla".into(), Action::Kept)]);
    assert_eq!(krate.variants().unwrap(), edited);
    let error = krate.check_variants().unwrap_err();
    // E020 points at the `stage` item the split made too big, on the next line.
    assert!(
        edited.lines().nth(line).unwrap().starts_with("    stage"),
        "{edited}"
    );
    assert!(
        error.starts_with(&format!("{VARIANTS}:{}:5: ", line + 1)),
        "{error}"
    );
    assert!(error.contains("error[E020]"), "{error}");
}

#[test]
fn an_llm_writes_the_variants_and_rejected_candidates_are_reported() {
    let server = ChatServer::start_repeating(Behaviour::Replies(vec![
        GOOD.into(),
        OVERFLOW.into(),
        GOOD_TOO.into(),
    ]));
    let krate = Crate::new(KERNELS);
    let url = server.base_url();
    let env = [
        ("NPU_REGEN_VARIANTS", "1"),
        ("NPU_LLM_URL", url.as_str()),
        ("NPU_LLM_MODEL", "tiny-coder"),
    ];
    let (actions, lines) = krate.build(&env);
    assert_eq!(actions, written("llm", 2));
    let text = krate.variants().unwrap();
    assert!(
        text.contains("// generator: llm\n// model: tiny-coder\n"),
        "{text}"
    );
    assert!(
        text.contains("split i by 2048;") && text.contains("split i by 512;"),
        "{text}"
    );
    assert!(!text.contains("split i by 16384;"), "{text}");
    let warnings = warnings(&lines);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("cargo:warning=kernel `vmla`: llm round 0 candidate 1 rejected: [E020] ub holds 131072 B"), "{warnings:?}");
    assert!(krate.check_variants().is_ok());
    assert!(!server.requests().is_empty());
}

#[test]
fn a_server_that_is_down_keeps_the_file_or_falls_back_to_the_heuristic() {
    // Nothing listens on a port that was just freed.
    let url = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let env = [
        ("NPU_REGEN_VARIANTS", "vmla"),
        ("NPU_LLM_URL", url.as_str()),
    ];

    let krate = Crate::new(KERNELS);
    let (actions, lines) = krate.build(&env);
    assert_eq!(actions, written("heuristic", 2));
    let first = warnings(&lines)[0].clone();
    assert!(
        first.starts_with("cargo:warning=kernel `vmla`: the LLM generator cannot continue"),
        "{first}"
    );
    assert!(
        first.ends_with("writing variants with the offline heuristic instead"),
        "{first}"
    );

    let before = krate.variants().unwrap();
    let (actions, lines) = krate.build(&env);
    assert_eq!(actions, vec![("vmla".into(), Action::Kept)]);
    assert_eq!(krate.variants().unwrap(), before);
    assert!(
        warnings(&lines)[0].ends_with(&format!(
            "kept {} as it was",
            krate.path(VARIANTS).display()
        )),
        "{lines:?}"
    );
}

#[test]
fn a_server_that_refuses_keeps_the_file() {
    let server = ChatServer::start_repeating(Behaviour::Reply("I cannot help with that.".into()));
    let krate = Crate::new(KERNELS);
    krate.build(&[]);
    let before = krate.variants().unwrap();
    let url = server.base_url();
    let (actions, lines) =
        krate.build(&[("NPU_REGEN_VARIANTS", "1"), ("NPU_LLM_URL", url.as_str())]);
    assert_eq!(actions, vec![("vmla".into(), Action::Kept)]);
    assert_eq!(krate.variants().unwrap(), before);
    let last = warnings(&lines).pop().unwrap().clone();
    assert!(
        last.contains("the llm generator found no correct schedule in 3 candidates; kept"),
        "{last}"
    );
}

#[test]
fn builds_writing_one_file_at_once_leave_one_whole_file() {
    let krate = Crate::new(KERNELS);
    krate.build(&[]);
    let expected = krate.variants().unwrap();
    std::thread::scope(|scope| {
        for worker in 0..3 {
            let krate = &krate;
            scope.spawn(move || {
                let mut out = Vec::new();
                Variants::new()
                    .kernel_files(["src/kernels.rs"])
                    .rounds(1)
                    .candidates(3)
                    .crate_dir(krate.dir.path())
                    .out_dir(krate.path(&format!("out{worker}")))
                    .env([
                        ("SOURCE_DATE_EPOCH", "1796083200"),
                        ("NPU_REGEN_VARIANTS", "1"),
                    ])
                    .run_to(&mut out)
                    .unwrap();
            });
        }
    });
    assert_eq!(krate.variants().unwrap(), expected);
    let names: Vec<String> = std::fs::read_dir(krate.path("kernels"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["vmla.variants.npu"],
        "no temporary file is left behind"
    );
}

#[test]
fn discovery_finds_kernels_at_any_depth_and_names_the_line_of_a_broken_one() {
    let found = discover(Path::new("tests/../src/kernels/mod.rs")).unwrap();
    assert_eq!(found.len(), 6);
    let krate = Crate::new(KERNELS);
    let found = discover(&krate.path("src/kernels.rs")).unwrap();
    let names: Vec<(&str, usize)> = found.iter().map(|f| (f.name.as_str(), f.line)).collect();
    assert_eq!(names, [("vmla", 6), ("plain", 20)]);
    std::fs::write(
        krate.path("src/kernels.rs"),
        KERNELS.replace("y[i] = x[i] * 2.0;", "y[i] = x[i] *;"),
    )
    .unwrap();
    let error = discover(krate.dir.path()).unwrap_err();
    assert!(
        error.starts_with(&format!("{}:20:", krate.path("src/kernels.rs").display())),
        "{error}"
    );
}

#[test]
fn autotune_on_a_crate_writes_the_same_file_as_the_build() {
    let krate = Crate::new(KERNELS);
    std::fs::write(krate.path("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
    krate.build(&[]);
    let from_build = krate.variants().unwrap();
    let written = krate.path("from-autotune.variants.npu");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .arg(krate.dir.path())
        .args([
            "--kernel",
            "vmla",
            "--rounds",
            "1",
            "--candidates",
            "3",
            "--no-baselines",
        ])
        .arg("--report-dir")
        .arg(krate.path("report"))
        .arg("--write-variants")
        .arg(&written)
        .env("SOURCE_DATE_EPOCH", "1796083200")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(std::fs::read_to_string(&written).unwrap(), from_build);

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .arg(krate.path("src/kernels.rs"))
        .args(["--kernel", "rowsum"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("no kernel `rowsum` in the sources; found: vmla ("),
        "{stderr}"
    );
    assert!(stderr.contains("src/kernels.rs:6), plain ("), "{stderr}");
}

#[test]
fn autotune_reads_a_kernel_file_whose_target_file_is_relative_to_the_crate_root() {
    let krate = Crate::new(KERNELS);
    std::fs::write(krate.path("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
    std::fs::create_dir_all(krate.path("targets")).unwrap();
    std::fs::copy(
        "tests/ui/targets/tiny.toml",
        krate.path("targets/tiny.toml"),
    )
    .unwrap();
    std::fs::create_dir_all(krate.path("kernels")).unwrap();
    let kernel = "kernel halve(x: [f32; 8192]) -> y: [f32; 8192] { y[i] = x[i] / 2.0; }\ntarget \"targets/tiny.toml\";\nschedule hand { split i by 1024; stage x, y in ub depth 1; }\n";
    std::fs::write(krate.path("kernels/halve.npu"), kernel).unwrap();
    let run = |file: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
            .arg(krate.path(file))
            .args(["--rounds", "1", "--candidates", "2", "--no-baselines"])
            .arg("--report-dir")
            .arg(krate.path("report"))
            .output()
            .unwrap()
    };
    let output = run("kernels/halve.npu");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("halve on tiny"), "{stdout}");

    std::fs::write(
        krate.path("kernels/broken.npu"),
        kernel.replace("tiny.toml", "nothere.toml"),
    )
    .unwrap();
    let output = run("kernels/broken.npu");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("broken.npu:2:8: error[E005]"), "{stderr}");
}

/// Issue 24: a kernel whose `target` line names a FIFO hung `autotune k.npu` and the
/// build script (opening a FIFO waits for a writer), and `target "/dev/zero";` read
/// until memory ran out. Both are errors naming the file, through the library path the
/// binary uses (discover, then check), the build helper and the binary itself.
#[cfg(unix)]
#[test]
fn a_target_file_that_is_a_fifo_or_endless_is_an_error_not_a_hang() {
    let krate = Crate::new(&KERNELS.replace(
        "target npueval_demo;\n    variants",
        "target \"fifo.toml\";\n    variants",
    ));
    std::fs::write(krate.path("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
    hang::mkfifo(&krate.path("fifo.toml"));
    std::fs::create_dir_all(krate.path("kernels")).unwrap();
    let kernel = "kernel halve(x: [f32; 8192]) -> y: [f32; 8192] { y[i] = x[i] / 2.0; }\ntarget \"fifo.toml\";\nschedule hand { split i by 1024; stage x, y in ub depth 1; }\n";
    std::fs::write(krate.path("kernels/fifo.npu"), kernel).unwrap();
    std::fs::write(
        krate.path("kernels/zero.npu"),
        kernel.replace("fifo.toml", "/dev/zero"),
    )
    .unwrap();

    for (file, what) in [("fifo.npu", "a FIFO"), ("zero.npu", "a character device")] {
        let path = krate.path("kernels").join(file);
        let root = krate.dir.path().to_path_buf();
        let checked = hang::within_20_s(file, move || {
            let found = discover(&path).unwrap();
            found[0].check(&root).map(|_| ())
        });
        let error = checked.unwrap_err();
        assert!(
            error.contains(&format!("{file}:2:8: error[E005]")),
            "{error}"
        );
        assert!(
            error.contains(&format!("not a regular file ({what})")),
            "{error}"
        );
    }

    // The build helper: the kernel is left alone with the reason as a warning.
    let dir = krate.dir.path().to_path_buf();
    let (actions, lines) = hang::within_20_s("the build helper", move || {
        let mut out = Vec::new();
        let actions = Variants::new()
            .kernel_files(["src/kernels.rs"])
            .rounds(1)
            .candidates(3)
            .crate_dir(&dir)
            .out_dir(dir.join("out"))
            .env([("SOURCE_DATE_EPOCH", "1796083200")])
            .run_to(&mut out)
            .unwrap();
        (actions, String::from_utf8(out).unwrap())
    });
    assert_eq!(actions, [("vmla".to_string(), Action::LeftAlone)]);
    assert!(lines.contains("not a regular file (a FIFO)"), "{lines}");
    assert!(hang::is_fifo(&krate.path("fifo.toml")));
    assert_eq!(krate.variants(), None);

    // The binary, killed if it has not answered in 20 s.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .arg(krate.path("kernels/fifo.npu"))
        .args(["--rounds", "1", "--candidates", "2", "--no-baselines"])
        .arg("--report-dir")
        .arg(krate.path("report"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("autotune on a kernel whose target file is a FIFO: no answer in 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("fifo.npu:2:8: error[E005]"), "{stderr}");
    assert!(stderr.contains("not a regular file (a FIFO)"), "{stderr}");
}

/// Issue 24: a variants file that is a FIFO hung `cargo build`, and a link to
/// `/dev/zero` was read until memory ran out and then replaced by a regular file. Both
/// are left alone with a warning naming the file. A link to a regular variants file is
/// followed: regenerating writes the file it points to and the link stays a link.
#[cfg(unix)]
#[test]
fn a_variants_file_that_is_a_fifo_or_a_link_to_dev_zero_is_left_alone() {
    let krate = Crate::new(KERNELS);
    std::fs::create_dir_all(krate.path("kernels")).unwrap();
    let variants = krate.path(VARIANTS);
    let build = |krate: &Crate, env: &'static [(&'static str, &'static str)]| {
        let dir = krate.dir.path().to_path_buf();
        hang::within_20_s("the build helper", move || {
            let mut out = Vec::new();
            let mut vars = vec![("SOURCE_DATE_EPOCH", "1796083200")];
            vars.extend_from_slice(env);
            let actions = Variants::new()
                .kernel_files(["src/kernels.rs"])
                .rounds(1)
                .candidates(3)
                .crate_dir(&dir)
                .out_dir(dir.join("out"))
                .env(vars)
                .run_to(&mut out)
                .unwrap();
            (actions, String::from_utf8(out).unwrap())
        })
    };

    hang::mkfifo(&variants);
    let (actions, lines) = build(&krate, &[]);
    assert_eq!(actions, [("vmla".to_string(), Action::LeftAlone)]);
    assert!(lines.contains("cannot read variants file"), "{lines}");
    assert!(lines.contains("not a regular file (a FIFO)"), "{lines}");
    assert!(hang::is_fifo(&variants));

    std::fs::remove_file(&variants).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &variants).unwrap();
    for env in [&[][..], &[("NPU_REGEN_VARIANTS", "1")][..]] {
        let (actions, lines) = build(&krate, env);
        assert_eq!(
            actions,
            [("vmla".to_string(), Action::LeftAlone)],
            "{env:?}"
        );
        assert!(
            lines.contains("not a regular file (a character device)"),
            "{lines}"
        );
        assert_eq!(
            std::fs::read_link(&variants).unwrap(),
            Path::new("/dev/zero")
        );
    }

    // A link to a regular file: written through on request, the link kept.
    std::fs::remove_file(&variants).unwrap();
    let (actions, _) = build(&krate, &[]);
    assert_eq!(actions, written("heuristic", 2));
    let generated = krate.variants().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let real = elsewhere.path().join("vmla.variants.npu");
    std::fs::write(&real, format!("{generated}// a note\n")).unwrap();
    std::fs::remove_file(&variants).unwrap();
    std::os::unix::fs::symlink(&real, &variants).unwrap();
    let (actions, _) = build(&krate, &[]);
    assert_eq!(actions, [("vmla".to_string(), Action::Kept)]);
    let (actions, _) = build(&krate, &[("NPU_REGEN_VARIANTS", "vmla")]);
    assert_eq!(actions, written("heuristic", 2));
    assert_eq!(std::fs::read_link(&variants).unwrap(), real);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), generated);
    let names: Vec<_> = std::fs::read_dir(krate.path("kernels"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["vmla.variants.npu"]);
}
