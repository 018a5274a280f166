//! The schedule half of the checker: each `schedule` block against the machine.
//!
//! For every schedule this collects its items (reporting unknown names, duplicates and
//! bad numbers), fills in defaults, builds the buffer plan ([`crate::plan`]) and checks
//! capacity, alignment, vector repeats, cube tiles, cores, events and tails. Every
//! message gives the numbers. A help line that proposes a concrete edit (a
//! [`Fix`](crate::fix::Fix)) is offered only after the edit was applied and the
//! schedule checked again: it must clear the diagnostic without bringing another (the
//! `help` module).
//!
//! The items are collected in `items`; the rules live by class: `machine` (cube
//! blocks, cores, events, capacity, repeats) and `copies` (alignment and tails of
//! global-memory copies).

mod copies;
mod help;
mod items;
mod machine;
mod order;
mod scan;

use std::collections::{BTreeMap, HashMap, HashSet};

use proc_macro2::{Ident, Span};

use crate::ast::{self, KernelDef};
use crate::diag::{Code, Diagnostic, Diagnostics, SpanKey};
use crate::dtype::Dtype;
use crate::fix::Edit;
use crate::ir::*;
use crate::plan;
use crate::target::{Level, Target};
use crate::words::{list, suggestion};

pub use machine::max_repeats;
pub use order::scan_axes;

/// Checks every schedule of `def` and stores the legal ones in `kernel`.
pub(crate) fn check_all(
    def: &KernelDef,
    kernel: &mut CheckedKernel,
    diagnostics: &mut Diagnostics,
) {
    check_blocks(&def.schedules, kernel, diagnostics);
}

/// Checks `schedules` against `kernel`'s algorithm and stores the legal ones in it.
pub(crate) fn check_blocks(
    schedules: &[ast::Schedule],
    kernel: &mut CheckedKernel,
    diagnostics: &mut Diagnostics,
) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for schedule in schedules {
        let name = schedule.name.to_string();
        if let Some(first) = seen.insert(name.clone(), schedule.name.span()) {
            diagnostics.push(
                Diagnostic::new(
                    Code::E030,
                    schedule.name.span(),
                    format!("schedule `{name}` is defined twice"),
                )
                .label(first, "first defined here")
                .help("give each schedule its own name"),
            );
            continue;
        }
        let before = diagnostics.len();
        let checked = ScheduleChecker::new(kernel, schedule, &mut *diagnostics, false).check();
        if let Some(checked) = checked
            && diagnostics.len() == before
        {
            kernel.schedules.push(checked);
        }
    }
}

struct ScheduleChecker<'a> {
    kernel: &'a CheckedKernel,
    target: &'a Target,
    schedule: &'a ast::Schedule,
    diagnostics: &'a mut Diagnostics,
    /// Checking an edited copy of the schedule to verify a fix: codes are all that
    /// matter, so no help is searched for.
    rechecking: bool,
    /// Diagnostics whose help waits for the whole schedule to be checked.
    pending: Vec<Pending>,
    /// The schedule's tail policy, once its items are collected.
    tail: Tail,
    /// The (code, span) of every error said, so that saying one again costs O(1).
    reported: HashSet<(Code, SpanKey)>,
}

/// A diagnostic whose help is chosen once every rule has run, so that each candidate
/// fix can be checked against the whole schedule.
struct Pending {
    /// Index into the diagnostics list.
    index: usize,
    /// Alternatives, each a list of candidate edits in order of preference: the first
    /// candidate of each alternative that checks is offered.
    alternatives: Vec<Vec<Vec<Edit>>>,
    /// The help when no candidate checks.
    fallback: String,
}

/// A schedule's items once collected and defaulted: what the machine rules read.
struct Collected {
    parallel: Vec<(usize, u64, Span)>,
    /// Ordered by axis, so that every choice among splits is deterministic.
    splits: BTreeMap<usize, ast::Number>,
    stages: Vec<StageItem>,
    stage_list: Vec<Stage>,
    tiles: Vec<u64>,
    cube: Option<[u64; 3]>,
}

