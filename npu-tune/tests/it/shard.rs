//! Sharded campaigns through the `autotune` binary: N shards run as separate processes
//! and `autotune merge` give byte for byte what one whole run writes, but for the one
//! wall-clock figure (`mean_round_seconds`, shown as "Mean round time" and "mean round"),
//! also when a shard is stopped partway and resumed; shards that do not belong together
//! are refused with the reason.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use npu_tune::shard::Shard;

/// A few small kernels on two targets: enough for empty shards at N = 7.
const KERNELS: [&str; 6] = ["relu", "gelu", "exp", "abs", "neg", "sqrt"];

/// The variables schedulers set, which must not leak into these runs from a test that
/// itself runs under one.
const SCHEDULER_VARIABLES: [&str; 5] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "JOB_COMPLETION_INDEX",
];

/// `autotune ARGS` in `dir`, with `env` set and no scheduler's variables.
fn autotune(dir: &Path, args: &[String], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_autotune"));
    command.current_dir(dir).args(args);
    let ours = [
        "NPU_TUNE_EXIT_AFTER",
        "NPU_LLM_URL",
        "NPU_LLM_MODEL",
        "NPU_LLM_API_KEY",
    ];
    for name in SCHEDULER_VARIABLES.iter().chain(ours.iter()) {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

/// `autotune ARGS` in `dir`, which must succeed; returns its stdout.
fn succeed(dir: &Path, args: &[String]) -> String {
    let output = autotune(dir, args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "autotune {args:?}:\n{stderr}");
    String::from_utf8(output.stdout).unwrap()
}

/// `autotune ARGS` in `dir`, which must fail; returns its stderr.
fn fail(dir: &Path, args: &[String]) -> String {
    let output = autotune(dir, args, &[]);
    assert!(!output.status.success(), "autotune {args:?} succeeded");
    String::from_utf8(output.stderr).unwrap()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// A small tuning run of [`KERNELS`] into `dir`: reports, suite table, sources.
fn tune_args(dir: &str, extra: &[&str]) -> Vec<String> {
    let mut args = Vec::new();
    for kernel in KERNELS {
        args.extend(strings(&["--kernel", kernel]));
    }
    let suite = format!("{dir}/suite.md");
    let emit = format!("{dir}/emit");
    args.extend(strings(&[
        "--rounds",
        "2",
        "--candidates",
        "2",
        "--jobs",
        "1",
    ]));
    args.extend(strings(&["--report-dir", dir, "--suite-table", &suite]));
    args.extend(strings(&["--emit", "ascend-c", &emit]));
    args.extend(strings(extra));
    args
}

/// Text with each wall-clock line's figure replaced by `[time]`.
fn without_times(text: &str) -> String {
    let lines = text.lines().map(|line| {
        let timed = ["mean_round_seconds", "Mean round time", "mean round"]
            .iter()
            .find_map(|marker| line.find(marker).map(|at| at + marker.len()));
        match timed {
            Some(end) => format!("{}[time]", &line[..end]),
            None => line.to_string(),
        }
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// Every file under `dir` by relative path, the shards' own directories and the
/// journal left out, text without its wall-clock figures.
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    collect(dir, dir, &mut files);
    files
}

fn collect(root: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let relative = path.strip_prefix(root).unwrap().display().to_string();
        if name.starts_with("shard-") || name.starts_with("journal") {
            continue;
        }
        if path.is_dir() {
            files.insert(relative + "/", Vec::new());
            collect(root, &path, files);
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let text = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "md")
        );
        let bytes = match text {
            true => without_times(&String::from_utf8(bytes).unwrap()).into_bytes(),
            false => bytes,
        };
        files.insert(relative, bytes);
    }
}

/// The shard of N that tunes the most of [`KERNELS`].
fn busiest(count: u32) -> Shard {
    (1..=count)
        .map(|index| Shard::new(index, count).unwrap())
        .max_by_key(|shard| KERNELS.iter().filter(|k| shard.owns(k)).count())
        .unwrap()
}

/// The whole run's outputs and printed table; then N = 1, 3 and 7 shards merged give
/// the same, at N = 3 with the busiest shard stopped after three evaluations (the
/// merge names it missing) and resumed.
#[test]
fn shards_merge_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let printed = without_times(&succeed(root, &tune_args("whole", &[])));
    let expected = outputs(&root.join("whole"));
    assert!(expected.contains_key("suite.md") && expected.contains_key("relu.json"));
    assert!(expected.keys().any(|k| k.starts_with("emit/gelu/")));
    for count in [1, 3, 7] {
        let out = format!("n{count}");
        for index in 1..=count {
            let shard = Shard::new(index, count).unwrap();
            let args = tune_args(&out, &["--shard", &shard.to_string()]);
            if count == 3 && shard == busiest(count) {
                stop_and_resume(root, &args, &out, shard);
            } else {
                succeed(root, &args);
            }
        }
        let shards: Vec<String> = (1..=count)
            .map(|index| format!("{out}/shard-{index}-of-{count}"))
            .collect();
        let mut merge = strings(&["merge"]);
        merge.extend(shards);
        let merged = without_times(&succeed(root, &merge));
        assert_eq!(
            merged,
            printed.replace("reports: whole", &format!("reports: {out}"))
        );
        let joined = outputs(&root.join(&out));
        assert_eq!(
            joined.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "N = {count}"
        );
        for (path, bytes) in &expected {
            assert!(joined[path] == *bytes, "N = {count}: {path} differs");
        }
    }
}

/// Stops `shard` after three evaluations, as a kill would; the merge then names it
/// unfinished; `--resume` finishes it.
fn stop_and_resume(root: &Path, args: &[String], out: &str, shard: Shard) {
    let stopped = autotune(root, args, &[("NPU_TUNE_EXIT_AFTER", "3")]);
    assert_eq!(stopped.status.code(), Some(75), "stopped partway");
    let shard_dir = format!("{out}/{}", shard.dir_name());
    assert!(!root.join(&shard_dir).join("shard.json").exists());
    let journal = std::fs::read_to_string(root.join(&shard_dir).join("journal.jsonl")).unwrap();
    assert_eq!(
        journal.lines().count(),
        1 + 3,
        "the header and three evaluations"
    );
    let error = fail(root, &strings(&["merge", &shard_dir]));
    assert!(error.contains("did the shard finish?"), "{error}");
    let mut resumed = args.to_vec();
    resumed.push("--resume".into());
    succeed(root, &resumed);
}

/// Shards of other settings, a shard given twice, a missing shard, and shard numbers
/// that do not exist are refused, each error naming what is wrong.
#[test]
fn shards_that_do_not_belong_together_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let small = |rounds: &str, shard: &str| {
        let mut args = strings(&["--kernel", "relu", "--kernel", "exp", "--kernel", "abs"]);
        args.extend(strings(&[
            "--rounds",
            rounds,
            "--candidates",
            "1",
            "--jobs",
            "1",
        ]));
        args.extend(strings(&[
            "--no-baselines",
            "--report-dir",
            "out",
            "--shard",
            shard,
        ]));
        args
    };
    succeed(root, &small("1", "1/2"));
    succeed(root, &small("2", "2/2"));
    let merge = |shards: &[&str]| {
        let mut args = strings(&["merge"]);
        args.extend(shards.iter().map(|s| format!("out/shard-{s}")));
        fail(root, &args)
    };
    let settings = merge(&["1-of-2", "2-of-2"]);
    assert!(settings.contains("rounds is `1` and `2`"), "{settings}");
    let twice = merge(&["1-of-2", "1-of-2"]);
    let ran = |index| Shard::new(index, 2).unwrap();
    let owned = ["relu", "exp", "abs"].iter().any(|k| ran(1).owns(k));
    let expected = match owned {
        true => "more than one shard",
        false => "missing shards: 2/2",
    };
    assert!(twice.contains(expected), "{twice}");
    let missing = merge(&["1-of-2"]);
    assert!(missing.contains("missing shards: 2/2"), "{missing}");
    for (shard, message) in [("0/3", "shards count from 1"), ("4/3", "I is 1 to 3")] {
        let error = fail(root, &small("1", shard));
        assert!(error.contains(message), "{shard}: {error}");
    }
}

/// The schedulers' variables give the shard: Slurm's task id counts from the array's
/// min, Kubernetes' completion index from 0 with `--shards N`.
#[test]
fn the_shard_comes_from_the_schedulers_environment() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let args = |report: &str, extra: &[&str]| {
        let mut args = strings(&["--kernel", "relu", "--rounds", "1", "--candidates", "1"]);
        args.extend(strings(&[
            "--no-baselines",
            "--report-dir",
            report,
            "--shard-from-env",
        ]));
        args.extend(strings(extra));
        args
    };
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "5"),
        ("SLURM_ARRAY_TASK_MIN", "4"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    assert!(autotune(root, &args("slurm", &[]), &slurm).status.success());
    assert!(root.join("slurm/shard-2-of-2/shard.json").is_file());
    let k8s = [("JOB_COMPLETION_INDEX", "0")];
    assert!(
        autotune(root, &args("k8s", &["--shards", "3"]), &k8s)
            .status
            .success()
    );
    assert!(root.join("k8s/shard-1-of-3/shard.json").is_file());
    let output = autotune(root, &args("k8s", &[]), &k8s);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("--shards N"),
        "{stderr}"
    );
    let output = autotune(root, &args("none", &[]), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("neither"),
        "{stderr}"
    );
}

