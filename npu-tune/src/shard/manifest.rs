//! The shard manifest: what one shard of a campaign ran, under which settings, so that
//! `autotune merge` can tell a whole campaign from shards that do not belong together.
//!
//! `shard.json` is pretty JSON, written atomically once the shard's outputs are all
//! written: a shard without one did not finish (run it again with `--resume`). It holds
//!
//! - `format`: [`FORMAT`]; `command`: `tune` or `draft-eval`;
//! - `shard`: `I/N`, counted from 1;
//! - `settings`: every setting the results depend on, by name (rounds, seed, generator,
//!   model, npu's and the simulator's model versions, ...), and `fingerprint`, the
//!   FNV-1a hash of them;
//! - `units`: every unit of the whole campaign in run order, each with a content hash
//!   (a kernel's text and its target's figures), so shards of other kernels or
//!   targets are told apart;
//! - `ran`: the ids of the units this shard ran;
//! - `outputs`: where the joined outputs go by default (the paths the shards were
//!   given, relative to where they ran).

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Shard;
use crate::atomic::write_atomic;
use crate::journal::content_hash;

/// The manifest's file name in a shard's output directory.
pub const FILE_NAME: &str = "shard.json";

/// The manifest format this npu writes and reads.
pub const FORMAT: u32 = 1;

/// One unit of work of a campaign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    /// The unit's name, which decides its shard: the kernel's name for tuning,
    /// `variant/kernel` for `draft-eval`.
    pub id: String,
    /// A hash of what the unit works on (the kernel's text, its target's figures).
    pub content: String,
}

/// What one shard ran: see the module doc for each field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: u32,
    /// `tune` or `draft-eval`.
    pub command: String,
    /// Which shard this is.
    pub shard: Shard,
    /// [`content_hash`] of `settings` as JSON.
    pub fingerprint: String,
    /// Every setting the results depend on, by name.
    pub settings: BTreeMap<String, String>,
    /// Where the joined outputs go by default, by kind (`report_dir`, `table`, ...).
    pub outputs: BTreeMap<String, String>,
    /// Every unit of the campaign, in run order.
    pub units: Vec<Unit>,
    /// The ids of the units this shard ran, in run order.
    pub ran: Vec<String>,
}

impl Manifest {
    /// The manifest of `shard` of the campaign `units`: it ran the units it owns.
    pub fn new(
        command: &str,
        shard: Shard,
        settings: BTreeMap<String, String>,
        outputs: BTreeMap<String, String>,
        units: Vec<Unit>,
    ) -> Manifest {
        let ran = units
            .iter()
            .filter(|u| shard.owns(&u.id))
            .map(|u| u.id.clone())
            .collect();
        Manifest {
            format: FORMAT,
            command: command.to_string(),
            shard,
            fingerprint: fingerprint(&settings),
            settings,
            outputs,
            units,
            ran,
        }
    }

    /// Writes `DIR/shard.json` atomically; returns its path.
    pub fn write(&self, dir: &Path) -> io::Result<PathBuf> {
        let path = dir.join(FILE_NAME);
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)? + "\n";
        write_atomic(&path, text.as_bytes())?;
        Ok(path)
    }

    /// Removes `DIR/shard.json`, if there is one: a shard starting (afresh or resumed)
    /// is unfinished until it writes its manifest again, so an earlier run's manifest
    /// must not make its half-written outputs look whole.
    pub fn remove(dir: &Path) -> io::Result<()> {
        match std::fs::remove_file(dir.join(FILE_NAME)) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    /// Reads the manifest at `path`: a shard's directory (its `shard.json`) or the file.
    pub fn read(path: &Path) -> Result<Manifest, String> {
        let file = match path.is_dir() {
            true => path.join(FILE_NAME),
            false => path.to_path_buf(),
        };
        let text = std::fs::read_to_string(&file).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => format!(
                "{}: no shard manifest; did the shard finish? (run it again with --resume)",
                file.display()
            ),
            _ => format!("cannot read {}: {e}", file.display()),
        })?;
        let manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a shard manifest: {e}", file.display()))?;
        if manifest.format != FORMAT {
            return Err(format!(
                "{}: manifest format {} (this npu reads {FORMAT})",
                file.display(),
                manifest.format
            ));
        }
        if manifest.fingerprint != fingerprint(&manifest.settings) {
            return Err(format!(
                "{}: the fingerprint does not match the settings (edited by hand?)",
                file.display()
            ));
        }
        Ok(manifest)
    }
}

