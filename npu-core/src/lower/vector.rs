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
//!
//! A class is lowered in two passes: `Walk::plan` works out the steps and which input
//! tiles each copies and frees, then `ClassLowering` emits each step pipe by pipe.

mod steps;

use super::copy;
use super::nodes::{Selected, Statement, build_statements};
use super::queue::Queue;
use super::select::Selector;
use super::skip::Skip;
use super::{Compact, Lowering};
// Re-exported for the lowering modules that call them as `vector::choose_skip` and
// `vector::lcm`; they are defined in `skip`.
pub(super) use super::skip::{choose_skip, lcm};
use crate::ir::{BufferKind, Role};
use crate::program::{CoreCode, Op, Pipe, Repeat};
use crate::target::Level;
use steps::{Run, Step, steps};

/// Lowers one class into `code`; `false` when a compact lowering's runs turned out
/// not to repeat, and the class must be lowered in full.
pub(super) fn lower_class(lowering: &mut Lowering, code: &mut CoreCode) -> bool {
    // A fused kernel runs each tile in one iteration: every axis it reduces over is
    // whole (the checker's E035), and its statements run in order.
    let fused = lowering.kernel.is_fused();
    let groups = if fused {
        Vec::new()
    } else {
        crate::plan::reduction_groups(lowering.kernel)
    };
    let (statements, spaces) = build_statements(lowering);
    let queues = stage_queues(lowering);
    let walk = Walk::plan(lowering, &queues, fused, groups, spaces, &statements);
    reserve(code, &walk, &statements);
    let mut class = ClassLowering {
        lowering,
        code,
        walk: &walk,
        queues,
        statements,
        selected: Vec::new(),
    };
    let marks = class.emit_steps();
    if !record_repeats(class.code, &walk.runs, &marks) {
        return false;
    }
    class.close();
    true
}

/// What each step of a class does, worked out before any instruction is emitted.
struct Walk {
    /// A fused kernel runs each tile in one iteration.
    fused: bool,
    /// The reduction axis lists, folded one after another.
    groups: Vec<Vec<usize>>,
    /// The axes of each space the nodes are evaluated over.
    spaces: Vec<Vec<usize>>,
    /// The staged inputs the kernel reads, in stage order.
    inputs: Vec<usize>,
    /// The tensors the statements write to global memory.
    outputs: Vec<usize>,
    steps: Vec<Step>,
    /// The tile coordinates of each step, one entry per kernel axis.
    coords: Vec<u64>,
    runs: Vec<Run>,
    /// Per step and tensor: the input's tile is copied anew at that step.
    fresh: Vec<bool>,
    /// Per step and tensor: the input's tile is freed after that step.
    release: Vec<bool>,
    tensor_count: usize,
    axis_count: usize,
}

impl Walk {
    /// Works out the steps of a class and which input tiles each copies and frees.
    fn plan(
        lowering: &Lowering,
        queues: &[Queue],
        fused: bool,
        groups: Vec<Vec<usize>>,
        spaces: Vec<Vec<usize>>,
        statements: &[Statement],
    ) -> Walk {
        let kernel = lowering.kernel;
        let phases = input_phases(lowering, fused, &groups);
        let skip = compact_skip(lowering, queues);
        let axis_count = kernel.axes.len();
        let (steps, coords, runs) = steps(
            lowering.ranges,
            &lowering.schedule.order,
            &groups,
            axis_count,
            skip,
        );
        let tensor_count = kernel.tensors.len();
        let mut walk = Walk {
            fused,
            groups,
            spaces,
            inputs: staged_inputs(lowering),
            outputs: statements
                .iter()
                .filter(|s| s.local.is_none())
                .map(|s| s.output)
                .collect(),
            fresh: vec![false; steps.len() * tensor_count],
            release: vec![false; steps.len() * tensor_count],
            steps,
            coords,
            runs,
            tensor_count,
            axis_count,
        };
        walk.mark_copies(lowering, &phases);
        walk
    }

    /// The tile coordinates of a step, one per kernel axis.
    fn at(&self, step: usize) -> &[u64] {
        &self.coords[step * self.axis_count..(step + 1) * self.axis_count]
    }

    /// Whether an input's tile is copied anew at a step.
    fn fresh(&self, step: usize, tensor: usize) -> bool {
        self.fresh[step * self.tensor_count + tensor]
    }

    /// Whether an input's tile is freed after a step.
    fn releases(&self, step: usize, tensor: usize) -> bool {
        self.release[step * self.tensor_count + tensor]
    }

