//! Distillation: the knowledge base learns from measured outcomes.
//!
//! From a run's candidates, in evaluation order, [`distill`]:
//!
//! - adds a provisional entry for each edit that fixed something: a rejected candidate
//!   followed by the generator's next correct one (trigger: the rejection's codes), or
//!   a correct candidate followed by one at least 10% faster (trigger: the first one's
//!   bottleneck classes); the template is the schedule that worked;
//! - tracks each entry's utility from the candidates it was shown for: a candidate
//!   that became the new best helped, a rejected or wrong one hurt;
//! - prunes harmful entries (shown at least three times, never helped, hurt at least
//!   half of the time) and merges near-duplicates (same trigger and same template
//!   after canonical printing), keeping the older id;
//! - writes every change to an audit log.
//!
//! Everything is a function of the candidates in order, so the same journal gives the
//! same base, byte for byte.

use std::collections::BTreeMap;

use npu_core::ir::{CheckedKernel, KernelClass};

use std::path::Path;

use super::load::{ids_outside_learned, read_pruned};
use super::{AUDIT_FILE, BOTTLENECKS, Entry, KnowledgeBase, LEARNED_FILE, PRUNED_FILE, Trigger};
use crate::record::{CandidateRecord, Verdict};

/// How much faster a correct candidate must be than the previous best to count.
const GAIN: f64 = 1.10;

/// An entry's measured effect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utility {
    /// Candidates it was shown for ([`CandidateRecord::knowledge`]).
    pub shown: u32,
    /// Of those, correct ones faster than every candidate before them.
    pub helped: u32,
    /// Of those, rejected or wrong ones.
    pub hurt: u32,
}

impl Utility {
    /// Shown three times or more, never helped, hurt at least half of the time.
    pub fn is_harmful(&self) -> bool {
        self.shown >= 3 && self.helped == 0 && self.hurt * 2 >= self.shown
    }
}

/// What distilling a run gave.
#[derive(Clone, Debug, Default)]
pub struct Distilled {
    /// The input base with the learned entries added and the harmful ones pruned,
    /// sorted by id.
    pub base: KnowledgeBase,
    /// The utility of every entry the candidates were shown, by id (pruned ones
    /// included).
    pub utility: BTreeMap<String, Utility>,
    /// One line per change, in the order made.
    pub audit: Vec<String>,
}

/// Learns from `candidates` (one kernel's, in evaluation order) on top of `base`.
pub fn distill(
    base: &KnowledgeBase,
    kernel: &CheckedKernel,
    candidates: &[CandidateRecord],
) -> Distilled {
    let mut out = Distilled {
        base: base.clone(),
        utility: utilities(candidates),
        ..Distilled::default()
    };
    // Provisional entries from edits that fixed a rejection or a bottleneck.
    for (index, record) in candidates.iter().enumerate() {
        let next_correct = candidates[index + 1..]
            .iter()
            .find(|r| r.generator == record.generator && r.verdict == Verdict::Correct);
        let Some(fixed) = next_correct else { continue };
        let lesson = match record.verdict {
            Verdict::Rejected if !record.diagnostics.is_empty() => rejection_lesson(kernel, record),
            Verdict::Correct => speedup_lesson(kernel, record, fixed),
            _ => None,
        };
        if let Some((trigger, rationale)) = lesson {
            out.learn(kernel, record, fixed, trigger, rationale);
        }
    }
    out.prune_harmful();
    out.base.entries.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The kernel class a trigger names.
fn class_name(kernel: &CheckedKernel) -> &'static str {
    match kernel.class {
        KernelClass::Matmul(_) => "matmul",
        KernelClass::Reduction => "reduction",
        KernelClass::Elementwise => "elementwise",
    }
}

