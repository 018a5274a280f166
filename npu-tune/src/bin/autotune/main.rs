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
mod problems;
mod progress;
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

#[derive(Debug, Subcommand)]
enum Command {
    /// Tune kernels' schedules (what `autotune` does with no subcommand).
    #[command(after_help = TUNE_EXAMPLES)]
    Tune(TuneArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Tune(args)) => tune::tune(&args),
        None => tune::tune(&cli.tune),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
