//! The schedule space the search generators explore, and the structured form of a
//! schedule ([`Spec`]) they edit. A spec always becomes DSL text before it is
//! evaluated, so every generator goes through the same parser and checker as an LLM.

use npu_core::ast::{ItemKind, Schedule};
use npu_core::ir::{CheckedKernel, KernelClass, Role, Tail};

/// A schedule as knobs. `to_dsl` renders it; `from_schedule` reads one back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Cores the first output axis (m for a matmul, the batch for a batched one) is
    /// split across.
    pub cores: u64,
    /// Matmul only: cores the second output axis (n) is split across, so that the
    /// cores form a `cores` x `cores_n` grid over the output; 1 otherwise.
    pub cores_n: u64,
    /// Tile per axis, in kernel axis order; `None` leaves the axis unsplit.
    pub tiles: Vec<Option<u64>>,
    /// Buffer depth of the staged tensors (UB for vector kernels, L1 for matmul).
    pub depth: u64,
    /// Matmul only: depth of the L0A/L0B blocks (L0C's is `l0c_depth`).
    pub l0_depth: u64,
    /// Matmul only: depth of the L0C block; 1 otherwise.
    pub l0c_depth: u64,
    /// Matmul only: the cube base block (m, n, k).
    pub cube: Option<[u64; 3]>,
    /// The `tail` item to write; `None` writes none.
    pub tail: Tail,
}

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

impl Spec {
    /// The schedule block as DSL text, named `name`.
    pub fn to_dsl(&self, kernel: &CheckedKernel, name: &str) -> String {
        let axes = &kernel.axes;
        let mut out = format!("schedule {name} {{\n");
        // A 0-d output runs over no axis: its kernel has no cores to spread.
        let first = kernel.output_axes().first().copied().unwrap_or_default();
        match (self.cores > 1, self.cores_n > 1, second_axis(kernel)) {
            (true, true, Some(second)) => {
                out += &format!(
                    "    parallel {}, {} over {} x {} cores;\n",
                    axes[first].name, axes[second].name, self.cores, self.cores_n
                );
            }
            (false, true, Some(second)) => {
                out += &format!(
                    "    parallel {} over {} cores;\n",
                    axes[second].name, self.cores_n
                );
            }
            (true, _, _) => {
                out += &format!(
                    "    parallel {} over {} cores;\n",
                    axes[first].name, self.cores
                );
            }
            _ => {}
        }
        for (axis, tile) in self.tiles.iter().enumerate() {
            if let Some(tile) = tile {
                out += &format!("    split {} by {tile};\n", axes[axis].name);
            }
        }
        match &kernel.class {
            KernelClass::Matmul(mm) => {
                let [m, n, k] = self.cube.unwrap_or([16, 16, 16]);
                out += &format!(
                    "    cube {} by {m}, {} by {n}, {} by {k};\n",
                    axes[mm.m].name, axes[mm.n].name, axes[mm.k].name
                );
                let (a, b, c) = (
                    &kernel.tensors[mm.a].name,
                    &kernel.tensors[mm.b].name,
                    &kernel.tensors[mm.c].name,
                );
                out += &format!("    stage {a}, {b} in l1 depth {};\n", self.depth);
                out += &format!("    stage {a} in l0a depth {};\n", self.l0_depth);
                out += &format!("    stage {b} in l0b depth {};\n", self.l0_depth);
                out += &format!("    stage {c} in l0c depth {};\n", self.l0c_depth);
            }
            _ => {
                // Scalar parameters are held in scalar registers and intermediates live
                // in ub for the tile: neither is staged.
                let names: Vec<&str> = kernel
                    .tensors
                    .iter()
                    .filter(|t| !t.is_scalar() && t.role != Role::Local)
                    .map(|t| t.name.as_str())
                    .collect();
                out += &format!(
                    "    stage {} in ub depth {};\n",
                    names.join(", "),
                    self.depth
                );
            }
        }
        match self.tail {
            Tail::None => {}
            Tail::Pad => out += "    tail pad;\n",
            Tail::Exact => out += "    tail exact;\n",
        }
        out += "}\n";
        out
    }

