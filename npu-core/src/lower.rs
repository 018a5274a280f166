//! Lowering: a checked schedule to a [`Program`] of per-core, per-pipe instruction
//! streams (the instruction set is in [`crate::program`]).
//!
//! - **Placement.** Every buffer of the schedule's plan ([`crate::plan`]) gets an
//!   address in its level, in plan order, slots of a depth-`d` buffer side by side.
//!   Each size is already a multiple of the level's alignment, so every slot starts
//!   aligned and the peak of a level is exactly [`CheckedSchedule::used`].
//! - **Cores.** Each `parallel` axis has `ceil(extent / tile)` tiles; a core gets
//!   `ceil(tiles / cores)` contiguous ones, so the last cores may get fewer or none.
//!   Core ids are mixed-radix over the `parallel` items, the first item most
//!   significant. Cores with the same tile counts and tails share one [`CoreCode`].
//! - **Loops.** Tiles walk the output axes in `schedule.order`, outermost first, and
//!   the reduction axes innermost. Each innermost iteration is one scalar `loop`. A
//!   tensor whose tile is the same as at its previous use is not copied again.
//! - **Synchronisation.** Each staged buffer is a queue of `depth` slots between a
//!   producer and a consumer pipe, as Ascend C's `TQue`: the producer waits until
//!   the consumer has freed a slot before refilling it and sets a flag when the data
//!   is there; the consumer waits for that flag before the first read and frees the
//!   slot after the last one. Slot `s` of the `n`-th staged buffer between a pair of
//!   pipes uses event id `Σ depth of the earlier buffers + s` in both directions. At
//!   the end every producer waits for its outstanding frees, so each `set_flag` has a
//!   matching `wait_flag`, and all pipes meet at a `barrier`.
//! - **Tails.** A tile past the end of its axis is copied at its exact length; under
//!   `tail pad` a copy whose bursts, the strides between them on chip or in global
//!   memory, or its start in global memory are not a multiple of the alignment is
//!   marked padded, and the simulator charges the padded bytes and the pad penalty
//!   (the `copy` module). Vector
//!   instructions of a tail tile cover only its elements.
//!
//! - **Barriers.** Every buffer two pipes share is such a queue, and temporaries and
//!   accumulators never leave V, so the only barrier needed is the closing one.
//!
//! Vector kernels are lowered in the private `vector` module (with their expression
//! nodes in `nodes`), matmuls in `matmul`; what lowering knows about each tensor is in
//! `tensors` and the copy of its tile in `tile_copy`, the estimates made without
//! lowering in `estimate`. What every step works with (`Lowering`, the axis ranges and
//! table caches) is in `context`, so the steps depend on it and not on this driver.

mod context;
mod copy;
mod estimate;
mod fold;
mod lanes;
mod matmul;
mod nodes;
mod queue;
mod select;
mod skip;
mod tensors;
mod tile_copy;
mod vector;

pub use estimate::{
    active_cores, constant_value, estimate_held_instructions, estimate_instructions,
    holds_compactly, vector_width,
};
pub use tensors::PadValue;
pub(crate) use tensors::{Window, gm_strides};

use crate::ir::{CheckedKernel, CheckedSchedule, KernelClass};
use crate::plan;
use crate::program::{CoreAssignment, CoreCode, Op, Pipe, Placement, Program};
use crate::target::{Level, Target};
pub(crate) use context::{AxisRange, Compact, Lowering, Tables};
use tensors::tensor_infos;

/// Lowers schedule `schedule` (an index into `kernel.schedules`) to a program.
///
/// # Panics
///
/// If `schedule` is out of range, like slice indexing.
pub fn lower(kernel: &CheckedKernel, schedule: usize) -> Program {
    lower_with(kernel, schedule, false)
}

/// Lowers as [`lower`], but holds each run of alike tiles as two copies and a count
/// ([`crate::program::Repeat`]): the program's size then grows with its distinct tile
/// shapes, not its tiles. Its [`into_expanded`](Program::into_expanded) is exactly
/// [`lower`]'s program.
///
/// ```
/// # use npu_core::{check_source, Target};
/// let kernel = check_source(
///     "kernel double(x: [f32; 65536]) -> y: [f32; 65536] { y[i] = x[i] * 2.0; }
///      target ascend910b;
///      schedule s { split i by 256; stage x, y in ub depth 2; }",
///     &Target::preset("ascend910b").unwrap(),
/// )
/// .unwrap();
/// let compact = npu_core::lower::lower_compact(&kernel, 0);
/// let full = npu_core::lower::lower(&kernel, 0);
/// assert!(compact.is_compact());
/// assert_eq!(compact.instruction_count(), full.instruction_count());
/// assert_eq!(compact.into_expanded(), full);
/// ```
///
/// # Panics
///
/// If `schedule` is out of range, like slice indexing.
pub fn lower_compact(kernel: &CheckedKernel, schedule: usize) -> Program {
    lower_with(kernel, schedule, true)
}

