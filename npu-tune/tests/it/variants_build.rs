//! The build helper end to end, in temporary crate directories: generation with the
//! heuristic and with an LLM on 127.0.0.1, a server that is down, stale, foreign,
//! corrupt and hand-edited files, rejected candidates, the rerun lines, and builds that
//! write one file at the same time.

#[cfg(unix)]
use crate::support::hang;

use std::path::{Path, PathBuf};

use crate::support::chat_server::{Behaviour, ChatServer};
use npu_core::variants::Problem;
use npu_tune::build::{Action, Variants, discover};

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
        npu_core::variants::check(&vmla.def, &target, &text, 2)
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
        "cargo:rerun-if-env-changed=NPU_MAX_FILE_BYTES".into(),
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
            "cargo:warning=kernel `vmla` changed since {} was written",
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
        warnings(&lines)[0]
            .contains("is not a variants file of kernel `vmla` (its header names kernel `gelu`)"),
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
    // Each diagnostic once: its position heads its caret excerpt.
    assert_eq!(error.matches("error[E").count(), 1, "{error}");
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
        "../npu-ui/tests/ui/targets/tiny.toml",
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

/// The files under `dir`, each with its bytes (or, for a link, where it points).
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            let metadata = std::fs::symlink_metadata(&path).unwrap();
            if metadata.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                files.insert(path, format!("-> {}", target.display()).into_bytes());
            } else if metadata.is_dir() {
                pending.push(path);
            } else if !metadata.is_file() {
                // A FIFO is never opened here: reading it would wait for a writer.
                files.insert(path, b"(not a regular file)".to_vec());
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn a_file_that_is_not_utf8_is_an_error_naming_the_byte_until_regeneration_is_asked() {
    let krate = Crate::new(KERNELS);
    krate.build(&[]);
    // One Latin-1 byte in a comment after the header.
    let mut bytes = krate.variants().unwrap().into_bytes();
    let at = bytes.len();
    bytes.extend_from_slice(b"// caf\xe9\n");
    std::fs::write(krate.path(VARIANTS), &bytes).unwrap();
    let (actions, lines) = krate.build(&[]);
    assert_eq!(actions, vec![("vmla".into(), Action::LeftAlone)]);
    assert_eq!(std::fs::read(krate.path(VARIANTS)).unwrap(), bytes);
    let expected = format!(
        "cargo:warning={} is the variants file of kernel `vmla`, but not as npu wrote it (it is not UTF-8: byte 0xe9 at offset {}); npu does not overwrite it unasked: NPU_REGEN_VARIANTS=vmla regenerates it and keeps the old text as {}.orig",
        krate.path(VARIANTS).display(),
        at + 6,
        krate.path(VARIANTS).display()
    );
    assert_eq!(warnings(&lines), [&expected]);

    let (actions, _) = krate.build(&[("NPU_REGEN_VARIANTS", "vmla")]);
    assert_eq!(actions, written("heuristic", 2));
    let original = krate.path(&format!("{VARIANTS}.orig"));
    assert_eq!(std::fs::read(original).unwrap(), bytes);
    assert!(krate.check_variants().is_ok());
}

#[test]
fn a_hand_edited_stale_file_is_kept_until_regeneration_is_asked_and_its_text_kept() {
    let krate = Crate::new(KERNELS);
    krate.build(&[]);
    std::fs::write(
        krate.path("src/kernels.rs"),
        KERNELS.replace("+ c[i]", "- c[i]"),
    )
    .unwrap();
    // The user edits a schedule, and their editor's search-and-replace breaks the hash
    // line: the file is stale by its hash, but its text is theirs.
    let edited = krate
        .variants()
        .unwrap()
        .replace("fnv1a64:", "fnv1a64:0")
        .replacen("depth 2;", "depth 2; // tried by hand", 1);
    krate.write_variants(&edited);
    let (actions, lines) = krate.build(&[]);
    assert_eq!(actions, vec![("vmla".into(), Action::LeftAlone)]);
    assert_eq!(krate.variants().unwrap(), edited);
    assert!(
        warnings(&lines)[0].contains(
            "is the variants file of kernel `vmla`, but not as npu wrote it (its text does not match its `text-hash` line); npu does not overwrite it unasked: NPU_REGEN_VARIANTS=vmla regenerates it"
        ),
        "{lines:?}"
    );
    // The macro refuses the stale file, so the build fails rather than using it.
    assert!(krate.check_variants().is_err());

    let (actions, lines) = krate.build(&[("NPU_REGEN_VARIANTS", "1")]);
    assert_eq!(actions, written("heuristic", 2));
    let original = krate.path(&format!("{VARIANTS}.orig"));
    assert_eq!(std::fs::read_to_string(&original).unwrap(), edited);
    assert!(
        warnings(&lines)
            .iter()
            .any(|l| l.ends_with(&format!("its old text is kept as {}", original.display()))),
        "{lines:?}"
    );
    assert!(krate.check_variants().is_ok());

    // A second regeneration keeps the first .orig and writes nothing over it.
    krate.write_variants(&edited);
    krate.build(&[("NPU_REGEN_VARIANTS", "vmla")]);
    assert_eq!(std::fs::read_to_string(&original).unwrap(), edited);
    let second = krate.path(&format!("{VARIANTS}.orig.2"));
    assert_eq!(std::fs::read_to_string(second).unwrap(), edited);
}

#[test]
fn a_killed_builds_temporary_file_is_swept_by_the_next_build() {
    let krate = Crate::new(KERNELS);
    krate.build(&[]);
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let left = krate.path(&format!("kernels/.vmla.variants.npu.npu-tmp.{dead}.0"));
    std::fs::write(&left, "half a file").unwrap();
    // The next build keeps the file (its hash matches) and still sweeps.
    let (actions, _) = krate.build(&[]);
    assert_eq!(actions, vec![("vmla".into(), Action::Kept)]);
    if Path::new("/proc/self").exists() {
        assert!(!left.exists());
    }
    let names: Vec<PathBuf> = snapshot(&krate.path("kernels")).into_keys().collect();
    assert!(names.len() <= 2, "{names:?}");
}

/// What is at a path before a tool runs. Adding a kind is one line here and one arm in
/// [`place`]. (A FIFO joins once every read is bounded: opening one blocks.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The tool's own file, which it may update.
    Own,
    /// The tool's own kind of file, but not as it wrote it (see [`Contents::edited`]).
    Edited,
    /// The same kind of file for another kernel (or a knowledge file a user wrote).
    Other,
    Source,
    Binary,
    /// A link to a Rust source beside it.
    Symlink,
    /// A directory holding a user's file.
    Directory,
    Missing,
    /// A FIFO, which opening for reading would wait on forever.
    Fifo,
    /// The tool's own file, made read-only: root may write it, the tool must not.
    ReadOnly,
}

