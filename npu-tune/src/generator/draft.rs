//! A schedule the heuristic edits: its knobs ([`Spec`]) and, when it came from a
//! schedule the space cannot write (a hand schedule that runs another axis across the
//! cores, say), that schedule's text, which the edits then change line by line so
//! that what the space does not model is kept.

use npu_core::ir::{CheckedKernel, KernelClass, Tail};

use crate::evaluate::Problem;
use crate::space::{Spec, second_axis};

/// A schedule as knobs, and the text they edit when the space cannot write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Draft {
    pub spec: Spec,
    /// The printed schedule and its knobs, when `spec.to_dsl` would not reproduce it.
    base: Option<(String, Spec)>,
}

impl Draft {
    /// A point of the space.
    pub(super) fn of(spec: Spec) -> Draft {
        Draft { spec, base: None }
    }

    /// The draft of a schedule block's text; `None` when it is not one block.
    pub(super) fn parse(problem: &Problem, text: &str) -> Option<Draft> {
        let kernel = &problem.kernel;
        let schedules = npu_core::internal::parse_schedules_str(text).ok()?;
        let [schedule] = schedules.as_slice() else {
            return None;
        };
        let printed = npu_core::print::schedule(schedule);
        let spec = Spec::from_schedule(kernel, schedule);
        let name = schedule.name.to_string();
        // Compared as printed, where a grid of cores is one `parallel` item per axis.
        let rendered = npu_core::internal::parse_schedules_str(&spec.to_dsl(kernel, &name))
            .ok()
            .and_then(|s| s.first().map(npu_core::print::schedule));
        let in_space = rendered.is_some_and(|r| items(&r) == items(&printed));
        Some(Draft {
            base: (!in_space).then(|| (printed, spec.clone())),
            spec,
        })
    }

    /// The same schedule with its knobs set to `spec`.
    pub(super) fn edited(&self, spec: Spec) -> Draft {
        Draft {
            spec,
            base: self.base.clone(),
        }
    }

    /// The schedule block named `name`: the space's rendering, or the base text with
    /// the knobs that changed edited in.
    pub(super) fn render(&self, kernel: &CheckedKernel, name: &str) -> String {
        match &self.base {
            None => self.spec.to_dsl(kernel, name),
            Some((text, from)) => edit(kernel, text, from, &self.spec, name),
        }
    }
}

/// The item lines of a printed schedule, sorted: two schedules with the same items
/// are the same schedule whatever their order.
fn items(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';'))
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// `text` (a printed schedule, one item per line) with the knobs that differ between
/// `from` and `to` changed, named `name`.
fn edit(kernel: &CheckedKernel, text: &str, from: &Spec, to: &Spec, name: &str) -> String {
    let mut lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';'))
        .map(str::to_string)
        .collect();
    if let Some(second) = second_axis(kernel)
        && (to.cores, to.cores_n) != (from.cores, from.cores_n)
    {
        edit_grid(&mut lines, kernel, second, to);
    } else if to.cores != from.cores {
        edit_cores(&mut lines, kernel, to.cores);
    }
    edit_splits(&mut lines, kernel, from, to);
    edit_depths(&mut lines, from, to);
    edit_cube(&mut lines, kernel, from, to);
    edit_tail(&mut lines, from, to);
    let mut out = format!("schedule {name} {{\n");
    for line in lines {
        out += &format!("    {line}\n");
    }
    out + "}\n"
}

/// A matmul's grid: the `parallel` items of m and n written anew, one per axis as a
/// grid prints.
fn edit_grid(lines: &mut Vec<String>, kernel: &CheckedKernel, second: usize, to: &Spec) {
    let axes = &kernel.axes;
    let first = kernel.output_axes()[0];
    let on = |line: &String, axis: usize| {
        line.strip_prefix("parallel ")
            .and_then(|rest| rest.split_whitespace().next())
            == Some(axes[axis].name.as_str())
    };
    lines.retain(|l| !on(l, first) && !on(l, second));
    for (axis, cores) in [(second, to.cores_n), (first, to.cores)] {
        if cores > 1 {
            lines.insert(
                0,
                format!("parallel {} over {cores} cores;", axes[axis].name),
            );
        }
    }
}

