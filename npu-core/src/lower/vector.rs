//! Elementwise and reduction kernels: CopyIn on MTE2, Compute on V, CopyOut on MTE3.
//!
//! Each output tile runs the reductions first, one reduction axis list after another
//! (`sum[kh, kw]` folds `kh` and `kw` together), its tiles innermost, the list's first
//! axis outermost: per tile the body of every reduction over that list is computed and
//! folded into the accumulator (filled with the reduction's initial value on the
//! first tile). Within a tile the fold runs in index order, so a reduction folds in
//! index order unless an axis other than its first is split. The last iteration then computes what lies outside the reductions and
//! writes the outputs, which MTE3 copies out. A kernel without reductions has one
//! iteration per output tile.
//!
//! Inputs indexed by a reduction axis are copied per reduction tile; the others once
//! per output tile, held until the tile is done. A broadcast (a load of fewer axes
//! than the expression runs over) is copied into its temporary only when its source
//! was copied again or the box grew, so a `bias[j]` row is broadcast once per `j`.

use super::copy;
use super::nodes::{Planned, build_statements};
use super::planner::Planner;
use super::queue::Queue;
use super::skip::Skip;
use super::{AxisRange, Compact, Lowering};
// Re-exported for the lowering modules that call them as `vector::choose_skip` and
// `vector::lcm`; they are defined in `skip`.
pub(super) use super::skip::{choose_skip, lcm};
use crate::ir::{BufferKind, Role};
use crate::program::{CoreCode, Op, Pipe, Repeat};
use crate::target::Level;

#[derive(Clone, Copy)]
struct Step {
    /// The loop iteration, counting the iterations a compact class leaves out.
    index: u64,
    /// The reduction axis list this iteration folds (an index into the groups), if any.
    phase: Option<usize>,
    first_of_phase: bool,
    last_of_tile: bool,
}