const KINDS: [Kind; 10] = [
    Kind::Own,
    Kind::Edited,
    Kind::Other,
    Kind::Source,
    Kind::Binary,
    Kind::Symlink,
    Kind::Directory,
    Kind::Missing,
    Kind::Fifo,
    Kind::ReadOnly,
];

const SOURCE: &str = "fn main() {\n    println!(\"a user's file\");\n}\n";
const BINARY: &[u8] = b"\x7fELF\x02\x01\x01\x00\xff\xfe\x00garbage";

/// The bytes of each kind at one tool's path.
struct Contents {
    own: Vec<u8>,
    /// Written as [`Kind::Edited`], at `edited_name` beside the path when it is set.
    edited: Vec<u8>,
    edited_name: Option<&'static str>,
    other: Vec<u8>,
}

fn place(kind: Kind, path: &Path, contents: &Contents) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match kind {
        Kind::Own => std::fs::write(path, &contents.own).unwrap(),
        Kind::Edited => match contents.edited_name {
            Some(name) => std::fs::write(path.with_file_name(name), &contents.edited).unwrap(),
            None => std::fs::write(path, &contents.edited).unwrap(),
        },
        Kind::Other => std::fs::write(path, &contents.other).unwrap(),
        Kind::Source => std::fs::write(path, SOURCE).unwrap(),
        Kind::Binary => std::fs::write(path, BINARY).unwrap(),
        Kind::Symlink => {
            let linked = path.with_file_name("linked.rs");
            std::fs::write(&linked, SOURCE).unwrap();
            std::os::unix::fs::symlink(&linked, path).unwrap();
        }
        Kind::Directory => {
            std::fs::create_dir(path).unwrap();
            std::fs::write(path.join("keep.rs"), SOURCE).unwrap();
        }
        Kind::Missing => {}
        Kind::Fifo => {
            let made = std::process::Command::new("mkfifo").arg(path).status();
            assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
        }
        Kind::ReadOnly => {
            std::fs::write(path, &contents.own).unwrap();
            let mut permissions = std::fs::metadata(path).unwrap().permissions();
            permissions.set_readonly(true);
            std::fs::set_permissions(path, permissions).unwrap();
        }
    }
}

