//! `autotune merge SHARD...`: joins the outputs of a campaign's shards into exactly
//! what the whole run writes, after checking (`npu_tune::shard::join`) that they are
//! one campaign: the same command, settings, kernels and targets, every unit run by
//! exactly one of them.
//!
//! Tuning shards give the reports (`KERNEL.{json,md,svg}`, traces), the suite table
//! and its `.json`, the emitted sources and the table printed at the end; `draft-eval`
//! shards give the table and its scores; both give the model's replies recorded with
//! `--record`, joined in run order. Each kernel's `mean_round_seconds` (and the
//! "Mean round time" of its `KERNEL.md`, the time column of the printed table) is the
//! one wall-clock figure: it is kept as the shard that tuned the kernel measured it.

use std::path::{Path, PathBuf};

use npu_tune::draft::scoreboard::{Budget, Score};
use npu_tune::record::KernelResult;
use npu_tune::replay::Transcript;
use npu_tune::report;
use npu_tune::shard::{Manifest, RECORDING, draft_unit_id, join, join_transcripts};
use npu_tune::suite::SuiteBudget;

mod copy;

/// What `autotune merge` takes.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The shards: each one's directory (with its `shard.json`) or manifest.
    #[arg(required = true, value_name = "SHARD")]
    shards: Vec<PathBuf>,
    /// Tuning: where the joined reports go (default: the shards' --report-dir).
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// Tuning: the suite table to write (default: the shards' --suite-table, if any).
    #[arg(long, value_name = "FILE")]
    suite_table: Option<PathBuf>,
    /// Tuning: where the emitted sources go (default: the shards' --emit DIR, if any).
    #[arg(long, value_name = "DIR")]
    emit_dir: Option<PathBuf>,
    /// draft-eval: the table to write, and its scores beside it (default: the shards'
    /// --table).
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// The model's replies of every shard as one recording (default: the shards'
    /// --record FILE, if they had one).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

/// A shard read back: the directory its outputs are in, and its manifest.
struct ShardOutputs {
    dir: PathBuf,
    manifest: Manifest,
}

/// Runs `autotune merge` with `args`.
pub(crate) fn run(args: &MergeArgs) -> Result<(), String> {
    let mut read = Vec::new();
    for path in &args.shards {
        read.push((path.clone(), Manifest::read(path)?));
    }
    let owners = join(&read)?;
    let shards: Vec<ShardOutputs> = read
        .into_iter()
        .map(|(path, manifest)| ShardOutputs {
            dir: match path.is_dir() {
                true => path,
                false => path.parent().unwrap_or(Path::new(".")).to_path_buf(),
            },
            manifest,
        })
        .collect();
    let tuning_outputs =
        args.report_dir.is_some() || args.suite_table.is_some() || args.emit_dir.is_some();
    let command = shards[0].manifest.command.as_str();
    let merged = match (command, tuning_outputs, args.table.is_some()) {
        ("tune", _, false) => merge_tune(args, &shards, &owners),
        ("draft-eval", false, _) => merge_draft_eval(args, &shards, &owners),
        ("tune", _, true) => Err("--table is for draft-eval shards; these are tuning shards".into()),
        ("draft-eval", true, _) => Err(
            "--report-dir, --suite-table and --emit-dir are for tuning shards; these are draft-eval shards"
                .into(),
        ),
        (other, _, _) => Err(format!("shards of `{other}` cannot be merged by this npu")),
    };
    merged?;
    merge_recording(args, &shards, &owners)
}

/// A path the shards recorded for `kind`, unless `given` overrides it.
fn output(given: Option<&PathBuf>, first: &Manifest, kind: &str) -> Option<PathBuf> {
    given
        .cloned()
        .or_else(|| first.outputs.get(kind).map(PathBuf::from))
}

/// The setting `name` as a number.
fn number<T: std::str::FromStr>(manifest: &Manifest, name: &str) -> Result<T, String> {
    manifest
        .settings
        .get(name)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("the shard manifests have no `{name}` setting"))
}