/// Lowers one class into `code`; `false` when a compact lowering's runs turned out
/// not to repeat, and the class must be lowered in full.
pub(super) fn lower_class(lowering: &mut Lowering, code: &mut CoreCode) -> bool {
    let kernel = lowering.kernel;
    // A fused kernel runs each tile in one iteration: every axis it reduces over is
    // whole (the checker's E035), and its statements run in order.
    let fused = kernel.is_fused();
    let groups = if fused {
        Vec::new()
    } else {
        crate::plan::reduction_groups(kernel)
    };
    let (mut statements, spaces) = build_statements(lowering);

    // One queue per staged tensor; inputs and outputs number their events separately.
    let mut queues: Vec<Queue> = vec![Queue::default(); kernel.tensors.len()];
    let (mut input_events, mut output_events) = (0u16, 0u16);
    for stage in &lowering.schedule.stages {
        let buffer = lowering
            .program
            .buffers
            .iter()
            .position(|b| b.kind == BufferKind::Tensor(stage.tensor) && b.level == Level::Ub)
            .expect("every tensor of a vector kernel is staged in ub");
        let events = if kernel.tensors[stage.tensor].role == Role::Input {
            &mut input_events
        } else {
            &mut output_events
        };
        queues[stage.tensor] = Queue {
            buffer,
            depth: stage.depth,
            event: *events,
            count: 0,
            pending: false,
        };
        *events += stage.depth as u16;
    }
    let inputs: Vec<usize> = lowering
        .schedule
        .stages
        .iter()
        .map(|s| s.tensor)
        .filter(|t| kernel.tensors[*t].role == Role::Input && lowering.tensors[*t].used)
        .collect();
    // The reduction axis list an input is copied per tile of, if any.
    let input_phase: Vec<Option<usize>> = (0..kernel.tensors.len())
        .map(|t| {
            if fused {
                return None;
            }
            let axis = lowering.tensors[t]
                .indexing
                .iter()
                .copied()
                .find(|a| kernel.axes[*a].reduction)?;
            groups.iter().position(|g| g.contains(&axis))
        })
        .collect();

    // A compact class leaves out runs of alike tiles (`lower::compacts` says which
    // kernels have them).
    let skip = if lowering.compact != Compact::No {
        let copy = queues
            .iter()
            .filter(|q| q.depth > 0)
            .fold(1, |copy, q| lcm(copy, q.depth));
        choose_skip(lowering.ranges, &lowering.schedule.order, copy).map(|(_, skip)| skip)
    } else {
        None
    };
    let (steps, coords, runs) = steps(
        lowering.ranges,
        &lowering.schedule.order,
        &groups,
        kernel.axes.len(),
        skip,
    );
    let axes_count = kernel.axes.len();
    let at = |step: usize| &coords[step * axes_count..(step + 1) * axes_count];
    let used_at = |tensor: usize, step: usize| match input_phase[tensor] {
        None => true,
        Some(axis) => steps[step].phase == Some(axis),
    };
    let same_tile = |tensor: usize, a: usize, b: usize| {
        lowering.tensors[tensor]
            .indexing
            .iter()
            .all(|axis| at(a)[*axis] == at(b)[*axis])
    };
    // Whether each input is copied at a step, and released after it.
    let n = steps.len();
    let mut fresh = vec![false; n * kernel.tensors.len()];
    let mut release = vec![false; n * kernel.tensors.len()];
    for &tensor in &inputs {
        let mut previous: Option<usize> = None;
        for step in (0..n).filter(|s| used_at(tensor, *s)) {
            let new = previous.is_none_or(|p| !same_tile(tensor, p, step));
            fresh[step * kernel.tensors.len() + tensor] = new;
            if new && let Some(p) = previous {
                release[p * kernel.tensors.len() + tensor] = true;
            }
            previous = Some(step);
        }
        if let Some(p) = previous {
            release[p * kernel.tensors.len() + tensor] = true;
        }
    }

    // Room for every instruction up front: the streams are the bulk of the work.
    let copies = fresh.iter().filter(|f| **f).count();
    let outputs: Vec<usize> = statements
        .iter()
        .filter(|s| s.local.is_none())
        .map(|s| s.output)
        .collect();
    let writes = steps.iter().filter(|s| s.last_of_tile).count() * outputs.len();
    let nodes: usize = statements.iter().map(|s| s.nodes.len()).sum();
    code.streams[Pipe::S.index()].reserve(n + 1);
    code.streams[Pipe::Mte2.index()].reserve(3 * copies + 4 * inputs.len() + 1);
    code.streams[Pipe::V.index()]
        .reserve(n * (nodes + 2) + 3 * copies + 3 * writes + 4 * statements.len() + 1);
    code.streams[Pipe::Mte3.index()].reserve(3 * writes + 1);
    let mut planned: Vec<Planned> = Vec::new();
    let mut marks: Vec<[usize; 7]> = Vec::with_capacity(3 * runs.len());
    let mut next_mark = runs
        .iter()
        .flat_map(|r| (0..3).map(move |c| r.first + c * r.steps));
    let mut mark_at = next_mark.next();
    for (step, info) in steps.iter().enumerate() {
        if mark_at == Some(step) {
            marks.push(code.streams.each_ref().map(Vec::len));
            mark_at = next_mark.next();
        }
        let tile = info.index as u32;
        let coords = at(step);
        code.push(Pipe::S, tile, Op::Loop);

        // MTE2: copy the tiles this iteration needs anew.
        for &tensor in &inputs {
            if !fresh[step * kernel.tensors.len() + tensor] {
                continue;
            }
            let queue = &mut queues[tensor];
            let slot = queue.next_slot();
            if queue.count >= queue.depth {
                code.wait_flag(tile, Pipe::V, Pipe::Mte2, queue.event(slot));
            }
            let mut address = lowering.program.buffers[queue.buffer].slot(slot) as u32;
            let (shape, gm, padded) = lowering.copy(tensor, Level::Ub, coords);
            if lowering.tensors[tensor].padded {
                let window = lowering.window(tensor, coords);
                address += lowering.clipped_offset(tensor, &window) as u32;
            }
            code.push(
                Pipe::Mte2,
                tile,
                Op::CopyIn {
                    tensor: tensor as u16,
                    gm,
                    level: Level::Ub,
                    address,
                    shape,
                    padded,
                },
            );
            code.set_flag(tile, Pipe::Mte2, Pipe::V, queue.event(slot));
            queue.count += 1;
            queue.pending = true;
        }

        // V: plan the instructions, then place the flags around them. A padded view's
        // fresh tile first gets the pad value outside its tensor.
        planned.clear();
        for &tensor in &inputs {
            if !lowering.tensors[tensor].padded || !fresh[step * kernel.tensors.len() + tensor] {
                continue;
            }
            let queue = &queues[tensor];
            let address = lowering.program.buffers[queue.buffer].slot(queue.slot()) as u32;
            let window = lowering.window(tensor, coords);
            for instr in copy::pad_fills(lowering, tensor, &window, address) {
                planned.push(Planned {
                    instr,
                    reads: [Some(tensor), None, None],
                    writes: None,
                });
            }
        }
        let mut planner = Planner {
            lowering: &mut *lowering,
            queues: &queues,
            coords,
            spaces: &spaces,
            out: &mut planned,
        };
        if let Some(group) = info.phase {
            for statement in statements.iter_mut() {
                planner.reductions(statement, &groups[group], info.first_of_phase);
            }
        }
        if fused {
            for (index, statement) in statements.iter_mut().enumerate() {
                for group in crate::plan::statement_reduction_groups(&kernel.body[index]) {
                    planner.reductions(statement, &group, true);
                }
                planner.outer(statement, index);
            }
        } else if info.last_of_tile {
            for (index, statement) in statements.iter_mut().enumerate() {
                planner.outer(statement, index);
            }
        }
        for &tensor in &inputs {
            let releasing = release[step * kernel.tensors.len() + tensor];
            if releasing && !planned.iter().any(|p| p.reads.contains(&Some(tensor))) {
                let queue = &mut queues[tensor];
                consume(code, tile, queue);
                code.set_flag(tile, Pipe::V, Pipe::Mte2, queue.event(queue.slot()));
            }
        }
        for (index, p) in planned.iter().enumerate() {
            for tensor in p.reads.iter().flatten() {
                consume(code, tile, &mut queues[*tensor]);
            }
            if let Some(statement) = p.writes {
                let queue = &queues[statements[statement].output];
                if queue.count >= queue.depth {
                    let event = queue.event(queue.next_slot());
                    code.wait_flag(tile, Pipe::Mte3, Pipe::V, event);
                }
            }
            code.push(Pipe::V, tile, Op::Vector(p.instr));
            if let Some(statement) = p.writes {
                let queue = &queues[statements[statement].output];
                code.set_flag(tile, Pipe::V, Pipe::Mte3, queue.event(queue.next_slot()));
            }
            for (position, tensor) in p.reads.iter().enumerate() {
                let Some(tensor) = *tensor else { continue };
                let first_mention = !p.reads[..position].contains(&Some(tensor));
                let last_read = !planned[index + 1..]
                    .iter()
                    .any(|later| later.reads.contains(&Some(tensor)));
                if first_mention && last_read && release[step * kernel.tensors.len() + tensor] {
                    let queue = &queues[tensor];
                    code.set_flag(tile, Pipe::V, Pipe::Mte2, queue.event(queue.slot()));
                }
            }
        }

        // MTE3: copy the finished outputs out.
        if info.last_of_tile {
            for &tensor in &outputs {
                let queue = &mut queues[tensor];
                let slot = queue.next_slot();
                code.wait_flag(tile, Pipe::V, Pipe::Mte3, queue.event(slot));
                let address = lowering.program.buffers[queue.buffer].slot(slot) as u32;
                let (shape, gm, padded) = lowering.copy(tensor, Level::Ub, coords);
                code.push(
                    Pipe::Mte3,
                    tile,
                    Op::CopyOut {
                        tensor: tensor as u16,
                        gm,
                        address,
                        shape,
                        padded,
                    },
                );
                code.set_flag(tile, Pipe::Mte3, Pipe::V, queue.event(slot));
                queue.count += 1;
            }
        }
    }

    if mark_at.is_some() {
        marks.push(code.streams.each_ref().map(Vec::len));
    }
    for (run, marks) in runs.iter().zip(marks.chunks_exact(3)) {
        let len: [usize; 7] = std::array::from_fn(|pipe| marks[1][pipe] - marks[0][pipe]);
        if (0..7).any(|pipe| marks[2][pipe] - marks[1][pipe] != len[pipe]) {
            // Not alike after all: the caller lowers the class in full.
            code.repeats.clear();
            return false;
        }
        code.repeats.push(Repeat {
            start: marks[0],
            len,
            tiles: run.steps as u32,
            count: run.count,
        });
    }

    // Every producer waits for the frees it has not consumed, then all pipes meet.
    let end = steps.last().map_or(0, |s| s.index as u32 + 1);
    for &tensor in &inputs {
        drain(code, end, &queues[tensor], Pipe::V, Pipe::Mte2);
    }
    for &tensor in &outputs {
        drain(code, end, &queues[tensor], Pipe::Mte3, Pipe::V);
    }
    for pipe in [Pipe::S, Pipe::Mte2, Pipe::V, Pipe::Mte3] {
        code.push(pipe, end, Op::Barrier);
    }
    code.tiles = end;
    true
}

/// Waits for the consumer's frees of the last `min(count, depth)` fills.
fn drain(code: &mut CoreCode, tile: u32, queue: &Queue, from: Pipe, to: Pipe) {
    let outstanding = queue.count.min(queue.depth);
    for fill in queue.count - outstanding..queue.count {
        code.wait_flag(tile, from, to, queue.event(fill % queue.depth));
    }
}

/// V's wait for a fill it has not waited for yet.
fn consume(code: &mut CoreCode, tile: u32, queue: &mut Queue) {
    if queue.pending {
        code.wait_flag(tile, Pipe::Mte2, Pipe::V, queue.event(queue.slot()));
        queue.pending = false;
    }
}

/// The runs of held copies in a class's steps: where copy 0 starts in the step list,
/// how many steps a copy is, and how many copies the run has.
#[derive(Clone, Copy, Debug)]
struct Run {
    first: usize,
    steps: usize,
    count: u64,
}

/// The loop iterations of a core and the tile coordinates of each (flattened, one
/// entry per kernel axis), leaving out what `skip` says. Each axis list's tiles run as
/// an odometer, its first axis outermost.
fn steps(
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
