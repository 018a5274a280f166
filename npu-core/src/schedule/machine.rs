//! The machine's resources: cube base blocks, cores, event ids, capacity per level and
//! the vector unit's repeat limit.

use std::collections::BTreeMap;

use proc_macro2::Span;

use super::{Collected, ScheduleChecker, StageItem, help};
use crate::ast;
use crate::diag::{Code, Diagnostic, list};
use crate::fix::Edit;
use crate::ir::*;
use crate::plan;
use crate::target::{Level, Target};

impl ScheduleChecker<'_> {
    /// The cube's base block: present, multiples of the fractal, dividing the tiles.
    pub(super) fn cube_tiles(
        &mut self,
        cube: Option<&(Vec<(usize, ast::Number)>, Span)>,
        splits: &BTreeMap<usize, ast::Number>,
        tiles: &[u64],
    ) -> Option<[u64; 3]> {
        let KernelClass::Matmul(mm) = &self.kernel.class else {
            return None;
        };
        let fractal = self.target.cube.as_ref()?;
        let axes = &self.kernel.axes;
        let Some((list, keyword)) = cube else {
            self.no_cube_item(mm);
            return None;
        };
        let mut block = [0u64; 3];
        for (slot, (axis, unit)) in [(mm.m, fractal.m), (mm.n, fractal.n), (mm.k, fractal.k)]
            .into_iter()
            .enumerate()
        {
            let name = axes[axis].name.clone();
            let Some((_, number)) = list.iter().find(|(a, _)| *a == axis) else {
                let candidates = self.cube_candidates(axis, unit, tiles[axis], u64::MAX);
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E031,
                        *keyword,
                        format!("`cube` does not give `{name}`"),
                    ),
                    vec![candidates],
                    format!("add `{name} by {}`", unit * 4),
                );
                continue;
            };
            let value = number.value;
            if value == 0 || value % unit != 0 {
                let candidates = self.cube_candidates(axis, unit, tiles[axis], value.max(unit));
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E023,
                        number.span,
                        format!("cube `{name}` by {value} is not a multiple of the {unit}-element fractal of `{}`", self.target.name),
                    ),
                    vec![candidates],
                    format!("use a multiple of {unit} that divides the `{name}` tile"),
                );
                continue;
            }
            if value > tiles[axis] {
                let candidates = self.cube_candidates(axis, unit, tiles[axis], value);
                let splits_up = self.tile_candidates_from(axis, value, true);
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E023,
                        number.span,
                        format!(
                            "cube `{name}` by {value} is larger than the `{name}` tile of {}",
                            tiles[axis]
                        ),
                    ),
                    vec![candidates, splits_up],
                    format!("use a smaller `{name}` block or a larger `{name}` tile"),
                );
                continue;
            }
            if !tiles[axis].is_multiple_of(value) {
                let span = splits.get(&axis).map_or(number.span, |n| n.span);
                let multiples: Vec<Vec<Edit>> = (1..=tiles[axis] / value)
                    .rev()
                    .take(help::CANDIDATES)
                    .map(|times| {
                        vec![Edit::Split {
                            axis: name.clone(),
                            tile: times * value,
                        }]
                    })
                    .collect();
                let candidates = self.cube_candidates(axis, unit, tiles[axis], value);
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E023,
                        span,
                        format!(
                            "the `{name}` tile of {} is not a multiple of cube `{name}` by {value}",
                            tiles[axis]
                        ),
                    ),
                    vec![multiples, candidates],
                    format!("make the `{name}` tile a multiple of the `{name}` block"),
                );
                continue;
            }
            block[slot] = value;
        }
        block.iter().all(|v| *v > 0).then_some(block)
    }

    /// E031 for a matmul schedule without a `cube` item, with blocks of 64, 32 and 16
    /// as fixes.
    fn no_cube_item(&mut self, mm: &MatmulShape) {
        let axes = &self.kernel.axes;
        let schedule = self.schedule;
        let block = |size: u64| -> Vec<Edit> {
            [mm.m, mm.n, mm.k]
                .iter()
                .map(|a| Edit::Cube {
                    axis: axes[*a].name.clone(),
                    tile: size,
                })
                .collect()
        };
        let candidates = [64, 32, 16].into_iter().map(block).collect();
        self.error_with_fixes(
            Diagnostic::new(
                Code::E031,
                schedule.name.span(),
                format!(
                    "schedule `{}` has no `cube` item; a matmul needs the cube's base block",
                    schedule.name
                ),
            ),
            vec![candidates],
            format!(
                "add `cube {} by 64, {} by 64, {} by 64;`",
                axes[mm.m].name, axes[mm.n].name, axes[mm.k].name
            ),
        );
    }

    /// Reports a `cube` item that gives the batch axis of a batched matmul a block: the
    /// cube multiplies one matrix at a time, so its base block covers m, n and k only.
    /// The batch is tiled with `split` and spread with `parallel` instead.
    pub(super) fn cube_names_batch(
        &mut self,
        ident: &proc_macro2::Ident,
        axis: usize,
        number: &ast::Number,
    ) -> bool {
        let KernelClass::Matmul(mm) = &self.kernel.class else {
            return false;
        };
        if mm.batch != Some(axis) {
            return false;
        }
        let axes = &self.kernel.axes;
        let extent = axes[axis].extent;
        let (m, n, k) = (&axes[mm.m].name, &axes[mm.n].name, &axes[mm.k].name);
        let value = number.value;
        // `split t by N` is what a block along the batch most likely meant, when N
        // is a tile the batch can have.
        let split = if (1..extent).contains(&value) {
            format!("; `split {ident} by {value};` takes {value} matrices per tile")
        } else {
            format!(
                "; tile the batch with `split {ident} by ..` or spread it with `parallel {ident} over .. cores`"
            )
        };
        self.error(
            Diagnostic::new(
                Code::E032,
                ident.span(),
                format!(
                    "`{ident}` is the batch axis of this matmul, but the cube's base block covers `{m}`, `{n}` and `{k}` only: each of the {extent} matrices is multiplied on its own"
                ),
            )
            .help(format!("remove `{ident} by {value}` from `cube`{split}")),
        );
        true
    }

    /// Blocks of `axis` below `below`, multiples of the fractal `unit` that divide `tile`,
    /// largest first.
    fn cube_candidates(&self, axis: usize, unit: u64, tile: u64, below: u64) -> Vec<Vec<Edit>> {
        let largest = (tile.min(below) / unit) * unit;
        (1..=largest / unit)
            .rev()
            .map(|times| times * unit)
            .filter(|block| tile.is_multiple_of(*block) && *block != below)
            .take(help::CANDIDATES)
            .map(|block| {
                vec![Edit::Cube {
                    axis: self.kernel.axes[axis].name.clone(),
                    tile: block,
                }]
            })
            .collect()
    }

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

    /// The plan must fit every level.
    pub(super) fn capacity(&mut self, buffers: &[Buffer], collected: &Collected) {
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

    /// No vector instruction may need more repeats than the unit issues.
    pub(super) fn repeats(&mut self, collected: &Collected) {
        let target = self.target;
        let worst = |tiles: &[u64]| max_repeats(self.kernel, target, tiles);
        let repeats = worst(&collected.tiles);
        if repeats <= target.vector.max_repeat {
            return;
        }
        let (candidates, fallback) =
            self.shrink_candidates(collected, |tiles| worst(tiles) <= target.vector.max_repeat);
        // Point at the item that sets the tile the fix shrinks.
        let axis = self.shrink_axis(collected);
        let span = axis
            .and_then(|a| {
                collected.splits.get(&a).map(|n| n.span).or_else(|| {
                    collected
                        .parallel
                        .iter()
                        .find(|(p, _, _)| *p == a)
                        .map(|(_, _, s)| *s)
                })
            })
            .or_else(|| collected.stages.first().map(|s| s.keyword))
            .unwrap_or_else(|| self.schedule.name.span());
        self.error_with_fixes(
            Diagnostic::new(
                Code::E022,
                span,
                format!(
                    "a vector instruction over this tile needs {repeats} repeats of {} B but `{}` issues at most {}",
                    target.vector.repeat_bytes, target.name, target.vector.max_repeat
                ),
            ),
            vec![candidates],
            fallback,
        );
    }
}

