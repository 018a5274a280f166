//! What `autotune draft-eval` takes, as clap reads it.

use std::path::PathBuf;

use npu_tune::draft::eval;
use npu_tune::draft::scoreboard::Variant;

use crate::draft::DraftGenerator;
use crate::llm_args::LlmArgs;

/// What `autotune draft-eval` takes.
#[derive(Clone, Debug, clap::Args)]
pub(crate) struct DraftEvalArgs {
    /// The folder of the evaluation sets: `subset.toml`, `fresh/*.npu` and `users/`.
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/eval"))]
    pub(crate) set: PathBuf,
    /// Which set of the folder: `first` (the subset and the fresh kernels) or `users`
    /// (kernels written as users write them).
    #[arg(long, value_name = "NAME", default_value = eval::FIRST)]
    pub(crate) kernels: String,
    /// The variants to run, in order: plain (no grammar), grammar, full (grammar,
    /// retrieved worked examples and idioms).
    #[arg(long, value_delimiter = ',', default_value = "plain,grammar,full", value_parser = variant)]
    pub(crate) variants: Vec<Variant>,
    /// Only these kernels (comma-separated names) or groups (a category, `fresh`).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub(crate) only: Vec<String>,
    #[arg(long, value_enum, default_value = "llm")]
    pub(crate) generator: DraftGenerator,
    #[arg(long, default_value_t = 3)]
    pub(crate) rounds: u32,
    /// Candidate bodies per round.
    #[arg(long, default_value_t = 4)]
    pub(crate) candidates: usize,
    #[command(flatten)]
    pub(crate) llm: LlmArgs,
    /// How the grammar and full variants constrain replies: gbnf (the llama.cpp
    /// server), json-schema (vLLM, hosted APIs) or auto (probe the server once).
    #[arg(long, value_enum, default_value = "gbnf")]
    pub(crate) llm_constrain: crate::args::Constrain,
    /// Record the model's replies to FILE (saved after every kernel), for --generator
    /// replay.
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    /// The recording --generator replay reads.
    #[arg(long, value_name = "FILE")]
    pub(crate) replay: Option<PathBuf>,
    /// Write the table (Markdown) to FILE and the scores beside it as FILE's `.json`.
    #[arg(long, value_name = "FILE")]
    pub(crate) table: Option<PathBuf>,
    /// Read the idioms the full variant's prompts show from DIR, every `*.toml` of it
    /// (default: the built-in `idioms/` entries).
    #[arg(long, value_name = "DIR")]
    pub(crate) idioms: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) shard: crate::shard_args::ShardArgs,
}

fn variant(name: &str) -> Result<Variant, String> {
    Variant::from_name(name).ok_or_else(|| format!("`{name}` is not plain, grammar or full"))
}
