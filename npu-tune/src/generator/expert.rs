//! What the heuristic writes first and how it edits a result: the first drafts an
//! expert writes for a kernel (every core, double buffering, the largest tiles that
//! fit; for a matmul, as the libraries do it, a grid of cores that gives every cube
//! core work and cube blocks that fit L0), and the one-knob edits of a measured
//! schedule, the likeliest first given the simulator's symptom.

use npu_core::Level;
use npu_core::ir::{CheckedKernel, KernelClass, MatmulShape, Tail};

use crate::evaluate::Problem;
use crate::space::{Space, Spec, align_elements, second_axis};

/// What an expert writes first: every core, double buffering, and the largest tiles
/// that fit, then the same with a step down in tile or cores.
pub(super) fn first_drafts(problem: &Problem, space: &Space) -> Vec<Spec> {
    let kernel = &problem.kernel;
    let max_cores = space.cores.iter().map(|[a, b]| a * b).max().unwrap_or(1);
    let axes = kernel.axes.len();
    let mut drafts = Vec::new();
    match &kernel.class {
        KernelClass::Matmul(mm) => {
            // Blocks that fit the shape and L0 double-buffered, each on the grid that
            // leaves each core the least output (so every cube core that can get a
            // whole block gets one); the least output per core first, then the
            // largest blocks (fewer, longer cube instructions).
            let mut scored: Vec<((u64, u64), Spec)> = Vec::new();
            for &block in &space.cube {
                if !fits_l0(kernel, mm, block, 2, 1) {
                    continue;
                }
                let Some((grid, per_core)) = spread(kernel, space, mm, block) else {
                    continue;
                };
                let [m, n, k] = block;
                let mut tiles = vec![None; axes];
                let extent_k = kernel.axes[mm.k].extent;
                tiles[mm.k] = Some(k.max(extent_k.min(k * 4)));
                // One matrix of a batch per L1 tile, so that depth 2 copies the next
                // matrix during this one's product.
                if let Some(batch) = mm.batch {
                    tiles[batch] = Some(1);
                }
                let mut spec = Spec {
                    cores: grid[0],
                    cores_n: grid[1],
                    tiles,
                    depth: 2,
                    l0_depth: 2,
                    l0c_depth: 1,
                    cube: Some(block),
                    tail: Tail::None,
                };
                spec.fix_tail(kernel);
                scored.push(((per_core, u64::MAX - m * n * k), spec));
            }
            scored.sort_by_key(|(score, _)| *score);
            drafts.extend(scored.into_iter().take(24).map(|(_, spec)| spec));
        }
        _ => {
            // Tiles filled from the innermost axis out to a budget of elements, so that
            // reduced axes and whole rows stay whole while they fit (an expert sizes a
            // vector tile by what one copy moves, not axis by axis).
            let largest = (0..axes).fold(1u64, |product, a| {
                product.saturating_mul(kernel.axes[a].extent)
            });
            for depth in [2, 1] {
                for cores in [max_cores, (max_cores / 2).max(1)] {
                    let mut budget = largest.next_power_of_two().min(1 << 20);
                    while budget >= 16 {
                        let mut spec = Spec {
                            cores,
                            cores_n: 1,
                            tiles: filled(kernel, space, cores, budget),
                            depth,
                            l0_depth: 1,
                            l0c_depth: 1,
                            cube: None,
                            tail: Tail::None,
                        };
                        spec.fix_tail(kernel);
                        if !drafts.contains(&spec) {
                            drafts.push(spec);
                        }
                        budget /= 2;
                    }
                }
            }
        }
    }
    drafts
}

/// Whether the cube block fits L0A, L0B and L0C at these depths (the checker's E020
/// for the L0 levels, counted the way it counts them: a block per buffer slot).
fn fits_l0(kernel: &CheckedKernel, mm: &MatmulShape, block: [u64; 3], l0: u64, l0c: u64) -> bool {
    let [m, n, k] = block;
    let size = |t: usize| kernel.tensors[t].dtype.size();
    let target = &kernel.target;
    m * k * size(mm.a) * l0 <= target.capacity(Level::L0a)
        && k * n * size(mm.b) * l0 <= target.capacity(Level::L0b)
        && m * n * size(mm.c) * l0c <= target.capacity(Level::L0c)
}