/// The help of E026 on a `cube` item of a kernel the cube cannot run: for a sum of
/// products that misses the cube's form, the forms it runs.
pub(super) fn no_matmul_help(kernel: &CheckedKernel) -> &'static str {
    if crate::check::near_matmul(kernel) {
        "the cube runs `c[m, n] = sum[k](a[m, k] * b[k, n])` or, batch axis first, `c[t, m, n] = sum[k](a[t, m, k] * b[t, k, n])` (`b[k, n]` when the batch shares it); write the kernel so, or remove the `cube` item"
    } else {
        "remove the `cube` item"
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

/// Single-buffers these staged tensors.
fn depth_one(kernel: &CheckedKernel, stages: &[&StageItem]) -> Vec<Edit> {
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

/// The most repeats any vector instruction of the kernel needs with these tiles. It
/// counts the instructions lowering emits (see [`crate::lower()`]): an operation per
/// node that is not a constant, a copy for a load written straight to the output or
/// broadcast into a temporary, a fill for a constant output, and for each reduction
/// the accumulator's fill, the fold and the cast out of the accumulator.
pub fn max_repeats(kernel: &CheckedKernel, target: &Target, tiles: &[u64]) -> u64 {
    let mut worst = 0;
    let mut note = |elements: u64, bytes: u64| {
        worst = worst.max((elements * bytes).div_ceil(target.vector.repeat_bytes));
    };
    for assign in &kernel.body {
        let outer: u64 = assign.axes.iter().map(|a| tiles[*a]).product();
        let root = &assign.value;
        let size = root.dtype().size();
        if constant_value(root).is_some() {
            note(outer, size); // vdup of the output tile
            continue;
        }
        match root {
            // A vcopy into the output tile; a vdup of a scalar parameter's value.
            Expr::Load { .. } | Expr::Param { .. } => note(outer, size),
            Expr::Reduce { accumulator, .. } => {
                note(outer, accumulator.size().max(size)); // vconv out
                visit(root, outer, tiles, &mut note);
            }
            _ => visit(root, outer, tiles, &mut note),
        }
    }
    worst
}

/// Calls `note(elements, bytes per element)` for every vector instruction of a node
/// that is not its statement's root, and of its subtree.
fn visit(expr: &Expr, space: u64, tiles: &[u64], note: &mut impl FnMut(u64, u64)) {
    if constant_value(expr).is_some() {
        return; // A scalar operand: no instruction.
    }
    match expr {
        Expr::Const { .. } | Expr::Param { .. } => {}
        // A vgather into a temporary.
        Expr::Load { dtype, .. } if expr.is_gather() => note(space, dtype.size()),
        Expr::Load {
            subscripts, dtype, ..
        } => {
            let covered: u64 = plan::load_axes(subscripts)
                .iter()
                .map(|a| tiles[*a])
                .product();
            if covered != space {
                note(space, dtype.size()); // broadcast into a temporary
            }
        }
        Expr::Reduce {
            op,
            axes,
            body,
            dtype,
            accumulator,
        } => {
            let inner = space * axes.iter().map(|a| tiles[*a]).product::<u64>();
            let (accumulator, bytes) = (*accumulator, accumulator.size());
            // The fold is charged as lowering charges it, at the widest element it
            // touches: `sum[k: bf16]` over f32 reads 4-byte operands.
            let fold = vector_width(expr).unwrap_or(bytes);
            if op.is_arg() {
                note(space, dtype.size()); // fill the index
                note(space, bytes); // fill the value
                note(inner, fold);
            } else {
                note(space, bytes); // fill the accumulator
                note(inner, fold);
                if accumulator != *dtype {
                    note(space, bytes.max(dtype.size())); // round to the reduction's dtype
                }
            }
            visit(body, inner, tiles, note);
        }
        Expr::Scan {
            axis,
            body,
            accumulator,
            ..
        } => {
            note(space / tiles[*axis], accumulator.size()); // fill the carry
            note(space, vector_width(expr).unwrap_or(expr.dtype().size())); // scan
            visit(body, space, tiles, note);
        }
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => {
            note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
            visit(arg, space, tiles, note);
        }
        // One instruction per step, each over the chain's space in its dtype.
        Expr::Chain { first, rest, .. } => {
            for (_, term) in rest {
                note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
                visit(term, space, tiles, note);
            }
            visit(first, space, tiles, note);
        }
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
            visit(lhs, space, tiles, note);
            visit(rhs, space, tiles, note);
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            note(space, vector_width(expr).unwrap_or(expr.dtype().size()));
            visit(cond, space, tiles, note);
            visit(then, space, tiles, note);
            visit(otherwise, space, tiles, note);
        }
    }
}
