//! The command line's options, as clap reads them.

use std::path::PathBuf;

use clap::ValueEnum;
use npu_tune::run::Verify;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GeneratorKind {
    /// The embedded expert: offline, deterministic for a seed (default).
    Heuristic,
    /// An OpenAI-compatible chat-completions endpoint (--llm-url or NPU_LLM_URL).
    Llm,
    /// The heuristic; after a round with nothing faster, the LLM proposes a quarter of the next.
    #[value(name = "llm+heuristic")]
    LlmHeuristic,
    /// Replies recorded from an LLM run with --record (needs --replay FILE).
    Replay,
    /// Random search alone.
    Random,
    /// Grid search alone.
    Grid,
}

/// How LLM replies are constrained (see `npu_tune::grammar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Constrain {
    /// Probe the server once: GBNF, else JSON Schema, else none (with a warning).
    Auto,
    /// A GBNF `grammar` (llama.cpp's server and its wrappers).
    Gbnf,
    /// A JSON Schema `response_format` (vLLM, hosted APIs).
    JsonSchema,
    /// No constraint: the model writes free text.
    None,
}

/// Which candidates are checked against the host reference on data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum VerifyArg {
    /// Those entering the best three as they are evaluated, and every best reported.
    Best,
    /// Every candidate (slower: each is simulated on data).
    All,
}

impl VerifyArg {
    pub(crate) fn policy(self) -> Verify {
        match self {
            VerifyArg::Best => Verify::Best(3),
            VerifyArg::All => Verify::All,
        }
    }
}

/// What `autotune tune` (and plain `autotune`) takes.
#[derive(Clone, Debug, clap::Args)]
pub(crate) struct TuneArgs {
    /// Where your kernels are: a Rust file (its `npu_kernel!` blocks), a `.npu` kernel
    /// file or a crate directory (its `src/`). Default: the bundled kernels.
    #[arg(value_name = "SOURCE")]
    pub(crate) sources: Vec<PathBuf>,
    /// Kernels to tune (default: all found, or all bundled kernels). Repeatable.
    #[arg(long = "kernel", value_name = "NAME")]
    pub(crate) kernels: Vec<String>,
    /// Retarget every kernel: a preset name or a target TOML file.
    #[arg(long)]
    pub(crate) target: Option<String>,
    #[arg(long, value_enum, default_value = "heuristic")]
    pub(crate) generator: GeneratorKind,
    /// Rounds of the search; 0 evaluates the hand schedules only (with --emit, writes
    /// the fastest of them).
    #[arg(long, default_value_t = 10)]
    pub(crate) rounds: u32,
    /// Candidates per round.
    #[arg(long, default_value_t = 8)]
    pub(crate) candidates: usize,
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Worker threads (default: every core).
    #[arg(long, default_value_t = 0)]
    pub(crate) jobs: usize,
    #[arg(long, default_value = "target/autotune")]
    pub(crate) report_dir: PathBuf,
    /// Write a Perfetto trace of each kernel's best schedule.
    #[arg(long)]
    pub(crate) trace: bool,
    /// Continue the run journalled in --report-dir.
    #[arg(long)]
    pub(crate) resume: bool,
    /// List the bundled kernels, one per line (name, category, target, and `default`
    /// for those tuned without --all), and exit.
    #[arg(long)]
    pub(crate) list: bool,
    /// Tune the whole bundled suite (every category), not just the default kernels.
    #[arg(long, conflicts_with = "sources")]
    pub(crate) all: bool,
    /// Write the suite table (docs/suite.md's format) of the kernels tuned to FILE, and
    /// its data, with the schedule behind every number, beside it as FILE's `.json`.
    #[arg(long, value_name = "FILE")]
    pub(crate) suite_table: Option<PathBuf>,
    /// Skip the random and grid baselines.
    #[arg(long)]
    pub(crate) no_baselines: bool,
    #[command(flatten)]
    pub(crate) llm: crate::llm_args::LlmArgs,
    /// Record the LLM's replies to FILE, for --generator replay.
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    /// The transcript --generator replay reads.
    #[arg(long, value_name = "FILE")]
    pub(crate) replay: Option<PathBuf>,
    /// How the LLM's replies are constrained to legal schedules.
    #[arg(long, value_enum, default_value = "auto")]
    pub(crate) llm_constrain: Constrain,
    /// Share of each round's LLM candidates, from the second round on, asked under the
    /// syntax grammar only, so the search can leave the enumerated space (the first
    /// round is all exact-set: Comp@1 and Pass@1 measure the constrained mode; 1 asks
    /// every candidate of every round under the syntax grammar).
    #[arg(long, default_value_t = 0.25)]
    pub(crate) llm_explore: f64,
    /// Read the knowledge base from DIR (default: the built-in `knowledge/` entries); it
    /// goes into the LLM's prompts and steers the heuristic's edits.
    #[arg(long, value_name = "DIR", conflicts_with = "no_knowledge")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Leave hardware knowledge out: of the LLM's prompts and of the heuristic's edits.
    #[arg(long)]
    pub(crate) no_knowledge: bool,
    /// After the run, distil what it measured into --knowledge DIR: learned entries,
    /// pruned ones and an audit log (see `npu_tune::knowledge::distill`).
    #[arg(long, requires = "knowledge")]
    pub(crate) learn: bool,
    /// Which candidates are simulated on data and checked against the reference; the
    /// others are simulated for their timing only.
    #[arg(long, value_enum, default_value = "best")]
    pub(crate) verify: VerifyArg,
    /// Write the best distinct schedules of the run to FILE as a variants file (one
    /// kernel only), as `npu_tune::build::Variants` writes it. FILE must not exist or be a
    /// variants file of this kernel as npu wrote it; one edited by hand is replaced
    /// only with NPU_REGEN_VARIANTS=KERNEL (its old text kept as FILE.orig).
    #[arg(long, value_name = "FILE")]
    pub(crate) write_variants: Option<PathBuf>,
    /// Write the fastest correct schedule of each kernel that BACKEND (ascend-c, aie) can
    /// write as device source into DIR/KERNEL/, naming any faster one it cannot (with
    /// --write-variants, each variant into DIR/KERNEL/NAME/ too).
    #[arg(long, num_args = 2, value_names = ["BACKEND", "DIR"])]
    pub(crate) emit: Option<Vec<String>>,
    /// Write each tuned kernel's best schedule, simulated, as a row of msprof's
    /// op_summary_*.csv (its per-pipe time columns) to FILE: `autotune calibrate` reads it.
    #[arg(long, value_name = "FILE")]
    pub(crate) profile_out: Option<PathBuf>,
    /// How many variants --write-variants keeps (default: the kernel's `variants N`,
    /// or 4).
    #[arg(long, value_name = "K")]
    pub(crate) variants: Option<usize>,
    #[command(flatten)]
    pub(crate) shard: crate::shard_args::ShardArgs,
}
