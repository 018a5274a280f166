//! Every data folder the repository ships, copied where a user would copy it and given
//! to `autotune` through its public flag: the documented way to extend one (copy the
//! folder, edit it, pass it) starts from a folder that loads.
//!
//! The folders: `knowledge/` (`--knowledge DIR`, with `--learn` writing into it),
//! `idioms/` (`--idioms DIR`), the evaluation sets `npu-tune/eval/` (`--set DIR`) and
//! the target presets `npu-core/targets/` (`--target FILE`).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::repo_root;

/// Copies the repository's folder `name` (a path under the root) into `into`, with
/// everything under it, and returns the copy's path.
fn copy_shipped(name: &str, into: &Path) -> PathBuf {
    let copy = into.join(Path::new(name).file_name().unwrap());
    copy_tree(&repo_root().join(name), &copy);
    copy
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        match path.is_dir() {
            true => copy_tree(&path, &target),
            false => drop(std::fs::copy(&path, &target).unwrap()),
        }
    }
}

/// `autotune ARGS` with no `NPU_LLM_URL` from the environment.
fn autotune(args: &[&Path]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .args(args)
        .env_remove("NPU_LLM_URL")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A one-round offline tuning of one small kernel on the copied knowledge folder and
/// the copied preset of its target, learning into the copy.
#[test]
fn the_shipped_knowledge_and_targets_load_through_their_flags_and_learn() {
    let dir = tempfile::tempdir().unwrap();
    let knowledge = copy_shipped("knowledge", dir.path());
    let targets = copy_shipped("npu-core/targets", dir.path());
    let output = autotune(&[
        "--kernel".as_ref(),
        "relu".as_ref(),
        "--target".as_ref(),
        &targets.join("ascend910b.toml"),
        "--rounds".as_ref(),
        "1".as_ref(),
        "--candidates".as_ref(),
        "2".as_ref(),
        "--jobs".as_ref(),
        "1".as_ref(),
        "--no-baselines".as_ref(),
        "--knowledge".as_ref(),
        &knowledge,
        "--learn".as_ref(),
        "--report-dir".as_ref(),
        &dir.path().join("reports"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let learned = std::fs::read_to_string(knowledge.join(npu_tune::knowledge::LEARNED_FILE));
    assert!(
        learned.is_ok_and(|text| text.starts_with(npu_tune::knowledge::LEARNED_HEADER)),
        "--learn wrote its file into the copy"
    );
    // What --learn wrote loads back with the shipped files beside it.
    npu_tune::knowledge::KnowledgeBase::load(&knowledge).unwrap();
}

/// The recorded drafting run of the bundled softmax (whose prompt shows the
/// `softmax-stable` idiom) replays strictly on the copied evaluation set and idioms:
/// the copies make the recorded prompts byte for byte. An edited idiom makes another
/// prompt, so the flag is what the prompt reads; a malformed file is an error that
/// names the file and the line.
#[test]
fn the_shipped_idioms_and_evaluation_set_load_through_their_flags() {
    let dir = tempfile::tempdir().unwrap();
    let set = copy_shipped("npu-tune/eval", dir.path());
    let idioms = copy_shipped("idioms", dir.path());
    let recording = repo_root().join("npu-tune/tests/fixtures/draft-eval-1.5b.json");
    let draft_eval = |idioms: &Path| {
        autotune(&[
            "draft-eval".as_ref(),
            "--set".as_ref(),
            &set,
            "--idioms".as_ref(),
            idioms,
            "--only".as_ref(),
            "softmax".as_ref(),
            "--variants".as_ref(),
            "full".as_ref(),
            "--rounds".as_ref(),
            "3".as_ref(),
            "--candidates".as_ref(),
            "4".as_ref(),
            "--generator".as_ref(),
            "replay".as_ref(),
            "--replay".as_ref(),
            &recording,
        ])
    };
    let output = draft_eval(&idioms);
    let said = stderr(&output);
    assert!(
        output.status.success() && said.contains("full softmax: "),
        "{said}"
    );

    let file = idioms.join("idioms.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replacen("Subtract the row maximum", "Subtract the maximum", 1);
    assert_ne!(
        edited, text,
        "the softmax idiom's rationale is as the test says"
    );
    std::fs::write(&file, edited).unwrap();
    let output = draft_eval(&idioms);
    let said = stderr(&output);
    assert!(
        !output.status.success() && said.contains("asks another prompt"),
        "{said}"
    );

    std::fs::write(&file, "# an idiom\n\n[[idiom]]\nid = 1\n").unwrap();
    let output = draft_eval(&idioms);
    assert!(!output.status.success());
    let expected = format!(
        "error: {}:4: invalid type: integer `1`, expected a string\n",
        file.display()
    );
    assert_eq!(stderr(&output), expected);
}
