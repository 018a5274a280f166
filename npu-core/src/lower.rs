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
//! nodes in `nodes`), matmuls in `matmul`.

mod copy;
mod matmul;
mod nodes;
mod vector;

use crate::dtype::Dtype;
use crate::ir::{CheckedKernel, CheckedSchedule, Expr, KernelClass, Subscript};
use crate::plan;
use crate::program::{CoreAssignment, CoreCode, Op, Placement, Program};
use crate::scalar;
use crate::target::{Level, Target};

/// Lowers schedule `schedule` (an index into `kernel.schedules`) to a program.
///
/// # Panics
///
/// If `schedule` is out of range, like slice indexing.
pub fn lower(kernel: &CheckedKernel, schedule: usize) -> Program {
    lower_with(kernel, schedule, false)
}

/// Lowers as [`lower`], but holds each run of alike tiles of a vector kernel as two
/// copies and a count ([`crate::program::Repeat`]): the program's size then grows
/// with its distinct tile shapes, not its tiles. Its
/// [`into_expanded`](Program::into_expanded) is exactly [`lower`]'s program.
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

/// Whether [`lower_compact`] holds runs of a kernel's tiles compactly: a vector
/// kernel without padded views (a padded view's copies clip near the tensor's ends, so
/// its tiles are not alike). A matmul is lowered in full.
pub fn compacts(kernel: &CheckedKernel) -> bool {
    !matches!(kernel.class, KernelClass::Matmul(_))
        && !(0..kernel.tensors.len()).any(|tensor| plan::is_padded(kernel, tensor))
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
        requested_cores: checked.cores(),
        buffers,
        cube: checked.cube,
        constants: Vec::new(),
        boxes: Vec::new(),
        strides: Vec::new(),
        copies: Vec::new(),
        gathers: Vec::new(),
        classes: Vec::new(),
        cores: Vec::with_capacity(work.cores.len()),
    };
    let tensors = tensor_infos(kernel, checked);
    let mut tables = Tables::default();
    let mut class_keys: Vec<Vec<(u64, u64)>> = Vec::new();
    for core in &work.cores {
        let mut key: Vec<(u64, u64)> = core
            .ranges
            .iter()
            .map(|r| (r.count, r.last_extent))
            .collect();
        // A padded view's copies clip at the tensor's ends, which depend on where the
        // core starts: such cores share code only with cores that start alike.
        if tensors.iter().any(|info| info.padded) {
            key.extend(core.start.iter().map(|s| (*s, u64::MAX)));
        }
        let class = match class_keys.iter().position(|k| *k == key) {
            Some(class) => class,
            None => {
                let empty = CoreCode {
                    summary: summary(kernel, checked, &core.ranges),
                    ..CoreCode::default()
                };
                let mut code = empty.clone();
                let tables_before = table_lengths(&program, &tables);
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
                    KernelClass::Matmul(_) => {
                        matmul::lower_class(&mut lowering, &mut code);
                        true
                    }
                    _ => vector::lower_class(&mut lowering, &mut code),
                };
                if !held || !runs_hold(&program, &kernel.target, &code) {
                    // Back to the tables as they were, so the entries come in the
                    // order the full lowering gives them.
                    truncate(&mut program, &mut tables, tables_before);
                    code = empty;
                    let mut lowering = Lowering {
                        kernel,
                        schedule: checked,
                        tensors: &tensors,
                        program: &mut program,
                        tables: &mut tables,
                        ranges: &core.ranges,
                        start: &core.start,
                        compact: false,
                    };
                    vector::lower_class(&mut lowering, &mut code);
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
fn table_lengths(program: &Program, tables: &Tables) -> [usize; 7] {
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

fn truncate(program: &mut Program, tables: &mut Tables, lengths: [usize; 7]) {
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
        (0..7).all(|pipe| {
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

/// Cores that get at least one tile.
pub fn active_cores(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> u64 {
    schedule
        .parallel
        .iter()
        .map(|(axis, cores)| {
            let tiles = kernel.axes[*axis].extent.div_ceil(schedule.tiles[*axis]);
            let per_core = tiles.div_ceil(*cores);
            tiles.div_ceil(per_core)
        })
        .product()
}

/// An upper bound on the instructions [`lower`] emits over all cores, from the tile
/// counts alone, so a caller can refuse a schedule before building a huge program.
pub fn estimate_instructions(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> u64 {
    let tiles = |axis: usize| kernel.axes[axis].extent.div_ceil(schedule.tiles[axis]);
    let output_axes = kernel.output_axes();
    let output_tiles: u64 = output_axes.iter().map(|a| tiles(*a)).product();
    let cores = schedule.cores().max(1);
    match &kernel.class {
        KernelClass::Matmul(mm) => {
            let [cm, cn, ck] = schedule.cube.unwrap_or([16, 16, 16]);
            // Each matrix of a batch tile has its own blocks.
            let matrices = mm.batch.map_or(1, |t| schedule.tiles[t]);
            let blocks =
                matrices * schedule.tiles[mm.m].div_ceil(cm) * schedule.tiles[mm.n].div_ceil(cn);
            let steps = output_tiles * blocks * tiles(mm.k);
            let per_step = 8 + schedule.tiles[mm.k].div_ceil(ck) * 16;
            steps * per_step + cores * 32
        }
        _ => {
            // One step per tile of each reduction's axis list (their product).
            let mut groups: Vec<&[usize]> = Vec::new();
            for assign in &kernel.body {
                assign.value.walk(&mut |node| {
                    if let Expr::Reduce { axes, .. } = node
                        && !groups.contains(&axes.as_slice())
                    {
                        groups.push(axes);
                    }
                });
            }
            let reductions: u64 = groups
                .iter()
                .map(|group| group.iter().map(|a| tiles(*a)).product::<u64>())
                .sum();
            let steps = output_tiles * reductions.max(1);
            let nodes: u64 = kernel
                .body
                .iter()
                .map(|a| plan::preorder(&a.value).len() as u64)
                .sum();
            let tensors = kernel.tensors.len() as u64;
            steps * (1 + 3 * nodes + 8 * tensors) + cores * (4 + 4 * tensors)
        }
    }
}

/// [`estimate_instructions`] for [`lower_compact`]'s program as held: the estimate
/// scaled by the share of its tiles the first core's class holds (the first core has
/// the most tiles).
pub fn estimate_held_instructions(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> u64 {
    let estimate = estimate_instructions(kernel, schedule);
    if !compacts(kernel) {
        return estimate;
    }
    let work = distribute(kernel, schedule);
    let Some(core) = work.cores.first() else {
        return estimate;
    };
    let copy = schedule
        .stages
        .iter()
        .fold(1, |copy, stage| vector::lcm(copy, stage.depth.max(1)));
    let tiles: u64 = schedule
        .order
        .iter()
        .map(|a| core.ranges[*a].count)
        .product();
    match vector::choose_skip(&core.ranges, &schedule.order, copy) {
        Some((kept, _)) if tiles > 0 => {
            (u128::from(estimate) * u128::from(kept)).div_ceil(u128::from(tiles)) as u64
        }
        _ => estimate,
    }
}

/// The value of an expression made only of constants, unary and binary arithmetic and
/// casts, folded with the scalar semantics. Lowering gives such a node no instruction:
/// it becomes a scalar operand.
pub fn constant_value(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Const { value, dtype } => Some(dtype.round(*value)),
        Expr::Unary { op, arg, dtype } => Some(scalar::unary(*op, *dtype, constant_value(arg)?)),
        Expr::Binary {
            op,
            lhs,
            rhs,
            dtype,
        } => Some(scalar::binary(
            *op,
            *dtype,
            constant_value(lhs)?,
            constant_value(rhs)?,
        )),
        Expr::Cast {
            arg,
            dtype,
            saturate: false,
        } => Some(scalar::cast(*dtype, constant_value(arg)?)),
        Expr::Cast {
            arg,
            dtype,
            saturate: true,
        } => Some(scalar::cast_saturating(*dtype, constant_value(arg)?)),
        _ => None,
    }
}

/// Bytes per element an expression node's vector instruction is charged for (its
/// widest element; the accumulator's for a reduction), `None` for nodes that issue no
/// arithmetic (loads and constants). The checker's repeat limit uses the same rule.
pub fn vector_width(expr: &Expr) -> Option<u64> {
    let width = |e: &Expr| e.dtype().size();
    match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => None,
        _ if constant_value(expr).is_some() => None,
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => Some(width(expr).max(width(arg))),
        Expr::Binary { .. } | Expr::Compare { .. } | Expr::Select { .. } => Some(width(expr)),
        // An arg reduction touches its values and its index.
        Expr::Reduce {
            op,
            accumulator,
            dtype,
            ..
        } if op.is_arg() => Some(accumulator.size().max(dtype.size())),
        Expr::Reduce { accumulator, .. } => Some(accumulator.size()),
        Expr::Scan {
            accumulator, dtype, ..
        } => Some(accumulator.size().max(dtype.size())),
    }
}

/// The tiles one core runs along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AxisRange {
    /// Tiles along the axis.
    pub count: u64,
    /// The tile extent.
    pub tile: u64,
    /// The extent of the last tile: `tile`, or the tail's length.
    pub last_extent: u64,
}

impl AxisRange {
    /// The extent of local tile `index`.
    pub fn extent(&self, index: u64) -> u64 {
        if index + 1 == self.count {
            self.last_extent
        } else {
            self.tile
        }
    }

    pub fn is_tail(&self, index: u64) -> bool {
        index + 1 == self.count && self.last_extent != self.tile
    }
}

struct CoreWork {
    core: u32,
    /// First tile of each axis.
    start: Vec<u64>,
    ranges: Vec<AxisRange>,
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

/// Row-major element strides of a shape.
pub(crate) fn gm_strides(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// What lowering needs to know about each tensor, computed once per program.
pub(crate) struct TensorInfo {
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    /// The subscripts it is read or written with: the output's axes, or its first load.
    pub subscripts: Vec<Subscript>,
    /// The axis of each dimension (`None` for a constant subscript; the first axis of
    /// an affine one).
    pub axes: Vec<Option<usize>>,
    /// Every axis that indexes it, once each.
    pub indexing: Vec<usize>,
    /// Row-major element strides in global memory.
    pub gm_strides: Vec<u64>,
    /// The tile's extent per dimension and its row-major element strides in a buffer.
    pub tile_shape: Vec<u64>,
    pub tile_strides: Vec<u64>,
    /// Whether any expression reads it (inputs) or any statement writes it (outputs).
    pub used: bool,
    /// Whether it is read through a padded view: its copies hold absolute offsets
    /// (its origin is 0 on every core) and clip at its ends.
    pub padded: bool,
    /// What a padded view reads outside the tensor (0 when it is not padded).
    pub pad_value: PadValue,
}

/// The value a padded view reads outside its tensor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadValue {
    Const(f64),
    /// A scalar parameter, by index into the kernel's tensors.
    Param(u16),
}

impl TensorInfo {
    /// Element offset of a core whose first tile along each axis is `start`.
    fn origin(&self, schedule: &CheckedSchedule, start: &[u64]) -> u64 {
        if self.padded {
            return 0;
        }
        self.subscripts
            .iter()
            .zip(&self.gm_strides)
            .map(|(subscript, stride)| {
                let first: u64 = subscript
                    .terms()
                    .iter()
                    .map(|(a, c)| c * start[*a] * schedule.tiles[*a])
                    .sum();
                first * stride
            })
            .sum()
    }

    /// Bytes between consecutive elements along `axis` in the tile's buffer: the sum
    /// over the dimensions it indexes of its coefficient times the dimension's stride
    /// (0 when it indexes none), so a window `x[2*i + k]` is a strided view.
    pub fn buffer_stride(&self, axis: usize) -> u64 {
        let size = self.dtype.size();
        self.subscripts
            .iter()
            .zip(&self.tile_strides)
            .map(|(subscript, s)| subscript.coefficient(axis) * s * size)
            .sum()
    }
}

fn tensor_infos(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> Vec<TensorInfo> {
    (0..kernel.tensors.len())
        .map(|tensor| {
            let mut used = false;
            let mut subscripts = None;
            for assign in &kernel.body {
                if assign.output == tensor {
                    used = true;
                    subscripts.get_or_insert_with(|| {
                        assign.axes.iter().map(|a| Subscript::Axis(*a)).collect()
                    });
                }
                assign.value.accesses(&mut |t, s| {
                    if t == tensor {
                        used = true;
                        subscripts.get_or_insert_with(|| s.to_vec());
                    }
                });
            }
            let t = &kernel.tensors[tensor];
            let subscripts = subscripts.unwrap_or_else(|| vec![Subscript::Const(0); t.shape.len()]);
            let axes: Vec<Option<usize>> = subscripts
                .iter()
                .map(|s| s.terms().first().map(|(a, _)| *a))
                .collect();
            let tile_shape: Vec<u64> = subscripts
                .iter()
                .map(|s| plan::subscript_extent(s, &schedule.tiles))
                .collect();
            TensorInfo {
                padded: plan::is_padded(kernel, tensor),
                pad_value: pad_value(kernel, tensor),
                indexing: plan::load_axes(&subscripts),
                dtype: t.dtype,
                shape: t.shape.clone(),
                gm_strides: gm_strides(&t.shape),
                tile_strides: gm_strides(&tile_shape),
                tile_shape,
                subscripts,
                axes,
                used,
            }
        })
        .collect()
}

/// The value a padded view of `tensor` reads outside it (0 when there is none).
fn pad_value(kernel: &CheckedKernel, tensor: usize) -> PadValue {
    let mut value = None;
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let Expr::Load {
                tensor: t,
                pad: Some(pad),
                ..
            } = node
                && *t == tensor
            {
                value = value.or_else(|| match pad.as_ref() {
                    Expr::Param { tensor, .. } => Some(PadValue::Param(*tensor as u16)),
                    pad => constant_value(pad).map(PadValue::Const),
                });
            }
        });
    }
    value.unwrap_or(PadValue::Const(0.0))
}

/// What lowering one class of cores needs.
pub(crate) struct Lowering<'a> {
    pub kernel: &'a CheckedKernel,
    pub schedule: &'a CheckedSchedule,
    pub tensors: &'a [TensorInfo],
    pub program: &'a mut Program,
    pub tables: &'a mut Tables,
    pub ranges: &'a [AxisRange],
    /// The first tile of each axis of the cores of this class.
    pub start: &'a [u64],
    /// Whether to hold runs of alike tiles compactly ([`lower_compact`]).
    pub compact: bool,
}

/// Caches from small keys to entries of the program's tables, so each instruction
/// finds its copy shape or box without comparing vectors.
#[derive(Default)]
pub(crate) struct Tables {
    /// The interned shape and whether the copy is padded.
    copies: Vec<((usize, u64), (u32, bool))>,
    boxes: Vec<((usize, u64), u32)>,
}

impl Lowering<'_> {
    /// The extent of axis `axis` in the tile at `coords`.
    pub fn extent(&self, axis: usize, coords: &[u64]) -> u64 {
        self.ranges[axis].extent(coords[axis])
    }

    pub fn constant(&mut self, value: f64) -> u32 {
        let constants = &mut self.program.constants;
        match constants
            .iter()
            .position(|c| c.to_bits() == value.to_bits())
        {
            Some(index) => index as u32,
            None => {
                constants.push(value);
                (constants.len() - 1) as u32
            }
        }
    }

    pub fn strides(&mut self, strides: Vec<u64>) -> u32 {
        let table = &mut self.program.strides;
        match table.iter().position(|s| *s == strides) {
            Some(index) => index as u32,
            None => {
                table.push(strides);
                (table.len() - 1) as u32
            }
        }
    }

    /// The box of `dims` (axes) in the tile at `coords`; `space` names the dimension
    /// list for the cache.
    pub fn vector_box(&mut self, space: usize, dims: &[usize], coords: &[u64]) -> (u32, u64) {
        let mask = dims.iter().fold(0u64, |m, &a| {
            if self.ranges[a].is_tail(coords[a]) {
                m | 1 << a
            } else {
                m
            }
        });
        let index = match self.tables.boxes.iter().find(|(k, _)| *k == (space, mask)) {
            Some((_, index)) => *index,
            None => {
                let extents: Vec<u64> = dims.iter().map(|&a| self.extent(a, coords)).collect();
                let table = &mut self.program.boxes;
                let index = match table.iter().position(|b| *b == extents) {
                    Some(index) => index as u32,
                    None => {
                        table.push(extents);
                        (table.len() - 1) as u32
                    }
                };
                self.tables.boxes.push(((space, mask), index));
                index
            }
        };
        let elements = self.program.boxes[index as usize].iter().product();
        (index, elements)
    }

    /// The copy of `tensor`'s tile at `coords` between global memory and a buffer of
    /// `level`: the interned shape, the element offset relative to the core's origin,
    /// and whether it is padded.
    pub fn copy(&mut self, tensor: usize, level: Level, coords: &[u64]) -> (u32, u64, bool) {
        let info = &self.tensors[tensor];
        if info.padded {
            let window = self.window(tensor, coords);
            return self.clipped_copy(tensor, level, &window);
        }
        let mut offset = 0;
        let mut mask = 0u64;
        for (subscript, stride) in info.subscripts.iter().zip(&info.gm_strides) {
            let mut first = subscript.offset();
            for (a, c) in subscript.terms() {
                first += (c * coords[a] * self.schedule.tiles[a]) as i64;
                if self.ranges[a].is_tail(coords[a]) {
                    mask |= 1 << a;
                }
            }
            // The checker proved every unpadded read in range, so no start is negative.
            offset += first.max(0) as u64 * stride;
        }
        let (index, padded) = match self
            .tables
            .copies
            .iter()
            .find(|(k, _)| *k == (tensor, mask))
        {
            Some((_, entry)) => *entry,
            None => {
                let extents: Vec<u64> = (0..self.ranges.len())
                    .map(|a| self.extent(a, coords))
                    .collect();
                let lens: Vec<u64> = info
                    .subscripts
                    .iter()
                    .map(|s| plan::subscript_extent(s, &extents))
                    .collect();
                let align = self.kernel.target.alignment(level);
                // Where a copy of this tensor can start: its tiles (and so every core's
                // origin) step by `tile × stride` along each axis it is split on.
                let size = info.dtype.size();
                let start_misaligned =
                    info.subscripts
                        .iter()
                        .zip(&info.gm_strides)
                        .any(|(subscript, stride)| {
                            let offset = subscript.offset().unsigned_abs() * stride * size;
                            let steps = subscript.terms().into_iter().filter_map(|(a, c)| {
                                let tile = self.schedule.tiles[a];
                                (self.kernel.axes[a].extent > tile)
                                    .then_some(c * tile * stride * size)
                            });
                            std::iter::once(offset)
                                .chain(steps)
                                .any(|step| !step.is_multiple_of(align))
                        });
                let (copy, padded) = copy::copy_shape(
                    &lens,
                    &info.shape,
                    &info.tile_shape,
                    info.dtype,
                    self.schedule.tail,
                    align,
                    start_misaligned,
                );
                self.program.copies.push(copy);
                let index = (self.program.copies.len() - 1) as u32;
                self.tables.copies.push(((tensor, mask), (index, padded)));
                (index, padded)
            }
        };
        (index, offset, padded)
    }

    /// The window of a padded view's tile at `coords` along each dimension: where it
    /// starts in the tensor (possibly before 0), its length, and the part inside
    /// the tensor.
    pub fn window(&self, tensor: usize, coords: &[u64]) -> Vec<Window> {
        let info = &self.tensors[tensor];
        let extents: Vec<u64> = (0..self.ranges.len())
            .map(|a| self.extent(a, coords))
            .collect();
        info.subscripts
            .iter()
            .zip(&info.shape)
            .map(|(subscript, extent)| {
                let mut start = subscript.offset();
                for (a, c) in subscript.terms() {
                    start += (c * (self.start[a] + coords[a]) * self.schedule.tiles[a]) as i64;
                }
                let len = plan::subscript_extent(subscript, &extents) as i64;
                let low = start.clamp(0, *extent as i64);
                let high = (start + len).clamp(low, *extent as i64);
                Window {
                    start,
                    len: len as u64,
                    low,
                    high,
                }
            })
            .collect()
    }

    /// The copy of the part of a padded view's window inside the tensor: its shape,
    /// its absolute element offset, and that it is padded (always DataCopyPad; a
    /// clipped copy's first element may land past the start of an alignment block on
    /// chip, which DataCopyPad's left padding allows). The caller adds
    /// [`Lowering::clipped_offset`] to the slot's address.
    fn clipped_copy(&mut self, tensor: usize, level: Level, window: &[Window]) -> (u32, u64, bool) {
        let info = &self.tensors[tensor];
        let lens: Vec<u64> = window.iter().map(|w| (w.high - w.low) as u64).collect();
        let offset: u64 = window
            .iter()
            .zip(&info.gm_strides)
            .map(|(w, stride)| w.low as u64 * stride)
            .sum();
        let align = self.kernel.target.alignment(level);
        let (mut copy, _) = copy::copy_shape(
            &lens,
            &info.shape,
            &info.tile_shape,
            info.dtype,
            self.schedule.tail,
            align,
            false,
        );
        // Every copy of a padded view is a DataCopyPad: the clipped ones need it, and
        // the rest then need no rule of their own, however the view's offset aligns.
        // Each burst is padded from the alignment block it starts in to the end of the
        // block it ends in.
        let lead = self.clipped_offset(tensor, window) % align;
        let burst = copy.bytes / copy.bursts.max(1);
        copy.moved = if copy.bytes == 0 {
            0
        } else {
            copy.bursts * plan::align_up(lead + burst, align)
        };
        let index = match self.program.copies.iter().position(|c| *c == copy) {
            Some(index) => index as u32,
            None => {
                self.program.copies.push(copy);
                (self.program.copies.len() - 1) as u32
            }
        };
        (index, offset, true)
    }

    /// Bytes from the start of a padded view's tile to its first element inside the
    /// tensor.
    pub fn clipped_offset(&self, tensor: usize, window: &[Window]) -> u64 {
        let info = &self.tensors[tensor];
        if window.iter().any(|w| w.high <= w.low) {
            return 0;
        }
        window
            .iter()
            .zip(&info.tile_strides)
            .map(|(w, stride)| (w.low - w.start) as u64 * stride * info.dtype.size())
            .sum()
    }

    /// The index of a box of `extents` in the program's table.
    pub fn raw_box(&mut self, extents: Vec<u64>) -> u32 {
        let table = &mut self.program.boxes;
        match table.iter().position(|b| *b == extents) {
            Some(index) => index as u32,
            None => {
                table.push(extents);
                (table.len() - 1) as u32
            }
        }
    }
}

/// A padded view's tile along one dimension: it starts at `start` (before 0 when it
/// reaches past the tensor's front) and spans `len` elements; `low..high` lies inside
/// the tensor (empty when none does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub start: i64,
    pub len: u64,
    pub low: i64,
    pub high: i64,
}
