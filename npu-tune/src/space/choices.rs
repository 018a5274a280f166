//! The knob values a search may pick from ([`Space`]), derived from the kernel and its
//! target: core grids, tiles per axis, buffer depths, cube blocks and tails.

use npu_core::ir::{CheckedKernel, KernelClass, Tail};

use super::axes::{align_elements, short_output, unaligned_rows};
use super::spec::Spec;

/// The knob values a search may pick from, derived from the kernel and its target.
#[derive(Clone, Debug)]
pub struct Space {
    /// Core grids, as cores over the first output axis and over the second (always 1
    /// for a vector kernel); see [`Space::of`].
    pub cores: Vec<[u64; 2]>,
    /// Candidate tiles per axis (`None` = unsplit).
    pub tiles: Vec<Vec<Option<u64>>>,
    /// Buffer depths (1 and 2), for `depth` and a matmul's L0 depths alike.
    pub depths: Vec<u64>,
    /// Matmul only: cube base blocks (m, n, k), every mix of 1, 2, 4, 8 and 16
    /// fractals; empty otherwise.
    pub cube: Vec<[u64; 3]>,
    /// `tail pad` is a choice of its own (beside the tails tiles leave) when some row
    /// is not aligned: padded copies of whole unaligned rows are legal, and sometimes
    /// faster than the tiles that avoid them.
    pub tails: Vec<Tail>,
}

impl Space {
    /// The space of a kernel on its target.
    ///
    /// A vector kernel spreads its first output axis over powers of two of the vector
    /// cores and all of them. A matmul spreads m and n over a grid of cube cores, as
    /// the libraries do (a short m alone leaves most cube cores idle): every `a x b`
    /// with `a` and `b` powers of two or divisors of the core count, `a x b` at most
    /// the cores, and each core at least one fractal of m and of n (a smaller share is
    /// never legal: the cube block divides the core's tile, E023).
    pub fn of(kernel: &CheckedKernel) -> Space {
        let tails = if short_output(kernel) {
            vec![Tail::Pad]
        } else if unaligned_rows(kernel) {
            vec![Tail::None, Tail::Pad]
        } else {
            vec![Tail::None]
        };
        let whole = npu_core::internal::whole_axes(kernel);
        Space {
            cores: core_choices(kernel, &whole),
            tiles: (0..kernel.axes.len())
                .map(|axis| tile_choices(kernel, axis, &whole))
                .collect(),
            depths: vec![1, 2],
            cube: cube_blocks(kernel),
            tails,
        }
    }

    /// How many points the full grid has.
    pub fn size(&self) -> u64 {
        let tiles: u64 = self.tiles.iter().map(|t| t.len() as u64).product();
        let cube = self.cube.len().max(1) as u64;
        let depth = self.depths.len() as u64;
        let l0 = if self.cube.is_empty() {
            1
        } else {
            depth * depth
        };
        self.cores.len() as u64 * tiles * depth * cube * l0 * self.tails.len().max(1) as u64
    }

    /// The `index`-th point of the grid, in a fixed mixed-radix order.
    pub fn point(&self, kernel: &CheckedKernel, mut index: u64) -> Spec {
        let mut pick = |len: usize| {
            let len = len.max(1) as u64;
            let value = (index % len) as usize;
            index /= len;
            value
        };
        let depth = self.depths[pick(self.depths.len())];
        let tiles = self
            .tiles
            .iter()
            .map(|options| options[pick(options.len())])
            .collect();
        let [cores, cores_n] = self.cores[pick(self.cores.len())];
        let (cube, l0_depth, l0c_depth) = if self.cube.is_empty() {
            (None, 1, 1)
        } else {
            let cube = self.cube[pick(self.cube.len())];
            (
                Some(cube),
                self.depths[pick(self.depths.len())],
                self.depths[pick(self.depths.len())],
            )
        };
        let tail = self
            .tails
            .get(pick(self.tails.len()))
            .copied()
            .unwrap_or(Tail::None);
        let mut spec = Spec {
            cores,
            cores_n,
            tiles,
            depth,
            l0_depth,
            l0c_depth,
            cube,
            tail,
        };
        spec.fix_tail(kernel);
        spec
    }

    /// Every point that differs from `spec` in one knob: another core grid, another
    /// tile of one axis, another depth, cube block, L0 depth or tail. `spec` need not
    /// be a point of the space (a hand schedule may not be); its edits are.
    pub fn edits(&self, kernel: &CheckedKernel, spec: &Spec) -> Vec<Spec> {
        let mut out = Vec::new();
        let mut push = |mut next: Spec| {
            next.fix_tail(kernel);
            if next != *spec && !out.contains(&next) {
                out.push(next);
            }
        };
        for &[cores, cores_n] in &self.cores {
            push(Spec {
                cores,
                cores_n,
                ..spec.clone()
            });
        }
        for (axis, options) in self.tiles.iter().enumerate() {
            for &tile in options {
                let mut next = spec.clone();
                next.tiles[axis] = tile;
                push(next);
            }
        }
        for &depth in &self.depths {
            push(Spec {
                depth,
                ..spec.clone()
            });
        }
        if !self.cube.is_empty() {
            for &block in &self.cube {
                push(Spec {
                    cube: Some(block),
                    ..spec.clone()
                });
            }
            for &l0_depth in &self.depths {
                push(Spec {
                    l0_depth,
                    ..spec.clone()
                });
                push(Spec {
                    l0c_depth: l0_depth,
                    ..spec.clone()
                });
            }
        }
        for &tail in &self.tails {
            push(Spec {
                tail,
                ..spec.clone()
            });
        }
        out
    }
}