/// The recorded users' set replayed as one `draft-eval` and as three shards: the
/// merged table, its scores and the printed table are the whole run's, byte for byte.
#[test]
fn draft_eval_shards_merge_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/draft-eval-users-1.5b.json"
    );
    let draft_eval = |table: &str, extra: &[&str]| {
        let mut args = strings(&["draft-eval", "--kernels", "users", "--variants", "full"]);
        args.extend(strings(&["--rounds", "2", "--candidates", "2"]));
        args.extend(strings(&["--generator", "replay", "--replay", fixture]));
        args.extend(strings(&["--table", table]));
        args.extend(strings(extra));
        args
    };
    std::fs::create_dir_all(root.join("whole")).unwrap();
    let printed = succeed(root, &draft_eval("whole/drafts.md", &[]));
    for index in 1..=3 {
        let shard = format!("{index}/3");
        succeed(root, &draft_eval("parts/drafts.md", &["--shard", &shard]));
    }
    let merge = strings(&[
        "merge",
        "parts/drafts.shard-1-of-3",
        "parts/drafts.shard-2-of-3",
        "parts/drafts.shard-3-of-3/shard.json",
    ]);
    assert_eq!(succeed(root, &merge), printed);
    for file in ["drafts.md", "drafts.json"] {
        let whole = std::fs::read(root.join("whole").join(file)).unwrap();
        let merged = std::fs::read(root.join("parts").join(file)).unwrap();
        assert!(whole == merged, "{file} differs");
    }
}

