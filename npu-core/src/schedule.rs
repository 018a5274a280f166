//! The schedule half of the checker: each `schedule` block against the machine.
//!
//! For every schedule this collects its items (reporting unknown names, duplicates and
//! bad numbers), fills in defaults, builds the buffer plan ([`crate::plan`]) and checks
//! capacity, alignment, vector repeats, cube tiles, cores, events and tails. Every
//! message gives the numbers and a help line with a fix that would pass.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Span};

use crate::ast::{self, ItemKind, KernelDef};
use crate::diag::{Code, Diagnostic, Diagnostics, list, suggestion};
use crate::ir::*;
use crate::plan;
use crate::target::{Level, Target};

/// Checks every schedule of `def` and stores the legal ones in `kernel`.
pub(crate) fn check_all(
    def: &KernelDef,
    kernel: &mut CheckedKernel,
    diagnostics: &mut Diagnostics,
) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for schedule in &def.schedules {
        let name = schedule.name.to_string();
        if seen.insert(name.clone(), schedule.name.span()).is_some() {
            diagnostics.push(
                Diagnostic::new(
                    Code::E030,
                    schedule.name.span(),
                    format!("schedule `{name}` is defined twice"),
                )
                .help("give each schedule its own name"),
            );
            continue;
        }
        let before = diagnostics.len();
        let checked = ScheduleChecker {
            kernel,
            target: &kernel.target,
            diagnostics: &mut *diagnostics,
            reported: HashSet::new(),
        }
        .check(schedule);
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
    diagnostics: &'a mut Diagnostics,
    /// The (code, span) of every error said, so that saying one again costs O(1).
    reported: HashSet<(Code, String)>,
}

/// A stage item with its spans, before it becomes a [`Stage`].
struct StageItem {
    stage: Stage,
    keyword: Span,
}

