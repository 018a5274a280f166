//! Sharded campaigns: a run's independent units of work split over N processes, each
//! run by a scheduler the team already has (a Slurm job array, a Kubernetes Indexed
//! Job), and joined again by `autotune merge` into exactly the one-run output.
//!
//! A unit is what a run does independently of the rest: one kernel on its target for
//! tuning (every generator's randomness is a function of the run's seed, the kernel and
//! the round, never of the kernels tuned before it), one evaluation kernel under one
//! prompt variant for `draft-eval`. A unit's shard is a function of its id alone
//! ([`Shard::owner`]: FNV-1a of the id, modulo N), so every unit runs exactly once
//! across the N shards, whichever machine runs which shard, and a shard may be empty.
//!
//! Shards are numbered from 1: `--shard 1/3`, `2/3`, `3/3`. The schedulers' own
//! indices are converted by [`Shard::from_env`]: Slurm's `SLURM_ARRAY_TASK_ID` counts
//! from the array's `SLURM_ARRAY_TASK_MIN` (in steps of `SLURM_ARRAY_TASK_STEP`), and
//! Kubernetes' `JOB_COMPLETION_INDEX` from 0.
//!
//! Each shard leaves a [`Manifest`] beside its outputs; [`join`] checks that a set of
//! them is one whole campaign.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod manifest;
mod transcripts;
mod units;

pub use manifest::{FILE_NAME, FORMAT, Manifest, Unit, join};
pub use transcripts::{RECORDING, join_transcripts};
pub use units::tune_units;
#[cfg(feature = "llm")]
pub use units::{draft_unit_id, draft_units};

/// One shard of N: `index` of `count`, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Shard `index` of `count`; an error unless `1 <= index <= count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, String> {
        if count == 0 {
            return Err("a campaign has at least one shard: N must be 1 or more".into());
        }
        if index == 0 || index > count {
            return Err(format!(
                "shard {index}/{count} does not exist: shards count from 1, so I is 1 to {count}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// Reads `I/N` (shards count from 1): `2/3` is the second of three.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (index, count) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not a shard: write I/N, such as 2/3"))?;
        let number = |part: &str, what: &str| {
            part.trim().parse::<u32>().map_err(|_| {
                format!("`{text}` is not a shard: {what} `{part}` is not a whole number")
            })
        };
        Shard::new(number(index, "I")?, number(count, "N")?)
    }

    /// The shard the schedulers' environment names, read through `var`: Slurm's
    /// `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT` (and
    /// `SLURM_ARRAY_TASK_STEP`, 1 when unset), else Kubernetes' 0-based
    /// `JOB_COMPLETION_INDEX` with `shards` (`--shards N`) as the count.
    pub fn from_env(
        var: &dyn Fn(&str) -> Option<String>,
        shards: Option<u32>,
    ) -> Result<Shard, String> {
        let read = |name: &str| -> Result<Option<u64>, String> {
            match var(name) {
                None => Ok(None),
                Some(value) => value
                    .trim()
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| format!("{name}={value} is not a whole number")),
            }
        };
        if let Some(id) = read("SLURM_ARRAY_TASK_ID")? {
            let min = read("SLURM_ARRAY_TASK_MIN")?.ok_or(
                "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not: run under `sbatch --array`",
            )?;
            let count = read("SLURM_ARRAY_TASK_COUNT")?.ok_or(
                "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: run under `sbatch --array`",
            )?;
            let step = read("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            return slurm(id, min, step, count);
        }
        if let Some(index) = read("JOB_COMPLETION_INDEX")? {
            let count = shards
                .ok_or("JOB_COMPLETION_INDEX is set: give the Job's `completions` as --shards N")?;
            let index = u32::try_from(index + 1)
                .map_err(|_| format!("JOB_COMPLETION_INDEX={index} is out of range"))?;
            return Shard::new(index, count)
                .map_err(|e| format!("JOB_COMPLETION_INDEX={} (0-based): {e}", index - 1));
        }
        Err("--shard-from-env: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set".into())
    }

    /// This shard's number, from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many shards the campaign has.
    pub fn count(self) -> u32 {
        self.count
    }

    /// The shard (counted from 1) of N that runs the unit `id`.
    pub fn owner(id: &str, count: u32) -> u32 {
        let hash = npu_core::variants::fnv1a64_hash(id.bytes());
        // `count` is at least 1 for any shard built by `new`; `max` keeps this total.
        (hash % u64::from(count.max(1))) as u32 + 1
    }

    /// Whether this shard runs the unit `id`.
    pub fn owns(self, id: &str) -> bool {
        Shard::owner(id, self.count) == self.index
    }

    /// A name for this shard's own outputs: `shard-2-of-3`.
    pub fn dir_name(self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }
}

