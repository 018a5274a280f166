//! Repairs: a draft the checker refuses is edited by the fixes its diagnostics carry
//! (checked edits, see [`npu_core::Fix`]) or, without one, by the edit the help line or
//! the diagnostic's class names, until it checks or nothing changes.

use npu_core::Code;
use npu_core::ir::Tail;

use super::Draft;
use crate::evaluate::Problem;
use crate::space::{Space, Spec, align_elements, second_axis};

/// Checks a draft and repairs it from the checker's help lines, up to a few times.
/// Returns the legal schedule text, or `None` when it cannot be made legal.
pub(super) fn legalize(problem: &Problem, mut draft: Draft, name: &str) -> Option<String> {
    for _ in 0..4 {
        let text = draft.render(&problem.kernel, name);
        let diagnostics = match problem.check(&text) {
            Ok(_) => return Some(text),
            Err(rejected) => rejected.diagnostics,
        };
        let records = diagnostics.records();
        let fixes: Vec<Option<npu_core::Fix>> = diagnostics
            .iter()
            .map(|d| d.fixes.first().cloned())
            .collect();
        let spec = &mut draft.spec;
        let mut changed = false;
        for (record, fix) in records.iter().zip(fixes) {
            changed |= match fix {
                Some(fix) => apply_fix(problem, spec, &fix),
                None => repair(
                    problem,
                    spec,
                    record.code,
                    record.help.as_deref().unwrap_or(""),
                ),
            };
        }
        if !changed {
            return None;
        }
        spec.fix_tail(&problem.kernel);
    }
    None
}

/// Applies a checked fix (see [`npu_core::Fix`]) to the spec. Returns whether it changed.
fn apply_fix(problem: &Problem, spec: &mut Spec, fix: &npu_core::Fix) -> bool {
    use npu_core::{Edit, Level};
    let kernel = &problem.kernel;
    let axis = |name: &str| kernel.axes.iter().position(|a| a.name == name);
    let before = spec.clone();
    for edit in &fix.edits {
        match edit {
            Edit::Split { axis: name, tile } => {
                if let Some(a) = axis(name) {
                    spec.tiles[a] = Some(*tile);
                }
            }
            Edit::Cores { axis: name, cores }
                if axis(name).is_some() && axis(name) == kernel.output_axes().first().copied() =>
            {
                spec.cores = *cores;
            }
            Edit::Cores { axis: name, cores }
                if axis(name).is_some() && axis(name) == second_axis(kernel) =>
            {
                spec.cores_n = *cores;
            }
            Edit::Tail { .. } => spec.tail = Tail::Pad,
            Edit::Depth { level, depth, .. } => match level {
                Level::L0a | Level::L0b => spec.l0_depth = *depth,
                Level::L0c => spec.l0c_depth = *depth,
                Level::Ub | Level::L1 => spec.depth = *depth,
            },
            Edit::Cube { axis: name, tile } => {
                if let (Some(a), npu_core::ir::KernelClass::Matmul(mm), Some(cube)) =
                    (axis(name), &kernel.class, spec.cube.as_mut())
                {
                    let slot = [mm.m, mm.n, mm.k].iter().position(|x| *x == a);
                    if let Some(slot) = slot {
                        cube[slot] = *tile;
                    }
                }
            }
            Edit::Cores { .. } | Edit::Stage { .. } => {}
        }
    }
    *spec != before
}

/// Applies the fix a diagnostic's help line names. Returns whether the spec changed.
fn repair(problem: &Problem, spec: &mut Spec, code: Code, help: &str) -> bool {
    let kernel = &problem.kernel;
    let before = spec.clone();
    // "split i by 4096", "split i by 992 and add `tail pad;`".
    if let Some((axis, value)) = split_in_help(kernel, help) {
        spec.tiles[axis] = Some(value);
    } else {
        match code {
            Code::E020 if spec.cube.is_some() => {
                let [m, n, k] = spec.cube.unwrap_or([16, 16, 16]);
                spec.l0_depth = 1;
                if before.l0_depth == 1 {
                    spec.cube = Some([(m / 2).max(16), (n / 2).max(16), k]);
                }
            }
            Code::E020 if spec.depth == 1 => shrink(problem, spec),
            Code::E022 if spec.cube.is_none() => shrink(problem, spec),
            Code::E020 | Code::E025 => spec.depth = 1,
            // Too many cores: halve the grid's larger count.
            Code::E024 if spec.cores_n > spec.cores => spec.cores_n /= 2,
            Code::E024 => spec.cores = (spec.cores / 2).max(1),
            Code::E033 | Code::E021 => spec.tail = Tail::Pad,
            _ => {}
        }
    }
    *spec != before
}

/// Halves the largest tile the space may split, outside the innermost output axis
/// (whose copies stay long): what an expert does for a tile that holds too much (E020
/// at depth 1) or needs too many repeats (E022) when the checker names no split.
fn shrink(problem: &Problem, spec: &mut Spec) {
    let kernel = &problem.kernel;
    let space = Space::of(kernel);
    let inner = kernel.output_axes().last().copied();
    let axis = (0..kernel.axes.len())
        .filter(|a| Some(*a) != inner && space.tiles[*a].len() > 1)
        .filter(|a| spec.effective_tile(kernel, *a) > align_elements(kernel, *a).max(1))
        .max_by_key(|a| spec.effective_tile(kernel, *a));
    if let Some(axis) = axis {
        let step = align_elements(kernel, axis).max(1);
        let half = spec.effective_tile(kernel, axis) / 2 / step * step;
        spec.tiles[axis] = Some(half.max(step));
    }
}

/// Reads "split AXIS by N" out of a help line.
fn split_in_help(kernel: &npu_core::CheckedKernel, help: &str) -> Option<(usize, u64)> {
    let rest = &help[help.find("split ")? + "split ".len()..];
    let mut words = rest.split_whitespace();
    let axis_name = words.next()?;
    (words.next()? == "by").then_some(())?;
    let value: u64 = words
        .next()?
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    let axis = kernel.axes.iter().position(|a| a.name == axis_name)?;
    Some((axis, value))
}