/// A stage item with its spans, before it becomes a [`Stage`].
struct StageItem {
    stage: Stage,
    keyword: Span,
    /// The tensor's name in the item.
    name: Span,
}

/// What a schedule's items say, each with the span a diagnostic points at.
struct Items {
    pub parallel: Vec<(usize, u64, Span)>,
    /// Ordered by axis, so that every choice among splits is deterministic.
    pub splits: BTreeMap<usize, ast::Number>,
    pub stages: Vec<StageItem>,
    pub cube: Option<(Vec<(usize, ast::Number)>, Span)>,
    pub tail: Option<(Tail, Span)>,
    pub order: Option<(Vec<usize>, Span)>,
    /// Errors of names a `stage` item lists that are never staged (a scalar parameter,
    /// an intermediate): the item reads as if they were removed, which the help says
    /// to do, so the rules below still check the rest.
    pub dropped: usize,
}

impl<'a> ScheduleChecker<'a> {
    fn new(
        kernel: &'a CheckedKernel,
        schedule: &'a ast::Schedule,
        diagnostics: &'a mut Diagnostics,
        rechecking: bool,
    ) -> Self {
        ScheduleChecker {
            kernel,
            target: &kernel.target,
            schedule,
            diagnostics,
            rechecking,
            pending: Vec::new(),
            reported: HashSet::new(),
            tail: Tail::None,
        }
    }

    /// Reports `diagnostic` once: the same code at the same token is said only the
    /// first time (three tensors misaligned by one `split` are one mistake). Returns
    /// whether it was reported.
    fn error(&mut self, diagnostic: Diagnostic) -> bool {
        if !self
            .reported
            .insert((diagnostic.code, SpanKey::of(diagnostic.span)))
        {
            return false;
        }
        self.diagnostics.push(diagnostic);
        true
    }

    /// Reports `diagnostic` once, as [`Self::error`] does, with a help that is a fix:
    /// the first candidate of each alternative that checks, or `fallback` when none
    /// does. The help is attached once every rule has run (see [`help`]); a recheck
    /// reads only codes, so there it gets none.
    fn error_with_fixes(
        &mut self,
        diagnostic: Diagnostic,
        alternatives: Vec<Vec<Vec<Edit>>>,
        fallback: impl Into<String>,
    ) -> bool {
        let reported = self.error(diagnostic);
        if reported && !self.rechecking {
            self.pending.push(Pending {
                index: self.diagnostics.len() - 1,
                alternatives,
                fallback: fallback.into(),
            });
        }
        reported
    }

    fn axis(&mut self, ident: &Ident) -> Option<usize> {
        let name = ident.to_string();
        let found = self.kernel.axes.iter().position(|a| a.name == name);
        if found.is_none() {
            let names: Vec<&str> = self.kernel.axes.iter().map(|a| a.name.as_str()).collect();
            self.error(
                Diagnostic::new(Code::E002, ident.span(), format!("unknown axis `{name}`"))
                    .help(suggestion(&name, &names)),
            );
        }
        found
    }

    fn tensor(&mut self, ident: &Ident) -> Option<usize> {
        let name = ident.to_string();
        let found = self.kernel.tensors.iter().position(|t| t.name == name);
        if found.is_none() {
            let names: Vec<&str> = self
                .kernel
                .tensors
                .iter()
                .map(|t| t.name.as_str())
                .collect();
            self.error(
                Diagnostic::new(Code::E002, ident.span(), format!("unknown tensor `{name}`"))
                    .help(suggestion(&name, &names)),
            );
        }
        found
    }

    /// Checks the schedule; on success, its checked form.
    fn check(mut self) -> Option<CheckedSchedule> {
        let before = self.diagnostics.len();
        let checked = self.rules();
        self.resolve_fixes(before);
        checked
    }

