//! Targets: the hardware a kernel is checked against and simulated on, as data.
//!
//! A target is a TOML file (see `npu-core/targets/` and docs/targets.md). The built-in
//! presets are the same files compiled in, so a user calibrating against a profiler
//! copies one and edits the numbers. [`read_file`] is the one reader of target files
//! the macro and the tools share: [`crate::file`]'s bounded reader (regular files only,
//! at most 1 MiB unless `NPU_MAX_FILE_BYTES` raises it), so that `target "/dev/zero";`
//! or a FIFO is an error, not a hang.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;

mod implementation;
mod vector_op;

pub use self::implementation::{AIE2_BF16, Implementation};
pub use self::vector_op::VectorOp;

mod limits;

pub use limits::{
    MAX_ALIGN, MAX_BANDWIDTH, MAX_BYTES, MAX_CLOCK_MHZ, MAX_CORES, MAX_CYCLES, MAX_EVENTS,
    MAX_FRACTAL, MAX_PAD_PENALTY, MAX_REPEAT,
};

/// Largest target file [`read_file`] reads unless `NPU_MAX_FILE_BYTES` raises it: the
/// presets are about 2 KiB.
pub const MAX_FILE_BYTES: u64 = crate::file::Kind::Target.default_limit();

/// Reads a target file's text with [`crate::file::read`], or says why not in a phrase
/// to follow the path: "No such file or directory (os error 2)", "not a regular file
/// (a FIFO)". Only a regular file (or a link to one) within the limit is read; the
/// type is checked before opening, since opening a FIFO waits for a writer.
pub fn read_file(path: &std::path::Path) -> Result<String, String> {
    crate::file::read(crate::file::Kind::Target, path).map_err(|error| error.reason())
}

/// A hardware target. Sizes are bytes, times are cycles of the core clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Identifies the target: the preset name a `target` line gives, recorded in
    /// [`Program::target`](crate::Program::target) and quoted by errors.
    pub name: String,
    /// One line on what hardware this is, e.g. for the tuner's prompt.
    pub description: String,
    /// Whose machine this is, and so which backend writes its kernels: `ascend`
    /// (Ascend C), `aie` (AIE C++), or `generic` (the default: a model of no vendor,
    /// which no backend writes).
    #[serde(default)]
    pub family: Family,
    /// Where the figures come from.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Core clock in MHz, for converting cycles to time.
    pub clock_mhz: u32,
    /// How many cores of each kind the chip has.
    pub cores: Cores,
    /// Capacity of each on-chip memory.
    pub memory: Memory,
    /// Alignment each memory asks of copies and buffers.
    pub align: Align,
    /// Event ids per pair of pipes, for set_flag / wait_flag.
    pub events: u32,
    /// The vector unit (pipe V): width, repeat limit, dtypes, costs.
    pub vector: Vector,
    /// The cube unit (pipe M); `None` where the target has none, and a matmul is refused
    /// (E026).
    #[serde(default)]
    pub cube: Option<Cube>,
    /// Bandwidths and latencies of the copy pipes (MTE1, MTE2, MTE3, FIX).
    pub dma: Dma,
    /// Costs of the scalar pipe (S).
    pub scalar: Scalar,
}

/// Whose machine a target is: what the backends go by, never the target's name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// A Huawei Ascend AI Core (Ascend C).
    Ascend,
    /// An AMD AIE compute tile (the AIE API, C++).
    Aie,
    /// A model of no vendor (such as `npueval_demo`): simulated, never emitted.
    #[default]
    Generic,
}

/// Core counts of the chip, by unit; at least one of the two is nonzero.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cores {
    /// Cores with a vector unit: the ones elementwise and reduction kernels run on.
    pub vector: u32,
    /// Cores with a cube unit: the ones matmul kernels run on.
    pub cube: u32,
}

/// Capacity of each on-chip memory in bytes; 0 where the target has no such memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Unified Buffer of one vector core: where copy_in lands and the vector unit works.
    pub ub: u64,
    /// L1 of one cube core: where a matmul's a and b tiles are staged from global memory.
    pub l1: u64,
    /// L0A: the cube's left-operand (a) blocks, loaded from L1 by MTE1.
    pub l0a: u64,
    /// L0B: the cube's right-operand (b) blocks, loaded from L1 by MTE1.
    pub l0b: u64,
    /// L0C: the cube's accumulators (4 bytes each), drained to global memory by FIX.
    pub l0c: u64,
    /// Where the vendor library's own scratch starts in the UB (Ascend C's
    /// `TMP_UB_OFFSET`): its `Select` writes there, so a kernel with a `select` plans
    /// its UB buffers below it. Absent where no call keeps such a region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_scratch: Option<u64>,
}

