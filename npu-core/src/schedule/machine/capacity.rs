//! Capacity per memory level: the buffers a schedule places must fit each level, and
//! an error lists the largest with a fix that fits.

use super::depth_one;
use crate::diag::{Code, Diagnostic};
use crate::ir::*;
use crate::plan;
use crate::schedule::{Collected, ScheduleChecker, StageItem};
use crate::target::Level;

impl ScheduleChecker<'_> {
    /// The plan must fit every level.
    pub(in crate::schedule) fn capacity(&mut self, buffers: &[Buffer], collected: &Collected) {
        let kernel = self.kernel;
        let (tiles, cube, stage_list) = (&collected.tiles, collected.cube, &collected.stage_list);
        for level in Level::ALL {
            let used: u64 = buffers
                .iter()
                .filter(|b| b.level == level)
                .map(Buffer::total_bytes)
                .sum();
            let capacity = match level {
                Level::Ub => self.target.ub_planned(kernel.selects()),
                _ => self.target.capacity(level),
            };
            if used <= capacity {
                continue;
            }
            let Some(first) = collected.stages.iter().find(|s| s.stage.level == level) else {
                continue;
            };
            let parts = breakdown(buffers.iter().filter(|b| b.level == level));
            let level_bytes = |tiles: &[u64], cube: Option<[u64; 3]>| -> u64 {
                plan::buffers(kernel, self.target, tiles, cube, stage_list)
                    .iter()
                    .filter(|b| b.level == level)
                    .map(Buffer::total_bytes)
                    .sum()
            };
            let shrink = if matches!(level, Level::L0a | Level::L0b | Level::L0c) {
                self.cube_help(level, cube, |block| {
                    level_bytes(tiles, Some(block)) <= capacity
                })
            } else {
                self.shrink_candidates(collected, |tiles| level_bytes(tiles, cube) <= capacity)
            };
            // Single buffering at this level is the other way to fit.
            let deep: Vec<&StageItem> = collected
                .stages
                .iter()
                .filter(|s| s.stage.level == level && s.stage.depth > 1)
                .collect();
            let mut alternatives = vec![shrink.0];
            if !deep.is_empty() {
                alternatives.push(vec![depth_one(kernel, &deep)]);
            }
            let message = format!(
                "{level} holds {capacity} B but this schedule needs {used} B, {} B too many",
                used - capacity
            );
            // How the bytes were counted is context, not the problem: a note.
            let mut diagnostic = Diagnostic::new(Code::E020, first.keyword, message).note(format!(
                "the {used} B are the {level} buffers, depth x bytes each: {parts}"
            ));
            if capacity < self.target.capacity(level) {
                diagnostic = diagnostic.note(format!(
                    "the {level} from {capacity} B up is the vendor library's scratch, which `select` writes"
                ));
            }
            let diagnostic = staged_labels(diagnostic, &collected.stages, buffers, level);
            self.error_with_fixes(diagnostic, alternatives, shrink.1);
        }
    }
}

/// The buffers of a level as `a 2x16384 + tmp0 16384 + ...`, largest first (plan order
/// among equals), at most [`BREAKDOWN_ITEMS`] of them and then how many more and their
/// bytes, so that a kernel of a hundred temporaries still gets a one-line note.
fn breakdown<'b>(buffers: impl Iterator<Item = &'b Buffer>) -> String {
    let mut buffers: Vec<&Buffer> = buffers.collect();
    buffers.sort_by_key(|b| std::cmp::Reverse(b.total_bytes()));
    let show = if buffers.len() > BREAKDOWN_ITEMS {
        BREAKDOWN_ITEMS - 1
    } else {
        buffers.len()
    };
    let parts: Vec<String> = buffers[..show]
        .iter()
        .map(|b| {
            if b.depth > 1 {
                format!("{} {}x{}", b.name, b.depth, b.bytes)
            } else {
                format!("{} {}", b.name, b.bytes)
            }
        })
        .collect();
    let rest = &buffers[show..];
    let mut text = parts.join(" + ");
    if !rest.is_empty() {
        let bytes: u64 = rest.iter().map(|b| b.total_bytes()).sum();
        text.push_str(&format!(" and {} more ({bytes} B)", rest.len()));
    }
    text
}

/// `diagnostic` with a label at each tensor staged in `level` saying what its buffer
/// takes there.
fn staged_labels(
    mut diagnostic: Diagnostic,
    stages: &[StageItem],
    buffers: &[Buffer],
    level: Level,
) -> Diagnostic {
    for item in stages.iter().filter(|s| s.stage.level == level) {
        let kind = BufferKind::Tensor(item.stage.tensor);
        let Some(buffer) = buffers.iter().find(|b| b.kind == kind && b.level == level) else {
            continue;
        };
        let text = if buffer.depth > 1 {
            format!("{} slots of {} B", buffer.depth, buffer.bytes)
        } else {
            format!("{} B", buffer.bytes)
        };
        diagnostic = diagnostic.label(item.name, text);
    }
    diagnostic
}

/// Buffers an E020 note names one by one; the rest are summed.
const BREAKDOWN_ITEMS: usize = 8;
