//! The loop iterations of a vector class: one step per reduction tile (or per output
//! tile without reductions), with the tile coordinates of each and the runs of alike
//! steps the compact form holds.

use super::super::AxisRange;
use super::super::skip::Skip;

/// One iteration of a vector class's loop.
#[derive(Clone, Copy)]
pub(super) struct Step {
    /// The loop iteration, counting the iterations a compact class leaves out.
    pub(super) index: u64,
    /// The reduction axis list this iteration folds (an index into the groups), if any.
    pub(super) phase: Option<usize>,
    pub(super) first_of_phase: bool,
    pub(super) last_of_phase: bool,
    pub(super) last_of_tile: bool,
}

/// The runs of held copies in a class's steps: where copy 0 starts in the step list,
/// how many steps a copy is, and how many copies the run has.
#[derive(Clone, Copy, Debug)]
pub(super) struct Run {
    pub(super) first: usize,
    pub(super) steps: usize,
    pub(super) count: u64,
}

/// The loop iterations of a core and the tile coordinates of each (flattened, one
/// entry per kernel axis), leaving out what `skip` says. Each axis list's tiles run as
/// an odometer, its first axis outermost.
pub(super) fn steps(
    ranges: &[AxisRange],
    order: &[usize],
    groups: &[Vec<usize>],
    axes: usize,
    skip: Option<Skip>,
) -> (Vec<Step>, Vec<u64>, Vec<Run>) {
    let mut steps = Vec::new();
    let mut coords = Vec::new();
    let mut runs = Vec::new();
    let mut current = vec![0u64; axes];
    let per_tile: u64 = if groups.is_empty() {
        1
    } else {
        groups
            .iter()
            .map(|g| g.iter().map(|a| ranges[*a].count).product::<u64>())
            .sum()
    };
    let inner = |level: usize| -> u64 {
        order[level + 1..]
            .iter()
            .map(|a| ranges[*a].count)
            .product::<u64>()
    };
    let tiles: u64 = order.iter().map(|a| ranges[*a].count).product();
    let mut index = 0u64;
    let mut tile = 0u64;
    while tile < tiles {
        // At the first tile of an iteration of the skipped axis, a run may start or
        // its left-out copies begin.
        if let Some(skip) = skip {
            let axis = order[skip.level];
            let at_start = order[skip.level + 1..].iter().all(|a| current[*a] == 0);
            if at_start && current[axis] == skip.first {
                runs.push(Run {
                    first: steps.len(),
                    steps: (skip.copy * inner(skip.level) * per_tile) as usize,
                    count: skip.count,
                });
            } else if at_start && current[axis] == skip.first + 2 * skip.copy {
                let left_out = (skip.count - 2) * skip.copy;
                current[axis] += left_out;
                tile += left_out * inner(skip.level);
                index += left_out * inner(skip.level) * per_tile;
            }
        }
        if groups.is_empty() {
            steps.push(Step {
                index,
                phase: None,
                first_of_phase: true,
                last_of_phase: true,
                last_of_tile: true,
            });
            coords.extend_from_slice(&current);
            index += 1;
        }
        for (g, group) in groups.iter().enumerate() {
            let count: u64 = group.iter().map(|a| ranges[*a].count).product();
            for k in 0..count {
                let last = g + 1 == groups.len() && k + 1 == count;
                steps.push(Step {
                    index,
                    phase: Some(g),
                    first_of_phase: k == 0,
                    last_of_phase: k + 1 == count,
                    last_of_tile: last,
                });
                coords.extend_from_slice(&current);
                index += 1;
                // Advance the list's odometer, its last axis fastest.
                for &axis in group.iter().rev() {
                    current[axis] += 1;
                    if current[axis] < ranges[axis].count {
                        break;
                    }
                    current[axis] = 0;
                }
            }
        }
        // Advance the output tile: the innermost axis of `order` fastest.
        tile += 1;
        for &axis in order.iter().rev() {
            current[axis] += 1;
            if current[axis] < ranges[axis].count {
                break;
            }
            current[axis] = 0;
        }
    }
    (steps, coords, runs)
}
