//! `autotune draft-eval --shard I/N`: draft only this shard's units (kernel × variant),
//! writing the shard's table, scores and manifest into its own directory beside the
//! `--table FILE`: `DIR/STEM.shard-I-of-N/` holds `STEM.md`, `STEM.json` and
//! `shard.json`. `autotune merge` joins them into FILE and its `.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::ValueEnum as _;
use npu_tune::draft::eval::EvalKernel;
use npu_tune::shard::{Manifest, RECORDING, Shard, Unit, draft_units};

use crate::draft_eval_args::DraftEvalArgs;
use crate::shard_args::{file_hash, refuse_llm_seed, versions};

/// A sharded `draft-eval` run: the shard, the whole campaign's units and settings.
pub(crate) struct DraftPlan {
    shard: Shard,
    units: Vec<Unit>,
    settings: BTreeMap<String, String>,
}

/// The plan of a run with `--shard` or `--shard-from-env`; `None` for a whole run.
pub(crate) fn plan(args: &DraftEvalArgs, set: &[EvalKernel]) -> Result<Option<DraftPlan>, String> {
    let Some(shard) = args.shard.shard()? else {
        return Ok(None);
    };
    if args.table.is_none() {
        return Err("a draft-eval shard needs --table FILE: its scores go beside it, where `autotune merge` joins them".into());
    }
    refuse_llm_seed(args.llm.llm_seed)?;
    Ok(Some(DraftPlan {
        shard,
        units: draft_units(set, &args.variants),
        settings: settings(args)?,
    }))
}

/// The directory of a shard of the table `table`: `DIR/STEM.shard-I-of-N`.
pub(crate) fn shard_dir(table: &Path, shard: Shard) -> PathBuf {
    let stem = table.file_stem().unwrap_or_default().to_string_lossy();
    table.with_file_name(format!("{stem}.{}", shard.dir_name()))
}

impl DraftPlan {
    /// The shard this run is.
    pub(crate) fn shard(&self) -> Shard {
        self.shard
    }

    /// `args` as this shard runs them: its table and its recording in its own
    /// directory.
    pub(crate) fn redirect(&self, args: &DraftEvalArgs) -> DraftEvalArgs {
        let mut own = args.clone();
        if let Some(table) = &args.table {
            let name = table.file_name().unwrap_or_default();
            let dir = shard_dir(table, self.shard);
            own.table = Some(dir.join(name));
            own.record = args.record.as_ref().map(|_| dir.join(RECORDING));
        }
        own
    }

    /// Makes the shard's directory and removes the manifest an earlier run of this
    /// shard left there, before this run writes anything.
    pub(crate) fn begin(&self, own: &DraftEvalArgs) -> Result<(), String> {
        let Some(dir) = own.table.as_deref().and_then(Path::parent) else {
            return Ok(());
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Manifest::remove(dir).map_err(|e| {
            format!(
                "cannot remove the old shard manifest in {}: {e}",
                dir.display()
            )
        })
    }

    /// Writes the manifest beside the shard's table, once the table is written.
    pub(crate) fn finish(&self, args: &DraftEvalArgs, own: &DraftEvalArgs) -> Result<(), String> {
        let (Some(table), Some(own_table)) = (&args.table, &own.table) else {
            return Ok(());
        };
        let dir = own_table.parent().unwrap_or(Path::new("."));
        let mut outputs = BTreeMap::from([("table".to_string(), table.display().to_string())]);
        if let Some(path) = &args.record {
            outputs.insert("record".into(), path.display().to_string());
        }
        let manifest = Manifest::new(
            "draft-eval",
            self.shard,
            self.settings.clone(),
            outputs,
            self.units.clone(),
        );
        let path = manifest
            .write(dir)
            .map_err(|e| format!("cannot write the shard manifest: {e}"))?;
        eprintln!(
            "shard {}: {} of {} units; manifest {}",
            self.shard,
            manifest.ran.len(),
            manifest.units.len(),
            path.display()
        );
        Ok(())
    }
}

/// Every setting a `draft-eval` run's scores depend on, by name.
fn settings(args: &DraftEvalArgs) -> Result<BTreeMap<String, String>, String> {
    let name = |value: Option<clap::builder::PossibleValue>| {
        value.map_or(String::new(), |v| v.get_name().to_string())
    };
    let variants: Vec<&str> = args.variants.iter().map(|v| v.name()).collect();
    let mut settings: BTreeMap<String, String> = versions().into_iter().collect();
    let pairs = [
        ("kernels", args.kernels.clone()),
        ("variants", variants.join(",")),
        ("only", args.only.join(",")),
        ("generator", name(args.generator.to_possible_value())),
        ("model", args.llm.model()),
        (
            "llm constrain",
            name(args.llm_constrain.to_possible_value()),
        ),
        ("rounds", args.rounds.max(1).to_string()),
        ("candidates", args.candidates.max(1).to_string()),
        ("replay", file_hash(args.replay.as_deref())?),
        (
            "idioms",
            args.idioms
                .as_ref()
                .map_or("builtin".into(), |d| d.display().to_string()),
        ),
    ];
    settings.extend(pairs.into_iter().map(|(k, v)| (k.to_string(), v)));
    Ok(settings)
}