/// Each entry's utility, from the candidates it was shown for: a correct candidate
/// faster than every one before it helped, a rejected or wrong one hurt.
fn utilities(candidates: &[CandidateRecord]) -> BTreeMap<String, Utility> {
    let mut utility: BTreeMap<String, Utility> = BTreeMap::new();
    let mut best: Option<u64> = None;
    for record in candidates {
        let improved = record.verdict == Verdict::Correct
            && record.cycles.is_some_and(|c| best.is_none_or(|b| c < b));
        let harmed = matches!(record.verdict, Verdict::Rejected | Verdict::Wrong);
        for id in &record.knowledge {
            let entry = utility.entry(id.clone()).or_default();
            entry.shown += 1;
            entry.helped += u32::from(improved);
            entry.hurt += u32::from(harmed);
        }
        if improved {
            best = record.cycles;
        }
    }
    utility
}

/// The trigger and rationale learned from a rejected candidate the generator fixed
/// next: its diagnostics' codes.
fn rejection_lesson(kernel: &CheckedKernel, record: &CandidateRecord) -> Option<(Trigger, String)> {
    let mut codes: Vec<_> = record.diagnostics.iter().map(|d| d.code).collect();
    codes.sort();
    codes.dedup();
    let first = record.diagnostics.first()?;
    let trigger = Trigger {
        classes: vec![class_name(kernel).into()],
        codes,
        ..Trigger::default()
    };
    let rationale = format!(
        "Learned on `{}`: [{}] {} was fixed by the schedule below.",
        kernel.name, first.code, first.message
    );
    Some((trigger, rationale))
}

/// The trigger and rationale learned from a correct candidate the generator's next
/// correct one beat by [`GAIN`]: the bottleneck classes its report names, if any.
fn speedup_lesson(
    kernel: &CheckedKernel,
    record: &CandidateRecord,
    fixed: &CandidateRecord,
) -> Option<(Trigger, String)> {
    let (before, after) = (record.cycles?, fixed.cycles?);
    if (before as f64) < GAIN * after as f64 {
        return None;
    }
    let symptom = record
        .report
        .as_ref()
        .map(|r| r.symptom.to_ascii_lowercase())
        .unwrap_or_default();
    let bottlenecks: Vec<String> = BOTTLENECKS
        .iter()
        .filter(|b| symptom.contains(*b))
        .map(|b| b.to_string())
        .collect();
    if bottlenecks.is_empty() {
        return None;
    }
    let trigger = Trigger {
        classes: vec![class_name(kernel).into()],
        bottlenecks,
        ..Trigger::default()
    };
    let rationale = format!(
        "Learned on `{}`: {} went from {before} to {after} cycles with the schedule below.",
        kernel.name, symptom
    );
    Some((trigger, rationale))
}

impl Distilled {
    /// Adds the entry `fixed`'s schedule teaches under `trigger`, unless its id is
    /// there already or an entry with the same trigger and template is (then merged).
    fn learn(
        &mut self,
        kernel: &CheckedKernel,
        record: &CandidateRecord,
        fixed: &CandidateRecord,
        trigger: Trigger,
        rationale: String,
    ) {
        let template = npu_core::canonical_schedule(&fixed.source, "t")
            .unwrap_or_else(|| fixed.source.trim().to_string() + "\n");
        let id = format!(
            "learned-{}-{}-r{}-{}",
            kernel.name, fixed.generator, fixed.round, fixed.index
        );
        if self.base.entries.iter().any(|e| e.id == id) {
            return;
        }
        let entry = Entry {
            id: id.clone(),
            trigger,
            rationale,
            kernel: kernel.name.clone(),
            template,
            origin: format!("learned from candidate r{}_{}", fixed.round, fixed.index),
        };
        // Merge: a learned entry with the same trigger and template as one already there.
        let same = self
            .base
            .entries
            .iter()
            .find(|e| e.trigger == entry.trigger && e.template == entry.template);
        match same {
            Some(existing) => self.audit.push(format!(
                "merged {id} into {} (same trigger and template)",
                existing.id
            )),
            None => {
                self.audit.push(format!(
                    "added {id} from candidates r{}_{} -> r{}_{}",
                    record.round, record.index, fixed.round, fixed.index
                ));
                self.base.entries.push(entry);
            }
        }
    }