/// The core grid of the space that leaves each core the least output for a cube
/// block, and that output (elements of m times elements of n): each core's share of
/// m and of n must be a whole number of blocks. Ties go to fewer cores (less traffic
/// sharing global memory). `None` when no grid takes the block.
fn spread(
    kernel: &CheckedKernel,
    space: &Space,
    mm: &MatmulShape,
    block: [u64; 3],
) -> Option<([u64; 2], u64)> {
    let share = |axis: usize, cores: u64, size: u64| {
        let share = kernel.axes[axis].extent.div_ceil(cores);
        share.is_multiple_of(size).then_some(share)
    };
    space
        .cores
        .iter()
        .filter_map(|&[a, b]| {
            // A batch spreads whole matrices: a core's rows are its matrices' m.
            let rows = match mm.batch {
                Some(batch) => {
                    let m = share(mm.m, 1, block[0])?;
                    kernel.axes[batch].extent.div_ceil(a) * m
                }
                None => share(mm.m, a, block[0])?,
            };
            let columns = share(mm.n, b, block[1])?;
            Some(([a, b], rows * columns))
        })
        .min_by_key(|&([a, b], per_core)| (per_core, a * b, a))
}

/// Every core the kernel may use: for a matmul with a cube block, the grid that
/// spreads that block best (see [`spread`]); otherwise the space's grid with the
/// most cores.
pub(super) fn widest(kernel: &CheckedKernel, space: &Space, spec: &Spec) -> Option<[u64; 2]> {
    if let (KernelClass::Matmul(mm), Some(block)) = (&kernel.class, spec.cube)
        && let Some((grid, _)) = spread(kernel, space, mm, block)
    {
        return Some(grid);
    }
    space
        .cores
        .iter()
        .copied()
        .max_by_key(|[a, b]| (a * b, std::cmp::Reverse(*b)))
}

/// The axes from the innermost out: the reduced axes (innermost last in the kernel's
/// order), then the output axes from the innermost.
fn fill_order(kernel: &CheckedKernel) -> Vec<usize> {
    let outputs = kernel.output_axes();
    let mut order: Vec<usize> = (0..kernel.axes.len())
        .rev()
        .filter(|a| !outputs.contains(a))
        .collect();
    order.extend(outputs.iter().rev());
    order
}

/// Tiles holding about `budget` elements on one core: each axis from the innermost out
/// stays whole while the budget allows, the first that does not fit gets the largest
/// aligned power-of-two multiple that does, and the axes outside it their minimum.
/// Axes the space keeps whole (a fused kernel's reduced axes) stay whole regardless.
pub(super) fn filled(
    kernel: &CheckedKernel,
    space: &Space,
    cores: u64,
    budget: u64,
) -> Vec<Option<u64>> {
    let first = kernel.output_axes().first().copied();
    let mut tiles = vec![None; kernel.axes.len()];
    let mut left = budget;
    for axis in fill_order(kernel) {
        let extent = kernel.axes[axis].extent;
        let share = if Some(axis) == first {
            extent.div_ceil(cores.max(1))
        } else {
            extent
        };
        let step = align_elements(kernel, axis).max(1);
        if space.tiles[axis].len() <= 1 || left >= share {
            left /= share.max(1);
            continue;
        }
        let units = (left / step).max(1);
        let tile = (step * (1 << units.ilog2())).min(share);
        tiles[axis] = Some(tile);
        left = 1;
    }
    tiles
}