/// One tool's run over the matrix: where it writes, what it may change, how to run it.
struct Case<'a> {
    name: &'a str,
    /// The file the tool writes, relative to the case's directory.
    path: &'a str,
    contents: &'a Contents,
    /// Whether the file at `path` may change for `kind` (the tool must then succeed and
    /// leave its own kind of file there); otherwise the tool must refuse.
    may_change: &'a dyn Fn(Kind) -> bool,
    /// Runs the tool in the case's directory; whether it succeeded.
    run: &'a dyn Fn(&Path) -> bool,
    /// Whether the bytes at `path` after a run that changed it are the tool's own.
    is_own: &'a dyn Fn(&Path, &[u8]) -> bool,
}

/// Runs `case` over every kind; returns a line per violation.
fn check_case(case: &Case<'_>, setup: &dyn Fn(&Path)) -> Vec<String> {
    let mut violations = Vec::new();
    for kind in KINDS {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let path = dir.path().join(case.path);
        place(kind, &path, case.contents);
        let before = snapshot(dir.path());
        let succeeded = (case.run)(dir.path());
        let after = snapshot(dir.path());
        let may_change = (case.may_change)(kind);
        let what = format!("{} over {kind:?}", case.name);
        if succeeded != may_change {
            violations.push(format!(
                "{what}: succeeded {succeeded}, expected {may_change}"
            ));
        }
        for (file, bytes) in &before {
            let changed = after.get(file) != Some(bytes);
            if changed && !(may_change && *file == path) {
                violations.push(format!("{what}: changed {}", file.display()));
            }
        }
        if may_change
            && !after
                .get(&path)
                .is_some_and(|bytes| (case.is_own)(dir.path(), bytes))
        {
            violations.push(format!("{what}: left no file of its own at {}", case.path));
        }
        // Make the read-only file removable with its directory on every system.
        if kind == Kind::ReadOnly && path.exists() {
            let mut permissions = std::fs::metadata(&path).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)] // Only to clean up.
            permissions.set_readonly(false);
            let _ = std::fs::set_permissions(&path, permissions);
        }
    }
    violations
}

/// Writes the crate of [`KERNELS`] (as `kernels`) into `dir`.
fn write_crate(dir: &Path, kernels: &str) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/kernels.rs"), kernels).unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
}

/// The build helper on the crate in `dir`; whether it wrote or kept every file.
fn build_in(dir: &Path, env: &[(&str, &str)]) -> bool {
    let mut vars = vec![("SOURCE_DATE_EPOCH", "1796083200")];
    vars.extend_from_slice(env);
    let actions = Variants::new()
        .kernel_files(["src/kernels.rs"])
        .rounds(1)
        .candidates(2)
        .crate_dir(dir)
        .out_dir(dir.join("out"))
        .env(vars.iter().copied())
        .run_to(&mut Vec::new())
        .unwrap();
    actions
        .iter()
        .all(|(_, action)| *action != Action::LeftAlone)
}

/// `autotune` on the crate in `dir`, for kernel vmla, with `args`; whether it succeeded.
fn autotune_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> bool {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"));
    command
        .arg(dir)
        .args(["--kernel", "vmla", "--rounds", "1", "--candidates", "2"])
        .args(["--no-baselines", "--report-dir"])
        .arg(dir.join("report"))
        .args(
            args.iter()
                .map(|arg| arg.replace("DIR", &dir.display().to_string())),
        )
        .env("SOURCE_DATE_EPOCH", "1796083200")
        .env_remove("NPU_REGEN_VARIANTS");
    command.envs(env.iter().copied());
    command.output().unwrap().status.success()
}