    /// Prunes the entries that measurably hurt (see [`Utility::is_harmful`]).
    fn prune_harmful(&mut self) {
        let harmful: Vec<String> = self
            .utility
            .iter()
            .filter(|(_, u)| u.is_harmful())
            .map(|(id, _)| id.clone())
            .collect();
        for id in harmful {
            if let Some(position) = self.base.entries.iter().position(|e| e.id == id) {
                let u = self.utility[&id];
                self.audit.push(format!(
                    "pruned {id}: shown {} times, helped {}, hurt {}",
                    u.shown, u.helped, u.hurt
                ));
                self.base.entries.remove(position);
            }
        }
    }
}

impl KnowledgeBase {
    /// The entries as a knowledge file, which [`KnowledgeBase::parse`] reads back.
    pub fn to_toml(&self) -> String {
        let quote = |text: &str| toml::Value::String(text.to_string()).to_string();
        let list = |items: Vec<String>| {
            let quoted: Vec<String> = items.iter().map(|i| quote(i)).collect();
            format!("[{}]", quoted.join(", "))
        };
        let mut out = String::from(super::LEARNED_HEADER);
        for entry in &self.entries {
            out += "\n[[entry]]\n";
            out += &format!("id = {}\n", quote(&entry.id));
            let t = &entry.trigger;
            if !t.classes.is_empty() {
                out += &format!("classes = {}\n", list(t.classes.clone()));
            }
            if !t.dtypes.is_empty() {
                out += &format!(
                    "dtypes = {}\n",
                    list(t.dtypes.iter().map(|d| d.name().to_string()).collect())
                );
            }
            if !t.codes.is_empty() {
                out += &format!(
                    "codes = {}\n",
                    list(t.codes.iter().map(|c| c.to_string()).collect())
                );
            }
            if !t.bottlenecks.is_empty() {
                out += &format!("bottlenecks = {}\n", list(t.bottlenecks.clone()));
            }
            out += &format!("rationale = {}\n", quote(&entry.rationale));
            out += &format!("kernel = {}\n", quote(&entry.kernel));
            out += &format!("template = {}\n", quote(&entry.template));
        }
        out
    }
}

