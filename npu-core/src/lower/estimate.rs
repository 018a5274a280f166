//! What lowering emits, known without lowering: how many cores get work and bounds on
//! the instructions. The rules for which expression nodes become scalar operands and
//! how wide a vector instruction is charged are facts of the checked kernel, in `ir`.

use super::{compacts, distribute, vector};
use crate::ir::{CheckedKernel, CheckedSchedule, Expr, KernelClass};
use crate::plan;

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

/// An upper bound on the instructions [`lower`](super::lower) emits over all cores,
/// from the tile counts alone, so a caller can refuse a schedule before building a
/// huge program.
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

/// Whether [`lower_compact`](super::lower_compact) is the lowering to use for a
/// schedule: the kernel [`compacts`], and its full program's loop iterations, numbered
/// in 32 bits in a compact program, fit (any program the full estimate keeps below
/// 2^32 does).
pub fn holds_compactly(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> bool {
    holds_compactly_with(kernel, estimate_instructions(kernel, schedule))
}

/// [`holds_compactly`] given the full estimate.
fn holds_compactly_with(kernel: &CheckedKernel, estimate: u64) -> bool {
    compacts(kernel) && estimate <= u64::from(u32::MAX)
}

/// [`estimate_instructions`] for what [`lower_compact`](super::lower_compact) builds:
/// one code for each class of alike cores, and for a vector kernel each run of alike
/// tiles as two copies (a matmul's lowering walks every copy). The estimate is scaled
/// by the share of the cores' tiles the held code stands for. A timing-only simulation
/// runs as many instructions (one core of each class) before the steady-state
/// collapse.
pub fn estimate_held_instructions(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> u64 {
    let estimate = estimate_instructions(kernel, schedule);
    let work = distribute(kernel, schedule);
    let padded = (0..kernel.tensors.len()).any(|tensor| plan::is_padded(kernel, tensor));
    let compact = holds_compactly_with(kernel, estimate);
    let matmul = matches!(kernel.class, KernelClass::Matmul(_));
    let copy = schedule
        .stages
        .iter()
        .fold(1, |copy, stage| vector::lcm(copy, stage.depth.max(1)));
    let (mut held, mut all) = (0u128, 0u128);
    let mut keys = Vec::new();
    for core in &work.cores {
        let tiles: u64 = schedule
            .order
            .iter()
            .map(|a| core.ranges[*a].count)
            .product();
        all += u128::from(tiles);
        let key = core.class_key(padded);
        if keys.contains(&key) {
            continue;
        }
        keys.push(key);
        // A matmul's left-out copies are lowered too, into scratch (the `matmul`
        // module), so lowering one costs its every step.
        held += u128::from(
            match vector::choose_skip(&core.ranges, &schedule.order, copy) {
                Some((kept, _)) if compact && !matmul => kept,
                _ => tiles,
            },
        );
    }
    if all == 0 {
        return estimate;
    }
    (u128::from(estimate) * held).div_ceil(all) as u64
}

// Shared with the checker and the plan, so they live in `ir`; re-exported here as
// `lower` has always offered them.
pub use crate::ir::{constant_value, vector_width};