/// The `parallel` item set to `cores`: added over the first output axis, its count
/// changed, or removed for one core; a grid of cores is left as it is.
fn edit_cores(lines: &mut Vec<String>, kernel: &CheckedKernel, cores: u64) {
    let parallel: Vec<usize> = (0..lines.len())
        .filter(|i| lines[*i].starts_with("parallel "))
        .collect();
    match parallel.as_slice() {
        [] => {
            if let Some(&first) = kernel.output_axes().first() {
                let line = format!("parallel {} over {cores} cores;", kernel.axes[first].name);
                lines.insert(0, line);
            }
        }
        // One axis across the cores: the same axis, another count.
        [index] if cores > 1 => {
            let line = &lines[*index];
            let axis = line["parallel ".len()..]
                .split_whitespace()
                .next()
                .unwrap_or_default();
            lines[*index] = format!("parallel {axis} over {cores} cores;");
        }
        [index] => {
            lines.remove(*index);
        }
        // A grid of cores: the space has no edit for it.
        _ => {}
    }
}

/// Each `split` item whose tile changed: rewritten, removed, or added after the last
/// `parallel` or `split` item.
fn edit_splits(lines: &mut Vec<String>, kernel: &CheckedKernel, from: &Spec, to: &Spec) {
    for (axis, (old, new)) in from.tiles.iter().zip(&to.tiles).enumerate() {
        if old == new {
            continue;
        }
        let prefix = format!("split {} by ", kernel.axes[axis].name);
        let at = lines.iter().position(|l| l.starts_with(&prefix));
        match (at, new) {
            (Some(index), Some(tile)) => lines[index] = format!("{prefix}{tile};"),
            (Some(index), None) => {
                lines.remove(index);
            }
            (None, Some(tile)) => {
                let after = lines
                    .iter()
                    .rposition(|l| l.starts_with("parallel ") || l.starts_with("split "))
                    .map_or(0, |i| i + 1);
                lines.insert(after, format!("{prefix}{tile};"));
            }
            (None, None) => {}
        }
    }
}

/// The depth of each `stage` item in a level whose depth knob changed.
fn edit_depths(lines: &mut [String], from: &Spec, to: &Spec) {
    let levels: [(&[&str], u64, u64); 3] = [
        (&["ub", "l1"], from.depth, to.depth),
        (&["l0a", "l0b"], from.l0_depth, to.l0_depth),
        (&["l0c"], from.l0c_depth, to.l0c_depth),
    ];
    for (names, old, new) in levels {
        if old == new {
            continue;
        }
        for line in lines.iter_mut().filter(|l| l.starts_with("stage ")) {
            let Some(level) = names.iter().find(|n| {
                line.contains(&format!(" in {n} ")) || line.ends_with(&format!(" in {n};"))
            }) else {
                continue;
            };
            let head = &line[..line.find(&format!(" in {level}")).unwrap_or(line.len())];
            *line = format!("{head} in {level} depth {new};");
        }
    }
}

/// A matmul's `cube` item, when its block changed.
fn edit_cube(lines: &mut [String], kernel: &CheckedKernel, from: &Spec, to: &Spec) {
    if to.cube != from.cube
        && let (KernelClass::Matmul(mm), Some([m, n, k])) = (&kernel.class, to.cube)
        && let Some(line) = lines.iter_mut().find(|l| l.starts_with("cube "))
    {
        let axes = &kernel.axes;
        *line = format!(
            "cube {} by {m}, {} by {n}, {} by {k};",
            axes[mm.m].name, axes[mm.n].name, axes[mm.k].name
        );
    }
}