/// Slurm's array task `id` as a shard: arrays may start anywhere and step by `step`.
fn slurm(id: u64, min: u64, step: u64, count: u64) -> Result<Shard, String> {
    let offset = id.checked_sub(min).filter(|o| o % step == 0).ok_or_else(|| {
        format!(
            "SLURM_ARRAY_TASK_ID={id} is not in an array from SLURM_ARRAY_TASK_MIN={min} in steps of {step}"
        )
    })?;
    let index = u32::try_from(offset / step + 1)
        .map_err(|_| format!("SLURM_ARRAY_TASK_ID={id} is out of range"))?;
    let count = u32::try_from(count)
        .map_err(|_| format!("SLURM_ARRAY_TASK_COUNT={count} is out of range"))?;
    Shard::new(index, count).map_err(|e| {
        format!(
            "SLURM_ARRAY_TASK_ID={id} with SLURM_ARRAY_TASK_MIN={min} and SLURM_ARRAY_TASK_COUNT={count}: {e} (the array's ids must be contiguous)"
        )
    })
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        Shard::parse(text)
    }
}

impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Shard, D::Error> {
        let text = String::deserialize(deserializer)?;
        Shard::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::Shard;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn shards_count_from_one() {
        assert_eq!(Shard::parse("2/3").unwrap().to_string(), "2/3");
        assert_eq!(Shard::parse("1/1").unwrap(), Shard::WHOLE);
        let zero = Shard::parse("0/3").unwrap_err();
        assert!(zero.contains("shards count from 1"), "{zero}");
        assert!(Shard::parse("4/3").unwrap_err().contains("I is 1 to 3"));
        assert!(Shard::parse("1/0").unwrap_err().contains("at least one"));
        assert!(Shard::parse("two/3").unwrap_err().contains("`two`"));
        assert!(Shard::parse("3").unwrap_err().contains("write I/N"));
    }

    #[test]
    fn every_unit_has_one_owner() {
        for count in 1..8 {
            for id in ["vmla", "softmax", "full/users_gelu"] {
                let owners = (1..=count)
                    .filter(|&index| Shard::new(index, count).unwrap().owns(id))
                    .count();
                assert_eq!(owners, 1, "{id} of {count}");
            }
        }
    }

    #[test]
    fn slurm_ids_start_at_the_arrays_min() {
        let slurm = |id, min, count, step| {
            let vars = [
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_COUNT", count),
                ("SLURM_ARRAY_TASK_STEP", step),
            ];
            Shard::from_env(&env(&vars), None).map(|s| s.to_string())
        };
        assert_eq!(slurm("0", "0", "4", "1").unwrap(), "1/4");
        assert_eq!(slurm("7", "5", "3", "1").unwrap(), "3/3");
        assert_eq!(slurm("14", "10", "3", "2").unwrap(), "3/3");
        assert!(
            slurm("11", "10", "3", "2")
                .unwrap_err()
                .contains("steps of 2")
        );
        assert!(
            slurm("9", "5", "3", "1")
                .unwrap_err()
                .contains("contiguous")
        );
    }

    #[test]
    fn kubernetes_indices_start_at_zero() {
        let vars = [("JOB_COMPLETION_INDEX", "2")];
        let shard = Shard::from_env(&env(&vars), Some(3)).unwrap();
        assert_eq!(shard.to_string(), "3/3");
        let missing = Shard::from_env(&env(&vars), None).unwrap_err();
        assert!(missing.contains("--shards N"), "{missing}");
        let past = Shard::from_env(&env(&[("JOB_COMPLETION_INDEX", "3")]), Some(3));
        assert!(past.unwrap_err().contains("JOB_COMPLETION_INDEX=3"));
        let none = Shard::from_env(&env(&[]), Some(3)).unwrap_err();
        assert!(none.contains("neither"), "{none}");
    }
}
