//! `autotune tune`: select the kernels, build the generator, run, then write what was
//! asked for (reports, traces, a variants file, the suite table, learned knowledge).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use npu_emit::Backend;
use npu_tune::atomic::write_atomic;
use npu_tune::emit::{self, emit_schedule};
use npu_tune::evaluate::Problem;
use npu_tune::generator::{self, Generator, Heuristic, Hybrid, Llm, Replay};
use npu_tune::grammar::ConstrainMode;
use npu_tune::kernels::{self, SUITE};
use npu_tune::knowledge::KnowledgeBase;
use npu_tune::knowledge::distill::distill;
use npu_tune::llm::LlmClient;
use npu_tune::record::KernelResult;
use npu_tune::replay::Transcript;
use npu_tune::report;
use npu_tune::run::{RunConfig, run};
use npu_tune::suite::{self, SuiteBudget};
use npu_tune::variants_writer::{
    self, Chosen, Provenance, best_distinct, first_hand, render, today,
};

use crate::args::{Constrain, GeneratorKind, TuneArgs};
use crate::problems::{bundled_problems, load_target, user_problems};
use crate::progress::Bars;

/// The LLM's replies as they come, when `--record` asks for them.
type Recording = Arc<Mutex<Transcript>>;

/// Runs `autotune tune` with `args`.
pub(crate) fn tune(args: &TuneArgs) -> Result<(), String> {
    if args.list {
        return list().or_else(closed_pipe);
    }
    let (problems, asked) = select(args)?;
    match crate::shard_tune::plan(args, &problems)? {
        None => tune_selected(args, problems, asked),
        Some(plan) => {
            let own = plan.redirect(args);
            plan.begin(&own)?;
            tune_selected(&own, plan.keep(problems), asked)?;
            plan.finish(args, &own)
        }
    }
}

/// Tunes `problems` and writes what `args` asks for.
fn tune_selected(
    args: &TuneArgs,
    problems: Vec<Problem>,
    asked: Option<usize>,
) -> Result<(), String> {
    let emit = emit_request(args)?;
    let recording = args
        .record
        .as_ref()
        .map(|_| Arc::new(Mutex::new(Transcript::new(args.llm.model()))));
    let (mut generator, model) = build_generator(args, recording.clone())?;
    let config = run_config(args);
    std::fs::create_dir_all(&args.report_dir)
        .map_err(|e| format!("cannot create {}: {e}", args.report_dir.display()))?;
    let progress = crate::fault::ExitAfter::from_env(Bars::default());
    let results = run(&problems, generator.as_mut(), &config, &progress);
    // Whatever happened, keep what the model said.
    if let (Some(path), Some(recording)) = (&args.record, &recording) {
        save_recording(path, recording)?;
    }
    let results = results.map_err(|e| e.to_string())?;
    write_reports(args, &problems, &results)?;
    if let (Some(path), [result], [problem]) = (
        &args.write_variants,
        results.as_slice(),
        problems.as_slice(),
    ) {
        let count = args.variants.or(asked).unwrap_or(4);
        let made_by = (generator.name(), model.as_str());
        let chosen = write_variants(path, args, made_by, problem, result, count)?;
        if let Some((backend, dir)) = &emit {
            for variant in &chosen {
                let into = dir.join(&problem.name).join(&variant.name);
                let written = emit_schedule(problem, &variant.text, *backend, &into)?;
                eprintln!(
                    "wrote variant `{}` as source to {}",
                    variant.name,
                    written.display()
                );
            }
        }
    }
    if let Some(path) = &args.suite_table {
        let budget = SuiteBudget {
            rounds: args.rounds,
            candidates: args.candidates,
            seed: args.seed,
        };
        write_suite_table(path, budget, &results)?;
    }
    if let Some(path) = &args.profile_out {
        crate::calibrate::write_profile(path, &problems, &results)?;
    }
    println!("{}", report::render_table(&results));
    println!("reports: {}", args.report_dir.display());
    if let (true, Some(dir)) = (args.learn, &args.knowledge) {
        learn(dir, &problems, &results)?;
    }
    match &emit {
        Some((backend, dir)) => emit_best(&problems, &results, *backend, dir),
        None => Ok(()),
    }
}

/// `--list`: the bundled kernels, one per line.
fn list() -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    for bundled in kernels::all() {
        let default = SUITE.iter().any(|b| b.name == bundled.name);
        writeln!(
            out,
            "{} ({}, {}){}",
            bundled.name,
            bundled.category.name(),
            (bundled.kernel)().target.name,
            if default { ", default" } else { "" }
        )?;
    }
    Ok(())
}