    fn rules(&mut self) -> Option<CheckedSchedule> {
        let kernel = self.kernel;
        let schedule = self.schedule;
        let before = self.diagnostics.len();
        let is_matmul = matches!(kernel.class, KernelClass::Matmul(_));

        let Items {
            parallel,
            splits,
            stages,
            cube,
            tail,
            order,
            dropped,
        } = self.items();
        if self.diagnostics.len() != before + dropped {
            return None;
        }
        self.tail = tail.map_or(Tail::None, |(t, _)| t);

        let tiles = self.tiles(&parallel, &splits);
        self.whole_axes(&splits, &parallel);
        // A rejected split leaves a default tile the user never wrote: the rules that
        // read tiles say nothing about it.
        let tiles_known = self.diagnostics.len() == before + dropped;

        let staged_all = self.require_stages(&stages);
        let cube_tiles = if is_matmul && tiles_known {
            self.cube_tiles(cube.as_ref(), &splits, &tiles)
        } else {
            None
        };
        let tiles_known = tiles_known && (!is_matmul || cube_tiles.is_some());

        let stage_list: Vec<Stage> = stages.iter().map(|s| s.stage).collect();
        let collected = Collected {
            parallel,
            splits,
            stages,
            stage_list,
            tiles,
            cube: cube_tiles,
        };
        self.cores(&collected);
        self.events(&collected);
        if !tiles_known {
            return None;
        }
        let buffers = plan::buffers(
            kernel,
            self.target,
            &collected.tiles,
            cube_tiles,
            &collected.stage_list,
        );
        let order = self.tile_rules(&collected, (&buffers, staged_all), order);
        if self.diagnostics.len() != before {
            return None;
        }
        let Collected {
            parallel,
            tiles,
            stage_list,
            ..
        } = collected;
        Some(CheckedSchedule {
            name: schedule.name.to_string(),
            source: crate::print::schedule(schedule),
            parallel: parallel.iter().map(|(a, c, _)| (*a, *c)).collect(),
            tiles,
            cube: cube_tiles,
            stages: stage_list,
            tail: self.tail,
            order,
            buffers,
        })
    }

    /// Tails, alignment, capacity, repeats and the scan order are independent rules:
    /// each runs whatever the others found, so that fixing one never reveals another
    /// (docs/dsl.md has the few cascades). Capacity and repeats wait for every tensor to
    /// be staged (`staged_all`): a schedule missing a `stage` item (an unknown item,
    /// often a misspelt `split`) is not yet the one the user means. Returns the loop
    /// order, the written one or the default.
    fn tile_rules(
        &mut self,
        collected: &Collected,
        (buffers, staged_all): (&[Buffer], bool),
        order: Option<(Vec<usize>, Span)>,
    ) -> Vec<usize> {
        self.tails(collected);
        self.alignment(collected);
        if staged_all {
            self.capacity(buffers, collected);
            if !matches!(self.kernel.class, KernelClass::Matmul(_)) {
                self.repeats(collected);
            }
        }
        let (order, span) =
            order.unwrap_or_else(|| (order::default_order(self.kernel), self.schedule.name.span()));
        self.scan_innermost(&order, &collected.tiles, span);
        order
    }

    /// The tile of every axis: the split if given; a parallel axis defaults to its
    /// share per core. A split past the share that leaves a core no work is refused
    /// (E032) and leaves the default.
    fn tiles(
        &mut self,
        parallel: &[(usize, u64, Span)],
        splits: &BTreeMap<usize, ast::Number>,
    ) -> Vec<u64> {
        let axes = &self.kernel.axes;
        let mut tiles: Vec<u64> = axes.iter().map(|a| a.extent).collect();
        for (a, cores, _) in parallel {
            tiles[*a] = axes[*a].extent.div_ceil(*cores);
        }
        for (a, tile) in splits {
            if let Some((_, cores, _)) = parallel.iter().find(|(p, _, _)| p == a) {
                let share = axes[*a].extent.div_ceil(*cores);
                // A tile past the even share still gives every core work when the
                // whole tiles come out one per core (1024 over 5 cores by 208: four
                // tiles of 208 and a last one of 192), as lowering deals them out.
                let whole = axes[*a].extent.div_ceil(tile.value);
                if tile.value > share && whole != *cores {
                    let candidates = self.tile_candidates(*a, share);
                    self.error_with_fixes(
                        Diagnostic::new(
                            Code::E032,
                            tile.span,
                            format!("split `{}` by {} leaves some of the {cores} cores no work: each gets {share} elements", axes[*a].name, tile.value),
                        ),
                        vec![candidates],
                        format!("split {} by {share} or less", axes[*a].name),
                    );
                    continue;
                }
            }
            tiles[*a] = tile.value;
        }
        tiles
    }