/// A model's replies recorded by three `draft-eval` shards (against a local server that
/// gives every request the same reply, so the order of requests cannot matter) are
/// joined by the merge into the whole run's recording, byte for byte.
#[test]
fn recordings_of_the_shards_merge_into_the_whole_runs() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let server = ChatServer::start_repeating(Behaviour::Reply("y[i] = x[i];".into()));
    let url = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let draft_eval = |out: &str, extra: &[&str]| {
        let mut args = strings(&["draft-eval", "--kernels", "users", "--variants", "plain"]);
        args.extend(strings(&["--only", "pooling,reductions", "--rounds", "1"]));
        args.extend(strings(&[
            "--candidates",
            "1",
            "--generator",
            "llm",
            "--llm-url",
            &url,
        ]));
        let (table, record) = (format!("{out}/drafts.md"), format!("{out}/llm.json"));
        args.extend(strings(&["--table", &table, "--record", &record]));
        args.extend(strings(extra));
        args
    };
    std::fs::create_dir_all(root.join("whole")).unwrap();
    succeed(root, &draft_eval("whole", &[]));
    let mut merge = strings(&["merge"]);
    for index in 1..=3 {
        succeed(
            root,
            &draft_eval("parts", &["--shard", &format!("{index}/3")]),
        );
        merge.push(format!("parts/drafts.shard-{index}-of-3"));
    }
    succeed(root, &merge);
    let whole = std::fs::read(root.join("whole/llm.json")).unwrap();
    let joined = std::fs::read(root.join("parts/llm.json")).unwrap();
    assert!(whole.len() > 100, "something was recorded");
    assert!(whole == joined, "the joined recording differs");
}
