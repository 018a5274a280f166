//! Targets: the hardware a kernel is checked against and simulated on, as data.
//!
//! A target is a TOML file (see `npu-core/targets/` and docs/targets.md). The built-in
//! presets are the same files compiled in, so a user calibrating against a profiler
//! copies one and edits the numbers. npu-core only parses text here; reading a file
//! is the caller's job.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;

/// A hardware target. Sizes are bytes, times are cycles of the core clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub name: String,
    pub description: String,
    /// Where the figures come from.
    #[serde(default)]
    pub sources: Vec<String>,
    pub clock_mhz: u32,
    pub cores: Cores,
    pub memory: Memory,
    pub align: Align,
    /// Event ids per pair of pipes, for set_flag / wait_flag.
    pub events: u32,
    pub vector: Vector,
    #[serde(default)]
    pub cube: Option<Cube>,
    pub dma: Dma,
    pub scalar: Scalar,
}

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
    pub ub: u64,
    pub l1: u64,
    pub l0a: u64,
    pub l0b: u64,
    pub l0c: u64,
}

/// Required alignment in bytes of the length and start of every copy into each memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Align {
    pub ub: u64,
    pub l1: u64,
    pub l0a: u64,
    pub l0b: u64,
    pub l0c: u64,
}

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
    /// reduction whose accumulator (f32 for floats, i32 for integers) is in neither
    /// list cannot run on the target.
    #[serde(default)]
    pub accumulators: Vec<Dtype>,
    /// Fixed cost of issuing one vector instruction.
    pub issue_cycles: u64,
    /// Cycles per repeat, by operation.
    pub cycles: BTreeMap<VectorOp, u64>,
}

/// The vector operations that have a cost of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VectorOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Tanh,
    Recip,
    Relu,
    Sigmoid,
    Cmp,
    Select,
    Cast,
    Dup,
    Reduce,
}

impl VectorOp {
    pub const ALL: [VectorOp; 21] = [
        VectorOp::Add,
        VectorOp::Sub,
        VectorOp::Mul,
        VectorOp::Div,
        VectorOp::Min,
        VectorOp::Max,
        VectorOp::Neg,
        VectorOp::Abs,
        VectorOp::Exp,
        VectorOp::Log,
        VectorOp::Sqrt,
        VectorOp::Rsqrt,
        VectorOp::Tanh,
        VectorOp::Recip,
        VectorOp::Relu,
        VectorOp::Sigmoid,
        VectorOp::Cmp,
        VectorOp::Select,
        VectorOp::Cast,
        VectorOp::Dup,
        VectorOp::Reduce,
    ];

    pub fn name(self) -> &'static str {
        match self {
            VectorOp::Add => "add",
            VectorOp::Sub => "sub",
            VectorOp::Mul => "mul",
            VectorOp::Div => "div",
            VectorOp::Min => "min",
            VectorOp::Max => "max",
            VectorOp::Neg => "neg",
            VectorOp::Abs => "abs",
            VectorOp::Exp => "exp",
            VectorOp::Log => "log",
            VectorOp::Sqrt => "sqrt",
            VectorOp::Rsqrt => "rsqrt",
            VectorOp::Tanh => "tanh",
            VectorOp::Recip => "recip",
            VectorOp::Relu => "relu",
            VectorOp::Sigmoid => "sigmoid",
            VectorOp::Cmp => "cmp",
            VectorOp::Select => "select",
            VectorOp::Cast => "cast",
            VectorOp::Dup => "dup",
            VectorOp::Reduce => "reduce",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cube {
    /// The fractal: one cube instruction multiplies an m x k by a k x n block.
    pub m: u64,
    pub n: u64,
    pub k: u64,
    /// Input dtypes the cube multiplies; it accumulates in f32 (i32 for integers).
    pub dtypes: Vec<Dtype>,
    /// Cycles per fractal multiply-accumulate.
    pub cycles_per_fractal: u64,
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
}

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
    Ub,
    L1,
    L0a,
    L0b,
    L0c,
}

impl Level {
    pub const ALL: [Level; 5] = [Level::Ub, Level::L1, Level::L0a, Level::L0b, Level::L0c];
    pub const NAMES: [&'static str; 5] = ["ub", "l1", "l0a", "l0b", "l0c"];

    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }

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

    fn validate(&self) -> Result<(), TargetError> {
        let fail = |what: &str| Err(TargetError(format!("target `{}`: {what}", self.name)));
        if self.clock_mhz == 0 {
            return fail("clock_mhz must be positive");
        }
        if self.cores.vector == 0 && self.cores.cube == 0 {
            return fail("needs at least one core");
        }
        if self.vector.repeat_bytes == 0 || self.vector.max_repeat == 0 {
            return fail("vector.repeat_bytes and vector.max_repeat must be positive");
        }
        for op in VectorOp::ALL {
            if !self.vector.cycles.contains_key(&op) {
                return fail(&format!("vector.cycles has no cost for `{}`", op.name()));
            }
        }
        let aligns = [
            ("align.ub", self.align.ub),
            ("align.l1", self.align.l1),
            ("align.l0a", self.align.l0a),
            ("align.l0b", self.align.l0b),
            ("align.l0c", self.align.l0c),
        ];
        if let Some((field, _)) = aligns.iter().find(|(_, value)| *value == 0) {
            return fail(&format!("{field} must be at least 1 byte"));
        }
        let bandwidths = [
            ("dma.gm_bytes_per_cycle", self.dma.gm_bytes_per_cycle),
            ("dma.core_bytes_per_cycle", self.dma.core_bytes_per_cycle),
            ("dma.mte1_bytes_per_cycle", self.dma.mte1_bytes_per_cycle),
            ("dma.fix_bytes_per_cycle", self.dma.fix_bytes_per_cycle),
        ];
        if let Some((field, value)) = bandwidths
            .iter()
            .find(|(_, b)| !(b.is_finite() && *b > 0.0))
        {
            return fail(&format!("{field} must be a positive number, not {value}"));
        }
        if !(self.dma.pad_penalty.is_finite() && self.dma.pad_penalty >= 1.0) {
            return fail("dma.pad_penalty must be at least 1.0");
        }
        if let Some(cube) = &self.cube
            && (cube.m == 0 || cube.n == 0 || cube.k == 0 || cube.cycles_per_fractal == 0)
        {
            return fail("cube fractal sizes and cycles must be positive");
        }
        Ok(())
    }

    pub fn capacity(&self, level: Level) -> u64 {
        match level {
            Level::Ub => self.memory.ub,
            Level::L1 => self.memory.l1,
            Level::L0a => self.memory.l0a,
            Level::L0b => self.memory.l0b,
            Level::L0c => self.memory.l0c,
        }
    }

    pub fn alignment(&self, level: Level) -> u64 {
        match level {
            Level::Ub => self.align.ub,
            Level::L1 => self.align.l1,
            Level::L0a => self.align.l0a,
            Level::L0b => self.align.l0b,
            Level::L0c => self.align.l0c,
        }
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