/// The journal of one tuning run of vmla as `kernels` defines it, resumed or fresh.
fn tune_vmla(dir: &Path, report_dir: &Path, resume: bool) -> bool {
    let found = discover(&dir.join("src/kernels.rs")).unwrap();
    let vmla = found.iter().find(|f| f.name == "vmla").unwrap();
    let problem = vmla.problem(dir, 0).unwrap();
    let config = npu_tune::run::RunConfig {
        rounds: 1,
        candidates: 2,
        seed: 0,
        jobs: 1,
        report_dir: report_dir.to_path_buf(),
        resume,
        baselines: false,
        verify: npu_tune::run::Verify::All,
    };
    let mut generator = npu_tune::generator::Heuristic::default();
    npu_tune::run::run(&[problem], &mut generator, &config, &npu_tune::run::Silent).is_ok()
}

/// A file, as the tools leave it, that is a variants file of vmla as npu writes it.
fn is_vmla_variants(_: &Path, bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    text.starts_with("// npu variants:")
        && text.contains("// kernel: vmla\n")
        && npu_core::variants::as_written(&text) == Some(true)
}

/// The variants files of the matrix: vmla's as generated before its kernel changed
/// (stale, so the build helper updates it), that file edited by hand, and another
/// kernel's.
fn variants_contents() -> Contents {
    let scratch = tempfile::tempdir().unwrap();
    write_crate(scratch.path(), &KERNELS.replace("+ c[i]", "- c[i]"));
    assert!(build_in(scratch.path(), &[]));
    let own = std::fs::read_to_string(scratch.path().join(VARIANTS)).unwrap();
    Contents {
        edited: own.replacen("depth 2;", "depth 2; // mine", 1).into_bytes(),
        edited_name: None,
        other: own
            .replace("// kernel: vmla", "// kernel: gelu")
            .into_bytes(),
        own: own.into_bytes(),
    }
}

/// Journals of vmla, of vmla edited, and of plain, with the matrix's settings.
fn journal_contents() -> Contents {
    let journal = |kernels: &str| {
        let scratch = tempfile::tempdir().unwrap();
        write_crate(scratch.path(), kernels);
        assert!(tune_vmla(
            scratch.path(),
            &scratch.path().join("report"),
            false
        ));
        std::fs::read(scratch.path().join("report/journal.jsonl")).unwrap()
    };
    Contents {
        own: journal(KERNELS),
        edited: journal(&KERNELS.replace("+ c[i]", "- c[i]")),
        edited_name: None,
        other: journal(&KERNELS.replace("y[i] = a[i] * b[i] + c[i]", "y[i] = a[i] + c[i]")),
    }
}

fn learned_contents() -> Contents {
    let entry = "\n[[entry]]\nid = \"learned-vmla-heuristic-r0-1\"\nclasses = [\"elementwise\"]\nrationale = \"bigger tiles hide the copy latency\"\nkernel = \"vmla\"\ntemplate = \"schedule t {\\n    split i by 2048;\\n    stage a, b, c, y in ub depth 2;\\n}\"\n";
    let own = format!("{}{entry}", npu_tune::knowledge::LEARNED_HEADER);
    Contents {
        // Renamed by a user reviewing it: the directory's learned.toml is gone.
        edited: own.clone().into_bytes(),
        edited_name: Some("reviewed.toml"),
        other: format!("# My own entries.\n{}", entry.replace("learned-", "mine-")).into_bytes(),
        own: own.into_bytes(),
    }
}