/// Tuning: every kernel's reports copied in run order, then the suite table, the
/// emitted sources and the printed table, as the whole run writes them.
fn merge_tune(args: &MergeArgs, shards: &[ShardOutputs], owners: &[usize]) -> Result<(), String> {
    let first = &shards[0].manifest;
    let out = output(args.report_dir.as_ref(), first, "report_dir")
        .ok_or("the shards name no report directory: give --report-dir DIR")?;
    let emit_dir = output(args.emit_dir.as_ref(), first, "emit_dir");
    let mut results = Vec::new();
    for (unit, &owner) in first.units.iter().zip(owners) {
        let from = &shards[owner].dir;
        let kernel = &unit.id;
        copy::reports(from, &out, kernel)?;
        if let Some(emit_dir) = &emit_dir {
            copy::tree(&from.join("emit").join(kernel), &emit_dir.join(kernel))?;
        }
        results.push(read_result(&out.join(format!("{kernel}.json")))?);
    }
    if let Some(path) = output(args.suite_table.as_ref(), first, "suite_table") {
        let budget = SuiteBudget {
            rounds: number(first, "rounds")?,
            candidates: number(first, "candidates")?,
            seed: number(first, "seed")?,
        };
        crate::tune::write_suite_table(&path, budget, &results)?;
    }
    println!("{}", report::render_table(&results));
    println!("reports: {}", out.display());
    Ok(())
}

fn read_result(path: &Path) -> Result<KernelResult, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a kernel report: {e}", path.display()))
}

/// `draft-eval`: every unit's score in run order, then the table and its scores.
fn merge_draft_eval(
    args: &MergeArgs,
    shards: &[ShardOutputs],
    owners: &[usize],
) -> Result<(), String> {
    let first = &shards[0].manifest;
    let table_path = output(args.table.as_ref(), first, "table")
        .ok_or("the shards name no table: give --table FILE")?;
    let recorded = first
        .outputs
        .get("table")
        .map(PathBuf::from)
        .unwrap_or_default();
    let scores_name = recorded.with_extension("json");
    let scores_name = scores_name.file_name().unwrap_or_default();
    let mut per_shard = Vec::new();
    for shard in shards {
        per_shard.push(read_scores(&shard.dir.join(scores_name))?);
    }
    let mut scores = Vec::new();
    for (unit, &owner) in first.units.iter().zip(owners) {
        let score = per_shard[owner]
            .iter()
            .find(|s| draft_unit_id(s.variant, &s.kernel) == unit.id)
            .ok_or_else(|| {
                format!(
                    "{} ran `{}` but its scores lack it",
                    shards[owner].dir.display(),
                    unit.id
                )
            })?;
        scores.push(score.clone());
    }
    let budget = Budget {
        rounds: number(first, "rounds")?,
        candidates: number(first, "candidates")?,
    };
    let table = npu_tune::draft::scoreboard::table(&scores, budget);
    print!("{table}");
    crate::draft_eval::write_table(Some(&table_path), &table, &scores)
}

fn read_scores(path: &Path) -> Result<Vec<Score>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a draft-eval score file: {e}", path.display()))
}

/// The shards' recordings of the model's replies joined, in run order, when the shards
/// recorded (`--record FILE`) or `--record` asks.
fn merge_recording(
    args: &MergeArgs,
    shards: &[ShardOutputs],
    owners: &[usize],
) -> Result<(), String> {
    let first = &shards[0].manifest;
    let Some(path) = output(args.record.as_ref(), first, "record") else {
        return Ok(());
    };
    let mut transcripts = Vec::new();
    for shard in shards {
        let recording = shard.dir.join(RECORDING);
        transcripts.push(Transcript::load(&recording).map_err(|e| e.to_string())?);
    }
    let joined = join_transcripts(&first.units, owners, &transcripts);
    joined.save(&path).map_err(|e| e.to_string())?;
    eprintln!(
        "joined {} exchanges into {}",
        joined.exchanges.len(),
        path.display()
    );
    Ok(())
}