    /// Marks, for each input, the steps that copy its tile anew (it differs from the
    /// tile of the input's previous use) and the steps after which the tile is freed
    /// (its last use). An input copied per reduction tile is used only at the steps
    /// of its axis list (`phases`).
    fn mark_copies(&mut self, lowering: &Lowering, phases: &[Option<usize>]) {
        for index in 0..self.inputs.len() {
            let tensor = self.inputs[index];
            let indexing = &lowering.tensors[tensor].indexing;
            let mut previous: Option<usize> = None;
            for step in 0..self.steps.len() {
                if phases[tensor].is_some_and(|phase| self.steps[step].phase != Some(phase)) {
                    continue;
                }
                let new = previous.is_none_or(|p| !self.same_tile(indexing, p, step));
                self.fresh[step * self.tensor_count + tensor] = new;
                if new && let Some(p) = previous {
                    self.release[p * self.tensor_count + tensor] = true;
                }
                previous = Some(step);
            }
            if let Some(p) = previous {
                self.release[p * self.tensor_count + tensor] = true;
            }
        }
    }

    /// Whether two steps are at the same tile along every axis in `indexing`.
    fn same_tile(&self, indexing: &[usize], a: usize, b: usize) -> bool {
        indexing
            .iter()
            .all(|axis| self.at(a)[*axis] == self.at(b)[*axis])
    }
}

/// One queue per staged tensor; inputs and outputs number their events separately.
fn stage_queues(lowering: &Lowering) -> Vec<Queue> {
    let kernel = lowering.kernel;
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
            ..Queue::default()
        };
        *events += stage.depth as u16;
    }
    queues
}

/// The staged inputs the kernel reads, in stage order.
fn staged_inputs(lowering: &Lowering) -> Vec<usize> {
    let kernel = lowering.kernel;
    lowering
        .schedule
        .stages
        .iter()
        .map(|s| s.tensor)
        .filter(|t| kernel.tensors[*t].role == Role::Input && lowering.tensors[*t].used)
        .collect()
}

/// The reduction axis list each tensor is copied per tile of, if any.
fn input_phases(lowering: &Lowering, fused: bool, groups: &[Vec<usize>]) -> Vec<Option<usize>> {
    let kernel = lowering.kernel;
    (0..kernel.tensors.len())
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
        .collect()
}

/// The runs of alike tiles a compact class leaves out (`lower::compacts` says which
/// kernels have them): a copy is as many steps as every queue's depth divides.
fn compact_skip(lowering: &Lowering, queues: &[Queue]) -> Option<Skip> {
    if lowering.compact == Compact::No {
        return None;
    }
    let copy = queues
        .iter()
        .filter(|q| q.depth > 0)
        .fold(1, |copy, q| lcm(copy, q.depth));
    choose_skip(lowering.ranges, &lowering.schedule.order, copy).map(|(_, skip)| skip)
}

/// Reserves room for every instruction up front: the streams are the bulk of the work.
fn reserve(code: &mut CoreCode, walk: &Walk, statements: &[Statement]) {
    let n = walk.steps.len();
    let copies = walk.fresh.iter().filter(|f| **f).count();
    let writes = walk.steps.iter().filter(|s| s.last_of_tile).count() * walk.outputs.len();
    let nodes: usize = statements.iter().map(|s| s.nodes.len()).sum();
    code.streams[Pipe::S.index()].reserve(n + 1);
    code.streams[Pipe::Mte2.index()].reserve(3 * copies + 4 * walk.inputs.len() + 1);
    code.streams[Pipe::V.index()]
        .reserve(n * (nodes + 2) + 3 * copies + 3 * writes + 4 * statements.len() + 1);
    code.streams[Pipe::Mte3.index()].reserve(3 * writes + 1);
}