    /// A fused kernel runs its statements in order once per tile, so an axis any
    /// statement reduces over must stay whole: the statements after the reduction read
    /// its result along the whole axis. Intermediates are not spilled to global memory.
    fn whole_axes(
        &mut self,
        splits: &std::collections::BTreeMap<usize, crate::ast::Number>,
        parallel: &[(usize, u64, Span)],
    ) {
        let kernel = self.kernel;
        if !kernel.is_fused() {
            return;
        }
        for (axis, info) in kernel.axes.iter().enumerate() {
            let Some(reducer) = reducer_of(kernel, axis) else {
                continue;
            };
            let statement = &kernel.tensors[reducer.output].name;
            let (name, extent) = (&info.name, info.extent);
            let why = format!("`{statement}` reduces over `{name}`, so `{name}` must stay whole");
            // Why the rule exists, the same for a split and a `parallel` item.
            let note = "a fused kernel runs its statements once per tile and keeps its intermediates on chip: spilling them to global memory is not supported";
            if let Some(tile) = splits.get(&axis)
                && tile.value < extent
            {
                let value = tile.value;
                self.error(
                    Diagnostic::new(
                        Code::E035,
                        tile.span,
                        format!(
                            "{why}: split {name} by {value} cuts its {extent} elements into tiles"
                        ),
                    )
                    .note(note)
                    .help(format!(
                        "remove `split {name} by {value};` and split another axis"
                    )),
                );
            }
            if let Some((_, cores, span)) = parallel.iter().find(|(a, _, _)| *a == axis) {
                self.error(
                    Diagnostic::new(
                        Code::E035,
                        *span,
                        format!("{why}: parallel {name} over {cores} cores cuts it into chunks"),
                    )
                    .note(note)
                    .help(format!(
                        "remove `parallel {name} over {cores} cores;` and run another axis across cores"
                    )),
                );
            }
        }
    }

    /// Whether a tensor may be staged at a level for this kernel's class.
    fn level_fits_class(&self, tensor: usize, level: Level) -> Option<(String, String)> {
        let name = &self.kernel.tensors[tensor].name;
        match &self.kernel.class {
            KernelClass::Matmul(mm) => {
                let path: &[Level] = if tensor == mm.a {
                    &[Level::L1, Level::L0a]
                } else if tensor == mm.b {
                    &[Level::L1, Level::L0b]
                } else {
                    &[Level::L0c]
                };
                (!path.contains(&level)).then(|| {
                    let names: Vec<&str> = path.iter().map(|l| l.name()).collect();
                    (
                        format!(
                            "`{name}` does not pass through {level} on its way to or from the cube"
                        ),
                        format!("stage `{name}` in {}", list(&names)),
                    )
                })
            }
            _ => (level != Level::Ub).then(|| {
                (
                    format!(
                        "{level} feeds the cube, but kernel `{}` runs on the vector unit",
                        self.kernel.name
                    ),
                    format!("stage `{name}` in ub"),
                )
            }),
        }
    }