/// Every tool that writes on a user's behalf, over every kind of file at its path: no
/// byte of a file it did not create changes unless the user asked, and what it may
/// write (its own file, a new path, a regeneration asked for) it does write.
#[cfg(unix)]
#[test]
fn no_tool_changes_a_byte_it_was_not_asked_to() {
    use Kind::*;
    let setup = |dir: &Path| write_crate(dir, KERNELS);
    let variants = variants_contents();
    let journals = journal_contents();
    let learned = learned_contents();
    let own_or_new = |kind: Kind| matches!(kind, Own | Missing);
    let asked = |kind: Kind| matches!(kind, Own | Edited | Missing);
    let write = |env: &'static [(&'static str, &'static str)]| {
        move |dir: &Path| autotune_in(dir, &["--write-variants", &format!("DIR/{VARIANTS}")], env)
    };
    let regenerate: &[(&str, &str)] = &[("NPU_REGEN_VARIANTS", "vmla")];
    let cases = [
        Case {
            name: "autotune --write-variants",
            path: VARIANTS,
            contents: &variants,
            may_change: &own_or_new,
            run: &write(&[]),
            is_own: &is_vmla_variants,
        },
        Case {
            name: "autotune --write-variants, NPU_REGEN_VARIANTS=vmla",
            path: VARIANTS,
            contents: &variants,
            may_change: &asked,
            run: &write(regenerate),
            is_own: &is_vmla_variants,
        },
        Case {
            name: "the build helper",
            path: VARIANTS,
            contents: &variants,
            may_change: &own_or_new,
            run: &|dir| build_in(dir, &[]),
            is_own: &is_vmla_variants,
        },
        Case {
            name: "the build helper, NPU_REGEN_VARIANTS=1",
            path: VARIANTS,
            contents: &variants,
            may_change: &asked,
            run: &|dir| build_in(dir, &[("NPU_REGEN_VARIANTS", "1")]),
            is_own: &is_vmla_variants,
        },
        Case {
            name: "autotune --resume",
            path: "report/journal.jsonl",
            contents: &journals,
            may_change: &own_or_new,
            run: &|dir| tune_vmla(dir, &dir.join("report"), true),
            is_own: &|_, bytes| bytes.starts_with(br#"{"header":"#),
        },
        Case {
            name: "autotune --learn",
            path: "knowledge/learned.toml",
            contents: &learned,
            may_change: &asked,
            run: &|dir| {
                std::fs::create_dir_all(dir.join("knowledge")).unwrap();
                autotune_in(dir, &["--knowledge", "DIR/knowledge", "--learn"], &[])
            },
            is_own: &|dir, bytes| {
                let header = npu_tune::knowledge::LEARNED_HEADER.as_bytes();
                let base = npu_tune::knowledge::KnowledgeBase::load(&dir.join("knowledge"));
                bytes.starts_with(header) && base.is_ok()
            },
        },
    ];
    let mut violations = Vec::new();
    for case in &cases {
        violations.extend(check_case(case, &setup));
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn autotune_never_writes_variants_over_the_kernels_own_source() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join("scale.npu");
    let source = "kernel scale(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] * 2.0; }\ntarget npueval_demo;\nschedule hand { split i by 1024; stage x, y in ub depth 1; }\n";
    std::fs::write(&kernel, source).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .arg(&kernel)
        .args(["--rounds", "1", "--candidates", "2", "--no-baselines"])
        .arg("--report-dir")
        .arg(dir.path().join("report"))
        .arg("--write-variants")
        .arg(&kernel)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(
        stderr.trim_end(),
        format!(
            "error: --write-variants: {} is not a variants file of kernel `scale` (it has no `// npu variants` header naming a kernel); npu writes only a variants file of this kernel or a path that does not exist: move the file away or choose another path",
            kernel.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&kernel).unwrap(), source);
    // Refused before the run: nothing was tuned.
    assert!(!dir.path().join("report").exists());
}

/// The example crate's committed files are signed, so a build may regenerate them when
/// their kernel changes; an edit to one would stop that, and must be deliberate.
#[test]
fn the_committed_variants_files_are_as_npu_wrote_them() {
    let kernels = crate::repo_root().join("examples/variants-demo/kernels");
    let mut checked = 0;
    for entry in std::fs::read_dir(kernels).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            npu_core::variants::as_written(&text),
            Some(true),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert_eq!(checked, 3);
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
    // The hand-edited text regeneration replaced is kept beside the link.
    let mut names: Vec<_> = std::fs::read_dir(krate.path("kernels"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["vmla.variants.npu", "vmla.variants.npu.orig"]);
    let kept = std::fs::read_to_string(krate.path(&format!("{VARIANTS}.orig"))).unwrap();
    assert_eq!(kept, format!("{generated}// a note\n"));
}