/// A reader that stopped reading (`autotune --list | head`) ends the listing quietly;
/// any other write error is an error.
fn closed_pipe(error: std::io::Error) -> Result<(), String> {
    match error.kind() {
        std::io::ErrorKind::BrokenPipe => Ok(()),
        _ => Err(format!("cannot write to stdout: {error}")),
    }
}

/// The problems to tune and the variants count their source asks for, after every
/// check that can refuse the run before it costs anything.
fn select(args: &TuneArgs) -> Result<(Vec<Problem>, Option<usize>), String> {
    if args.candidates == 0 {
        return Err("--candidates must be at least 1".into());
    }
    let target = match &args.target {
        None => None,
        Some(name) => Some(load_target(name)?),
    };
    let (problems, asked) = if args.sources.is_empty() {
        (bundled_problems(args, target.as_ref())?, None)
    } else {
        user_problems(args, target.as_ref())?
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
    Ok((problems, asked))
}

/// The generator `--generator` names, and the model name the reports record.
fn build_generator(
    args: &TuneArgs,
    recording: Option<Recording>,
) -> Result<(Box<dyn Generator>, String), String> {
    // The knowledge the LLM's prompts and the heuristic's edits draw on.
    let knowledge = match (&args.knowledge, args.no_knowledge) {
        (_, true) => None,
        (Some(dir), false) => Some(KnowledgeBase::load(dir).map_err(|e| e.to_string())?),
        (None, false) => Some(KnowledgeBase::builtin()),
    };
    let heuristic = Heuristic::with_knowledge(knowledge.clone());
    let none = "none".to_string();
    Ok(match args.generator {
        GeneratorKind::Heuristic => (Box::new(heuristic), none),
        GeneratorKind::Random => (Box::new(generator::Random), none),
        GeneratorKind::Grid => (Box::new(generator::Grid), none),
        GeneratorKind::Replay => {
            let path = args
                .replay
                .as_ref()
                .ok_or("--generator replay needs --replay FILE")?;
            let transcript = Transcript::load(path).map_err(|e| e.to_string())?;
            (Box::new(Replay::new(transcript)), none)
        }
        GeneratorKind::Llm | GeneratorKind::LlmHeuristic => {
            let config = args.llm.config("the llm generator")?;
            let model = config.model.clone();
            let mut llm = Llm::constrained(
                LlmClient::new(config),
                recording,
                constrain_mode(args.llm_constrain),
                args.llm_explore,
            );
            llm.knowledge = knowledge;
            if args.generator == GeneratorKind::LlmHeuristic {
                let mut hybrid = Hybrid::new(llm, 0.25);
                hybrid.heuristic = heuristic;
                (Box::new(hybrid), model)
            } else {
                (Box::new(llm), model)
            }
        }
    })
}

pub(crate) fn constrain_mode(constrain: Constrain) -> ConstrainMode {
    match constrain {
        Constrain::Auto => ConstrainMode::Auto,
        Constrain::Gbnf => ConstrainMode::Gbnf,
        Constrain::JsonSchema => ConstrainMode::JsonSchema,
        Constrain::None => ConstrainMode::None,
    }
}

fn run_config(args: &TuneArgs) -> RunConfig {
    let baselines = !args.no_baselines
        && !matches!(args.generator, GeneratorKind::Random | GeneratorKind::Grid);
    RunConfig {
        rounds: args.rounds,
        candidates: args.candidates,
        seed: args.seed,
        jobs: args.jobs,
        report_dir: args.report_dir.clone(),
        resume: args.resume,
        baselines,
        verify: args.verify.policy(),
    }
}

fn save_recording(path: &Path, recording: &Recording) -> Result<(), String> {
    let Ok(transcript) = recording.lock() else {
        return Ok(());
    };
    transcript.save(path).map_err(|e| e.to_string())?;
    eprintln!(
        "recorded {} exchanges to {}",
        transcript.exchanges.len(),
        path.display()
    );
    Ok(())
}

/// Each kernel's reports, and its best schedule's trace with `--trace`.
fn write_reports(
    args: &TuneArgs,
    problems: &[Problem],
    results: &[KernelResult],
) -> Result<(), String> {
    for (result, problem) in results.iter().zip(problems) {
        report::write_reports(&args.report_dir, result)
            .map_err(|e| format!("cannot write reports to {}: {e}", args.report_dir.display()))?;
        if args.trace {
            write_trace(&args.report_dir, result, problem)?;
        }
    }
    Ok(())
}

/// `--emit BACKEND DIR`, checked before the run.
fn emit_request(args: &TuneArgs) -> Result<Option<(Backend, PathBuf)>, String> {
    match args.emit.as_deref() {
        None => Ok(None),
        Some([name, dir]) => Ok(Some((emit::backend(name)?, PathBuf::from(dir)))),
        Some(_) => Err("--emit takes a backend and a directory: --emit ascend-c DIR".into()),
    }
}

/// Each kernel's fastest correct schedule that the backend can write, as source in
/// DIR/KERNEL/ (a faster one it cannot write is named with the reason); every kernel
/// with none is named, after the others are written.
fn emit_best(
    problems: &[Problem],
    results: &[KernelResult],
    backend: Backend,
    dir: &Path,
) -> Result<(), String> {
    let mut refused = Vec::new();
    for (result, problem) in results.iter().zip(problems) {
        let out = dir.join(&problem.name);
        match emit::emit_fastest(problem, result, backend, &out) {
            Ok((written, passed)) => {
                for (faster, why) in passed {
                    eprintln!(
                        "`{}`: the faster schedule ({}, {} cycles) cannot be written: {why}",
                        problem.name, faster.origin, faster.cycles
                    );
                }
                eprintln!(
                    "wrote `{}` ({}, {} cycles) as source to {}",
                    problem.name,
                    written.origin,
                    written.cycles,
                    out.display()
                );
            }
            Err(why) => refused.push(format!("{}: {why}", problem.name)),
        }
    }
    match refused.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "--emit: {} of {} kernels not written:\n  {}",
            refused.len(),
            problems.len(),
            refused.join("\n  ")
        )),
    }
}

