//! `autotune draft-eval`: the drafting loop on the frozen evaluation set
//! (`npu-tune/eval`), under each prompt variant, with the table of Comp@1, Pass@1 and
//! Pass@(R×K) per group.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use npu_tune::atomic::write_atomic;
use npu_tune::draft::eval::{self, EvalKernel};
use npu_tune::draft::idioms::Idiom;
use npu_tune::draft::run::BodySource;
use npu_tune::draft::scoreboard::{self, Budget, Score, Variant};
use npu_tune::replay::Transcript;
use npu_tune::shard::{Shard, draft_unit_id, draft_units};

use crate::draft::Sourcing;
pub(crate) use crate::draft_eval_args::DraftEvalArgs;
use npu_tune::grammar::ConstrainMode;

/// Runs `autotune draft-eval` with `args`.
pub(crate) fn run(args: &DraftEvalArgs) -> Result<(), String> {
    refuse_clobbering(args)?;
    let set = selected(eval::load_named(&args.set, &args.kernels)?, &args.only)?;
    match crate::shard_draft::plan(args, &set)? {
        None => evaluate(args, &set, None),
        Some(plan) => {
            let own = plan.redirect(args);
            plan.begin(&own)?;
            evaluate(&own, &set, Some(plan.shard()))?;
            plan.finish(args, &own)
        }
    }
}

/// Drafts the kernels of `set` under each variant (those of `shard` only, when it is
/// one), prints the table and writes what `args` asks for.
fn evaluate(args: &DraftEvalArgs, set: &[EvalKernel], shard: Option<Shard>) -> Result<(), String> {
    let idioms = crate::draft::load_idioms(args.idioms.as_deref())?;
    let recording = args
        .record
        .as_ref()
        .map(|_| Arc::new(Mutex::new(Transcript::new(args.llm.model()))));
    let sourcing = Sourcing {
        generator: args.generator,
        replay: args.replay.as_deref(),
        llm: &args.llm,
        recording: recording.clone(),
    };
    let budget = budget(args);
    let units: BTreeSet<String> = draft_units(set, &args.variants)
        .into_iter()
        .map(|unit| unit.id)
        .filter(|id| shard.is_none_or(|shard| shard.owns(id)))
        .collect();
    let total = units.len();
    let mut done = 0;
    let constrained = crate::tune::constrain_mode(args.llm_constrain);
    let mut source = |variant: Variant| match variant.constrained() {
        true => sourcing.source(constrained),
        false => sourcing.source(ConstrainMode::None),
    };
    let mut progress = |score: &Score| {
        done += 1;
        eprintln!("[{done}/{total}] {}", line(score));
        save(args, recording.as_ref());
    };
    let scores = score_units(
        set,
        &args.variants,
        &units,
        budget,
        &idioms,
        &mut source,
        &mut progress,
    );
    save(args, recording.as_ref());
    let scores = scores?;
    let table = scoreboard::table(&scores, budget);
    print!("{table}");
    write_table(args.table.as_deref(), &table, &scores)
}

/// Drafts the kernels of `set` whose units `units` names, under each of `variants`:
/// variant by variant, kernels in set order, as a whole run does.
fn score_units(
    set: &[EvalKernel],
    variants: &[Variant],
    units: &BTreeSet<String>,
    budget: Budget,
    idioms: &[Idiom],
    source: &mut dyn FnMut(Variant) -> Result<Box<dyn BodySource>, String>,
    progress: &mut dyn FnMut(&Score),
) -> Result<Vec<Score>, String> {
    let mut scores = Vec::new();
    for &variant in variants {
        let kernels: Vec<EvalKernel> = set
            .iter()
            .filter(|k| units.contains(&draft_unit_id(variant, &k.task.name)))
            .cloned()
            .collect();
        if !kernels.is_empty() {
            let more =
                scoreboard::score_set(&kernels, &[variant], budget, idioms, source, progress)?;
            scores.extend(more);
        }
    }
    Ok(scores)
}

/// The budget of every drafting run: `--rounds` by `--candidates`, at least 1 each.
fn budget(args: &DraftEvalArgs) -> Budget {
    Budget {
        rounds: args.rounds.max(1),
        candidates: args.candidates.max(1),
    }
}

/// An error when the scores `--table` writes would overwrite the `--record`ing: a
/// run that took hours would lose the model's replies at its last step.
fn refuse_clobbering(args: &DraftEvalArgs) -> Result<(), String> {
    let (Some(record), Some(table)) = (&args.record, &args.table) else {
        return Ok(());
    };
    let absolute = |path: &std::path::Path| std::path::absolute(path).ok();
    let scores = table.with_extension("json");
    match absolute(record) == absolute(&scores) {
        true => Err(format!(
            "--table {} writes its scores to {}, the --record file: name one of them otherwise",
            table.display(),
            scores.display()
        )),
        false => Ok(()),
    }
}

/// The kernels of `set` that `only` names (by kernel or group); all when empty.
fn selected(set: Vec<EvalKernel>, only: &[String]) -> Result<Vec<EvalKernel>, String> {
    if only.is_empty() {
        return Ok(set);
    }
    let kept: Vec<EvalKernel> = set
        .into_iter()
        .filter(|k| only.iter().any(|o| *o == k.task.name || *o == k.group))
        .collect();
    match kept.is_empty() {
        true => Err(format!(
            "--only {} names no kernel or group of the set",
            only.join(",")
        )),
        false => Ok(kept),
    }
}

/// A score as one progress line.
fn line(score: &Score) -> String {
    let stopped = match &score.stopped {
        Some(reason) => format!("  (stopped: {reason})"),
        None => String::new(),
    };
    format!(
        "{} {}: Comp@1 {:.0}%  Pass@1 {:.0}%  solved {}  rounds {}{stopped}",
        score.variant.name(),
        score.kernel,
        score.comp1 * 100.0,
        score.pass1 * 100.0,
        match (score.solved, score.solved_rewritten) {
            (true, true) => "yes (rewritten)",
            (true, false) => "yes",
            (false, _) => "no",
        },
        score.rounds
    )
}

/// Saves the recording so far, so an interrupted run keeps what the model said.
fn save(args: &DraftEvalArgs, recording: Option<&Arc<Mutex<Transcript>>>) {
    if let (Some(path), Some(recording)) = (&args.record, recording)
        && let Ok(transcript) = recording.lock()
        && let Err(error) = transcript.save(path)
    {
        eprintln!("warning: cannot save the recording: {error}");
    }
}

/// Writes the table to `path` (when given) and the scores beside it as its `.json`.
pub(crate) fn write_table(
    path: Option<&Path>,
    table: &str,
    scores: &[Score],
) -> Result<(), String> {
    let Some(path) = path else {
        return Ok(());
    };
    write_atomic(path, table.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let json = serde_json::to_string_pretty(scores).map_err(|e| e.to_string())?;
    let data = path.with_extension("json");
    write_atomic(&data, json.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", data.display()))
}