/// One-knob edits of `spec`, the likeliest first given the simulator's symptom.
pub(super) fn neighbours(
    problem: &Problem,
    space: &Space,
    spec: &Spec,
    symptom: &str,
) -> Vec<Spec> {
    let kernel = &problem.kernel;
    let memory_bound = symptom.contains("memory-bound") || symptom.contains("mte2");
    let no_overlap = symptom.contains("depth") || symptom.contains("overlap");
    let mut bigger = Vec::new();
    let mut smaller = Vec::new();
    for axis in 0..kernel.axes.len() {
        let tile = spec.effective_tile(kernel, axis);
        let step =
            align_elements(kernel, axis).max(if matches!(kernel.class, KernelClass::Matmul(_)) {
                16
            } else {
                1
            });
        // An axis shorter than one aligned step (a single row, say) keeps its extent.
        let extent = kernel.axes[axis].extent;
        for (numerator, denominator) in [(2, 1), (3, 2), (1, 2), (3, 4)] {
            let value =
                (tile * numerator / denominator / step * step).clamp(step.min(extent), extent);
            if value != tile {
                let mut next = spec.clone();
                next.tiles[axis] = Some(value);
                next.fix_tail(kernel);
                if value > tile {
                    bigger.push(next)
                } else {
                    smaller.push(next)
                }
            }
        }
    }
    let cores = core_moves(kernel, space, spec);
    let mut depth = Vec::new();
    let mut toggle = spec.clone();
    toggle.depth = if spec.depth == 2 { 1 } else { 2 };
    depth.push(toggle);
    if space.tails.contains(&Tail::Pad) {
        // Padded copies of whole unaligned rows: legal, and sometimes the faster copy.
        let mut padded = spec.clone();
        padded.tail = if spec.tail == Tail::Pad {
            Tail::None
        } else {
            Tail::Pad
        };
        padded.fix_tail(kernel);
        if padded != *spec {
            smaller.push(padded);
        }
    }
    if let Some([m, n, k]) = spec.cube {
        for block in [
            [m * 2, n, k],
            [m, n * 2, k],
            [m, n, k * 2],
            [m / 2, n, k],
            [m, n / 2, k],
            [m, n, k / 2],
        ] {
            let mut next = spec.clone();
            next.cube = Some(block);
            bigger.push(next);
        }
        for (l0, l0c) in [(2, 1), (1, 1), (2, 2), (1, 2)] {
            let mut next = spec.clone();
            (next.l0_depth, next.l0c_depth) = (l0, l0c);
            depth.push(next);
        }
    }
    let mut cores = cores;
    let mut ordered = Vec::new();
    if no_overlap {
        ordered.append(&mut depth);
    }
    if memory_bound {
        ordered.append(&mut cores);
        ordered.append(&mut bigger);
    } else {
        ordered.append(&mut bigger);
        ordered.append(&mut cores);
    }
    ordered.append(&mut depth);
    ordered.append(&mut smaller);
    ordered
}

/// Edits of the cores: for one axis across the cores, twice as many, all of them and
/// half as many; for a matmul's grid, also twice or half as many over m or n alone,
/// the grid transposed, and the grid that spreads this cube block best.
fn core_moves(kernel: &CheckedKernel, space: &Space, spec: &Spec) -> Vec<Spec> {
    let mut grids: Vec<[u64; 2]> = Vec::new();
    let [a, b] = [spec.cores, spec.cores_n];
    match (&kernel.class, spec.cube, second_axis(kernel)) {
        (KernelClass::Matmul(mm), Some(block), Some(_)) => {
            if let Some((best, _)) = spread(kernel, space, mm, block) {
                grids.push(best);
            }
            grids.extend([[a * 2, b], [a, b * 2], [b, a], [a / 2, b], [a, b / 2]]);
            grids.retain(|grid| space.cores.contains(grid));
        }
        _ => {
            let max_cores = space.cores.iter().map(|[c, _]| *c).max().unwrap_or(1);
            for value in [a * 2, max_cores, a / 2] {
                if value >= 1 && value <= max_cores {
                    grids.push([value, b]);
                }
            }
        }
    }
    let mut out: Vec<Spec> = Vec::new();
    for [cores, cores_n] in grids {
        if [cores, cores_n] == [a, b] {
            continue;
        }
        let mut next = spec.clone();
        (next.cores, next.cores_n) = (cores, cores_n);
        next.fix_tail(kernel);
        if !out.contains(&next) {
            out.push(next);
        }
    }
    out
}
