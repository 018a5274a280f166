//! The deployment files of docs/deploy/ keep their shape: the Kubernetes manifest
//! parses, its Indexed Job runs as many shards as its `--shards` says, and its merge
//! waits for them; the Slurm script's array runs `autotune --shard-from-env` and
//! submits the merge after every task.

use yaml_rust2::{Yaml as Value, YamlLoader};

fn deploy_file(name: &str) -> String {
    std::fs::read_to_string(crate::repo_root().join("docs/deploy").join(name)).unwrap()
}

/// The manifest's documents, by `kind` and `metadata.name`.
fn documents() -> Vec<Value> {
    let text = deploy_file("k8s-indexed-job.yaml");
    YamlLoader::load_from_str(&text).expect("the manifest is YAML")
}

fn find<'a>(documents: &'a [Value], kind: &str, name: &str) -> &'a Value {
    documents
        .iter()
        .find(|d| d["kind"].as_str() == Some(kind) && d["metadata"]["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// A container's command as one line.
fn command(container: &Value) -> String {
    let words: Vec<String> = container["command"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|word| match word {
            Value::String(text) | Value::Real(text) => text.clone(),
            Value::Integer(number) => number.to_string(),
            Value::Boolean(flag) => flag.to_string(),
            other => panic!("a command word that is not a scalar: {other:?}"),
        })
        .collect();
    words.join(" ")
}

#[test]
fn the_indexed_job_runs_every_shard_and_the_merge_waits_for_them() {
    let documents = documents();
    let shards = find(&documents, "Job", "npu-shards");
    let spec = &shards["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let completions = spec["completions"].as_i64().unwrap();
    assert!(spec["parallelism"].as_i64().unwrap() <= completions);
    let shard = command(&spec["template"]["spec"]["containers"][0]);
    assert!(shard.starts_with("autotune "), "{shard}");
    assert!(
        shard.contains(&format!("--shard-from-env --shards {completions}")),
        "{shard}"
    );
    assert!(shard.contains("--llm-url http://vllm:8000/v1"), "{shard}");
    assert!(shard.contains("--llm-jobs"), "{shard}");
    assert!(shard.contains("--resume"), "{shard}");
    find(&documents, "Service", "vllm");
    find(&documents, "Deployment", "vllm");

    let merge = &find(&documents, "Job", "npu-merge")["spec"]["template"]["spec"];
    let wait = command(&merge["initContainers"][0]);
    assert!(
        wait.contains(&format!(
            "shard.json 2>/dev/null | wc -l)\" -eq {completions}"
        )),
        "{wait}"
    );
    let joined = command(&merge["containers"][0]);
    assert!(
        joined.ends_with(&format!("autotune merge out/shard-*-of-{completions}")),
        "{joined}"
    );
}

#[test]
fn the_slurm_array_runs_every_shard_then_the_merge() {
    let script = deploy_file("slurm.sbatch");
    assert!(script.starts_with("#!/bin/bash\n"));
    let array = script
        .lines()
        .find_map(|line| line.strip_prefix("#SBATCH --array="))
        .expect("an #SBATCH --array line");
    assert_eq!(array, "1-8");
    let shard = script
        .lines()
        .skip_while(|line| !line.starts_with("srun autotune"))
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(shard.contains("--shard-from-env"), "{shard}");
    assert!(shard.contains("--llm-url \"$LLM_URL\""), "{shard}");
    assert!(shard.contains("--llm-jobs"), "{shard}");
    assert!(shard.contains("--report-dir \"$OUT\""), "{shard}");
    let merge = script
        .lines()
        .find(|line| line.contains("--wrap \"autotune merge"))
        .expect("the merge step");
    assert!(
        merge.contains("${OUT}/shard-*-of-${SLURM_ARRAY_TASK_COUNT}"),
        "{merge}"
    );
    assert!(script.contains("--dependency=\"afterok:${SLURM_ARRAY_JOB_ID}\""));
}
