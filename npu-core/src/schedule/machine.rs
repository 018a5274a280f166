//! The machine's resources: cube base blocks, cores, event ids, capacity per level and
//! the vector unit's repeat limit.
//!
//! Cores and event ids are checked here; the cube's base block in `cube`, the bytes
//! each memory level holds in `capacity`, and the vector unit's repeat limit in
//! `repeats`.

mod capacity;
mod cube;
mod repeats;

pub(super) use cube::no_matmul_help;
pub use repeats::max_repeats;

use super::{Collected, ScheduleChecker, StageItem, help};
use crate::diag::{Code, Diagnostic};
use crate::fix::Edit;
use crate::ir::*;
use crate::target::Level;
use crate::words::list;

impl ScheduleChecker<'_> {
    pub(super) fn cores(&mut self, collected: &Collected) {
        let parallel = &collected.parallel;
        let total: u64 = parallel.iter().map(|(_, c, _)| c).product();
        let (available, kind) = match self.kernel.class {
            KernelClass::Matmul(_) => (u64::from(self.target.cores.cube), "cube"),
            _ => (u64::from(self.target.cores.vector), "vector"),
        };
        let Some(&(axis, cores, span)) = parallel.last() else {
            return;
        };
        if total <= available {
            return;
        }
        // The last `parallel` item gets what the others leave.
        let others = total / cores;
        let name = self.kernel.axes[axis].name.clone();
        let candidates = self.core_candidates(&name, available / others);
        self.error_with_fixes(
            Diagnostic::new(
                Code::E024,
                span,
                format!(
                    "the schedule uses {total} cores but `{}` has {available} {kind} {}",
                    self.target.name,
                    if available == 1 { "core" } else { "cores" }
                ),
            ),
            vec![candidates],
            format!("use at most {} in all", help::cores_word(available)),
        );
    }

    /// Each pair of pipes has `events` ids; every buffer slot between them needs one.
    pub(super) fn events(&mut self, collected: &Collected) {
        let kernel = self.kernel;
        let stages = &collected.stages;
        let by_level = |levels: &[Level]| -> Vec<&StageItem> {
            stages
                .iter()
                .filter(|s| levels.contains(&s.stage.level))
                .collect()
        };
        let by_role = |role: Role| -> Vec<&StageItem> {
            stages
                .iter()
                .filter(|s| kernel.tensors[s.stage.tensor].role == role)
                .collect()
        };
        let groups: Vec<(&str, Vec<&StageItem>)> = match kernel.class {
            KernelClass::Matmul(_) => vec![
                ("MTE2 to MTE1 (l1)", by_level(&[Level::L1])),
                ("MTE1 to M (l0a, l0b)", by_level(&[Level::L0a, Level::L0b])),
                ("M to FIX (l0c)", by_level(&[Level::L0c])),
            ],
            _ => vec![
                ("MTE2 to V (inputs)", by_role(Role::Input)),
                ("V to MTE3 (outputs)", by_role(Role::Output)),
            ],
        };
        let events = u64::from(self.target.events);
        let mut reports = Vec::new();
        for (pipes, group) in groups {
            let needed: u64 = group.iter().map(|s| s.stage.depth).sum();
            let Some(last) = group.last() else { continue };
            if needed <= events {
                continue;
            }
            let names: Vec<&str> = group
                .iter()
                .map(|s| kernel.tensors[s.stage.tensor].name.as_str())
                .collect();
            // Single-buffer the group's deepest buffers, last first, until the ids suffice.
            let deep: Vec<&StageItem> = group
                .iter()
                .rev()
                .filter(|s| s.stage.depth > 1)
                .copied()
                .collect();
            let candidates: Vec<Vec<Edit>> = (1..=deep.len())
                .map(|count| depth_one(kernel, &deep[..count]))
                .collect();
            reports.push((
                last.keyword,
                format!(
                    "{pipes} needs {needed} event ids for {} but `{}` has {events}",
                    list(&names),
                    self.target.name,
                ),
                candidates,
            ));
        }
        for (span, message, candidates) in reports {
            self.error_with_fixes(
                Diagnostic::new(Code::E025, span, message),
                vec![candidates],
                "no buffer depths leave enough event ids; stage fewer tensors",
            );
        }
    }
}

/// Single-buffers these staged tensors.
pub(super) fn depth_one(kernel: &CheckedKernel, stages: &[&StageItem]) -> Vec<Edit> {
    let mut edits: Vec<Edit> = Vec::new();
    for level in Level::ALL {
        let tensors: Vec<String> = stages
            .iter()
            .filter(|s| s.stage.level == level)
            .map(|s| kernel.tensors[s.stage.tensor].name.clone())
            .collect();
        if !tensors.is_empty() {
            edits.push(Edit::Depth {
                tensors,
                level,
                depth: 1,
            });
        }
    }
    edits
}