/// Whether [`lower_compact`] holds runs of a kernel's tiles compactly: a kernel
/// without padded views (a padded view's copies clip near the tensor's ends, so its
/// tiles are not alike).
pub fn compacts(kernel: &CheckedKernel) -> bool {
    !(0..kernel.tensors.len()).any(|tensor| plan::is_padded(kernel, tensor))
}

fn lower_with(kernel: &CheckedKernel, schedule: usize, compact: bool) -> Program {
    let compact = compact && compacts(kernel);
    let checked = &kernel.schedules[schedule];
    let buffers = place(checked, &kernel.target);
    let work = distribute(kernel, checked);
    let mut program = Program {
        kernel: kernel.name.clone(),
        schedule: checked.name.clone(),
        target: kernel.target.name.clone(),
        tensors: kernel.tensors.iter().map(|t| t.name.clone()).collect(),
        signature: kernel.tensors.clone(),
        requested_cores: checked.cores(),
        buffers,
        cube: checked.cube,
        constants: Vec::new(),
        boxes: Vec::new(),
        strides: Vec::new(),
        copies: Vec::new(),
        gathers: Vec::new(),
        selects: kernel.selects(),
        classes: Vec::new(),
        cores: Vec::with_capacity(work.cores.len()),
    };
    let tensors = tensor_infos(kernel, checked);
    let mut tables = Tables::default();
    let mut class_keys: Vec<Vec<(u64, u64)>> = Vec::new();
    let padded = tensors.iter().any(|info| info.padded);
    for core in &work.cores {
        let key = core.class_key(padded);
        let class = match class_keys.iter().position(|k| *k == key) {
            Some(class) => class,
            None => {
                let empty = CoreCode {
                    summary: summary(kernel, checked, &core.ranges),
                    ..CoreCode::default()
                };
                // A compact lowering whose runs turn out not to repeat is done again,
                // from the tables as they were, so the entries come in the order the
                // full lowering gives them: a matmul's with runs of single output
                // tiles first (a tile usually refills every queue a whole number of
                // times), then with copies every queue's depth divides, then in full.
                let tables_before = table_lengths(&program, &tables);
                let mut code = empty.clone();
                let attempts: &[Compact] = match (compact, &kernel.class) {
                    (false, _) => &[Compact::No],
                    (true, KernelClass::Matmul(_)) => {
                        &[Compact::SingleTiles, Compact::Yes, Compact::No]
                    }
                    (true, _) => &[Compact::Yes, Compact::No],
                };
                for &compact in attempts {
                    code = empty.clone();
                    let mut lowering = Lowering {
                        kernel,
                        schedule: checked,
                        tensors: &tensors,
                        program: &mut program,
                        tables: &mut tables,
                        ranges: &core.ranges,
                        start: &core.start,
                        compact,
                    };
                    let held = match &kernel.class {
                        KernelClass::Matmul(_) => matmul::lower_class(&mut lowering, &mut code),
                        _ => vector::lower_class(&mut lowering, &mut code),
                    };
                    if held && runs_hold(&program, &kernel.target, &code) {
                        break;
                    }
                    truncate(&mut program, &mut tables, tables_before);
                }
                program.classes.push(code);
                class_keys.push(key);
                program.classes.len() - 1
            }
        };
        let gm_base = tensors
            .iter()
            .map(|info| info.origin(checked, &core.start))
            .collect();
        program.cores.push(CoreAssignment {
            core: core.core,
            class: class as u32,
            gm_base,
        });
    }
    program
}

/// The lengths of the program's tables and of the lowering's caches of them.
fn table_lengths(program: &Program, tables: &Tables) -> [usize; Pipe::COUNT] {
    [
        program.constants.len(),
        program.boxes.len(),
        program.strides.len(),
        program.copies.len(),
        program.gathers.len(),
        tables.copies.len(),
        tables.boxes.len(),
    ]
}

fn truncate(program: &mut Program, tables: &mut Tables, lengths: [usize; Pipe::COUNT]) {
    program.constants.truncate(lengths[0]);
    program.boxes.truncate(lengths[1]);
    program.strides.truncate(lengths[2]);
    program.copies.truncate(lengths[3]);
    program.gathers.truncate(lengths[4]);
    tables.copies.truncate(lengths[5]);
    tables.boxes.truncate(lengths[6]);
}

