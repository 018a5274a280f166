//! The roofline bound: the fewest cycles any schedule on a given number of cores could
//! take on the modelled machine,
//!
//! ```text
//! max( minimum bytes / min(cores × per-core bandwidth, chip bandwidth),
//!      minimum vector cycles / cores,
//!      minimum cube cycles / cores )
//! ```
//!
//! - Minimum bytes: every element an input is read at (distinct index values of its
//!   subscripts) once, and every output written once. A gathered dimension counts
//!   `min(rows, indices)` rows: the most distinct rows the indices can name, since the
//!   data is unknown.
//! - Per-core bandwidth: `dma.core_bytes_per_cycle` (the larger of it and
//!   `dma.fix_bytes_per_cycle` for a matmul, whose results leave through FIX).
//! - Minimum vector cycles: each arithmetic node of the algorithm (not loads,
//!   constants, broadcasts or the final rounding of an accumulator) over all its
//!   elements, `elements × width / repeat_bytes × cycles[op]`, with no issue cost and
//!   no rounding up to whole repeats; a gather `elements × cycles[gather]`.
//! - Minimum cube cycles: `m × n × k / fractal volume × cycles_per_fractal`.
//!
//! [`roofline`] uses the cores the schedule actually gives work to: it is the bound
//! for that schedule, and the report's `efficiency` is measured against it.
//! [`machine_roofline`] uses every core of the target the kernel's class runs on: the
//! bound of the machine, which a schedule on fewer cores cannot approach. Both are
//! sound: the simulator charges at least these amounts to some pipe or to a DMA port
//! of the slowest core, so no schedule is simulated below either.
//!
//! [`attainable`] adds to the machine's bound what no schedule avoids, so that small
//! kernels are judged fairly:
//!
//! ```text
//! max( memory + L,  compute + L_in + L )      L = dma.latency_cycles
//! ```
//!
//! - `share`: the least fraction of the work the busiest core can get, over every way of
//!   splitting the output axes across the target's cores (a share is whole tiles of
//!   rows: `ceil(extent / cores) / extent` per split axis), at least `1 / cores`.
//! - `memory`: `max(share × minimum bytes / per-core bandwidth, minimum bytes / chip
//!   bandwidth)`: the busiest core's port time. Its last transfer lands `L` after it
//!   ends, and an output copy follows any input.
//! - `compute`: `share ×` the minimum vector or cube cycles: the busiest core's
//!   compute cannot start before its first input lands (`L_in = L`, or 0 for a kernel
//!   that reads nothing) and its last result lands `L` after its copy starts.

use npu_core::internal::vector_op;
use npu_core::internal::{mac_operands, subscript_extent};
use npu_core::ir::{CheckedKernel, CheckedSchedule, Expr, KernelClass, Role, Subscript};
use npu_core::lower::{active_cores, vector_width};
use npu_core::target::VectorOp;
use serde::{Deserialize, Serialize};

/// A roofline bound and its parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Roofline {
    /// The bound: the largest of the parts.
    pub cycles: u64,
    /// Cores the work is spread over.
    pub cores: u64,
    /// Bytes the kernel must move at least.
    pub minimum_bytes: u64,
    /// Cycles to move them over these cores' ports, at most the chip's bandwidth.
    pub memory_cycles: f64,
    /// Cycles of vector work, spread over the cores.
    pub vector_cycles: f64,
    /// Cycles of cube work, spread over the cores.
    pub cube_cycles: f64,
}

impl Roofline {
    /// Which bound is the highest: `memory`, `vector` or `cube`.
    pub fn bound(&self) -> &'static str {
        if self.memory_cycles >= self.vector_cycles.max(self.cube_cycles) {
            "memory"
        } else if self.vector_cycles >= self.cube_cycles {
            "vector"
        } else {
            "cube"
        }
    }
}