impl KnowledgeBase {
    /// Writes what `distilled` learned into `dir`: its learned entries to
    /// [`LEARNED_FILE`], the ids it pruned to [`PRUNED_FILE`] (both atomically), and
    /// its audit lines appended to [`AUDIT_FILE`]. Hand-written files are not touched.
    ///
    /// The directory is read again first: a learned entry whose id another file defines
    /// (a user moved or renamed `learned.toml` to review it, say) is left where it is,
    /// never written a second time.
    pub fn write_learned(dir: &Path, distilled: &Distilled) -> std::io::Result<()> {
        Self::check_learn_into(dir).map_err(|e| std::io::Error::other(e.to_string()))?;
        let elsewhere =
            ids_outside_learned(dir).map_err(|e| std::io::Error::other(e.to_string()))?;
        let learned_path = dir.join(LEARNED_FILE).display().to_string();
        let learned = KnowledgeBase {
            entries: distilled
                .base
                .entries
                .iter()
                .filter(|e| e.id.starts_with("learned-") || e.origin.starts_with(&learned_path))
                .filter(|e| !elsewhere.contains(&e.id))
                .cloned()
                .collect(),
        };
        crate::atomic::write_atomic(&dir.join(LEARNED_FILE), learned.to_toml().as_bytes())?;
        let mut pruned: Vec<String> = distilled
            .audit
            .iter()
            .filter_map(|line| line.strip_prefix("pruned "))
            .filter_map(|rest| rest.split(':').next())
            .map(str::to_string)
            .collect();
        pruned.extend(read_pruned(dir).map_err(|e| std::io::Error::other(e.to_string()))?);
        let pruned_path = dir.join(PRUNED_FILE);
        pruned.sort();
        pruned.dedup();
        let ids: Vec<String> = pruned.iter().map(|id| format!("{id:?}")).collect();
        let text = format!(
            "# Entries pruned by `autotune --learn` for hurting more than helping.\nids = [{}]\n",
            ids.join(", ")
        );
        crate::atomic::write_atomic(&pruned_path, text.as_bytes())?;
        if !distilled.audit.is_empty() {
            use std::io::Write as _;
            // Appended to through a link; a FIFO (whose opening would wait) is refused.
            let log = npu_core::file::destination(&dir.join(AUDIT_FILE))?;
            let mut log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)?;
            for line in &distilled.audit {
                writeln!(log, "{line}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Bundled;
    use npu_core::{Code, DiagnosticRecord};

    fn record(
        round: u32,
        index: u32,
        verdict: Verdict,
        cycles: Option<u64>,
        shown: &[&str],
    ) -> CandidateRecord {
        let diagnostics = match verdict {
            Verdict::Rejected => vec![DiagnosticRecord {
                code: Code::E020,
                line: 3,
                column: 5,
                message: "ub holds 131072 B but this schedule needs 147456 B".into(),
                help: None,
                labels: Vec::new(),
                notes: Vec::new(),
            }],
            _ => Vec::new(),
        };
        CandidateRecord {
            kernel: "vmla".into(),
            generator: "llm".into(),
            round,
            index,
            source: format!(
                "schedule s{index} {{\n    split i by {};\n    stage a, b, c, y in ub depth 2;\n}}\n",
                1024 << index
            ),
            verdict,
            cycles,
            diagnostics,
            feedback: String::new(),
            report: None,
            knowledge: shown.iter().map(|s| s.to_string()).collect(),
            verified: true,
            constraint: None,
        }
    }

    #[test]
    fn fixes_become_entries_and_harmful_entries_are_pruned() {
        let kernel = (Bundled::find("vmla").unwrap().kernel)();
        let base = KnowledgeBase::builtin();
        let bad = "tail-divisor-tile";
        let candidates = vec![
            record(0, 0, Verdict::Rejected, None, &[bad]),
            record(0, 1, Verdict::Correct, Some(20_000), &[bad]),
            record(
                1,
                0,
                Verdict::Rejected,
                None,
                &[bad, "no-overlap-double-buffer"],
            ),
            record(
                1,
                1,
                Verdict::Correct,
                Some(15_000),
                &["no-overlap-double-buffer"],
            ),
            record(2, 0, Verdict::Rejected, None, &[bad]),
        ];
        let distilled = distill(&base, kernel, &candidates);
        // `bad` was shown four times: one first correct result, three rejections. The
        // first correct result is a new best, so it helped once and is kept.
        assert_eq!(
            distilled.utility[bad],
            Utility {
                shown: 4,
                helped: 1,
                hurt: 3
            }
        );
        assert!(distilled.base.entries.iter().any(|e| e.id == bad));
        // Both rejections were fixed by the same schedule (split i by 2048): one entry,
        // and the second fix merges into it.
        let learned: Vec<&Entry> = distilled
            .base
            .entries
            .iter()
            .filter(|e| e.id.starts_with("learned-"))
            .collect();
        assert_eq!(learned.len(), 1, "{:?}", distilled.audit);
        assert_eq!(learned[0].trigger.codes, vec![Code::E020]);
        insta::assert_snapshot!(distilled.audit.join("\n"), @r"
        added learned-vmla-llm-r0-1 from candidates r0_0 -> r0_1
        merged learned-vmla-llm-r1-1 into learned-vmla-llm-r0-1 (same trigger and template)
        ");

        // An entry that never helps is pruned, with an audit line.
        let never = vec![
            record(0, 0, Verdict::Rejected, None, &[bad]),
            record(0, 1, Verdict::Rejected, None, &[bad]),
            record(0, 2, Verdict::Wrong, None, &[bad]),
        ];
        let distilled = distill(&base, kernel, &never);
        assert!(!distilled.base.entries.iter().any(|e| e.id == bad));
        assert_eq!(
            distilled.audit,
            vec![format!("pruned {bad}: shown 3 times, helped 0, hurt 3")]
        );

        // Distilling the same run again adds nothing new.
        let again = distill(
            &distill(&base, kernel, &candidates).base,
            kernel,
            &candidates,
        );
        let count = |d: &Distilled| d.base.entries.len();
        assert_eq!(count(&again), count(&distill(&base, kernel, &candidates)));
    }

    #[test]
    fn learned_entries_round_trip_and_are_deterministic() {
        let kernel = (Bundled::find("vmla").unwrap().kernel)();
        let candidates = vec![
            record(0, 0, Verdict::Rejected, None, &[]),
            record(0, 1, Verdict::Correct, Some(20_000), &[]),
        ];
        let first = distill(&KnowledgeBase::builtin(), kernel, &candidates);
        let second = distill(&KnowledgeBase::builtin(), kernel, &candidates);
        assert_eq!(first.base.to_toml(), second.base.to_toml());
        let back =
            KnowledgeBase::parse(&[("k.toml".into(), first.base.to_toml())]).expect("reads back");
        assert_eq!(back.entries.len(), first.base.entries.len());
        let learned = back
            .entries
            .iter()
            .find(|e| e.id == "learned-vmla-llm-r0-1")
            .expect("kept");
        assert_eq!(
            learned.template,
            "schedule t {\n    split i by 2048;\n    stage a, b, c, y in ub depth 2;\n}\n"
        );

        let dir = tempfile::tempdir().expect("a temporary directory");
        KnowledgeBase::write_learned(dir.path(), &first).expect("written");
        std::fs::write(dir.path().join("hand.toml"), "[[entry]]\nid = \"mine\"\nrationale = \"r\"\nkernel = \"vmla\"\ntemplate = \"schedule t {}\"\n").unwrap();
        let loaded = KnowledgeBase::load(dir.path()).expect("loads");
        let ids: Vec<&str> = loaded.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["learned-vmla-llm-r0-1", "mine"]);
        let audit = std::fs::read_to_string(dir.path().join(super::super::AUDIT_FILE)).unwrap();
        assert_eq!(
            audit,
            "added learned-vmla-llm-r0-1 from candidates r0_0 -> r0_1\n"
        );
    }

    #[test]
    fn learning_into_a_directory_whose_learned_file_was_renamed_writes_no_id_twice() {
        let kernel = (Bundled::find("vmla").unwrap().kernel)();
        let candidates = vec![
            record(0, 0, Verdict::Rejected, None, &[]),
            record(0, 1, Verdict::Correct, Some(20_000), &[]),
        ];
        let dir = tempfile::tempdir().expect("a temporary directory");
        let first = distill(&KnowledgeBase::builtin(), kernel, &candidates);
        KnowledgeBase::write_learned(dir.path(), &first).expect("written");
        // A user reviewing the entries renames the file.
        let reviewed = dir.path().join("reviewed.toml");
        std::fs::rename(dir.path().join(super::super::LEARNED_FILE), &reviewed).unwrap();
        let before = std::fs::read(&reviewed).unwrap();

        let base = KnowledgeBase::load(dir.path()).expect("loads");
        let again = distill(&base, kernel, &candidates);
        KnowledgeBase::write_learned(dir.path(), &again).expect("written");
        let loaded = KnowledgeBase::load(dir.path()).expect("loads: no id twice");
        let learned: Vec<&str> = loaded
            .entries
            .iter()
            .map(|e| e.id.as_str())
            .filter(|id| id.starts_with("learned-"))
            .collect();
        assert_eq!(learned, ["learned-vmla-llm-r0-1"]);
        assert_eq!(std::fs::read(&reviewed).unwrap(), before);
    }
}
