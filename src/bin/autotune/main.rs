//! `autotune`: tune kernels' schedules with a generator in the loop, against the hand
//! schedules and random and grid search with the same budget. The kernels are the
//! bundled ones, or the user's: every `npu_kernel!` of a Rust file, a `.npu` kernel
//! file, or a crate directory's `src/`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{Parser, ValueEnum};

mod problems;

use indicatif::{ProgressBar, ProgressStyle};
use problems::{bundled_problems, load_target, user_problems};

use npu::kernels::{self, SUITE};
use npu::tuner::atomic::write_atomic;
use npu::tuner::evaluate::Problem;
use npu::tuner::generator::{Generator, Heuristic, Hybrid, Llm, Replay};
use npu::tuner::grammar::ConstrainMode;
use npu::tuner::knowledge::KnowledgeBase;
use npu::tuner::knowledge::distill::distill;
use npu::tuner::llm::{LlmClient, LlmConfig};
use npu::tuner::record::{CandidateRecord, KernelResult};
use npu::tuner::replay::Transcript;
use npu::tuner::run::{Progress, RunConfig, Verify, run};
use npu::tuner::suite::{self, SuiteBudget};
use npu::tuner::variants::{self, Provenance, best_distinct, first_hand, render, today};
use npu::tuner::{generator, report};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GeneratorKind {
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

/// How LLM replies are constrained (see `npu::tuner::grammar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Constrain {
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
enum VerifyArg {
    /// Those entering the best three as they are evaluated, and every best reported.
    Best,
    /// Every candidate (slower: each is simulated on data).
    All,
}

impl VerifyArg {
    fn policy(self) -> Verify {
        match self {
            VerifyArg::Best => Verify::Best(3),
            VerifyArg::All => Verify::All,
        }
    }
}

/// Tune NPU kernel schedules: generate → check → simulate → feedback, in rounds.
#[derive(Debug, Parser)]
#[command(
    version,
    after_help = "Examples:
  autotune                                   tune every bundled kernel offline
  autotune src/kernels.rs --kernel vmla      a kernel of your own crate
  autotune my_kernel.npu --write-variants kernels/my_kernel.variants.npu
  autotune --kernel vmla --rounds 5          one kernel, fewer rounds
  autotune --list                            the bundled kernels
  NPU_LLM_URL=http://127.0.0.1:8766/v1 autotune --generator llm --record llm.json
  autotune --generator replay --replay llm.json
  autotune --resume                          continue an interrupted run"
)]
struct Args {
    /// Where your kernels are: a Rust file (its `npu_kernel!` blocks), a `.npu` kernel
    /// file or a crate directory (its `src/`). Default: the bundled kernels.
    #[arg(value_name = "SOURCE")]
    sources: Vec<PathBuf>,
    /// Kernels to tune (default: all found, or all bundled kernels). Repeatable.
    #[arg(long = "kernel", value_name = "NAME")]
    kernels: Vec<String>,
    /// Retarget every kernel: a preset name or a target TOML file.
    #[arg(long)]
    target: Option<String>,
    #[arg(long, value_enum, default_value = "heuristic")]
    generator: GeneratorKind,
    #[arg(long, default_value_t = 10)]
    rounds: u32,
    /// Candidates per round.
    #[arg(long, default_value_t = 8)]
    candidates: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: every core).
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    #[arg(long, default_value = "target/autotune")]
    report_dir: PathBuf,
    /// Write a Perfetto trace of each kernel's best schedule.
    #[arg(long)]
    trace: bool,
    /// Continue the run journalled in --report-dir.
    #[arg(long)]
    resume: bool,
    /// List the bundled kernels, one per line (name, category, target, and `default`
    /// for those tuned without --all), and exit.
    #[arg(long)]
    list: bool,
    /// Tune the whole bundled suite (every category), not just the default kernels.
    #[arg(long, conflicts_with = "sources")]
    all: bool,
    /// Write the suite table (docs/suite.md's format) of the kernels tuned to FILE, and
    /// its data, with the schedule behind every number, beside it as FILE's `.json`.
    #[arg(long, value_name = "FILE")]
    suite_table: Option<PathBuf>,
    /// Skip the random and grid baselines.
    #[arg(long)]
    no_baselines: bool,
    /// Chat-completions base URL, e.g. http://127.0.0.1:8766/v1 (env NPU_LLM_URL).
    #[arg(long)]
    llm_url: Option<String>,
    /// Model name (env NPU_LLM_MODEL).
    #[arg(long)]
    llm_model: Option<String>,
    #[arg(long, default_value_t = 0.8)]
    temperature: f32,
    /// Seconds one LLM request may take.
    #[arg(long, default_value_t = 300)]
    llm_timeout: u64,
    /// Record the LLM's replies to FILE, for --generator replay.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// The transcript --generator replay reads.
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// How the LLM's replies are constrained to legal schedules.
    #[arg(long, value_enum, default_value = "auto")]
    llm_constrain: Constrain,
    /// Share of each round's LLM candidates, from the second round on, asked under the
    /// syntax grammar only, so the search can leave the enumerated space (the first
    /// round is all exact-set: Comp@1 and Pass@1 measure the constrained mode; 1 asks
    /// every candidate of every round under the syntax grammar).
    #[arg(long, default_value_t = 0.25)]
    llm_explore: f64,
    /// Read the knowledge base from DIR (default: the built-in `knowledge/` entries); it
    /// goes into the LLM's prompts and steers the heuristic's edits.
    #[arg(long, value_name = "DIR", conflicts_with = "no_knowledge")]
    knowledge: Option<PathBuf>,
    /// Leave hardware knowledge out: of the LLM's prompts and of the heuristic's edits.
    #[arg(long)]
    no_knowledge: bool,
    /// After the run, distil what it measured into --knowledge DIR: learned entries,
    /// pruned ones and an audit log (see `npu::tuner::knowledge::distill`).
    #[arg(long, requires = "knowledge")]
    learn: bool,
    /// Which candidates are simulated on data and checked against the reference; the
    /// others are simulated for their timing only.
    #[arg(long, value_enum, default_value = "best")]
    verify: VerifyArg,
    /// Write the best distinct schedules of the run to FILE as a variants file (one
    /// kernel only), as `npu::build::Variants` writes it. FILE must not exist or be a
    /// variants file of this kernel as npu wrote it; one edited by hand is replaced
    /// only with NPU_REGEN_VARIANTS=KERNEL (its old text kept as FILE.orig).
    #[arg(long, value_name = "FILE")]
    write_variants: Option<PathBuf>,
    /// How many variants --write-variants keeps (default: the kernel's `variants N`,
    /// or 4).
    #[arg(long, value_name = "K")]
    variants: Option<usize>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match main_with(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn main_with(args: Args) -> Result<(), String> {
    if args.list {
        for bundled in kernels::all() {
            let default = SUITE.iter().any(|b| b.name == bundled.name);
            println!(
                "{} ({}, {}){}",
                bundled.name,
                bundled.category.name(),
                (bundled.kernel)().target.name,
                if default { ", default" } else { "" }
            );
        }
        return Ok(());
    }
    if args.rounds == 0 || args.candidates == 0 {
        return Err("--rounds and --candidates must be at least 1".into());
    }
    let target = match &args.target {
        None => None,
        Some(name) => Some(load_target(name)?),
    };
    let (problems, asked) = if args.sources.is_empty() {
        (bundled_problems(&args, target.as_ref())?, None)
    } else {
        user_problems(&args, target.as_ref())?
    };
    if args.write_variants.is_some() && problems.len() != 1 {
        return Err(format!(
            "--write-variants writes one kernel's file, but {} kernels are selected; choose one with --kernel NAME",
            problems.len()
        ));
    }
    // Refused before the run, so that a wrong path costs nothing and touches nothing.
    if let (true, Some(dir)) = (args.learn, &args.knowledge) {
        KnowledgeBase::check_learn_into(dir).map_err(|e| format!("--learn: {e}"))?;
    }
    if let (Some(path), [problem]) = (&args.write_variants, problems.as_slice()) {
        variants_destination(path, problem)?;
    }

    let recording = args.record.as_ref().map(|_| {
        Arc::new(Mutex::new(Transcript::new(
            args.llm_model.clone().unwrap_or_default(),
        )))
    });
    let mut model = "none".to_string();
    // The knowledge the LLM's prompts and the heuristic's edits draw on.
    let knowledge = match (&args.knowledge, args.no_knowledge) {
        (_, true) => None,
        (Some(dir), false) => Some(KnowledgeBase::load(dir).map_err(|e| e.to_string())?),
        (None, false) => Some(KnowledgeBase::builtin()),
    };
    let heuristic = Heuristic::with_knowledge(knowledge.clone());
    let mut generator: Box<dyn Generator> = match args.generator {
        GeneratorKind::Heuristic => Box::new(heuristic),
        GeneratorKind::Random => Box::new(generator::Random),
        GeneratorKind::Grid => Box::new(generator::Grid),
        GeneratorKind::Llm | GeneratorKind::LlmHeuristic => {
            let mut config =
                LlmConfig::from_env().unwrap_or_else(|| LlmConfig::new(String::new(), "default"));
            if let Some(url) = &args.llm_url {
                config.base_url = url.clone();
            }
            if let Some(model) = &args.llm_model {
                config.model = model.clone();
            }
            if config.base_url.is_empty() {
                return Err("the llm generator needs an endpoint: --llm-url URL or NPU_LLM_URL (e.g. http://127.0.0.1:8766/v1)".into());
            }
            config.temperature = args.temperature;
            model = config.model.clone();
            config.timeout = Duration::from_secs(args.llm_timeout);
            let mode = match args.llm_constrain {
                Constrain::Auto => ConstrainMode::Auto,
                Constrain::Gbnf => ConstrainMode::Gbnf,
                Constrain::JsonSchema => ConstrainMode::JsonSchema,
                Constrain::None => ConstrainMode::None,
            };
            let mut llm = Llm::constrained(
                LlmClient::new(config),
                recording.clone(),
                mode,
                args.llm_explore,
            );
            llm.knowledge = knowledge;
            if args.generator == GeneratorKind::LlmHeuristic {
                let mut hybrid = Hybrid::new(llm, 0.25);
                hybrid.heuristic = heuristic;
                Box::new(hybrid)
            } else {
                Box::new(llm)
            }
        }
        GeneratorKind::Replay => {
            let path = args
                .replay
                .as_ref()
                .ok_or("--generator replay needs --replay FILE")?;
            let transcript = Transcript::load(path).map_err(|e| e.to_string())?;
            Box::new(Replay::new(transcript))
        }
    };
    let baselines = !args.no_baselines
        && !matches!(args.generator, GeneratorKind::Random | GeneratorKind::Grid);
    let config = RunConfig {
        rounds: args.rounds,
        candidates: args.candidates,
        seed: args.seed,
        jobs: args.jobs,
        report_dir: args.report_dir.clone(),
        resume: args.resume,
        baselines,
        verify: args.verify.policy(),
    };
    std::fs::create_dir_all(&args.report_dir)
        .map_err(|e| format!("cannot create {}: {e}", args.report_dir.display()))?;
    let progress = Bars::default();
    let results = run(&problems, generator.as_mut(), &config, &progress);
    // Whatever happened, keep what the model said.
    if let (Some(path), Some(recording)) = (&args.record, &recording)
        && let Ok(transcript) = recording.lock()
    {
        transcript.save(path).map_err(|e| e.to_string())?;
        eprintln!(
            "recorded {} exchanges to {}",
            transcript.exchanges.len(),
            path.display()
        );
    }
    let results = results.map_err(|e| e.to_string())?;
    for (result, problem) in results.iter().zip(&problems) {
        report::write_reports(&args.report_dir, result)
            .map_err(|e| format!("cannot write reports to {}: {e}", args.report_dir.display()))?;
        if args.trace {
            write_trace(&args.report_dir, result, problem)?;
        }
    }
    if let (Some(path), [result], [problem]) = (
        &args.write_variants,
        results.as_slice(),
        problems.as_slice(),
    ) {
        let count = args.variants.or(asked).unwrap_or(4);
        write_variants(
            path,
            &args,
            generator.name(),
            &model,
            problem,
            result,
            count,
        )?;
    }
    if let Some(path) = &args.suite_table {
        let budget = SuiteBudget {
            rounds: args.rounds,
            candidates: args.candidates,
            seed: args.seed,
        };
        let rows = suite::rows(&kernels::all(), &results);
        let page = suite::render(&rows, &budget);
        let data = suite::SuiteFile {
            rounds: budget.rounds,
            candidates: budget.candidates,
            seed: budget.seed,
            rows,
        };
        let json = path.with_extension("json");
        let text = serde_json::to_string_pretty(&data).map_err(|e| e.to_string())? + "\n";
        for (file, bytes) in [(&json, text.as_bytes()), (path, page.as_bytes())] {
            write_atomic(file, bytes)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
        eprintln!(
            "wrote the suite table to {} and its data to {}",
            path.display(),
            json.display()
        );
    }
    println!("{}", report::render_table(&results));
    println!("reports: {}", args.report_dir.display());
    if let (true, Some(dir)) = (args.learn, &args.knowledge) {
        let mut base = KnowledgeBase::load(dir).map_err(|e| e.to_string())?;
        for (result, problem) in results.iter().zip(&problems) {
            let main: Vec<_> = result
                .candidates
                .iter()
                .filter(|c| c.generator == result.generator)
                .cloned()
                .collect();
            let distilled = distill(&base, &problem.kernel, &main);
            KnowledgeBase::write_learned(dir, &distilled)
                .map_err(|e| format!("cannot write the knowledge to {}: {e}", dir.display()))?;
            for line in &distilled.audit {
                eprintln!("knowledge: {line}");
            }
            base = distilled.base;
        }
    }
    Ok(())
}

/// Writes the best distinct schedules of `result` as a variants file.
fn write_variants(
    path: &Path,
    args: &Args,
    generator: &str,
    model: &str,
    problem: &Problem,
    result: &KernelResult,
    count: usize,
) -> Result<(), String> {
    let chosen = best_distinct(problem, result, count);
    if chosen.is_empty() {
        return Err(format!(
            "--write-variants: the run found no correct schedule for `{}`; {} left as it was",
            problem.name,
            path.display()
        ));
    }
    let provenance = Provenance {
        generator: generator.to_string(),
        model: model.to_string(),
        rounds: args.rounds,
        candidates: args.candidates,
        seed: args.seed,
        date: today(std::env::var("SOURCE_DATE_EPOCH").ok().as_deref()),
    };
    let text = render(problem, &provenance, first_hand(problem, result), &chosen);
    // Asked again: the file may have changed during the run.
    let keep_original = variants_destination(path, problem)?;
    let original = variants::write(path, &text, keep_original)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "wrote {} variants of `{}` to {}",
        chosen.len(),
        problem.name,
        path.display()
    );
    if let Some(original) = original {
        eprintln!(
            "kept the old text of {} as {}",
            path.display(),
            original.display()
        );
    }
    Ok(())
}

/// The variants writers' one rule ([`variants::destination`]) for `path`: whether it
/// may be written and its old text is to be kept, or the error.
fn variants_destination(path: &Path, problem: &Problem) -> Result<bool, String> {
    let regenerate = variants::regeneration_requested(
        std::env::var("NPU_REGEN_VARIANTS").ok().as_deref(),
        &problem.name,
    );
    let hash = variants::kernel_hash(problem);
    variants::destination(path, &problem.name, &hash, regenerate)
        .map_err(|why| format!("--write-variants: {why}"))
}

/// Simulates the best schedule again with tracing on and writes `KERNEL.trace.json`.
fn write_trace(
    dir: &std::path::Path,
    result: &KernelResult,
    problem: &npu::tuner::evaluate::Problem,
) -> Result<(), String> {
    let Some(best) = &result.best else {
        return Ok(());
    };
    let checked = problem
        .check(&best.source)
        .map_err(|(d, source)| d.render(&source))?;
    let options = npu_sim::SimOptions {
        functional: false,
        trace: true,
        ..npu_sim::SimOptions::default()
    };
    let evaluation = npu_sim::evaluate(&checked, 0, &problem.inputs, None, &options)
        .map_err(|e| e.to_string())?;
    if let Some(trace) = evaluation.trace {
        let path = dir.join(format!("{}.trace.json", result.kernel));
        trace
            .write(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// One progress bar per phase, on stderr (hidden when it is not a terminal).
#[derive(Default)]
struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl Progress for Bars {
    fn start(&self, kernel: &str, generator: &str, total: u64) {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>24} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(format!("{kernel} {generator}"));
        if let Ok(mut current) = self.current.lock() {
            if let Some(previous) = current.take() {
                previous.finish();
            }
            *current = Some(bar);
        }
    }

    fn advance(&self, record: &CandidateRecord) {
        if let Ok(current) = self.current.lock()
            && let Some(bar) = current.as_ref()
        {
            bar.inc(1);
            if let Some(cycles) = record.cycles {
                bar.set_message(format!("last {cycles} cycles"));
            }
        }
    }

    fn finish(&self) {
        if let Ok(mut current) = self.current.lock()
            && let Some(bar) = current.take()
        {
            bar.finish();
        }
    }
}