/// Records each run as a repeat of its first two copies, from the stream lengths
/// `emit_steps` marked; `false`, with no repeat kept, when a run's two copies differ
/// in length on some pipe (they were not alike after all).
fn record_repeats(code: &mut CoreCode, runs: &[Run], marks: &[[usize; Pipe::COUNT]]) -> bool {
    for (run, marks) in runs.iter().zip(marks.chunks_exact(3)) {
        let len: [usize; Pipe::COUNT] = std::array::from_fn(|pipe| marks[1][pipe] - marks[0][pipe]);
        if (0..Pipe::COUNT).any(|pipe| marks[2][pipe] - marks[1][pipe] != len[pipe]) {
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
    true
}

/// Emits a class's steps: the queues' fills and the statements' nodes change from
/// step to step.
struct ClassLowering<'l, 'a> {
    lowering: &'l mut Lowering<'a>,
    code: &'l mut CoreCode,
    walk: &'l Walk,
    queues: Vec<Queue>,
    statements: Vec<Statement<'a>>,
    /// The vector instructions of the current step, before their flags are placed.
    selected: Vec<Selected>,
}

impl ClassLowering<'_, '_> {
    /// Emits every step, and returns the stream lengths where each run's copy 0,
    /// copy 1 and what follows them start.
    fn emit_steps(&mut self) -> Vec<[usize; Pipe::COUNT]> {
        let walk = self.walk;
        let mut marks: Vec<[usize; Pipe::COUNT]> = Vec::with_capacity(3 * walk.runs.len());
        let mut next_mark = walk
            .runs
            .iter()
            .flat_map(|r| (0..3).map(move |c| r.first + c * r.steps));
        let mut mark_at = next_mark.next();
        for step in 0..walk.steps.len() {
            if mark_at == Some(step) {
                marks.push(self.code.streams.each_ref().map(Vec::len));
                mark_at = next_mark.next();
            }
            self.emit_step(step);
        }
        if mark_at.is_some() {
            marks.push(self.code.streams.each_ref().map(Vec::len));
        }
        marks
    }

    /// Emits one loop iteration: its copies in, its vector instructions, and on a
    /// tile's last step its copies out.
    fn emit_step(&mut self, step: usize) {
        let walk = self.walk;
        let info = walk.steps[step];
        self.code.push(Pipe::S, info.index as u32, Op::Loop);
        // MTE2: copy the tiles this iteration needs anew.
        for &tensor in &walk.inputs {
            if walk.fresh(step, tensor) {
                self.copy_in(step, tensor);
            }
        }
        // V: plan the instructions, then place the flags around them.
        self.plan_vector(step);
        self.free_unread_inputs(step);
        for index in 0..self.selected.len() {
            self.emit_selected(step, index);
        }
        // MTE3: copy the finished outputs out.
        if info.last_of_tile {
            for &tensor in &walk.outputs {
                self.copy_out(step, tensor);
            }
        }
    }

    /// Copies an input's tile into the next slot of its queue, once V has freed it.
    fn copy_in(&mut self, step: usize, tensor: usize) {
        let walk = self.walk;
        let (tile, coords) = (walk.steps[step].index as u32, walk.at(step));
        let queue = &mut self.queues[tensor];
        let slot = queue.next_slot();
        if queue.count >= queue.depth {
            self.code
                .wait_flag(tile, Pipe::V, Pipe::Mte2, queue.event(slot));
        }
        let mut address = self.lowering.program.buffers[queue.buffer].slot(slot) as u32;
        let (shape, gm, padded) = self.lowering.copy(tensor, Level::Ub, coords);
        if self.lowering.tensors[tensor].padded {
            let window = self.lowering.window(tensor, coords);
            address += self.lowering.clipped_offset(tensor, &window) as u32;
        }
        let copy_in = Op::CopyIn {
            tensor: tensor as u16,
            gm,
            level: Level::Ub,
            address,
            shape,
            padded,
        };
        self.code.push(Pipe::Mte2, tile, copy_in);
        self.code
            .set_flag(tile, Pipe::Mte2, Pipe::V, queue.event(slot));
        queue.count += 1;
        queue.pending = true;
    }

    /// Plans a step's vector instructions: the reductions this step folds and, on a
    /// tile's last step (every step of a fused kernel), what lies outside them.
    fn plan_vector(&mut self, step: usize) {
        let walk = self.walk;
        let info = walk.steps[step];
        let kernel = self.lowering.kernel;
        self.selected.clear();
        self.plan_pad_fills(step);
        let mut selector = Selector {
            lowering: &mut *self.lowering,
            queues: &self.queues,
            coords: walk.at(step),
            spaces: &walk.spaces,
            out: &mut self.selected,
        };
        if let Some(group) = info.phase {
            for statement in &mut self.statements {
                let ends = (info.first_of_phase, info.last_of_phase);
                selector.reductions(statement, &walk.groups[group], ends);
            }
        }
        if walk.fused {
            for (index, statement) in self.statements.iter_mut().enumerate() {
                for group in crate::plan::statement_reduction_groups(&kernel.body[index]) {
                    selector.reductions(statement, &group, (true, true));
                }
                selector.outer(statement, index);
            }
        } else if info.last_of_tile {
            for (index, statement) in self.statements.iter_mut().enumerate() {
                selector.outer(statement, index);
            }
        }
    }

    /// Plans the pad value outside its tensor into each padded view's fresh tile,
    /// before anything reads it.
    fn plan_pad_fills(&mut self, step: usize) {
        let walk = self.walk;
        let coords = walk.at(step);
        for &tensor in &walk.inputs {
            if !self.lowering.tensors[tensor].padded || !walk.fresh(step, tensor) {
                continue;
            }
            let queue = &self.queues[tensor];
            let address = self.lowering.program.buffers[queue.buffer].slot(queue.slot()) as u32;
            let window = self.lowering.window(tensor, coords);
            for instr in copy::pad_fills(self.lowering, tensor, &window, address) {
                self.selected.push(Selected {
                    instr,
                    reads: [Some(tensor), None, None],
                    writes: None,
                });
            }
        }
    }

    /// Frees the inputs this step releases that no selected instruction reads, as no
    /// read would free them.
    fn free_unread_inputs(&mut self, step: usize) {
        let walk = self.walk;
        let tile = walk.steps[step].index as u32;
        for &tensor in &walk.inputs {
            let read = self
                .selected
                .iter()
                .any(|p| p.reads.contains(&Some(tensor)));
            if walk.releases(step, tensor) && !read {
                let queue = &mut self.queues[tensor];
                consume(self.code, tile, queue);
                self.code
                    .set_flag(tile, Pipe::V, Pipe::Mte2, queue.event(queue.slot()));
            }
        }
    }

    /// Emits one selected instruction between its flags: V waits for each input's fill
    /// and for MTE3 to free the output slot it writes, then tells MTE3 it is written.
    fn emit_selected(&mut self, step: usize, index: usize) {
        let tile = self.walk.steps[step].index as u32;
        let Selected {
            instr,
            reads,
            writes,
        } = self.selected[index];
        for tensor in reads.iter().flatten() {
            consume(self.code, tile, &mut self.queues[*tensor]);
        }
        if let Some(statement) = writes {
            let queue = &self.queues[self.statements[statement].output];
            if queue.count >= queue.depth {
                let event = queue.event(queue.next_slot());
                self.code.wait_flag(tile, Pipe::Mte3, Pipe::V, event);
            }
        }
        self.code.push(Pipe::V, tile, Op::Vector(instr));
        if let Some(statement) = writes {
            let queue = &self.queues[self.statements[statement].output];
            let event = queue.event(queue.next_slot());
            self.code.set_flag(tile, Pipe::V, Pipe::Mte3, event);
        }
        self.free_after_last_read(step, index);
    }

    /// Frees each input a selected instruction reads for the last time in a step that
    /// releases it.
    fn free_after_last_read(&mut self, step: usize, index: usize) {
        let walk = self.walk;
        let tile = walk.steps[step].index as u32;
        let reads = self.selected[index].reads;
        for (position, tensor) in reads.iter().enumerate() {
            let Some(tensor) = *tensor else { continue };
            let first_mention = !reads[..position].contains(&Some(tensor));
            let last_read = !self.selected[index + 1..]
                .iter()
                .any(|later| later.reads.contains(&Some(tensor)));
            if first_mention && last_read && walk.releases(step, tensor) {
                let queue = &self.queues[tensor];
                self.code
                    .set_flag(tile, Pipe::V, Pipe::Mte2, queue.event(queue.slot()));
            }
        }
    }

    /// Copies a finished output tile out of its slot, once V has written it.
    fn copy_out(&mut self, step: usize, tensor: usize) {
        let walk = self.walk;
        let (tile, coords) = (walk.steps[step].index as u32, walk.at(step));
        let queue = &mut self.queues[tensor];
        let slot = queue.next_slot();
        self.code
            .wait_flag(tile, Pipe::V, Pipe::Mte3, queue.event(slot));
        let address = self.lowering.program.buffers[queue.buffer].slot(slot) as u32;
        let (shape, gm, padded) = self.lowering.copy(tensor, Level::Ub, coords);
        let copy_out = Op::CopyOut {
            tensor: tensor as u16,
            gm,
            address,
            shape,
            padded,
        };
        self.code.push(Pipe::Mte3, tile, copy_out);
        self.code
            .set_flag(tile, Pipe::Mte3, Pipe::V, queue.event(slot));
        queue.count += 1;
    }

    /// Closes the class: every producer waits for the frees it has not consumed, then
    /// all pipes meet.
    fn close(&mut self) {
        let walk = self.walk;
        let end = walk.steps.last().map_or(0, |s| s.index as u32 + 1);
        for &tensor in &walk.inputs {
            self.queues[tensor].drain(self.code, end, Pipe::V, Pipe::Mte2);
        }
        for &tensor in &walk.outputs {
            self.queues[tensor].drain(self.code, end, Pipe::Mte3, Pipe::V);
        }
        for pipe in [Pipe::S, Pipe::Mte2, Pipe::V, Pipe::Mte3] {
            self.code.push(pipe, end, Op::Barrier);
        }
        self.code.tiles = end;
    }
}

/// V's wait for a fill it has not waited for yet.
fn consume(code: &mut CoreCode, tile: u32, queue: &mut Queue) {
    if queue.pending {
        code.wait_flag(tile, Pipe::Mte2, Pipe::V, queue.event(queue.slot()));
        queue.pending = false;
    }
}
