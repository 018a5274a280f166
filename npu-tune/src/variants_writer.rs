//! Variants files from a tuning run: the best distinct schedules of a [`KernelResult`],
//! renamed `v1`, `v2`, ... and written with the header `npu_core::variants` reads.
//! The build helper ([`crate::build`]) and `autotune --write-variants` both write
//! through here, so the two produce the same format, and both follow one rule about
//! what they may overwrite ([`destination`], in `destination.rs`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use npu_core::variants::{Entry, Header};

use super::evaluate::Problem;
use super::generator::canonical;
use super::record::{KernelResult, Verdict};

mod destination;

pub use destination::{Existing, destination, inspect, may_replace, regeneration_requested};

/// How a run was made, for the header.
#[derive(Clone, Debug)]
pub struct Provenance {
    /// The main generator's name (`heuristic`, `llm`, ...).
    pub generator: String,
    /// The LLM's model name, or `none`.
    pub model: String,
    /// Rounds per kernel.
    pub rounds: u32,
    /// Candidates per round.
    pub candidates: usize,
    /// The run's seed.
    pub seed: u64,
    /// `YYYY-MM-DD`; see [`today`].
    pub date: String,
}

/// A variant chosen for the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    /// The schedule block, renamed.
    pub text: String,
    /// The variant's new name, `v1`, `v2`, ... (skipping the hand schedules' names).
    pub name: String,
    /// Its simulated cycles.
    pub cycles: u64,
}

/// The `count` fastest correct schedules `generator` found, without two that are the
/// same schedule spelt differently and without copies of a hand schedule, fastest
/// first (ties keep the order they were found in). Named `v1`, `v2`, ..., skipping
/// names the hand schedules use. A candidate only timed, not yet checked on data, is
/// verified first and left out if its outputs are wrong.
pub fn best_distinct(problem: &Problem, result: &KernelResult, count: usize) -> Vec<Chosen> {
    let hand_names: HashSet<String> = problem
        .kernel
        .schedules
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let mut seen: HashSet<String> = hand_sources(problem)
        .iter()
        .map(|text| canonical(problem, text))
        .collect();
    let mut correct: Vec<(u64, usize, &str, bool)> = result
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, r)| r.generator == result.generator && r.verdict == Verdict::Correct)
        .filter_map(|(i, r)| Some((r.cycles?, i, r.source.as_str(), r.verified)))
        .collect();
    correct.sort();
    let mut names = (1..)
        .map(|n| format!("v{n}"))
        .filter(|n| !hand_names.contains(n));
    let mut chosen = Vec::new();
    for (cycles, _, source, verified) in correct {
        if chosen.len() == count {
            break;
        }
        if !seen.insert(canonical(problem, source)) {
            continue;
        }
        // A variant is written only once checked on data against the reference.
        if !verified && problem.verify(source).verdict != Verdict::Correct {
            continue;
        }
        let Some(name) = names.next() else { break };
        if let Some(text) = npu_core::canonical_schedule(source, &name) {
            chosen.push(Chosen { text, name, cycles });
        }
    }
    chosen
}

/// The cycles of the kernel's first hand schedule in `result`, with its name.
pub fn first_hand(problem: &Problem, result: &KernelResult) -> Option<(String, u64)> {
    let name = problem.kernel.schedules.first()?.name.clone();
    let record = result
        .candidates
        .iter()
        .find(|r| r.generator == "hand" && r.index == 0 && r.verdict == Verdict::Correct)?;
    Some((name, record.cycles?))
}

/// The kernel hash a variants file of `problem` records (see
/// [`npu_core::variants::kernel_hash`]).
pub fn kernel_hash(problem: &Problem) -> String {
    npu_core::variants::checked_kernel_hash(&problem.kernel)
}

/// The whole variants file: header, then each variant after a blank line, signed with
/// its text hash ([`npu_core::variants::sign`]).
pub fn render(
    problem: &Problem,
    provenance: &Provenance,
    hand: Option<(String, u64)>,
    chosen: &[Chosen],
) -> String {
    let header = Header {
        kernel: problem.name.clone(),
        kernel_hash: kernel_hash(problem),
        target: problem.kernel.target.name.clone(),
        generator: provenance.generator.clone(),
        model: provenance.model.clone(),
        rounds: provenance.rounds,
        candidates: provenance.candidates,
        seed: provenance.seed,
        date: provenance.date.clone(),
        hand,
        variants: chosen
            .iter()
            .map(|c| Entry {
                name: c.name.clone(),
                cycles: c.cycles,
            })
            .collect(),
    };
    let mut out = header.render();
    for variant in chosen {
        out.push('\n');
        out.push_str(&variant.text);
    }
    npu_core::variants::sign(&out)
}

/// Writes a variants file atomically, creating its directory. With `keep_original`,
/// the file's old bytes are first copied to a new `FILE.orig` (`FILE.orig.2`, ... when
/// that name is taken), whose path is returned. Call [`destination`] (or [`inspect`]
/// and [`may_replace`]) first: this writes whatever it is given.
pub fn write(path: &Path, text: &str, keep_original: bool) -> std::io::Result<Option<PathBuf>> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let original = match keep_original {
        true => Some(save_original(path)?),
        false => None,
    };
    super::atomic::write_atomic(path, text.as_bytes())?;
    Ok(original)
}

/// Copies `path`'s bytes to a name no file has yet: `FILE.orig`, then `FILE.orig.2`, ...
fn save_original(path: &Path) -> std::io::Result<PathBuf> {
    use std::io::Write as _;
    let bytes = std::fs::read(path)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    for counter in 1.. {
        let suffix = match counter {
            1 => String::new(),
            n => format!(".{n}"),
        };
        let original = path.with_file_name(format!("{name}.orig{suffix}"));
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&original);
        match created {
            Ok(mut file) => {
                file.write_all(&bytes)?;
                file.sync_all()?;
                return Ok(original);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// Today as `YYYY-MM-DD` (UTC), or the day of `SOURCE_DATE_EPOCH` when it is set, so
/// that reproducible builds write identical files.
pub fn today(source_date_epoch: Option<&str>) -> String {
    let seconds = source_date_epoch
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    let (year, month, day) = civil_from_days((seconds / 86_400) as i64);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a proleptic Gregorian
/// date.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn hand_sources(problem: &Problem) -> Vec<String> {
    problem
        .kernel
        .schedules
        .iter()
        .map(|s| s.source.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_days() {
        assert_eq!(today(Some("0")), "1970-01-01");
        assert_eq!(today(Some("951782400")), "2000-02-29");
        assert_eq!(today(Some("1796083200")), "2026-12-01");
    }
}