/// Whether every run of a compact class repeats as its compact form says
/// ([`CoreCode::check_repeats`]), and each copy's step in global memory is a whole
/// number of the level's alignment, so every copy starts aligned as its first two do.
fn runs_hold(program: &Program, target: &Target, code: &CoreCode) -> bool {
    if code.repeats.is_empty() {
        return true;
    }
    if code.check_repeats().is_err() {
        return false;
    }
    code.repeats.iter().all(|run| {
        (0..Pipe::COUNT).all(|pipe| {
            let stream = &code.streams[pipe];
            (run.start[pipe]..run.start[pipe] + run.len[pipe]).all(|i| {
                let (level, size, a, b) = match (stream[i].op, stream[i + run.len[pipe]].op) {
                    (
                        Op::CopyIn {
                            gm: a,
                            level,
                            shape,
                            ..
                        },
                        Op::CopyIn { gm: b, .. },
                    ) => (level, program.copies[shape as usize].element_bytes, a, b),
                    (Op::CopyOut { gm: a, shape, .. }, Op::CopyOut { gm: b, .. }) => {
                        let size = program.copies[shape as usize].element_bytes;
                        (Level::Ub, size, a, b)
                    }
                    _ => return true,
                };
                b.checked_sub(a)
                    .is_some_and(|step| (step * size).is_multiple_of(target.alignment(level)))
            })
        })
    })
}

/// Lowers the schedule called `name`.
pub fn lower_named(kernel: &CheckedKernel, name: &str) -> Option<Program> {
    let index = kernel.schedules.iter().position(|s| s.name == name)?;
    Some(lower(kernel, index))
}

/// Addresses for every buffer of the plan: in plan order within each level, each
/// starting where the previous one ends, rounded up to the level's alignment.
pub fn place(schedule: &CheckedSchedule, target: &Target) -> Vec<Placement> {
    let mut next = [0u64; 5];
    schedule
        .buffers
        .iter()
        .map(|buffer| {
            let level = Level::ALL
                .iter()
                .position(|l| *l == buffer.level)
                .unwrap_or(0);
            let address = plan::align_up(next[level], target.alignment(buffer.level));
            next[level] = address + buffer.total_bytes();
            Placement {
                name: buffer.name.clone(),
                level: buffer.level,
                kind: buffer.kind,
                address,
                slot_bytes: buffer.bytes,
                depth: buffer.depth,
            }
        })
        .collect()
}

struct CoreWork {
    core: u32,
    /// First tile of each axis.
    start: Vec<u64>,
    ranges: Vec<AxisRange>,
}

impl CoreWork {
    /// What cores that share one [`CoreCode`] have alike: their tile counts and tails,
    /// and, when the kernel has a padded view, where they start (its copies clip at
    /// the tensor's ends, which depend on the start).
    fn class_key(&self, padded: bool) -> Vec<(u64, u64)> {
        let mut key: Vec<(u64, u64)> = self
            .ranges
            .iter()
            .map(|r| (r.count, r.last_extent))
            .collect();
        if padded {
            key.extend(self.start.iter().map(|s| (*s, u64::MAX)));
        }
        key
    }
}

struct Work {
    cores: Vec<CoreWork>,
}

fn distribute(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> Work {
    let axes = &kernel.axes;
    let full: Vec<AxisRange> = axes
        .iter()
        .zip(&schedule.tiles)
        .map(|(axis, &tile)| {
            let count = axis.extent.div_ceil(tile);
            AxisRange {
                count,
                tile,
                last_extent: axis.extent - (count - 1) * tile,
            }
        })
        .collect();
    let requested = schedule.cores();
    let mut cores = Vec::new();
    'cores: for core in 0..requested {
        let mut rest = core;
        let mut coordinate = vec![0u64; schedule.parallel.len()];
        for (slot, (_, count)) in schedule.parallel.iter().enumerate().rev() {
            coordinate[slot] = rest % count;
            rest /= count;
        }
        let mut start = vec![0u64; axes.len()];
        let mut ranges = full.clone();
        for (&(axis, count), &position) in schedule.parallel.iter().zip(&coordinate) {
            let tiles = full[axis].count;
            let per_core = tiles.div_ceil(count);
            let first = position * per_core;
            if first >= tiles {
                continue 'cores;
            }
            let mine = per_core.min(tiles - first);
            start[axis] = first;
            let includes_last = first + mine == tiles;
            ranges[axis] = AxisRange {
                count: mine,
                tile: full[axis].tile,
                last_extent: if includes_last {
                    full[axis].last_extent
                } else {
                    full[axis].tile
                },
            };
        }
        cores.push(CoreWork {
            core: core as u32,
            start,
            ranges,
        });
    }
    Work { cores }
}

fn summary(kernel: &CheckedKernel, schedule: &CheckedSchedule, ranges: &[AxisRange]) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .enumerate()
        .filter(|(a, _)| !kernel.axes[*a].reduction || ranges[*a].count > 1)
        .map(|(a, r)| {
            let name = &kernel.axes[a].name;
            let tail = if r.last_extent != r.tile {
                format!(", the last {}", r.last_extent)
            } else {
                String::new()
            };
            format!("{name}: {} x {}{tail}", r.count, schedule.tiles[a])
        })
        .collect();
    parts.join("; ")
}