/// The bound of `schedule` on the cores it gives work to.
pub fn roofline(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> Roofline {
    bound(kernel, active_cores(kernel, schedule))
}

/// [`roofline`]'s cycles.
pub fn roofline_cycles(kernel: &CheckedKernel, schedule: &CheckedSchedule) -> u64 {
    roofline(kernel, schedule).cycles
}

/// The bound of the whole machine: every core of the kernel's class.
pub fn machine_roofline(kernel: &CheckedKernel) -> Roofline {
    let cores = match kernel.class {
        KernelClass::Matmul(_) => kernel.target.cores.cube,
        _ => kernel.target.cores.vector,
    };
    bound(kernel, u64::from(cores))
}

fn bound(kernel: &CheckedKernel, cores: u64) -> Roofline {
    let target = &kernel.target;
    let cores = cores.max(1);
    let minimum_bytes = minimum_bytes(kernel);
    let per_core = per_core_bandwidth(kernel);
    let bandwidth = (per_core * cores as f64).min(target.dma.gm_bytes_per_cycle);
    let memory_cycles = minimum_bytes as f64 / bandwidth;
    let (vector, cube) = compute(kernel);
    let vector_cycles = vector / cores as f64;
    let cube_cycles = cube / cores as f64;
    let cycles = memory_cycles.max(vector_cycles).max(cube_cycles).ceil() as u64;
    Roofline {
        cycles,
        cores,
        minimum_bytes,
        memory_cycles,
        vector_cycles,
        cube_cycles,
    }
}

/// The attainable bound of the machine and its parts (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attainable {
    /// The bound.
    pub cycles: u64,
    /// The least share of the work the busiest core can get.
    pub share: f64,
    /// Cycles of the busiest core's share of the traffic.
    pub memory_cycles: f64,
    /// Cycles of its share of the compute.
    pub compute_cycles: f64,
    /// The DMA latency (`dma.latency_cycles`) no schedule hides.
    pub latency_cycles: u64,
}

/// What no schedule of `kernel` can avoid on its target (see the module docs).
pub fn attainable(kernel: &CheckedKernel) -> Attainable {
    let target = &kernel.target;
    let cores = u64::from(match kernel.class {
        KernelClass::Matmul(_) => target.cores.cube,
        _ => target.cores.vector,
    })
    .max(1);
    let share = least_share(kernel, cores);
    let bytes = minimum_bytes(kernel) as f64;
    let per_core = per_core_bandwidth(kernel);
    let memory_cycles = (share * bytes / per_core).max(bytes / target.dma.gm_bytes_per_cycle);
    let (vector, cube) = compute(kernel);
    let compute_cycles = share * vector.max(cube);
    let latency = target.dma.latency_cycles;
    let reads = minimum_traffic(kernel).0 > 0;
    let first_in = if reads { latency } else { 0 };
    let cycles = (memory_cycles + latency as f64)
        .max(compute_cycles + (first_in + latency) as f64)
        .ceil() as u64;
    Attainable {
        cycles,
        share,
        memory_cycles,
        compute_cycles,
        latency_cycles: latency,
    }
}

/// The global-memory bytes per cycle one core moves at most: its DMA's, or for a
/// matmul, whose results leave through FIX, the larger of DMA and FIX.
fn per_core_bandwidth(kernel: &CheckedKernel) -> f64 {
    let dma = &kernel.target.dma;
    match kernel.class {
        KernelClass::Matmul(_) => dma.core_bytes_per_cycle.max(dma.fix_bytes_per_cycle),
        _ => dma.core_bytes_per_cycle,
    }
}

/// The least fraction of the output the busiest core gets, over every split of the
/// output axes across at most `cores` cores.
fn least_share(kernel: &CheckedKernel, cores: u64) -> f64 {
    let extents: Vec<u64> = kernel
        .output_axes()
        .iter()
        .map(|a| kernel.axes[*a].extent)
        .collect();
    fn search(extents: &[u64], cores: u64) -> f64 {
        let Some((&first, rest)) = extents.split_first() else {
            return 1.0;
        };
        (1..=cores.min(first))
            .map(|c| first.div_ceil(c) as f64 / first as f64 * search(rest, cores / c))
            .fold(1.0, f64::min)
    }
    search(&extents, cores).max(1.0 / cores as f64)
}

/// Bytes every schedule must move: inputs read once (only the elements read), outputs
/// written once.
pub fn minimum_bytes(kernel: &CheckedKernel) -> u64 {
    let (read, written) = minimum_traffic(kernel);
    read + written
}

