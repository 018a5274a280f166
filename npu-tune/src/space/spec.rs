//! A schedule as knobs ([`Spec`]): written as DSL text, read back from a parsed
//! schedule, and kept consistent (the tail a spec's tiles leave).

use npu_core::ast::{ItemKind, Schedule};
use npu_core::ir::{CheckedKernel, KernelClass, Role, Tail};

use super::axes::{second_axis, unaligned_rows};

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
