//! `autotune`: tune kernels' schedules with a generator in the loop, against the hand
//! schedules and random and grid search with the same budget. The kernels are the
//! bundled ones, or the user's: every `npu_kernel!` of a Rust file, a `.npu` kernel
//! file, or a crate directory's `src/`.
//!
//! Subcommands name what a run does; with none, `autotune [OPTIONS] [SOURCE]...` tunes,
//! as `autotune tune` does.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod args;
mod calibrate;
mod draft;
mod draft_eval;
mod draft_eval_args;
mod fault;
mod llm_args;
mod merge;
mod problems;
mod progress;
mod shard_args;
mod shard_draft;
mod shard_tune;
mod tune;

use args::TuneArgs;

const TUNE_EXAMPLES: &str = "Examples:
  autotune                                   tune every bundled kernel offline
  autotune src/kernels.rs --kernel vmla      a kernel of your own crate
  autotune my_kernel.npu --write-variants kernels/my_kernel.variants.npu
  autotune --kernel vmla --rounds 5          one kernel, fewer rounds
  autotune --list                            the bundled kernels
  NPU_LLM_URL=http://127.0.0.1:8766/v1 autotune --generator llm --record llm.json
  autotune --generator replay --replay llm.json
  autotune --resume                          continue an interrupted run
  autotune tune --kernel rowsum              the same, with the subcommand named";

/// Tune NPU kernel schedules: generate → check → simulate → feedback, in rounds.
#[derive(Debug, Parser)]
#[command(
    version,
    args_conflicts_with_subcommands = true,
    after_help = TUNE_EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand: the options of `autotune tune`.
    #[command(flatten)]
    tune: TuneArgs,
}

const DRAFT_EXAMPLES: &str = "Examples:
  NPU_LLM_URL=http://127.0.0.1:8766/v1 autotune draft softmax.npu --examples softmax.json
  autotune draft src/kernels.rs --kernel softmax --rounds 3 --candidates 4
  autotune draft softmax.npu --generator replay --replay drafts.json
The kernel has a doc comment saying what it computes, its signature, its target and an
empty body `{}`; the first body that checks and matches every example is written into
it, and the rest of the file is kept byte for byte.";

#[derive(Debug, Subcommand)]
enum Command {
    /// Tune kernels' schedules (what `autotune` does with no subcommand).
    #[command(after_help = TUNE_EXAMPLES)]
    Tune(TuneArgs),
    /// Write a kernel's body from its description with a model, checked against examples.
    #[command(after_help = DRAFT_EXAMPLES)]
    Draft(draft::DraftArgs),
    /// Measure drafting on the frozen evaluation set (npu-tune/eval): Comp@1, Pass@1
    /// and Pass@(R×K) per category, under each prompt variant.
    #[command(name = "draft-eval", after_help = DRAFT_EVAL_EXAMPLES)]
    DraftEval(draft_eval::DraftEvalArgs),
    /// Fit a target's constants to profiler files (msprof's op_summary or
    /// PipeUtilization, AIE cycles) and write the calibrated target with a report.
    #[command(after_help = CALIBRATE_EXAMPLES)]
    Calibrate(calibrate::CalibrateArgs),
    /// Join the outputs of a campaign's shards (`--shard I/N`) into the whole run's.
    #[command(after_help = MERGE_EXAMPLES)]
    Merge(merge::MergeArgs),
}

const CALIBRATE_EXAMPLES: &str = "Examples:
  autotune --profile-out sim.csv --emit ascend-c kernels/   simulated profile of the tuned kernels
  autotune calibrate --target ascend910b --op-summary op_summary_0_1.csv --out my_910b.toml
  autotune calibrate --target aie2_tile --aie-cycles cycles.txt --out my_aie.toml";

const MERGE_EXAMPLES: &str = "Examples:
  autotune --all --suite-table suite.md --shard 2/3     one of three shards (as 1/3 and 3/3)
  autotune merge target/autotune/shard-*-of-3           the reports and suite.md of the whole run
  autotune draft-eval --table drafts.md --shard 1/2 ... (and 2/2), then:
  autotune merge drafts.shard-*-of-2";

const DRAFT_EVAL_EXAMPLES: &str = "Examples:
  NPU_LLM_URL=http://127.0.0.1:8766/v1 autotune draft-eval --record drafts.json --table table.md
  autotune draft-eval --only fresh --variants full --rounds 1 --candidates 2
  autotune draft-eval --generator replay --replay npu-tune/tests/fixtures/draft-eval-qwen2.5-coder-1.5b.json";

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Tune(args)) => tune::tune(&args),
        Some(Command::Draft(args)) => draft::run(&args),
        Some(Command::DraftEval(args)) => draft_eval::run(&args),
        Some(Command::Calibrate(args)) => calibrate::run(&args),
        Some(Command::Merge(args)) => merge::run(&args),
        None => tune::tune(&cli.tune),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Diagnostics carry their own `error[CODE]` heading after their position.
            match message
                .lines()
                .next()
                .is_some_and(|l| l.contains(": error[E"))
            {
                true => eprintln!("{message}"),
                false => eprintln!("error: {message}"),
            }
            ExitCode::FAILURE
        }
    }
}