/// Writes the best distinct schedules of `result` as a variants file; `made_by` is
/// the generator's and the model's name. Returns the variants written.
fn write_variants(
    path: &Path,
    args: &TuneArgs,
    made_by: (&str, &str),
    problem: &Problem,
    result: &KernelResult,
    count: usize,
) -> Result<Vec<Chosen>, String> {
    let chosen = best_distinct(problem, result, count);
    if chosen.is_empty() {
        return Err(format!(
            "--write-variants: the run found no correct schedule for `{}`; {} left as it was",
            problem.name,
            path.display()
        ));
    }
    let provenance = Provenance {
        generator: made_by.0.to_string(),
        model: made_by.1.to_string(),
        rounds: args.rounds,
        candidates: args.candidates,
        seed: args.seed,
        date: today(std::env::var("SOURCE_DATE_EPOCH").ok().as_deref()),
    };
    let text = render(problem, &provenance, first_hand(problem, result), &chosen);
    // Asked again: the file may have changed during the run.
    let keep_original = variants_destination(path, problem)?;
    let original = variants_writer::write(path, &text, keep_original)
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
    Ok(chosen)
}

/// The variants writers' one rule ([`variants_writer::destination`]) for `path`: whether it
/// may be written and its old text is to be kept, or the error.
fn variants_destination(path: &Path, problem: &Problem) -> Result<bool, String> {
    let regenerate = variants_writer::regeneration_requested(
        std::env::var("NPU_REGEN_VARIANTS").ok().as_deref(),
        &problem.name,
    );
    let hash = variants_writer::kernel_hash(problem);
    variants_writer::destination(path, &problem.name, &hash, regenerate)
        .map_err(|why| format!("--write-variants: {why}"))
}

/// `--suite-table FILE`: the table, and its data beside it as FILE's `.json`.
pub(crate) fn write_suite_table(
    path: &Path,
    budget: SuiteBudget,
    results: &[KernelResult],
) -> Result<(), String> {
    let rows = suite::rows(&kernels::all(), results);
    let page = suite::render(&rows, &budget);
    let data = suite::SuiteFile {
        rounds: budget.rounds,
        candidates: budget.candidates,
        seed: budget.seed,
        rows,
    };
    let json = path.with_extension("json");
    let text = serde_json::to_string_pretty(&data).map_err(|e| e.to_string())? + "\n";
    for (file, bytes) in [(json.as_path(), text.as_bytes()), (path, page.as_bytes())] {
        write_atomic(file, bytes).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    eprintln!(
        "wrote the suite table to {} and its data to {}",
        path.display(),
        json.display()
    );
    Ok(())
}

/// `--learn`: what the run measured, distilled into the knowledge directory.
fn learn(dir: &Path, problems: &[Problem], results: &[KernelResult]) -> Result<(), String> {
    let mut base = KnowledgeBase::load(dir).map_err(|e| e.to_string())?;
    for (result, problem) in results.iter().zip(problems) {
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
    Ok(())
}

/// Simulates the best schedule again with tracing on and writes `KERNEL.trace.json`.
fn write_trace(dir: &Path, result: &KernelResult, problem: &Problem) -> Result<(), String> {
    let Some(best) = &result.best else {
        return Ok(());
    };
    let checked = problem.check(&best.source).map_err(|r| r.render())?;
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