    /// Reads the knobs back from a parsed schedule block. Items the space does not model
    /// (per-tensor depths, `order`) are approximated: the deepest depth wins.
    pub fn from_schedule(kernel: &CheckedKernel, schedule: &Schedule) -> Spec {
        let mut spec = Spec {
            cores: 1,
            cores_n: 1,
            tiles: vec![None; kernel.axes.len()],
            depth: 1,
            l0_depth: 1,
            l0c_depth: 1,
            cube: None,
            tail: Tail::None,
        };
        let axis = |name: &str| kernel.axes.iter().position(|a| a.name == name);
        for item in &schedule.items {
            match &item.kind {
                // Cores over a matmul's n make the grid's second count; over any other
                // axis they count as the first axis's (the draft keeps such a
                // schedule's own text).
                ItemKind::Parallel { axis: name, cores }
                    if second_axis(kernel).is_some()
                        && axis(&name.to_string()) == second_axis(kernel) =>
                {
                    spec.cores_n = spec.cores_n.saturating_mul(cores.value)
                }
                ItemKind::Parallel { cores, .. } => {
                    spec.cores = spec.cores.saturating_mul(cores.value)
                }
                ItemKind::Split { axis: name, tile } => {
                    if let Some(a) = axis(&name.to_string()) {
                        spec.tiles[a] = Some(tile.value);
                    }
                }
                ItemKind::Stage { level, depth, .. } => {
                    let depth = depth.map_or(1, |d| d.value);
                    match level.to_string().as_str() {
                        "l0a" | "l0b" => spec.l0_depth = spec.l0_depth.max(depth),
                        "l0c" => spec.l0c_depth = spec.l0c_depth.max(depth),
                        _ => spec.depth = spec.depth.max(depth),
                    }
                }
                ItemKind::Cube { tiles } => {
                    if let KernelClass::Matmul(mm) = &kernel.class {
                        let mut block = [16, 16, 16];
                        for (name, value) in tiles {
                            match axis(&name.to_string()) {
                                Some(a) if a == mm.m => block[0] = value.value,
                                Some(a) if a == mm.n => block[1] = value.value,
                                Some(a) if a == mm.k => block[2] = value.value,
                                _ => {}
                            }
                        }
                        spec.cube = Some(block);
                    }
                }
                ItemKind::Tail { policy } => {
                    spec.tail = match policy.to_string().as_str() {
                        "exact" => Tail::Exact,
                        _ => Tail::Pad,
                    }
                }
                ItemKind::Order { .. } => {}
            }
        }
        spec
    }

    /// The tile an axis effectively gets (its split, or the axis or core share).
    pub fn effective_tile(&self, kernel: &CheckedKernel, axis: usize) -> u64 {
        let extent = kernel.axes[axis].extent;
        let share = if kernel.output_axes().first() == Some(&axis) {
            extent.div_ceil(self.cores.max(1))
        } else if Some(axis) == second_axis(kernel) {
            extent.div_ceil(self.cores_n.max(1))
        } else {
            extent
        };
        self.tiles[axis].unwrap_or(share)
    }