/// [`content_hash`] of `settings` as JSON (a sorted map: the same text on every run).
fn fingerprint(settings: &BTreeMap<String, String>) -> String {
    // A map of strings always serialises.
    content_hash(&serde_json::to_vec(settings).unwrap_or_default())
}

/// Checks that `shards` (each with where it was read from) are one whole campaign:
/// one command, the same settings and units, the same N, each unit run exactly once.
/// Returns, for each unit of the campaign in run order, the position in `shards` of
/// the shard that ran it.
pub fn join(shards: &[(PathBuf, Manifest)]) -> Result<Vec<usize>, String> {
    let Some((first_path, first)) = shards.first() else {
        return Err("no shards to merge".into());
    };
    for (path, manifest) in &shards[1..] {
        same_campaign((first_path, first), (path, manifest))?;
    }
    for (path, manifest) in shards {
        ran_what_it_owns(path, manifest)?;
    }
    owners(shards)
}

/// An error naming what differs between two shards' campaigns.
fn same_campaign(a: (&PathBuf, &Manifest), b: (&PathBuf, &Manifest)) -> Result<(), String> {
    let ((path_a, a), (path_b, b)) = (a, b);
    let (shown_a, shown_b) = (path_a.display(), path_b.display());
    if a.command != b.command {
        return Err(format!(
            "{shown_a} is a `{}` shard and {shown_b} a `{}` shard",
            a.command, b.command
        ));
    }
    if let Some(name) = differing_key(&a.settings, &b.settings) {
        let value = |m: &Manifest| m.settings.get(name).cloned().unwrap_or("(unset)".into());
        return Err(format!(
            "{shown_a} and {shown_b} ran with different settings: {name} is `{}` and `{}`",
            value(a),
            value(b)
        ));
    }
    if let Some(message) = units_differ(&a.units, &b.units) {
        return Err(format!(
            "{shown_a} and {shown_b} are shards of different campaigns: {message}"
        ));
    }
    if a.shard.count() != b.shard.count() {
        return Err(format!(
            "{shown_a} is shard {} and {shown_b} shard {}: every shard of a campaign has the same N",
            a.shard, b.shard
        ));
    }
    Ok(())
}

/// The first setting (by name) that two maps give differently, if any.
fn differing_key<'a>(
    a: &'a BTreeMap<String, String>,
    b: &'a BTreeMap<String, String>,
) -> Option<&'a str> {
    a.keys()
        .chain(b.keys())
        .find(|key| a.get(*key) != b.get(*key))
        .map(String::as_str)
}

/// What differs between two campaigns' units, if anything.
fn units_differ(a: &[Unit], b: &[Unit]) -> Option<String> {
    let only = |of: &[Unit], not: &[Unit]| -> Vec<String> {
        of.iter()
            .filter(|u| !not.iter().any(|n| n.id == u.id))
            .map(|u| u.id.clone())
            .collect()
    };
    let (only_a, only_b) = (only(a, b), only(b, a));
    if !only_a.is_empty() || !only_b.is_empty() {
        return Some(format!(
            "units only in the first: [{}]; only in the second: [{}]",
            only_a.join(", "),
            only_b.join(", ")
        ));
    }
    if let Some(unit) = a.iter().find(|u| !b.contains(u)) {
        return Some(format!(
            "`{}` differs (its kernel's text or its target's figures changed)",
            unit.id
        ));
    }
    (a != b).then(|| "the units are in another order".to_string())
}

/// An error unless `manifest` ran exactly the units its shard owns.
fn ran_what_it_owns(path: &Path, manifest: &Manifest) -> Result<(), String> {
    let owned: Vec<&str> = manifest
        .units
        .iter()
        .filter(|u| manifest.shard.owns(&u.id))
        .map(|u| u.id.as_str())
        .collect();
    match owned == manifest.ran {
        true => Ok(()),
        false => Err(format!(
            "{}: shard {} lists the units [{}] as run, but owns [{}]",
            path.display(),
            manifest.shard,
            manifest.ran.join(", "),
            owned.join(", ")
        )),
    }
}

