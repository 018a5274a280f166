//! `autotune tune --shard I/N`: tune only this shard's kernels, each shard in its own
//! directory `REPORT_DIR/shard-I-of-N/` (its reports, its journal, its emitted sources
//! under `emit/`), and leave the manifest `autotune merge` joins the shards by.

use std::collections::BTreeMap;
use std::path::Path;

use clap::ValueEnum as _;
use npu_tune::evaluate::Problem;
use npu_tune::shard::{Manifest, RECORDING, Shard, Unit, tune_units};

use crate::args::TuneArgs;
use crate::shard_args::{file_hash, refuse_llm_seed, versions};

/// A sharded tuning run: the shard, the whole campaign's units and settings.
pub(crate) struct TunePlan {
    shard: Shard,
    units: Vec<Unit>,
    settings: BTreeMap<String, String>,
}

/// The plan of a run with `--shard` or `--shard-from-env`; `None` for a whole run.
pub(crate) fn plan(args: &TuneArgs, problems: &[Problem]) -> Result<Option<TunePlan>, String> {
    let Some(shard) = args.shard.shard()? else {
        return Ok(None);
    };
    if args.write_variants.is_some() {
        return Err(
            "--write-variants tunes one kernel, which is one unit of work: run it without --shard"
                .into(),
        );
    }
    if args.learn {
        return Err("--learn distils every kernel of the run in turn into one knowledge base: run it on the merged run, without --shard".into());
    }
    refuse_llm_seed(args.llm.llm_seed)?;
    Ok(Some(TunePlan {
        shard,
        units: tune_units(problems),
        settings: settings(args)?,
    }))
}

impl TunePlan {
    /// `args` as this shard runs them: its own report directory, its emitted sources
    /// and its recording inside it, and no suite table (the merge writes it).
    pub(crate) fn redirect(&self, args: &TuneArgs) -> TuneArgs {
        let mut own = args.clone();
        own.report_dir = args.report_dir.join(self.shard.dir_name());
        own.suite_table = None;
        if let Some([backend, _]) = args.emit.as_deref() {
            let dir = own.report_dir.join("emit");
            own.emit = Some(vec![backend.clone(), dir.display().to_string()]);
        }
        own.record = args.record.as_ref().map(|_| own.report_dir.join(RECORDING));
        own
    }

    /// Removes the manifest an earlier run of this shard left in `own`'s directory,
    /// before this run writes anything there.
    pub(crate) fn begin(&self, own: &TuneArgs) -> Result<(), String> {
        Manifest::remove(&own.report_dir).map_err(|e| {
            format!(
                "cannot remove the old shard manifest in {}: {e}",
                own.report_dir.display()
            )
        })
    }

    /// The problems this shard tunes, in run order.
    pub(crate) fn keep(&self, problems: Vec<Problem>) -> Vec<Problem> {
        problems
            .into_iter()
            .filter(|p| self.shard.owns(&p.name))
            .collect()
    }

    /// Writes the manifest into the shard's directory, once its outputs are written.
    pub(crate) fn finish(&self, args: &TuneArgs, own: &TuneArgs) -> Result<(), String> {
        let mut outputs = BTreeMap::new();
        outputs.insert("report_dir".into(), shown(&args.report_dir));
        if let Some(path) = &args.suite_table {
            outputs.insert("suite_table".into(), shown(path));
        }
        if let Some([_, dir]) = args.emit.as_deref() {
            outputs.insert("emit_dir".into(), dir.clone());
        }
        if let Some(path) = &args.record {
            outputs.insert("record".into(), shown(path));
        }
        let manifest = Manifest::new(
            "tune",
            self.shard,
            self.settings.clone(),
            outputs,
            self.units.clone(),
        );
        std::fs::create_dir_all(&own.report_dir)
            .map_err(|e| format!("cannot create {}: {e}", own.report_dir.display()))?;
        let path = manifest
            .write(&own.report_dir)
            .map_err(|e| format!("cannot write the shard manifest: {e}"))?;
        eprintln!(
            "shard {}: {} of {} kernels; manifest {}",
            self.shard,
            manifest.ran.len(),
            manifest.units.len(),
            path.display()
        );
        Ok(())
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Every setting a tuning run's results depend on, by name.
fn settings(args: &TuneArgs) -> Result<BTreeMap<String, String>, String> {
    let name = |value: Option<clap::builder::PossibleValue>| {
        value.map_or(String::new(), |v| v.get_name().to_string())
    };
    let knowledge = match (&args.knowledge, args.no_knowledge) {
        (_, true) => "none".to_string(),
        (Some(dir), false) => shown(dir),
        (None, false) => "builtin".to_string(),
    };
    let mut settings: BTreeMap<String, String> = versions().into_iter().collect();
    let pairs = [
        ("generator", name(args.generator.to_possible_value())),
        ("model", args.llm.model()),
        (
            "llm constrain",
            name(args.llm_constrain.to_possible_value()),
        ),
        ("llm explore", args.llm_explore.to_string()),
        (
            "target",
            args.target.clone().unwrap_or("each kernel's own".into()),
        ),
        ("rounds", args.rounds.to_string()),
        ("candidates", args.candidates.to_string()),
        ("seed", args.seed.to_string()),
        ("baselines", (!args.no_baselines).to_string()),
        ("verify", name(args.verify.to_possible_value())),
        ("knowledge", knowledge),
        ("replay", file_hash(args.replay.as_deref())?),
        ("trace", args.trace.to_string()),
        (
            "emit",
            args.emit.as_ref().map_or("none".into(), |e| e[0].clone()),
        ),
        ("suite table", args.suite_table.is_some().to_string()),
    ];
    settings.extend(pairs.into_iter().map(|(k, v)| (k.to_string(), v)));
    Ok(settings)
}