    /// Sets `tail pad` when some tile leaves a tail, and clears it otherwise.
    pub fn fix_tail(&mut self, kernel: &CheckedKernel) {
        let has_tail = (0..kernel.axes.len()).any(|a| {
            !kernel.axes[a]
                .extent
                .is_multiple_of(self.effective_tile(kernel, a))
        });
        self.tail = match (has_tail, self.tail) {
            (false, Tail::Pad) if unaligned_rows(kernel) => Tail::Pad,
            (false, _) => Tail::None,
            (true, Tail::None) => Tail::Pad,
            (true, other) => other,
        };
    }
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
/// tile may be, or only `None` when the checker refuses any split of it (an ordered
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
        align_elements(kernel, axis)
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

/// The second output axis of a matmul (n), the one a core grid spreads beside m;
/// `None` for other kernels, whose cores go over their first output axis only.
pub fn second_axis(kernel: &CheckedKernel) -> Option<usize> {
    match &kernel.class {
        KernelClass::Matmul(mm) => Some(mm.n),
        _ => None,
    }
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

/// Elements of `axis` that make an aligned UB copy for every tensor it is innermost in.
pub fn align_elements(kernel: &CheckedKernel, axis: usize) -> u64 {
    let align = kernel.target.align.ub;
    let mut step = 1;
    for (t, tensor) in kernel.tensors.iter().enumerate() {
        let axes = npu_core::internal::tensor_axes(kernel, t);
        if axes.last().copied().flatten() == Some(axis)
            && (tensor.role == Role::Input || tensor.role == Role::Output)
        {
            let need = align / gcd(align, tensor.dtype.size());
            step = lcm(step, need);
        }
    }
    step
}

/// Whether some axis's extent is not a whole number of aligned elements, or some 0-d
/// output's one element is less than an aligned copy: a row of it is copied unaligned
/// unless padded.
pub fn unaligned_rows(kernel: &CheckedKernel) -> bool {
    short_output(kernel)
        || (0..kernel.axes.len()).any(|axis| {
            !kernel.axes[axis]
                .extent
                .is_multiple_of(align_elements(kernel, axis))
        })
}

/// Whether some 0-d output's one element is less than an aligned copy: every
/// schedule of the kernel needs `tail pad`.
fn short_output(kernel: &CheckedKernel) -> bool {
    let align = kernel.target.align.ub;
    kernel.tensors.iter().any(|t| {
        t.role == Role::Output && t.shape.is_empty() && !t.dtype.size().is_multiple_of(align)
    })
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

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Bundled;

    #[test]
    fn a_matmuls_cores_are_every_grid_with_a_fractal_per_core() {
        // The suite's matmul: c is 128 x 256 on ascend910b's 20 cube cores, fractals
        // of 16, so m takes at most 128 / 16 = 8 cores and n 256 / 16 = 16. Counts are
        // the powers of two and the divisors of 20 up to those: m 1, 2, 4, 5, 8 and
        // n 1, 2, 4, 5, 8, 10, 16; grids are the pairs of at most 20 cores, n's count
        // outermost.
        let problem = Bundled::find("matmul").unwrap().problem(0, None).unwrap();
        let space = Space::of(&problem.kernel);
        assert_eq!(
            space.cores,
            [
                [1, 1],
                [2, 1],
                [4, 1],
                [5, 1],
                [8, 1],
                [1, 2],
                [2, 2],
                [4, 2],
                [5, 2],
                [8, 2],
                [1, 4],
                [2, 4],
                [4, 4],
                [5, 4],
                [1, 5],
                [2, 5],
                [4, 5],
                [1, 8],
                [2, 8],
                [1, 10],
                [2, 10],
                [1, 16],
            ]
        );
        // Each grid is one the checker takes: with 16 x 16 x 16 blocks and m and n
        // split by 16, every core gets whole blocks (uneven shares, such as 128 over
        // 5 cores, deal out whole tiles).
        for &[cores, cores_n] in &space.cores {
            let mut tiles = vec![None; problem.kernel.axes.len()];
            for axis in problem.kernel.output_axes() {
                tiles[*axis] = Some(16);
            }
            let spec = Spec {
                cores,
                cores_n,
                tiles,
                depth: 1,
                l0_depth: 1,
                l0c_depth: 1,
                cube: Some([16, 16, 16]),
                tail: Tail::None,
            };
            let text = spec.to_dsl(&problem.kernel, "s");
            let checked = problem.check(&text);
            assert!(checked.is_ok(), "{text}");
        }
    }

    #[test]
    fn a_grid_reads_back_as_it_was_written() {
        let problem = Bundled::find("matmul").unwrap().problem(0, None).unwrap();
        let kernel = &problem.kernel;
        let space = Space::of(kernel);
        for index in [0, 1, space.size() / 3, space.size() - 1] {
            let spec = space.point(kernel, index);
            let text = spec.to_dsl(kernel, "s");
            let schedules = npu_core::internal::parse_schedules_str(&text).unwrap();
            assert_eq!(Spec::from_schedule(kernel, &schedules[0]), spec, "{text}");
        }
        // Cores over n alone are written as such.
        let mut spec = space.point(kernel, 0);
        (spec.cores, spec.cores_n) = (1, 16);
        assert!(
            spec.to_dsl(kernel, "s")
                .contains("parallel n over 16 cores;")
        );
    }
}
