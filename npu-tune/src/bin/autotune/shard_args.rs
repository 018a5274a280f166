//! The options that make a run one shard of a campaign (see `npu_tune::shard`), and
//! what tuning and `draft-eval` share in running as one.

use std::path::Path;

use npu_tune::shard::Shard;

/// Which shard of a campaign a run is; none of them: the whole run.
#[derive(Clone, Debug, Default, clap::Args)]
pub(crate) struct ShardArgs {
    /// Run only shard I of N (counted from 1: 1/3, 2/3, 3/3) of the run's units, split
    /// by a stable hash of each unit's name; `autotune merge` joins the N shards'
    /// outputs into the whole run's.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse, conflicts_with = "shard_from_env")]
    pub(crate) shard: Option<Shard>,
    /// Take the shard from the scheduler: a Slurm job array (SLURM_ARRAY_TASK_ID from
    /// SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job
    /// (JOB_COMPLETION_INDEX from 0, of --shards N).
    #[arg(long)]
    pub(crate) shard_from_env: bool,
    /// With --shard-from-env in a Kubernetes Indexed Job: its `completions`.
    #[arg(long, value_name = "N", requires = "shard_from_env")]
    pub(crate) shards: Option<u32>,
}

impl ShardArgs {
    /// The shard this run is, if it is one.
    pub(crate) fn shard(&self) -> Result<Option<Shard>, String> {
        match (self.shard, self.shard_from_env) {
            (Some(shard), _) => Ok(Some(shard)),
            (None, true) => {
                Shard::from_env(&|name| std::env::var(name).ok(), self.shards).map(Some)
            }
            (None, false) => Ok(None),
        }
    }
}

/// An error for what a shard cannot do with the model's sampling seed: `--llm-seed`
/// numbers the requests of the whole run in the order they are made, so a shard
/// (which makes only its units' requests) would sample otherwise than the whole run.
pub(crate) fn refuse_llm_seed(llm_seed: Option<u64>) -> Result<(), String> {
    match llm_seed {
        Some(_) => Err("--llm-seed numbers the requests of the whole run in order, so a shard would sample otherwise than the whole run: leave it out of sharded runs".into()),
        None => Ok(()),
    }
}

/// The version settings every manifest records: results of another npu or simulator
/// model are not joined.
pub(crate) fn versions() -> [(String, String); 2] {
    [
        ("npu".into(), env!("CARGO_PKG_VERSION").into()),
        ("simulator model".into(), npu_sim::MODEL_VERSION.to_string()),
    ]
}

/// [`npu_tune::journal::content_hash`] of the file at `path` (a recording a replay
/// reads), or `none`.
pub(crate) fn file_hash(path: Option<&Path>) -> Result<String, String> {
    let Some(path) = path else {
        return Ok("none".into());
    };
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(npu_tune::journal::content_hash(&bytes))
}