/// The `tail` item, when the tail policy changed: removed, then written last.
fn edit_tail(lines: &mut Vec<String>, from: &Spec, to: &Spec) {
    if to.tail != from.tail {
        lines.retain(|l| !l.starts_with("tail "));
        match to.tail {
            Tail::None => {}
            Tail::Pad => lines.push("tail pad;".into()),
            Tail::Exact => lines.push("tail exact;".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Bundled;

    fn problem(name: &str) -> Problem {
        Bundled::find(name).unwrap().problem(0, None).unwrap()
    }

    #[test]
    fn a_schedule_the_space_writes_is_edited_as_knobs() {
        let problem = problem("variance");
        let text = "schedule hand { parallel i over 8 cores; split i by 2; stage x, y in ub depth 1; tail pad; }";
        let draft = Draft::parse(&problem, text).unwrap();
        assert_eq!(draft.base, None);
        let mut spec = draft.spec.clone();
        spec.depth = 2;
        insta::assert_snapshot!(draft.edited(spec).render(&problem.kernel, "e"), @r"
        schedule e {
            parallel i over 8 cores;
            split i by 2;
            stage x, y in ub depth 2;
            tail pad;
        }
        ");
    }

    #[test]
    fn a_schedule_outside_the_space_keeps_what_the_space_cannot_write() {
        // conv1d_bias_relu's hand schedule runs `t`, not the first output axis, across
        // the cores: the space would move the cores to `o`.
        let problem = problem("conv1d_bias_relu");
        let text = problem.kernel.schedules[0].source.clone();
        let draft = Draft::parse(&problem, &text).unwrap();
        assert!(draft.base.is_some(), "{text}");
        let mut spec = draft.spec.clone();
        spec.cores = 8;
        spec.depth = 2;
        let axis = problem
            .kernel
            .axes
            .iter()
            .position(|a| a.name == "t")
            .unwrap();
        spec.tiles[axis] = Some(128);
        let edited = draft.edited(spec).render(&problem.kernel, "e");
        assert!(edited.contains("parallel t over 8 cores;"), "{edited}");
        assert!(edited.contains("split t by 128;"), "{edited}");
        assert!(edited.contains("in ub depth 2;"), "{edited}");
        problem
            .check(&edited)
            .map_err(|rejected| rejected.render())
            .expect("the edit checks");
        // The unedited draft renders the hand schedule itself.
        assert_eq!(items(&draft.render(&problem.kernel, "hand")), items(&text));
    }

    #[test]
    fn a_core_grid_is_a_knob() {
        // A grid of cores over m and n (`parallel m, n over 4 x 4 cores;`, one
        // `parallel` item per axis as it prints) is a point of the space: edits change
        // its counts and render it as one item.
        let problem = problem("matmul_i8");
        let text = "schedule hand { parallel m, n over 4 x 4 cores; split k by 128; cube m by 64, n by 64, k by 64; stage a, b in l1 depth 1; stage a in l0a depth 1; stage b in l0b depth 1; stage c in l0c depth 1; }";
        let draft = Draft::parse(&problem, text).unwrap();
        assert_eq!(draft.base, None);
        assert_eq!((draft.spec.cores, draft.spec.cores_n), (4, 4));
        let mut spec = draft.spec.clone();
        (spec.cores, spec.cores_n) = (8, 2);
        spec.cube = Some([32, 32, 64]);
        spec.depth = 2;
        let edited = draft.edited(spec).render(&problem.kernel, "e");
        assert!(
            edited.contains("parallel m, n over 8 x 2 cores;"),
            "{edited}"
        );
        assert!(edited.contains("stage a, b in l1 depth 2;"), "{edited}");
        problem
            .check(&edited)
            .map_err(|rejected| rejected.render())
            .expect("the edit checks");
    }

    #[test]
    fn a_grid_in_a_schedule_outside_the_space_is_edited_as_text() {
        // `order` is not a knob: the schedule keeps its text, and a new grid replaces
        // the `parallel` items of m and n.
        let problem = problem("matmul_i8");
        let text = "schedule hand { parallel m, n over 4 x 4 cores; split k by 128; cube m by 32, n by 32, k by 64; stage a, b in l1 depth 1; stage a in l0a depth 1; stage b in l0b depth 1; stage c in l0c depth 1; order n, m; }";
        let draft = Draft::parse(&problem, text).unwrap();
        assert!(draft.base.is_some());
        let mut spec = draft.spec.clone();
        (spec.cores, spec.cores_n) = (2, 8);
        let edited = draft.edited(spec).render(&problem.kernel, "e");
        assert!(edited.contains("parallel m over 2 cores;"), "{edited}");
        assert!(edited.contains("parallel n over 8 cores;"), "{edited}");
        assert!(edited.contains("order n, m;"), "{edited}");
        problem
            .check(&edited)
            .map_err(|rejected| rejected.render())
            .expect("the edit checks");
    }
}