/// Required alignment in bytes of the length and start of every copy into each memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Align {
    /// Of UB buffers and copy_in / copy_out bursts; a burst off it needs a padded copy.
    pub ub: u64,
    /// Of L1 buffers and the MTE2 copies into them.
    pub l1: u64,
    /// Of L0A buffers, where MTE1's loads land.
    pub l0a: u64,
    /// Of L0B buffers, where MTE1's loads land.
    pub l0b: u64,
    /// Of L0C buffers, which `mmad` accumulates into.
    pub l0c: u64,
}

/// The vector unit (pipe V): how much one instruction covers, what it computes in, and
/// its costs in cycles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// Bytes one repeat of a vector instruction processes.
    pub repeat_bytes: u64,
    /// Most repeats one vector instruction can issue.
    pub max_repeat: u64,
    /// Dtypes the vector unit computes in.
    pub dtypes: Vec<Dtype>,
    /// Dtypes the vector unit accumulates reductions in, beside `dtypes`: AIE2 sums
    /// bf16 in fp32 accumulator registers although it has no fp32 arithmetic. A
    /// reduction whose accumulator (f32 for floats, i32 for integers, u32 for u32) is
    /// in neither list cannot run on the target.
    #[serde(default)]
    pub accumulators: Vec<Dtype>,
    /// Lanes a float sum along a contiguous axis folds in, by accumulator dtype: the
    /// partials one vector register holds (docs/dsl.md, "The order of a fold"). A dtype left
    /// out folds in index order.
    #[serde(default)]
    pub lanes: BTreeMap<Dtype, u32>,
    /// Fixed cost of issuing one vector instruction.
    pub issue_cycles: u64,
    /// Cycles per repeat, by operation.
    pub cycles: BTreeMap<VectorOp, u64>,
    /// How the unit computes each function that is not correctly rounded, by
    /// operation ([`crate::functions`]); a function absent here is correctly rounded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub functions: BTreeMap<VectorOp, Implementation>,
}

/// The cube unit (pipe M): its fractal, input dtypes and costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cube {
    /// The fractal: one cube instruction multiplies an m x k by a k x n block.
    pub m: u64,
    /// Columns of the fractal's output and of its k x n block.
    pub n: u64,
    /// Depth of the fractal: the dimension one multiply-accumulate sums over.
    pub k: u64,
    /// Input dtypes the cube multiplies; it accumulates in f32 (i32 for integers).
    pub dtypes: Vec<Dtype>,
    /// Cycles per fractal multiply-accumulate.
    pub cycles_per_fractal: u64,
    /// Fixed cost of issuing one `mmad`, beside its fractals.
    pub issue_cycles: u64,
}

/// Data movement. Global-memory bandwidth is shared by all active cores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dma {
    /// Total global-memory bandwidth of the chip.
    pub gm_bytes_per_cycle: f64,
    /// Most one core's MTE2 or MTE3 can move, when it has global memory to itself.
    pub core_bytes_per_cycle: f64,
    /// Fixed latency of one global-memory copy.
    pub latency_cycles: u64,
    /// L1 to L0A/L0B bandwidth (MTE1).
    pub mte1_bytes_per_cycle: f64,
    /// L0C to global memory bandwidth (FIX).
    pub fix_bytes_per_cycle: f64,
    /// Extra cycles for each burst after the first in a strided copy.
    pub burst_cycles: u64,
    /// Slow-down factor of a padded (unaligned tail) copy.
    pub pad_penalty: f64,
    /// Capacity of the chip's shared L2 cache in front of global memory; 0 (the
    /// default) when the target has none. When every input a kernel reads fits, a
    /// second read of the same bytes (by another core, or again by the same one) is
    /// served by the L2 and does not count against `gm_bytes_per_cycle`.
    #[serde(default)]
    pub l2_bytes: u64,
    /// Total bytes per cycle the L2 serves to all cores together (reads and writes);
    /// required when `l2_bytes` is set.
    #[serde(default)]
    pub l2_bytes_per_cycle: f64,
}

/// The scalar pipe (S), which runs loop control and issues every tile's iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scalar {
    /// Scalar-pipe cycles per loop iteration (address arithmetic, loop control).
    pub loop_cycles: u64,
}

/// A memory level data can be staged in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Unified Buffer: the vector unit's operands, staged by MTE2 and drained by MTE3.
    Ub,
    /// L1: a matmul's tiles, staged by MTE2 and read by MTE1.
    L1,
    /// L0A: the cube's left-operand blocks.
    L0a,
    /// L0B: the cube's right-operand blocks.
    L0b,
    /// L0C: the cube's accumulator blocks, which FIX drains.
    L0c,
}