/// Bytes read from and written to global memory by an ideal schedule.
pub fn minimum_traffic(kernel: &CheckedKernel) -> (u64, u64) {
    let mut read = 0;
    let mut written = 0;
    for (index, tensor) in kernel.tensors.iter().enumerate() {
        match tensor.role {
            Role::Output => written += tensor.bytes(),
            Role::Local => {}
            Role::Input => {
                let mut axes: Vec<usize> = Vec::new();
                let mut loaded = false;
                // A window (an affine subscript) reads at most the tensor's elements
                // along that dimension, however many times its windows overlap.
                let mut windowed: Option<u64> = None;
                // A gathered dimension reads at most one row per index, and at most
                // every row.
                let mut gathered = 1u64;
                for assign in &kernel.body {
                    assign.value.accesses(&mut |t, subscripts| {
                        if t == index {
                            loaded = true;
                            for subscript in subscripts {
                                if let Subscript::Gather { tensor, extent, .. } = subscript {
                                    let indices = kernel.tensors[*tensor].elements();
                                    gathered = gathered.max(indices.min(*extent));
                                }
                            }
                            if subscripts
                                .iter()
                                .any(|s| matches!(s, Subscript::Affine { .. }))
                            {
                                let hull: u64 = subscripts
                                    .iter()
                                    .zip(&tensor.shape)
                                    .map(|(s, extent)| {
                                        let extents: Vec<u64> =
                                            kernel.axes.iter().map(|a| a.extent).collect();
                                        subscript_extent(s, &extents).min(*extent)
                                    })
                                    .product();
                                windowed = Some(hull);
                            }
                            for subscript in subscripts {
                                if let Subscript::Axis(axis) = subscript
                                    && !axes.contains(axis)
                                {
                                    axes.push(*axis);
                                }
                            }
                        }
                    });
                }
                if let (true, Some(hull)) = (loaded, windowed) {
                    read += hull * tensor.dtype.size();
                    continue;
                }
                if loaded {
                    let elements: u64 = axes.iter().map(|a| kernel.axes[*a].extent).product();
                    read += elements * gathered * tensor.dtype.size();
                }
            }
        }
    }
    (read, written)
}

/// Minimum vector and cube cycles on one core.
fn compute(kernel: &CheckedKernel) -> (f64, f64) {
    let target = &kernel.target;
    if let KernelClass::Matmul(mm) = &kernel.class {
        let Some(cube) = &target.cube else {
            return (0.0, 0.0);
        };
        let volume = (mm.batch_extent(&kernel.axes)
            * kernel.axes[mm.m].extent
            * kernel.axes[mm.n].extent
            * kernel.axes[mm.k].extent) as f64;
        let fractal = (cube.m * cube.n * cube.k) as f64;
        return (0.0, volume / fractal * cube.cycles_per_fractal as f64);
    }
    let mut cycles = 0.0;
    for assign in &kernel.body {
        let outer: u64 = assign.axes.iter().map(|a| kernel.axes[*a].extent).product();
        node_cycles(kernel, &assign.value, outer, &mut cycles);
    }
    (cycles, 0.0)
}

fn node_cycles(kernel: &CheckedKernel, expr: &Expr, elements: u64, total: &mut f64) {
    let target = &kernel.target;
    let inner = match expr {
        Expr::Reduce { axes, .. } => {
            elements * axes.iter().map(|a| kernel.axes[*a].extent).product::<u64>()
        }
        _ => elements,
    };
    if let (Some(width), Expr::Chain { rest, .. }) = (vector_width(expr), expr) {
        // One instruction per step, each at its own operation's cost.
        for (op, _) in rest {
            *total += (elements * width) as f64 / target.vector.repeat_bytes as f64
                * target.vector_cycles(op.vector_op()) as f64;
        }
    } else if let (Some(width), Some(op)) = (vector_width(expr), vector_op(expr)) {
        let counted = if matches!(expr, Expr::Reduce { .. }) {
            inner
        } else {
            elements
        };
        *total += (counted * width) as f64 / target.vector.repeat_bytes as f64
            * target.vector_cycles(op) as f64;
    }
    // A gather costs per element, not per repeat.
    if expr.is_gather() {
        *total += elements as f64 * target.vector_cycles(VectorOp::Gather) as f64;
    }
    match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => {}
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => node_cycles(kernel, arg, inner, total),
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            node_cycles(kernel, lhs, inner, total);
            node_cycles(kernel, rhs, inner, total);
        }
        Expr::Chain { .. } => {
            for operand in expr.children() {
                node_cycles(kernel, operand, inner, total);
            }
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            node_cycles(kernel, cond, inner, total);
            node_cycles(kernel, then, inner, total);
            node_cycles(kernel, otherwise, inner, total);
        }
        // A multiply-accumulate folds the product of its operands: no instruction
        // computes the product or the casts under it.
        Expr::Reduce { .. } if let Some(operands) = mac_operands(expr) => {
            for operand in operands {
                node_cycles(kernel, operand, inner, total);
            }
        }
        Expr::Reduce { body, .. } | Expr::Scan { body, .. } => {
            node_cycles(kernel, body, inner, total)
        }
    }
}
