//! A legal schedule with every default filled in: its cores, tiles, stages, tail,
//! loop order and the on-chip buffers lowering places.

use serde::{Deserialize, Serialize};

use crate::target::Level;

/// A legal schedule with every default filled in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckedSchedule {
    /// The schedule's name as written; unique within the kernel.
    pub name: String,
    /// The block's canonical text (see [`crate::print::schedule`]).
    pub source: String,
    /// Multi-core split: axis index and core count, in source order.
    pub parallel: Vec<(usize, u64)>,
    /// Tile extent per axis (the axis extent where it is not split).
    pub tiles: Vec<u64>,
    /// The cube's base block (m, n, k) for matmul kernels.
    pub cube: Option<[u64; 3]>,
    /// One entry per tensor of each `stage` item, in source order.
    pub stages: Vec<Stage>,
    /// The `tail` item's policy; [`Tail::None`] when the schedule has none.
    pub tail: Tail,
    /// The order of the tile loops over output axes, outermost first. Reduction axes
    /// always run innermost, in the order they appear.
    pub order: Vec<usize>,
    /// Every on-chip buffer the schedule needs; lowering places exactly these.
    pub buffers: Vec<Buffer>,
}

impl CheckedSchedule {
    /// Cores the schedule runs on: the product of its `parallel` items.
    pub fn cores(&self) -> u64 {
        self.parallel.iter().map(|(_, cores)| cores).product()
    }

    /// Bytes of all buffers at `level`, every slot counted.
    pub fn used(&self, level: Level) -> u64 {
        self.buffers
            .iter()
            .filter(|b| b.level == level)
            .map(Buffer::total_bytes)
            .sum()
    }

    /// Where `tensor` is staged at `level`, if it is.
    pub fn stage(&self, tensor: usize, level: Level) -> Option<&Stage> {
        self.stages
            .iter()
            .find(|s| s.tensor == tensor && s.level == level)
    }
}

/// `stage t in level depth d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    /// The tensor staged, an index into [`CheckedKernel::tensors`](super::CheckedKernel::tensors); never a scalar
    /// parameter or a `let` intermediate.
    pub tensor: usize,
    /// The on-chip memory level its tiles are copied to.
    pub level: Level,
    /// Buffer slots, 1 to 4; 2 double-buffers, overlapping copies with compute.
    pub depth: u64,
}

/// How a tile that runs past the end of its axis is copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tail {
    /// No tile leaves a tail.
    None,
    /// The tail's copies are padded to the alignment (DataCopyPad); always legal.
    Pad,
    /// The tail is copied at its exact length; legal when that length is aligned.
    Exact,
}

/// One on-chip buffer of the schedule's plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buffer {
    /// The staged tensor's name, or `tmp0`, `acc0`, ... for temporaries.
    pub name: String,
    /// The memory level it is placed in.
    pub level: Level,
    /// Whether it holds a staged tensor's tile, a temporary or an accumulator.
    pub kind: BufferKind,
    /// Bytes of one slot, rounded up to the level's alignment.
    pub bytes: u64,
    /// Slots: the staging depth (1 for temporaries).
    pub depth: u64,
}

impl Buffer {
    /// Bytes of every slot together: `bytes × depth`.
    pub fn total_bytes(&self) -> u64 {
        self.bytes * self.depth
    }
}

/// What an on-chip buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    /// A tile of a staged tensor; the index is into the kernel's tensors.
    Tensor(usize),
    /// An intermediate value of the algorithm's expression.
    Temp,
    /// A reduction's accumulator.
    Accumulator,
}