impl Level {
    /// Every level, in declaration order (the order placement numbers them in).
    pub const ALL: [Level; 5] = [Level::Ub, Level::L1, Level::L0a, Level::L0b, Level::L0c];
    /// [`Level::name`] of each of [`Level::ALL`], for suggestions on a misspelt level.
    pub const NAMES: [&'static str; 5] = ["ub", "l1", "l0a", "l0b", "l0c"];

    /// The level a schedule names (`stage x in l1`); `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The lowercase name schedules, target files and listings use.
    pub fn name(self) -> &'static str {
        match self {
            Level::Ub => "ub",
            Level::L1 => "l1",
            Level::L0a => "l0a",
            Level::L0b => "l0b",
            Level::L0c => "l0c",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The built-in presets: name and TOML text.
const PRESETS: [(&str, &str); 4] = [
    ("ascend910b", include_str!("../targets/ascend910b.toml")),
    ("ascend310p", include_str!("../targets/ascend310p.toml")),
    ("npueval_demo", include_str!("../targets/npueval_demo.toml")),
    ("aie2_tile", include_str!("../targets/aie2_tile.toml")),
];

impl Target {
    /// The names of the built-in presets.
    pub fn preset_names() -> Vec<&'static str> {
        PRESETS.iter().map(|(name, _)| *name).collect()
    }

    /// A built-in preset by name.
    pub fn preset(name: &str) -> Option<Target> {
        let (_, text) = PRESETS.iter().find(|(preset, _)| *preset == name)?;
        // The presets are tested to parse; a failure here would be a build defect.
        Target::from_toml(text).ok()
    }

    /// The TOML text of a built-in preset, to copy and calibrate.
    pub fn preset_toml(name: &str) -> Option<&'static str> {
        PRESETS
            .iter()
            .find(|(preset, _)| *preset == name)
            .map(|(_, text)| *text)
    }

    /// Parses a target file's text.
    pub fn from_toml(text: &str) -> Result<Target, TargetError> {
        let target: Target = toml::from_str(text).map_err(|e| TargetError(e.to_string()))?;
        target.validate()?;
        Ok(target)
    }

    /// The target as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Bytes of memory at `level`; 0 when the target has none.
    pub fn capacity(&self, level: Level) -> u64 {
        match level {
            Level::Ub => self.memory.ub,
            Level::L1 => self.memory.l1,
            Level::L0a => self.memory.l0a,
            Level::L0b => self.memory.l0b,
            Level::L0c => self.memory.l0c,
        }
    }

    /// Bytes of the UB a kernel may plan: all of it, or for a kernel whose body has a
    /// `select` (`selects`), the part below [`Memory::api_scratch`].
    pub fn ub_planned(&self, selects: bool) -> u64 {
        match self.memory.api_scratch {
            Some(scratch) if selects => scratch.min(self.memory.ub),
            _ => self.memory.ub,
        }
    }

    /// Alignment in bytes of buffers and copies at `level`.
    pub fn alignment(&self, level: Level) -> u64 {
        match level {
            Level::Ub => self.align.ub,
            Level::L1 => self.align.l1,
            Level::L0a => self.align.l0a,
            Level::L0b => self.align.l0b,
            Level::L0c => self.align.l0c,
        }
    }

    /// Whether the vector unit computes `op`: the table gives it a cost.
    pub fn computes(&self, op: VectorOp) -> bool {
        self.vector.cycles.contains_key(&op)
    }

    /// Whether the vector unit computes in `dtype`: an operation whose result has any
    /// other dtype is refused (E026), though a load, a cast or a constant of it is not.
    pub fn computes_in(&self, dtype: Dtype) -> bool {
        self.vector.dtypes.contains(&dtype)
    }

    /// Whether a reduction or scan may accumulate in `dtype`: the vector unit computes
    /// in it or has accumulator registers of it (AIE2's fp32 beside bf16).
    pub fn accumulates_in(&self, dtype: Dtype) -> bool {
        self.computes_in(dtype) || self.vector.accumulators.contains(&dtype)
    }

    /// Cycles per repeat of a vector operation.
    pub fn vector_cycles(&self, op: VectorOp) -> u64 {
        self.vector.cycles.get(&op).copied().unwrap_or(1)
    }
}

/// Why a target file could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError(pub String);

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TargetError {}

impl Target {
    /// How this target computes `op`: what its `[vector.functions]` table names, else
    /// correctly rounded.
    pub fn implementation(&self, op: VectorOp) -> Implementation {
        self.vector.functions.get(&op).copied().unwrap_or_default()
    }
}