/// For each unit, the one shard that ran it; duplicate and missing units named.
fn owners(shards: &[(PathBuf, Manifest)]) -> Result<Vec<usize>, String> {
    let units = &shards[0].1.units;
    let mut owners = Vec::with_capacity(units.len());
    let mut missing = Vec::new();
    for unit in units {
        let ran: Vec<usize> = (0..shards.len())
            .filter(|&i| shards[i].1.ran.contains(&unit.id))
            .collect();
        match ran.as_slice() {
            [only] => owners.push(*only),
            [] => missing.push(unit),
            [first, second, ..] => {
                return Err(format!(
                    "`{}` ran in more than one shard: {} and {} (shard {} given twice?)",
                    unit.id,
                    shards[*first].0.display(),
                    shards[*second].0.display(),
                    shards[*first].1.shard
                ));
            }
        }
    }
    if missing.is_empty() {
        return Ok(owners);
    }
    let count = shards[0].1.shard.count();
    let absent: BTreeSet<u32> = missing.iter().map(|u| Shard::owner(&u.id, count)).collect();
    let absent: Vec<String> = absent.iter().map(|i| format!("{i}/{count}")).collect();
    let ids: Vec<&str> = missing.iter().map(|u| u.id.as_str()).collect();
    Err(format!(
        "units no shard given ran: [{}]; missing shards: {}",
        ids.join(", "),
        absent.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaign(shard: Shard, rounds: &str) -> (PathBuf, Manifest) {
        let settings = BTreeMap::from([("rounds".to_string(), rounds.to_string())]);
        let units = ["vmla", "softmax", "relu", "rowsum", "gelu"]
            .iter()
            .map(|id| Unit {
                id: id.to_string(),
                content: format!("fnv1a64:{id}"),
            })
            .collect();
        let manifest = Manifest::new("tune", shard, settings, BTreeMap::new(), units);
        (PathBuf::from(shard.dir_name()), manifest)
    }

    fn shards(count: u32) -> Vec<(PathBuf, Manifest)> {
        (1..=count)
            .map(|i| campaign(Shard::new(i, count).unwrap(), "2"))
            .collect()
    }

    #[test]
    fn every_unit_is_found_in_its_shard() {
        let all = shards(3);
        let owners = join(&all).unwrap();
        for (unit, owner) in all[0].1.units.iter().zip(owners) {
            assert!(all[owner].1.ran.contains(&unit.id));
        }
    }

    #[test]
    fn a_missing_shard_is_named_with_its_units() {
        let mut all = shards(3);
        let gone = all.remove(1);
        let error = join(&all).unwrap_err();
        assert!(error.contains("missing shards: 2/3"), "{error}");
        for id in &gone.1.ran {
            assert!(error.contains(id.as_str()), "{error}");
        }
    }

    #[test]
    fn a_shard_given_twice_is_refused() {
        let mut all = shards(2);
        let again = all.iter().find(|s| !s.1.ran.is_empty()).unwrap().clone();
        all.push(again);
        let error = join(&all).unwrap_err();
        assert!(error.contains("more than one shard"), "{error}");
    }

    #[test]
    fn other_settings_units_or_counts_are_refused() {
        let mut all = shards(2);
        all[1] = campaign(Shard::new(2, 2).unwrap(), "3");
        let error = join(&all).unwrap_err();
        assert!(error.contains("rounds is `2` and `3`"), "{error}");

        let mut all = shards(2);
        all[1].1.units[0].content = "fnv1a64:other".into();
        assert!(join(&all).unwrap_err().contains("`vmla` differs"));

        let mut all = shards(2);
        all[1].1.units.pop();
        assert!(
            join(&all)
                .unwrap_err()
                .contains("only in the first: [gelu]")
        );

        let all = vec![shards(2).remove(0), shards(3).remove(1)];
        assert!(join(&all).unwrap_err().contains("the same N"));
    }
}