impl ScheduleChecker<'_> {
    /// Reports a problem once: the same code at the same token is said only the first time
    /// (three tensors misaligned by one `split` are one mistake).
    fn error(
        &mut self,
        code: Code,
        span: Span,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        // A span's debug form names its byte range, in the compiler and out of it.
        if !self.reported.insert((code, format!("{span:?}"))) {
            return;
        }
        self.diagnostics
            .push(Diagnostic::new(code, span, message).help(help));
    }

    fn axis(&mut self, ident: &Ident) -> Option<usize> {
        let name = ident.to_string();
        let found = self.kernel.axes.iter().position(|a| a.name == name);
        if found.is_none() {
            let names: Vec<&str> = self.kernel.axes.iter().map(|a| a.name.as_str()).collect();
            self.error(
                Code::E002,
                ident.span(),
                format!("unknown axis `{name}`"),
                suggestion(&name, &names),
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
                Code::E002,
                ident.span(),
                format!("unknown tensor `{name}`"),
                suggestion(&name, &names),
            );
        }
        found
    }

    fn check(mut self, schedule: &ast::Schedule) -> Option<CheckedSchedule> {
        let kernel = self.kernel;
        let before = self.diagnostics.len();
        let axes = &kernel.axes;
        let is_matmul = matches!(kernel.class, KernelClass::Matmul(_));

        let mut parallel: Vec<(usize, u64, Span)> = Vec::new();
        let mut splits: HashMap<usize, ast::Number> = HashMap::new();
        let mut stages: Vec<StageItem> = Vec::new();
        let mut cube: Option<(Vec<(usize, ast::Number)>, Span)> = None;
        let mut tail: Option<(Tail, Span)> = None;
        let mut order: Option<(Vec<usize>, Span)> = None;

        for item in &schedule.items {
            match &item.kind {
                ItemKind::Parallel { axis, cores } => {
                    let Some(a) = self.axis(axis) else { continue };
                    if parallel.iter().any(|(p, _, _)| *p == a) {
                        self.error(
                            Code::E030,
                            axis.span(),
                            format!("axis `{axis}` is split across cores twice"),
                            "keep one `parallel` item per axis",
                        );
                    } else if axes[a].reduction {
                        self.error(
                            Code::E032,
                            axis.span(),
                            format!(
                                "`{axis}` is a reduction axis and cannot be split across cores"
                            ),
                            "split an output axis across cores",
                        );
                    } else if cores.value == 0 {
                        self.error(
                            Code::E024,
                            cores.span,
                            "a split across 0 cores",
                            "use at least 1 core",
                        );
                    } else if cores.value > axes[a].extent {
                        self.error(
                            Code::E024,
                            cores.span,
                            format!(
                                "`{axis}` has {} elements, fewer than {} cores",
                                axes[a].extent, cores.value
                            ),
                            format!("use {} cores or fewer", axes[a].extent),
                        );
                    } else {
                        parallel.push((a, cores.value, cores.span));
                    }
                }
                ItemKind::Split { axis, tile } => {
                    let Some(a) = self.axis(axis) else { continue };
                    let std::collections::hash_map::Entry::Vacant(slot) = splits.entry(a) else {
                        self.error(
                            Code::E030,
                            item.keyword,
                            format!("axis `{axis}` is split twice"),
                            "keep one `split` item per axis",
                        );
                        continue;
                    };
                    if tile.value == 0 {
                        self.error(
                            Code::E032,
                            tile.span,
                            "a tile of 0 elements",
                            "tiles hold at least 1 element",
                        );
                    } else if tile.value > axes[a].extent {
                        let extent = axes[a].extent;
                        self.error(
                            Code::E032,
                            tile.span,
                            format!(
                                "split `{axis}` by {} is larger than its extent {extent}",
                                tile.value
                            ),
                            format!("split {axis} by {extent} or less"),
                        );
                    } else {
                        slot.insert(*tile);
                    }
                }
                ItemKind::Stage {
                    tensors,
                    level,
                    depth,
                } => {
                    let level_name = level.to_string();
                    let Some(lvl) = Level::from_name(&level_name) else {
                        self.error(
                            Code::E006,
                            level.span(),
                            format!("unknown memory level `{level_name}`"),
                            suggestion(&level_name, &Level::NAMES),
                        );
                        continue;
                    };
                    if self.target.capacity(lvl) == 0 {
                        self.error(
                            Code::E026,
                            level.span(),
                            format!("target `{}` has no {lvl}", self.target.name),
                            "stage in `ub`",
                        );
                        continue;
                    }
                    let depth_value = depth.map_or(1, |d| d.value);
                    if !(1..=4).contains(&depth_value) {
                        let span = depth.map_or(level.span(), |d| d.span);
                        self.error(
                            Code::E032,
                            span,
                            format!("buffer depth {depth_value}"),
                            "use depth 1 (single) or 2 (double buffering); at most 4",
                        );
                        continue;
                    }
                    for ident in tensors {
                        let Some(t) = self.tensor(ident) else {
                            continue;
                        };
                        if stages
                            .iter()
                            .any(|s| s.stage.tensor == t && s.stage.level == lvl)
                        {
                            self.error(
                                Code::E030,
                                ident.span(),
                                format!("`{ident}` is staged in {lvl} twice"),
                                "stage each tensor once per level",
                            );
                            continue;
                        }
                        if let Some(problem) = self.level_fits_class(t, lvl) {
                            self.error(Code::E026, level.span(), problem.0, problem.1);
                            continue;
                        }
                        stages.push(StageItem {
                            stage: Stage {
                                tensor: t,
                                level: lvl,
                                depth: depth_value,
                            },
                            keyword: item.keyword,
                        });
                    }
                }
                ItemKind::Cube { tiles } => {
                    if cube.is_some() {
                        self.error(
                            Code::E030,
                            item.keyword,
                            "a second `cube` item",
                            "keep one `cube` item",
                        );
                        continue;
                    }
                    if !is_matmul {
                        self.error(
                            Code::E026,
                            item.keyword,
                            format!("kernel `{}` has no matmul for the cube to run", kernel.name),
                            "remove the `cube` item",
                        );
                        continue;
                    }
                    let mut list = Vec::new();
                    for (axis, number) in tiles {
                        let Some(a) = self.axis(axis) else { continue };
                        if list.iter().any(|(x, _)| *x == a) {
                            self.error(
                                Code::E030,
                                axis.span(),
                                format!("`{axis}` appears twice in `cube`"),
                                "name m, n and k once each",
                            );
                            continue;
                        }
                        list.push((a, *number));
                    }
                    cube = Some((list, item.keyword));
                }
                ItemKind::Tail { policy } => {
                    let value = match policy.to_string().as_str() {
                        "pad" => Tail::Pad,
                        "exact" => Tail::Exact,
                        other => {
                            self.error(
                                Code::E006,
                                policy.span(),
                                format!("unknown tail policy `{other}`"),
                                suggestion(other, &["pad", "exact"]),
                            );
                            continue;
                        }
                    };
                    if tail.is_some() {
                        self.error(
                            Code::E030,
                            item.keyword,
                            "a second `tail` item",
                            "keep one `tail` item",
                        );
                        continue;
                    }
                    tail = Some((value, item.keyword));
                }
                ItemKind::Order { axes: names } => {
                    if order.is_some() {
                        self.error(
                            Code::E030,
                            item.keyword,
                            "a second `order` item",
                            "keep one `order` item",
                        );
                        continue;
                    }
                    let mut chosen = Vec::new();
                    for ident in names {
                        let Some(a) = self.axis(ident) else { continue };
                        if axes[a].reduction {
                            self.error(
                                Code::E032,
                                ident.span(),
                                format!(
                                    "`{ident}` is a reduction axis; reductions always run innermost"
                                ),
                                "list only output axes in `order`",
                            );
                        } else if chosen.contains(&a) {
                            self.error(
                                Code::E030,
                                ident.span(),
                                format!("`{ident}` appears twice in `order`"),
                                "list each output axis once",
                            );
                        } else {
                            chosen.push(a);
                        }
                    }
                    let output_axes = &kernel.body[0].axes;
                    let missing: Vec<&str> = output_axes
                        .iter()
                        .filter(|a| !chosen.contains(a))
                        .map(|a| axes[*a].name.as_str())
                        .collect();
                    if !missing.is_empty() && self.diagnostics.len() == before {
                        self.error(
                            Code::E031,
                            item.keyword,
                            format!("`order` leaves out {}", list(&missing)),
                            "list every output axis, outermost first",
                        );
                    }
                    order = Some((chosen, item.keyword));
                }
            }
        }
        if self.diagnostics.len() != before {
            return None;
        }

        // Tiles: the split if given; a parallel axis defaults to its share per core.
        let mut tiles: Vec<u64> = axes.iter().map(|a| a.extent).collect();
        for (a, cores, _) in &parallel {
            tiles[*a] = axes[*a].extent.div_ceil(*cores);
        }
        for (a, tile) in &splits {
            if let Some((_, cores, _)) = parallel.iter().find(|(p, _, _)| p == a) {
                let share = axes[*a].extent.div_ceil(*cores);
                if tile.value > share {
                    self.error(
                        Code::E032,
                        tile.span,
                        format!("split `{}` by {} leaves some of the {cores} cores no work: each gets {share} elements", axes[*a].name, tile.value),
                        format!("split {} by {share} or less", axes[*a].name),
                    );
                    continue;
                }
            }
            tiles[*a] = tile.value;
        }

        let staged_all = self.require_stages(schedule, &stages);
        let cube_tiles = if is_matmul {
            self.cube_tiles(schedule, cube.as_ref(), &splits, &tiles)
        } else {
            None
        };
        if is_matmul && cube_tiles.is_none() {
            return None;
        }

        let stage_list: Vec<Stage> = stages.iter().map(|s| s.stage).collect();
        let tail_policy = tail.map_or(Tail::None, |(t, _)| t);
        let buffers = plan::buffers(kernel, self.target, &tiles, cube_tiles, &stage_list);
        self.cores(&parallel);
        self.events(&stages);
        self.tails(&splits, &parallel, &tiles, tail_policy, &stage_list);
        self.alignment(&splits, &tiles, &stages, tail_policy);
        // Capacity and repeats count every buffer, so they wait for a complete plan.
        if staged_all && self.diagnostics.len() == before {
            self.capacity(&buffers, &stages, &splits, &tiles, cube_tiles, &stage_list);
            if !is_matmul {
                self.repeats(&splits, &tiles);
            }
        }
        if self.diagnostics.len() != before {
            return None;
        }
        let order = order
            .map(|(o, _)| o)
            .unwrap_or_else(|| kernel.body[0].axes.clone());
        Some(CheckedSchedule {
            name: schedule.name.to_string(),
            parallel: parallel.iter().map(|(a, c, _)| (*a, *c)).collect(),
            tiles,
            cube: cube_tiles,
            stages: stage_list,
            tail: tail_policy,
            order,
            buffers,
        })
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
    fn require_stages(&mut self, schedule: &ast::Schedule, stages: &[StageItem]) -> bool {
        let kernel = self.kernel;
        let needs: Vec<(usize, Level)> = match &kernel.class {
            KernelClass::Matmul(mm) => vec![
                (mm.a, Level::L1),
                (mm.a, Level::L0a),
                (mm.b, Level::L1),
                (mm.b, Level::L0b),
                (mm.c, Level::L0c),
            ],
            _ => (0..kernel.tensors.len())
                .filter(|t| plan::is_accessed(kernel, *t))
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
        self.error(
            Code::E031,
            schedule.name.span(),
            format!(
                "schedule `{}` does not stage {}",
                schedule.name,
                what.join(", ")
            ),
            format!("add {}", fixes.join(" and ")),
        );
        false
    }

    /// The cube's base block: present, multiples of the fractal, dividing the tiles.
    fn cube_tiles(
        &mut self,
        schedule: &ast::Schedule,
        cube: Option<&(Vec<(usize, ast::Number)>, Span)>,
        splits: &HashMap<usize, ast::Number>,
        tiles: &[u64],
    ) -> Option<[u64; 3]> {
        let KernelClass::Matmul(mm) = &self.kernel.class else {
            return None;
        };
        let fractal = self.target.cube.as_ref()?;
        let axes = &self.kernel.axes;
        let Some((list, keyword)) = cube else {
            self.error(
                Code::E031,
                schedule.name.span(),
                format!(
                    "schedule `{}` has no `cube` item; a matmul needs the cube's base block",
                    schedule.name
                ),
                format!(
                    "add `cube {} by 64, {} by 64, {} by 64;`",
                    axes[mm.m].name, axes[mm.n].name, axes[mm.k].name
                ),
            );
            return None;
        };
        let mut block = [0u64; 3];
        for (slot, (axis, unit)) in [(mm.m, fractal.m), (mm.n, fractal.n), (mm.k, fractal.k)]
            .into_iter()
            .enumerate()
        {
            let name = &axes[axis].name;
            let Some((_, number)) = list.iter().find(|(a, _)| *a == axis) else {
                self.error(
                    Code::E031,
                    *keyword,
                    format!("`cube` does not give `{name}`"),
                    format!("add `{name} by {}`", unit * 4),
                );
                continue;
            };
            let value = number.value;
            if value == 0 || value % unit != 0 {
                let fix = (value / unit).max(1) * unit;
                self.error(
                    Code::E023,
                    number.span,
                    format!("cube `{name}` by {value} is not a multiple of the {unit}-element fractal of `{}`", self.target.name),
                    format!("use `{name} by {fix}`"),
                );
                continue;
            }
            if value > tiles[axis] {
                self.error(
                    Code::E023,
                    number.span,
                    format!(
                        "cube `{name}` by {value} is larger than the `{name}` tile of {}",
                        tiles[axis]
                    ),
                    format!(
                        "use `{name} by {}` or split `{name}` by {value} or more",
                        (tiles[axis] / unit).max(1) * unit
                    ),
                );
                continue;
            }
            if !tiles[axis].is_multiple_of(value) {
                let span = splits.get(&axis).map_or(number.span, |n| n.span);
                let fix = (tiles[axis] / value).max(1) * value;
                self.error(
                    Code::E023,
                    span,
                    format!(
                        "the `{name}` tile of {} is not a multiple of cube `{name}` by {value}",
                        tiles[axis]
                    ),
                    format!("split {name} by {fix}"),
                );
                continue;
            }
            block[slot] = value;
        }
        block.iter().all(|v| *v > 0).then_some(block)
    }

    fn cores(&mut self, parallel: &[(usize, u64, Span)]) {
        let total: u64 = parallel.iter().map(|(_, c, _)| c).product();
        let (available, kind) = match self.kernel.class {
            KernelClass::Matmul(_) => (u64::from(self.target.cores.cube), "cube"),
            _ => (u64::from(self.target.cores.vector), "vector"),
        };
        if total > available
            && let Some((_, _, span)) = parallel.last()
        {
            self.error(
                Code::E024,
                *span,
                format!(
                    "the schedule uses {total} cores but `{}` has {available} {kind} cores",
                    self.target.name
                ),
                format!("split across {available} cores or fewer"),
            );
        }
    }

    /// Each pair of pipes has `events` ids; every buffer slot between them needs one.
    fn events(&mut self, stages: &[StageItem]) {
        let kernel = self.kernel;
        let groups: Vec<(&str, Vec<&StageItem>)> = match kernel.class {
            KernelClass::Matmul(_) => vec![
                (
                    "MTE2 to MTE1 (l1)",
                    stages
                        .iter()
                        .filter(|s| s.stage.level == Level::L1)
                        .collect(),
                ),
                (
                    "MTE1 to M (l0a, l0b)",
                    stages
                        .iter()
                        .filter(|s| matches!(s.stage.level, Level::L0a | Level::L0b))
                        .collect(),
                ),
                (
                    "M to FIX (l0c)",
                    stages
                        .iter()
                        .filter(|s| s.stage.level == Level::L0c)
                        .collect(),
                ),
            ],
            _ => vec![
                (
                    "MTE2 to V (inputs)",
                    stages
                        .iter()
                        .filter(|s| kernel.tensors[s.stage.tensor].role == Role::Input)
                        .collect(),
                ),
                (
                    "V to MTE3 (outputs)",
                    stages
                        .iter()
                        .filter(|s| kernel.tensors[s.stage.tensor].role == Role::Output)
                        .collect(),
                ),
            ],
        };
        for (pipes, group) in groups {
            let needed: u64 = group.iter().map(|s| s.stage.depth).sum();
            if needed > u64::from(self.target.events)
                && let Some(last) = group.last()
            {
                let names: Vec<&str> = group
                    .iter()
                    .map(|s| kernel.tensors[s.stage.tensor].name.as_str())
                    .collect();
                self.error(
                    Code::E025,
                    last.keyword,
                    format!(
                        "{pipes} needs {needed} event ids for {} but `{}` has {}",
                        list(&names),
                        self.target.name,
                        self.target.events
                    ),
                    "lower some buffer depths to 1",
                );
            }
        }
    }

    /// A tile that does not divide its axis leaves a tail, which needs a policy.
    fn tails(
        &mut self,
        splits: &HashMap<usize, ast::Number>,
        parallel: &[(usize, u64, Span)],
        tiles: &[u64],
        tail: Tail,
        stages: &[Stage],
    ) {
        let kernel = self.kernel;
        for (a, axis) in kernel.axes.iter().enumerate() {
            let remainder = axis.extent % tiles[a];
            if remainder == 0 {
                continue;
            }
            let span = splits.get(&a).map(|n| n.span).or_else(|| {
                parallel
                    .iter()
                    .find(|(p, _, _)| *p == a)
                    .map(|(_, _, s)| *s)
            });
            let Some(span) = span else { continue };
            match tail {
                Tail::None => {
                    let divisor = (1..=tiles[a])
                        .rev()
                        .find(|d| axis.extent % d == 0)
                        .unwrap_or(1);
                    self.error(
                        Code::E033,
                        span,
                        format!(
                            "a tile of {} leaves a tail of {remainder} on `{}` (extent {})",
                            tiles[a], axis.name, axis.extent
                        ),
                        format!(
                            "add `tail pad;`, or use a tile that divides {} such as {divisor}",
                            axis.extent
                        ),
                    );
                }
                Tail::Exact => {
                    for stage in stages {
                        let tensor = &kernel.tensors[stage.tensor];
                        let inner = plan::tensor_axes(kernel, stage.tensor)
                            .last()
                            .copied()
                            .flatten();
                        let align = self.target.alignment(stage.level);
                        let bytes = remainder * tensor.dtype.size();
                        if inner == Some(a) && !bytes.is_multiple_of(align) {
                            self.error(
                                Code::E033,
                                span,
                                format!("the tail of {remainder} {} of `{}` is {bytes} B, not a multiple of {align} B, so it cannot be copied exactly", tensor.dtype, tensor.name),
                                "use `tail pad;` to pad the tail's copies",
                            );
                            break;
                        }
                    }
                }
                Tail::Pad => {}
            }
        }
    }

    /// Copies between global memory and a staged buffer must be aligned in length and start.
    fn alignment(
        &mut self,
        splits: &HashMap<usize, ast::Number>,
        tiles: &[u64],
        stages: &[StageItem],
        tail: Tail,
    ) {
        let kernel = self.kernel;
        for item in stages {
            let stage = item.stage;
            if matches!(stage.level, Level::L0a | Level::L0b | Level::L0c) {
                continue; // L0 blocks are whole fractals, aligned by construction.
            }
            if !plan::is_accessed(kernel, stage.tensor) {
                continue; // Never copied: lowering skips a tensor nothing reads.
            }
            let tensor = &kernel.tensors[stage.tensor];
            let size = tensor.dtype.size();
            let align = self.target.alignment(stage.level);
            let axes_of = plan::tensor_axes(kernel, stage.tensor);
            let shape = plan::tile_shape(kernel, stage.tensor, tiles);
            let rank = shape.len();
            let inner_axis = axes_of[rank - 1];
            if let Some(a) = inner_axis
                && shape[rank - 1] != tensor.shape[rank - 1]
                && !(shape[rank - 1] * size).is_multiple_of(align)
            {
                let step = align / gcd(align, size);
                let fix = (shape[rank - 1] / step).max(1) * step;
                let span = splits.get(&a).map_or(item.keyword, |n| n.span);
                self.error(
                    Code::E021,
                    span,
                    format!(
                        "a tile of {} {} along `{}` copies {} B of `{}`, not a multiple of the {align}-byte {} alignment",
                        shape[rank - 1],
                        tensor.dtype,
                        kernel.axes[a].name,
                        shape[rank - 1] * size,
                        tensor.name,
                        stage.level
                    ),
                    format!("split {} by {fix} (a multiple of {step} elements)", kernel.axes[a].name),
                );
                continue;
            }
            if tail == Tail::Pad {
                continue; // Padded copies (DataCopyPad) accept any burst length and stride.
            }
            // Contiguous run: whole inner dimensions, then the first partial one.
            let mut run = 1;
            let mut first_partial = 0;
            for d in (0..rank).rev() {
                run *= shape[d];
                if shape[d] != tensor.shape[d] {
                    first_partial = d;
                    break;
                }
            }
            let row_bytes: u64 = tensor.shape[first_partial + 1..].iter().product::<u64>() * size;
            let misaligned_len = !(run * size).is_multiple_of(align);
            let misaligned_stride = first_partial + 1 < rank
                && tensor.shape[..=first_partial].iter().any(|e| *e > 1)
                && !row_bytes.is_multiple_of(align);
            if misaligned_len || misaligned_stride {
                let what = if misaligned_len {
                    format!("copies of `{}` are {} B long", tensor.name, run * size)
                } else {
                    format!("rows of `{}` start every {row_bytes} B", tensor.name)
                };
                self.error(
                    Code::E021,
                    item.keyword,
                    format!(
                        "{what}, not a multiple of the {align}-byte {} alignment",
                        stage.level
                    ),
                    "add `tail pad;` to pad each copy to the alignment (DataCopyPad)",
                );
            }
        }
    }

    /// The plan must fit every level.
    fn capacity(
        &mut self,
        buffers: &[Buffer],
        stages: &[StageItem],
        splits: &HashMap<usize, ast::Number>,
        tiles: &[u64],
        cube: Option<[u64; 3]>,
        stage_list: &[Stage],
    ) {
        let kernel = self.kernel;
        for level in Level::ALL {
            let used: u64 = buffers
                .iter()
                .filter(|b| b.level == level)
                .map(Buffer::total_bytes)
                .sum();
            let capacity = self.target.capacity(level);
            if used <= capacity {
                continue;
            }
            let Some(first) = stages.iter().find(|s| s.stage.level == level) else {
                continue;
            };
            let parts: Vec<String> = buffers
                .iter()
                .filter(|b| b.level == level)
                .map(|b| {
                    if b.depth > 1 {
                        format!("{} {}x{}", b.name, b.depth, b.bytes)
                    } else {
                        format!("{} {}", b.name, b.bytes)
                    }
                })
                .collect();
            // Double buffering at this level is the other way to fit, when depth 1 fits.
            let single: Vec<Stage> = stage_list
                .iter()
                .map(|s| {
                    if s.level == level {
                        Stage { depth: 1, ..*s }
                    } else {
                        *s
                    }
                })
                .collect();
            let level_bytes = |tiles: &[u64], cube: Option<[u64; 3]>, stages: &[Stage]| -> u64 {
                plan::buffers(kernel, self.target, tiles, cube, stages)
                    .iter()
                    .filter(|b| b.level == level)
                    .map(Buffer::total_bytes)
                    .sum()
            };
            let or_depth = stage_list.iter().any(|s| s.level == level && s.depth > 1)
                && level_bytes(tiles, cube, &single) <= capacity;
            let help = if matches!(level, Level::L0a | Level::L0b | Level::L0c) {
                let fits =
                    |block: [u64; 3]| level_bytes(tiles, Some(block), stage_list) <= capacity;
                self.cube_help(level, cube, fits, or_depth)
            } else {
                // Suggest the largest tile of the biggest axis that fits.
                let fits = |tiles: &[u64]| level_bytes(tiles, cube, stage_list) <= capacity;
                self.shrink_help(splits, tiles, fits, or_depth)
            };
            self.error(
                Code::E020,
                first.keyword,
                format!(
                    "{level} holds {capacity} B but this schedule needs {used} B, {} B too many: {}",
                    used - capacity,
                    parts.join(" + ")
                ),
                help,
            );
        }
    }

    /// No vector instruction may need more repeats than the unit issues.
    fn repeats(&mut self, splits: &HashMap<usize, ast::Number>, tiles: &[u64]) {
        let target = self.target;
        let worst = |tiles: &[u64]| max_repeats(self.kernel, target, tiles);
        let repeats = worst(tiles);
        if repeats <= target.vector.max_repeat {
            return;
        }
        let fits = |tiles: &[u64]| worst(tiles) <= target.vector.max_repeat;
        let help = self.shrink_help(splits, tiles, fits, false);
        let span = splits
            .values()
            .max_by_key(|n| n.value)
            .map(|n| n.span)
            .unwrap_or_else(Span::call_site);
        self.error(
            Code::E022,
            span,
            format!(
                "a vector instruction over this tile needs {repeats} repeats of {} B but `{}` issues at most {}",
                target.vector.repeat_bytes, target.name, target.vector.max_repeat
            ),
            help,
        );
    }

    /// "split i by N or less fits": the largest aligned tile of the most tiled axis, and
    /// "or use depth 1" when `or_depth` says that fits too.
    fn shrink_help(
        &self,
        splits: &HashMap<usize, ast::Number>,
        tiles: &[u64],
        fits: impl Fn(&[u64]) -> bool,
        or_depth: bool,
    ) -> String {
        let or_depth = if or_depth { ", or use depth 1" } else { "" };
        let kernel = self.kernel;
        let candidates: Vec<usize> = (0..kernel.axes.len()).filter(|a| tiles[*a] > 1).collect();
        let Some(&axis) = candidates
            .iter()
            .max_by_key(|a| (tiles[**a], splits.contains_key(a)))
        else {
            return format!("stage fewer tensors{or_depth}");
        };
        let step = self.align_step(axis);
        let mut best = None;
        let (mut lo, mut hi) = (1u64, tiles[axis] / step);
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            let mut trial = tiles.to_vec();
            trial[axis] = mid * step;
            if fits(&trial) {
                best = Some(mid * step);
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        let name = &kernel.axes[axis].name;
        match best {
            Some(tile) => {
                let power = 1u64 << (63 - tile.leading_zeros());
                if power != tile && power.is_multiple_of(step) {
                    format!("split {name} by {tile} or less fits (e.g. {power}){or_depth}")
                } else {
                    format!("split {name} by {tile} or less fits{or_depth}")
                }
            }
            None => format!("no tile of `{name}` fits; split another axis{or_depth}"),
        }
    }

    /// "use `cube m by 128, n by 128, k by 64`": the cube block halved, largest side
    /// first, until its buffers at `level` fit.
    fn cube_help(
        &self,
        level: Level,
        cube: Option<[u64; 3]>,
        fits: impl Fn([u64; 3]) -> bool,
        or_depth: bool,
    ) -> String {
        let or_depth = if or_depth { ", or use depth 1" } else { "" };
        let (KernelClass::Matmul(mm), Some(mut block), Some(fractal)) =
            (&self.kernel.class, cube, &self.target.cube)
        else {
            return format!("use a smaller `cube` block{or_depth}");
        };
        let units = [fractal.m, fractal.n, fractal.k];
        // The sides of the block each level holds: m x k in L0A, k x n in L0B, m x n in L0C.
        let sides: &[usize] = match level {
            Level::L0a => &[0, 2],
            Level::L0b => &[2, 1],
            _ => &[0, 1],
        };
        while !fits(block) {
            let halvable = sides.iter().copied().filter(|&side| {
                let half = block[side] / 2;
                block[side] % 2 == 0 && half >= units[side] && half % units[side] == 0
            });
            let Some(side) = halvable.max_by_key(|&side| block[side]) else {
                return match or_depth {
                    "" => format!("no `cube` block fits {level}"),
                    _ => "use depth 1".into(),
                };
            };
            block[side] /= 2;
        }
        let names = [mm.m, mm.n, mm.k].map(|axis| self.kernel.axes[axis].name.as_str());
        format!(
            "use `cube {} by {}, {} by {}, {} by {}`, which fits{or_depth}",
            names[0], block[0], names[1], block[1], names[2], block[2]
        )
    }

    /// Elements a tile of `axis` must be a multiple of for aligned copies.
    fn align_step(&self, axis: usize) -> u64 {
        let kernel = self.kernel;
        let mut step = 1;
        for (t, tensor) in kernel.tensors.iter().enumerate() {
            if plan::tensor_axes(kernel, t).last().copied().flatten() == Some(axis) {
                let align = self.target.align.ub;
                let need = align / gcd(align, tensor.dtype.size());
                step = step / gcd(step, need) * need;
            }
        }
        step
    }
}

/// The most repeats any vector instruction of the kernel needs with these tiles.
pub fn max_repeats(kernel: &CheckedKernel, target: &Target, tiles: &[u64]) -> u64 {
    let mut worst = 0;
    for assign in &kernel.body {
        let outer: u64 = assign.axes.iter().map(|a| tiles[*a]).product();
        visit_instructions(&assign.value, outer, tiles, &mut |elements, bytes| {
            worst = worst.max((elements * bytes).div_ceil(target.vector.repeat_bytes));
        });
    }
    worst
}

/// Calls `f(elements, widest element bytes)` for every vector instruction of `expr`.
fn visit_instructions(expr: &Expr, space: u64, tiles: &[u64], f: &mut impl FnMut(u64, u64)) {
    let width = |e: &Expr| e.dtype().size();
    match expr {
        Expr::Load { .. } | Expr::Const { .. } => {}
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => {
            f(space, width(expr).max(width(arg)));
            visit_instructions(arg, space, tiles, f);
        }
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            f(space, width(expr));
            visit_instructions(lhs, space, tiles, f);
            visit_instructions(rhs, space, tiles, f);
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            f(space, width(expr));
            visit_instructions(cond, space, tiles, f);
            visit_instructions(then, space, tiles, f);
            visit_instructions(otherwise, space, tiles, f);
        }
        Expr::Reduce {
            axis, body, dtype, ..
        } => {
            let inner = space * tiles[*axis];
            f(inner, dtype.accumulator().size());
            visit_instructions(body, inner, tiles, f);
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}