/// The core grids a kernel may spread over (see [`Space::of`]); `[1, 1]` alone when
/// its first output axis must stay whole (in `whole`, or scanned).
fn core_choices(kernel: &CheckedKernel, whole: &[usize]) -> Vec<[u64; 2]> {
    let target = &kernel.target;
    // A 0-d output has no axis to spread over cores.
    let first = kernel.output_axes().first().copied();
    // A fused kernel keeps every axis a statement reduces over whole (the checker's
    // E035): no cores across it. A scan's running value passes from tile to tile of
    // its axis on one core.
    if first.is_none_or(|first| {
        whole.contains(&first) || npu_core::internal::scan_axes(kernel).contains(&first)
    }) {
        return vec![[1, 1]];
    }
    let extent = first.map_or(1, |first| kernel.axes[first].extent);
    if let (KernelClass::Matmul(mm), Some(unit)) = (&kernel.class, &target.cube) {
        let available = u64::from(target.cores.cube).max(1);
        // The first output axis: a batch spreads by whole matrices, m by fractals.
        let rows = match mm.batch {
            Some(batch) => kernel.axes[batch].extent,
            None => kernel.axes[mm.m].extent / unit.m.max(1),
        };
        return core_grids(available, rows, kernel.axes[mm.n].extent / unit.n.max(1));
    }
    let is_matmul = matches!(kernel.class, KernelClass::Matmul(_));
    let max_cores = u64::from(if is_matmul {
        target.cores.cube
    } else {
        target.cores.vector
    })
    .min(extent)
    .max(1);
    let mut counts: Vec<u64> = powers_of_two(1, max_cores);
    if !counts.contains(&max_cores) {
        counts.push(max_cores);
    }
    counts.into_iter().map(|c| [c, 1]).collect()
}

/// The tiles of `axis` (`None`: the axis whole): powers of two from the least a
/// tile may be (aligned, and whole blocks of a sum's lanes), or only `None` when the checker refuses any split of it (an ordered
/// fold's axis, or one in `whole`).
fn tile_choices(kernel: &CheckedKernel, axis: usize, whole: &[usize]) -> Vec<Option<u64>> {
    let mut list: Vec<Option<u64>> = vec![None];
    // The checker refuses a split that would reorder this fold, or cut an axis a
    // fused statement reduces over.
    if npu_core::internal::ordered_fold(kernel, axis).is_some() || whole.contains(&axis) {
        return list;
    }
    // A batched matmul's batch tile holds whole matrices: any count of them.
    let batch = matches!(&kernel.class, KernelClass::Matmul(mm) if mm.batch == Some(axis));
    let min = if batch {
        1
    } else if matches!(kernel.class, KernelClass::Matmul(_)) {
        16
    } else {
        // A sum in lanes splits only into whole blocks of its lanes.
        let lanes = npu_core::internal::lane_fold(kernel, axis).unwrap_or(1);
        align_elements(kernel, axis).max(lanes)
    };
    let extent = kernel.axes[axis].extent;
    list.extend(
        powers_of_two(min.max(1), extent)
            .into_iter()
            .filter(|t| *t < extent)
            .map(Some),
    );
    list
}

/// A matmul's cube blocks: every `m x n x k` of 1, 2, 4, 8 and 16 fractals; none for
/// other kernels.
fn cube_blocks(kernel: &CheckedKernel) -> Vec<[u64; 3]> {
    let (KernelClass::Matmul(_), Some(unit)) = (&kernel.class, &kernel.target.cube) else {
        return Vec::new();
    };
    // Each axis in multiples of its own fractal size: a target file may give the
    // fractal different m, n and k.
    let sizes = |unit: u64| [1, 2, 4, 8, 16].map(|times| unit * times);
    let mut blocks = Vec::new();
    for m in sizes(unit.m) {
        for n in sizes(unit.n) {
            for k in sizes(unit.k) {
                blocks.push([m, n, k]);
            }
        }
    }
    blocks
}

/// The core grids of a matmul with `available` cube cores and `rows` x `columns`
/// fractals of output: per axis the powers of two and the divisors of `available`,
/// up to that axis's fractals; pairs whose product fits, the single-axis (m) counts
/// first, in a fixed order.
fn core_grids(available: u64, rows: u64, columns: u64) -> Vec<[u64; 2]> {
    let counts = |fractals: u64| {
        let most = fractals.clamp(1, available);
        let mut list = powers_of_two(1, most);
        list.extend((1..=most).filter(|c| available.is_multiple_of(*c)));
        list.sort_unstable();
        list.dedup();
        list
    };
    let mut grids = Vec::new();
    for b in counts(columns) {
        for a in counts(rows) {
            if a * b <= available {
                grids.push([a, b]);
            }
        }
    }
    grids
}

fn powers_of_two(min: u64, max: u64) -> Vec<u64> {
    let mut list = Vec::new();
    let mut value = min.next_power_of_two();
    while value <= max {
        list.push(value);
        value *= 2;
    }
    list
}
