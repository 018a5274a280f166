//! A schedule's items collected: each name resolved, each number read, duplicates
//! and conflicts reported, before any rule reads them.

use std::collections::BTreeMap;

use proc_macro2::Ident;

use super::{Items, ScheduleChecker, StageItem, help, lane_fold, machine, ordered_fold};
use crate::ast::{self, ItemKind};
use crate::diag::{Code, Diagnostic};
use crate::ir::*;
use crate::target::Level;
use crate::words::{list, suggestion};

impl ScheduleChecker<'_> {
    /// Collects the schedule's items, reporting what is wrong with each.
    pub(super) fn items(&mut self) -> Items {
        let before = self.diagnostics.len();
        let mut items = Items {
            parallel: Vec::new(),
            splits: BTreeMap::new(),
            stages: Vec::new(),
            cube: None,
            tail: None,
            order: None,
            dropped: 0,
        };
        // A fix written while a `split` is read adds `tail pad;` only to a schedule
        // without a tail item, wherever in the schedule that item stands.
        self.tail = self
            .schedule
            .items
            .iter()
            .find_map(|item| match &item.kind {
                ItemKind::Tail { policy } => tail_policy(policy),
                _ => None,
            })
            .unwrap_or(Tail::None);
        for item in &self.schedule.items {
            match &item.kind {
                ItemKind::Parallel { axis, cores } => self.parallel_item(&mut items, axis, cores),
                ItemKind::Split { axis, tile } => self.split_item(&mut items, item, axis, tile),
                ItemKind::Stage {
                    tensors,
                    level,
                    depth,
                } => self.stage_item(&mut items, item, tensors, level, *depth),
                ItemKind::Cube { tiles } => self.cube_item(&mut items, item, tiles),
                ItemKind::Tail { policy } => self.tail_item(&mut items, item, policy),
                ItemKind::Order { axes } => self.order_item(&mut items, item, axes, before),
            }
        }
        items
    }

    /// `parallel axis over N cores`: an output axis, once, over 1 to its extent cores.
    fn parallel_item(&mut self, items: &mut Items, axis: &Ident, cores: &ast::Number) {
        let axes = &self.kernel.axes;
        let Some(a) = self.axis(axis) else { return };
        if let Some((_, _, first)) = items.parallel.iter().find(|(p, _, _)| *p == a) {
            self.error(
                Diagnostic::new(
                    Code::E030,
                    axis.span(),
                    format!("axis `{axis}` is split across cores twice"),
                )
                .label(*first, "first split across cores here")
                .help("keep one `parallel` item per axis"),
            );
        } else if axes[a].reduction {
            self.error(
                Diagnostic::new(
                    Code::E032,
                    axis.span(),
                    format!("`{axis}` is a reduction axis and cannot be split across cores"),
                )
                .help("split an output axis across cores"),
            );
        } else if self.scanned_across_cores(a, axis) {
        } else if cores.value == 0 {
            self.error(
                Diagnostic::new(Code::E024, cores.span, "a split across 0 cores")
                    .help("use at least 1 core"),
            );
        } else if cores.value > axes[a].extent {
            let extent = axes[a].extent;
            let name = axes[a].name.clone();
            self.error_with_fixes(
                Diagnostic::new(
                    Code::E024,
                    cores.span,
                    format!(
                        "`{axis}` has {extent} elements, fewer than {} cores",
                        cores.value
                    ),
                ),
                vec![self.core_candidates(&name, extent)],
                format!("use {} or fewer", help::cores_word(extent)),
            );
        } else {
            items.parallel.push((a, cores.value, cores.span));
        }
    }

    /// `split axis by tile`: once per axis, 1 to the extent, and not an ordered fold's
    /// inner axis.
    fn split_item(
        &mut self,
        items: &mut Items,
        item: &ast::Item,
        axis: &Ident,
        tile: &ast::Number,
    ) {
        let (kernel, axes) = (self.kernel, &self.kernel.axes);
        let Some(a) = self.axis(axis) else { return };
        let slot = match items.splits.entry(a) {
            std::collections::btree_map::Entry::Vacant(slot) => slot,
            std::collections::btree_map::Entry::Occupied(first) => {
                let first = first.get().span;
                self.error(
                    Diagnostic::new(
                        Code::E030,
                        item.keyword,
                        format!("axis `{axis}` is split twice"),
                    )
                    .label(first, "first split here")
                    .help("keep one `split` item per axis"),
                );
                return;
            }
        };
        if tile.value == 0 {
            self.error(
                Diagnostic::new(Code::E032, tile.span, "a tile of 0 elements")
                    .help("tiles hold at least 1 element"),
            );
        } else if tile.value > axes[a].extent {
            let extent = axes[a].extent;
            let candidates = self.tile_candidates(a, extent);
            self.error_with_fixes(
                Diagnostic::new(
                    Code::E032,
                    tile.span,
                    format!(
                        "split `{axis}` by {} is larger than its extent {extent}",
                        tile.value
                    ),
                ),
                vec![candidates],
                format!("split {axis} by {extent} or less"),
            );
        } else if let Some((outer, accumulator)) = ordered_fold(kernel, a)
            && tile.value < axes[a].extent
        {
            self.error(
                Diagnostic::new(
                    Code::E032,
                    tile.span,
                    format!(
                        "a reduction over `{outer}, {axis}` accumulates in {accumulator} in index order, which a split of `{axis}` would change"
                    ),
                )
                .help(format!(
                    "leave `{axis}` whole and split `{outer}`, or accumulate in the default dtype"
                )),
            );
        } else if let Some(lanes) = lane_fold(kernel, a)
            && tile.value < axes[a].extent
            // A fused kernel's reduced axis stays whole (E035 says so).
            && !crate::plan::whole_axes(kernel).contains(&a)
            && !tile.value.is_multiple_of(lanes)
        {
            let candidates = self.lane_tile_candidates(a, tile.value, lanes);
            self.error_with_fixes(
                Diagnostic::new(
                    Code::E032,
                    tile.span,
                    format!(
                        "a sum over `{axis}` folds in {lanes} lanes on `{}`, so each tile of `{axis}` must hold whole blocks of {lanes}, and {} is not a multiple of {lanes}",
                        kernel.target.name, tile.value
                    ),
                ),
                vec![candidates],
                format!("split {axis} by a multiple of {lanes}, or leave it whole"),
            );
        } else {
            slot.insert(*tile);
        }
    }

    /// `stage tensors in level depth d`: a level the target has, a depth of 1 to 4,
    /// and each tensor one that is copied, once per level, on a level its class uses.
    fn stage_item(
        &mut self,
        items: &mut Items,
        item: &ast::Item,
        tensors: &[Ident],
        level: &Ident,
        depth: Option<ast::Number>,
    ) {
        let kernel = self.kernel;
        let level_name = level.to_string();
        let Some(lvl) = Level::from_name(&level_name) else {
            self.error(
                Diagnostic::new(
                    Code::E006,
                    level.span(),
                    format!("unknown memory level `{level_name}`"),
                )
                .help(suggestion(&level_name, &Level::NAMES)),
            );
            return;
        };
        if self.target.capacity(lvl) == 0 {
            self.error(
                Diagnostic::new(
                    Code::E026,
                    level.span(),
                    format!("target `{}` has no {lvl}", self.target.name),
                )
                .help("stage in `ub`"),
            );
            return;
        }
        let depth_value = depth.map_or(1, |d| d.value);
        if !(1..=4).contains(&depth_value) {
            let span = depth.map_or(level.span(), |d| d.span);
            self.error(
                Diagnostic::new(Code::E032, span, format!("buffer depth {depth_value}"))
                    .help("use depth 1 (single) or 2 (double buffering); at most 4"),
            );
            return;
        }
        for ident in tensors {
            let Some(t) = self.tensor(ident) else {
                continue;
            };
            if kernel.tensors[t].is_scalar() {
                let reported = self.error(
                    Diagnostic::new(
                        Code::E032,
                        ident.span(),
                        format!("`{ident}` is a scalar parameter, held in a scalar register: it is never staged"),
                    )
                    .help(format!("remove `{ident}` from this `stage` item")),
                );
                items.dropped += usize::from(reported);
                continue;
            }
            if items
                .stages
                .iter()
                .any(|s| s.stage.tensor == t && s.stage.level == lvl)
            {
                self.error(
                    Diagnostic::new(
                        Code::E030,
                        ident.span(),
                        format!("`{ident}` is staged in {lvl} twice"),
                    )
                    .help("stage each tensor once per level"),
                );
                continue;
            }
            if kernel.tensors[t].role == Role::Local {
                let reported = self.error(
                    Diagnostic::new(
                        Code::E035,
                        ident.span(),
                        format!("`{ident}` is an intermediate (`let`): it lives in ub for the tile and is never copied, so it is not staged"),
                    )
                    .help(format!("remove `{ident}` from this `stage` item")),
                );
                items.dropped += usize::from(reported);
                continue;
            }
            if let Some(problem) = self.level_fits_class(t, lvl) {
                self.error(Diagnostic::new(Code::E026, level.span(), problem.0).help(problem.1));
                continue;
            }
            items.stages.push(StageItem {
                stage: Stage {
                    tensor: t,
                    level: lvl,
                    depth: depth_value,
                },
                keyword: item.keyword,
                name: ident.span(),
            });
        }
    }

    /// `cube m by .., n by .., k by ..`: once, in a matmul, each axis once.
    fn cube_item(&mut self, items: &mut Items, item: &ast::Item, tiles: &[(Ident, ast::Number)]) {
        let kernel = self.kernel;
        let is_matmul = matches!(kernel.class, KernelClass::Matmul(_));
        if let Some((_, first)) = &items.cube {
            self.error(
                Diagnostic::new(Code::E030, item.keyword, "a second `cube` item")
                    .label(*first, "the first `cube` item")
                    .help("keep one `cube` item"),
            );
            return;
        }
        if !is_matmul {
            let (message, help) = match crate::check::vector_matmul(kernel, self.target) {
                Some(reason) => (
                    format!("kernel `{}` runs on the vector unit: {reason}", kernel.name),
                    "remove the `cube` item and stage every tensor in `ub`",
                ),
                None => (
                    format!("kernel `{}` has no matmul for the cube to run", kernel.name),
                    machine::no_matmul_help(kernel),
                ),
            };
            self.error(Diagnostic::new(Code::E026, item.keyword, message).help(help));
            return;
        }
        let mut list = Vec::new();
        for (axis, number) in tiles {
            let Some(a) = self.axis(axis) else { continue };
            if self.cube_names_batch(axis, a, number) {
                continue;
            }
            if list.iter().any(|(x, _)| *x == a) {
                self.error(
                    Diagnostic::new(
                        Code::E030,
                        axis.span(),
                        format!("`{axis}` appears twice in `cube`"),
                    )
                    .help("name m, n and k once each"),
                );
                continue;
            }
            list.push((a, *number));
        }
        items.cube = Some((list, item.keyword));
    }

    /// `tail pad;` or `tail exact;`, once.
    fn tail_item(&mut self, items: &mut Items, item: &ast::Item, policy: &Ident) {
        let value = match tail_policy(policy) {
            Some(value) => value,
            None => {
                let other = policy.to_string();
                self.error(
                    Diagnostic::new(
                        Code::E006,
                        policy.span(),
                        format!("unknown tail policy `{other}`"),
                    )
                    .help(suggestion(&other, &["pad", "exact"])),
                );
                return;
            }
        };
        if let Some((_, first)) = items.tail {
            self.error(
                Diagnostic::new(Code::E030, item.keyword, "a second `tail` item")
                    .label(first, "the first `tail` item")
                    .help("keep one `tail` item"),
            );
            return;
        }
        items.tail = Some((value, item.keyword));
    }

    /// `order a, b, ..`: once, every output axis once and no reduction axis. A list
    /// that leaves an axis out is reported only when the items had no other error.
    fn order_item(&mut self, items: &mut Items, item: &ast::Item, names: &[Ident], before: usize) {
        let (kernel, axes) = (self.kernel, &self.kernel.axes);
        if items.order.is_some() {
            self.error(
                Diagnostic::new(Code::E030, item.keyword, "a second `order` item")
                    .help("keep one `order` item"),
            );
            return;
        }
        let mut chosen = Vec::new();
        for ident in names {
            let Some(a) = self.axis(ident) else { continue };
            if axes[a].reduction {
                self.error(
                    Diagnostic::new(
                        Code::E032,
                        ident.span(),
                        format!("`{ident}` is a reduction axis; reductions always run innermost"),
                    )
                    .help("list only output axes in `order`"),
                );
            } else if chosen.contains(&a) {
                self.error(
                    Diagnostic::new(
                        Code::E030,
                        ident.span(),
                        format!("`{ident}` appears twice in `order`"),
                    )
                    .help("list each output axis once"),
                );
            } else {
                chosen.push(a);
            }
        }
        let output_axes = kernel.output_axes();
        let missing: Vec<&str> = output_axes
            .iter()
            .filter(|a| !chosen.contains(a))
            .map(|a| axes[*a].name.as_str())
            .collect();
        if !missing.is_empty() && self.diagnostics.len() == before + items.dropped {
            self.error(
                Diagnostic::new(
                    Code::E031,
                    item.keyword,
                    format!("`order` leaves out {}", list(&missing)),
                )
                .help("list every output axis, outermost first"),
            );
        }
        items.order = Some((chosen, item.keyword));
    }
}

/// The tail policy a `tail` item names, if it is one.
fn tail_policy(policy: &Ident) -> Option<Tail> {
    match policy.to_string().as_str() {
        "pad" => Some(Tail::Pad),
        "exact" => Some(Tail::Exact),
        _ => None,
    }
}