    /// Every tensor must reach the unit that computes on it. Returns whether it does.
    fn require_stages(&mut self, stages: &[StageItem]) -> bool {
        let kernel = self.kernel;
        let schedule = self.schedule;
        let needs: Vec<(usize, Level)> = match &kernel.class {
            KernelClass::Matmul(mm) => vec![
                (mm.a, Level::L1),
                (mm.a, Level::L0a),
                (mm.b, Level::L1),
                (mm.b, Level::L0b),
                (mm.c, Level::L0c),
            ],
            _ => (0..kernel.tensors.len())
                .filter(|t| kernel.tensors[*t].role != Role::Local && plan::is_accessed(kernel, *t))
                .map(|t| (t, Level::Ub))
                .collect(),
        };
        let missing: Vec<(usize, Level)> = needs
            .into_iter()
            .filter(|(t, l)| {
                !stages
                    .iter()
                    .any(|s| s.stage.tensor == *t && s.stage.level == *l)
            })
            .collect();
        if missing.is_empty() {
            return true;
        }
        let mut levels: Vec<Level> = missing.iter().map(|(_, l)| *l).collect();
        levels.dedup();
        let fixes: Vec<String> = Level::ALL
            .iter()
            .filter(|l| levels.contains(l))
            .map(|l| {
                let names: Vec<&str> = missing
                    .iter()
                    .filter(|(_, m)| m == l)
                    .map(|(t, _)| kernel.tensors[*t].name.as_str())
                    .collect();
                format!("`stage {} in {l} depth 2;`", names.join(", "))
            })
            .collect();
        let what: Vec<String> = missing
            .iter()
            .map(|(t, l)| format!("`{}` in {l}", kernel.tensors[*t].name))
            .collect();
        let stage_edits = |depth: u64| -> Vec<Edit> {
            Level::ALL
                .iter()
                .filter(|l| levels.contains(l))
                .map(|l| Edit::Stage {
                    tensors: missing
                        .iter()
                        .filter(|(_, m)| m == l)
                        .map(|(t, _)| kernel.tensors[*t].name.clone())
                        .collect(),
                    level: *l,
                    depth,
                })
                .collect()
        };
        let candidates = vec![stage_edits(2), stage_edits(1)];
        self.error_with_fixes(
            Diagnostic::new(
                Code::E031,
                schedule.name.span(),
                format!(
                    "schedule `{}` does not stage {}",
                    schedule.name,
                    what.join(", ")
                ),
            ),
            vec![candidates],
            format!("add {}", fixes.join(" and ")),
        );
        false
    }
}

/// The first statement of `kernel` with a reduction over `axis`.
fn reducer_of(kernel: &CheckedKernel, axis: usize) -> Option<&Assign> {
    kernel.body.iter().find(|assign| {
        let mut found = false;
        assign.value.walk(&mut |node| {
            found |= matches!(node, Expr::Reduce { axes, .. } if axes.contains(&axis));
        });
        found
    })
}

/// The lanes of a sum over `axis` that folds in lanes (see
/// [`CheckedKernel::fold_lanes`]), if one does: a split of `axis` keeps them whole
/// only with tiles that are multiples of them.
pub fn lane_fold(kernel: &CheckedKernel, axis: usize) -> Option<u64> {
    let mut found = None;
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let Expr::Reduce { axes, .. } = node
                && axes.as_slice() == [axis]
                && kernel.fold_lanes(node) > 1
            {
                // Lanes are powers of two: the most keeps every fold's whole.
                found = found.max(Some(u64::from(kernel.fold_lanes(node))));
            }
        });
    }
    found
}

/// For an axis a reduction with a named accumulator (`sum[kh, kw: bf16]`) folds inside
/// another: the axis before it and the accumulator. Such a reduction folds in index
/// order, so only its first axis may be split (the checker's E032; the tuner's space
/// leaves such axes whole).
pub fn ordered_fold(kernel: &CheckedKernel, axis: usize) -> Option<(String, Dtype)> {
    let mut found = None;
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let Expr::Reduce {
                axes,
                dtype,
                accumulator,
                ..
            } = node
                && *accumulator != dtype.accumulator()
                && let Some(position) = axes.iter().position(|a| *a == axis)
                && position > 0
                && found.is_none()
            {
                found = Some((kernel.axes[axes[position - 1]].name.clone(), *accumulator));
            }
        });
    }
    found
}
