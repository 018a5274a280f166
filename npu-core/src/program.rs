//! The lowered program: per-core instruction streams for the pipes of an Ascend-style
//! AI core, every buffer at a concrete address, synchronisation written out.
//!
//! A core has seven in-order pipes that run concurrently: S (scalar: loop control),
//! MTE2 (global memory to UB or L1), MTE1 (L1 to L0A/L0B), V (vector), M (cube), FIX
//! (L0C to global memory) and MTE3 (UB to global memory). Order between pipes comes
//! only from `set_flag`/`wait_flag` pairs and barriers, as on the real core. Every
//! instruction also carries the scalar loop iteration (`tile`) that issued it and does
//! not start before S has issued that iteration.
//!
//! # Instruction set
//!
//! Costs are in cycles, every constant from the [`Target`](crate::Target). `rate` is
//! the global-memory bandwidth one core gets: `min(dma.core_bytes_per_cycle,
//! chip rate / cores with work)`, where the chip rate is `dma.gm_bytes_per_cycle`,
//! raised by the L2 (`dma.l2_bytes`, `dma.l2_bytes_per_cycle`) when the kernel's inputs
//! fit in it and the program reads bytes more than once: global memory then carries
//! only the first read of each input byte and the writes, the L2 everything (the
//! formula is in npu-sim's `costs` module). A global-memory transfer (`copy_in`,
//! `copy_out`, `fixpipe`) holds its pipe and the core's one port for its transfer
//! time, first come first served, and its data lands `dma.latency_cycles` later: one
//! copy alone takes `latency + bytes / rate`, while back-to-back copies on a pipe
//! overlap their latencies, as a DMA engine with requests in flight does. A
//! `set_flag` is posted: it goes up once the pipe's earlier transfers have landed,
//! without holding the pipe.
//!
//! | instruction | pipe | operands | cost (time it holds the pipe) |
//! |---|---|---|---|
//! | `loop` | S | — | `scalar.loop_cycles` |
//! | `set_flag` | the `from` pipe | from, to, event id | 0; the flag goes up when the pipe's transfers have landed |
//! | `wait_flag` | the `to` pipe | from, to, event id | 0, after stalling until a matching `set_flag` (counting: each set satisfies one wait) |
//! | `barrier` | every pipe | — | 0, after waiting until every pipe of the core is at its barrier or done |
//! | `copy_in` | MTE2 | tensor + element offset, UB or L1 address, copy shape, padded | `moved / rate × (pad_penalty if padded) + (bursts − 1) × burst_cycles`, landing `latency_cycles` later |
//! | `copy_out` | MTE3 | UB address, tensor + element offset, copy shape, padded | as `copy_in` |
//! | `v<op>` | V | op, dtype, box, destination and up to three sources (UB views, constants `#2`, scalar parameters `$offset`) | `vector.issue_cycles + ceil(elements × width / repeat_bytes) × vector.cycles[op]` |
//! | `vgather` | V | dtype, box, destination, the table's view (row 0), the index tile's view, a [`Gather`] | `vector.issue_cycles + elements × vector.cycles[gather]` |
//! | `vscan.sum`, `vscan.prod` | V | as `v<op>`, along box dimension `d`, where the running value (second source) has stride 0 | one step per position along `d`, each over the other elements (the running values step in index order): `n × (issue + ceil(elements / n × width / repeat_bytes) × c)`, `n` the box's extent along `d`, `c = vector.cycles[cumsum or cumprod]` |
//! | `load_l0a`, `load_l0b` | MTE1 | L1 address and row stride, L0 address, rows × columns | `fractal-padded bytes / dma.mte1_bytes_per_cycle` |
//! | `mmad` | M | L0A, L0B, L0C addresses, m × n × k, init | `cube.issue_cycles + ceil(m / cube.m) × ceil(n / cube.n) × ceil(k / cube.k) × cube.cycles_per_fractal` |
//! | `fixpipe` | FIX | L0C address, tensor + element offset, rows × columns | `bytes / min(dma.fix_bytes_per_cycle, gm share) + (rows − 1) × burst_cycles`, landing `latency_cycles` later |
//!
//! Vector operations are `vdup` (fill with a scalar), `vcopy` (move, a broadcast when a
//! source stride is 0), unary and binary arithmetic, `vcmp` (writes a one-byte mask),
//! `vsel`, `vconv` (cast; `vconv.sat` saturates) and `vreduce` (folds the source into a
//! destination whose stride along each reduced dimension is 0, in the accumulator
//! dtype it names, in index order), `vgather` (below). `vreduce.argmax` and `vreduce.argmin` fold value
//! and index together: the destination holds the index so far, the second source the
//! value it points at (both stride 0 along the reduced last dimension of the box), the
//! third the position of the box's first element along that dimension; an element
//! takes over when it is strictly greater (less) or a NaN while the value so far is
//! not, so ties keep the first. `vscan` runs along one box dimension in index order:
//! the second source is the running value (stride 0 along that dimension), read at
//! the start and left holding the last step, so the next tile of the axis carries on;
//! each element gets the running value rounded to the instruction's dtype. Each works over a box: the extents of
//! the current tile, so a tail tile is a smaller box in the same buffers. `width` is
//! the widest element the instruction touches (the accumulator's for `vreduce`), the
//! same rule the checker uses for the repeat limit.
//!
//! `vgather` is Ascend's Gather (`vgather`) over a table staged whole in UB, the
//! gathered dimension not split: for each element of the box it reads the index at
//! the second source, checks it against the gathered extent, and reads the first
//! source's view moved by `index × row_bytes`. An index outside `0..extent` stops the
//! program with an error that names the index tensor, its element and the value;
//! nothing is read. Each element is an address of its own (the unit serves one per
//! cycle, not a 256-byte repeat), so its cost is per element: `vector.cycles.gather`
//! is cycles per element, and a target without it has no gather (E026).
//!
//! Cores that get the same number of tiles and the same tail run the same code with a
//! different global-memory origin, so a [`Program`] stores each distinct
//! [`CoreCode`] once and gives every core its class and its tensors' base offsets.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;
use crate::ir::{BufferKind, Tensor};
use crate::target::Level;

mod listing;
mod repeat;
mod structure;
mod vector;
mod work;

pub(crate) use repeat::moved_on;
pub use repeat::{Cursor, Segment, StreamView};
pub use structure::ProgramError;
pub use vector::{Operand, VectorInstr, VectorKind};

/// A pipe of the AI core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Pipe {
    /// Scalar: loop control, issuing each tile's iteration (`loop`).
    S,
    /// Global memory to UB or L1 (`copy_in`).
    Mte2,
    /// L1 to L0A or L0B (`load_l0a`, `load_l0b`).
    Mte1,
    /// The vector unit, on UB (`v<op>`, `vgather`, `vscan`).
    V,
    /// The cube: `mmad` from L0A and L0B into L0C.
    M,
    /// L0C to global memory, cast to the output's dtype (`fixpipe`).
    Fix,
    /// UB to global memory (`copy_out`).
    Mte3,
}

impl Pipe {
    /// How many pipes a core has.
    pub const COUNT: usize = 7;

    /// Every pipe, in the order of [`CoreCode::streams`].
    pub const ALL: [Pipe; Pipe::COUNT] = [
        Pipe::S,
        Pipe::Mte2,
        Pipe::Mte1,
        Pipe::V,
        Pipe::M,
        Pipe::Fix,
        Pipe::Mte3,
    ];

    /// The name listings and messages use, e.g. `MTE2`.
    pub fn name(self) -> &'static str {
        match self {
            Pipe::S => "S",
            Pipe::Mte2 => "MTE2",
            Pipe::Mte1 => "MTE1",
            Pipe::V => "V",
            Pipe::M => "M",
            Pipe::Fix => "FIX",
            Pipe::Mte3 => "MTE3",
        }
    }

    /// The position in [`Pipe::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A whole lowered schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Program {
    /// The kernel's name.
    pub kernel: String,
    /// The name of the schedule this program lowers.
    pub schedule: String,
    /// The [`Target::name`](crate::Target::name) it was lowered for; npu-emit refuses
    /// another target.
    pub target: String,
    /// Tensor names, in kernel order (inputs, then outputs).
    pub tensors: Vec<String>,
    /// What a backend needs of each tensor, in the order of [`Program::tensors`]: its
    /// name, dtype, shape and role (a scalar parameter is a rank-0 input). Checked
    /// against the instructions by the validator's signature rule.
    #[serde(default)]
    pub signature: Vec<Tensor>,
    /// Cores the schedule asks for (the product of its `parallel` items).
    pub requested_cores: u64,
    /// Every buffer of the schedule's plan, in plan order.
    pub buffers: Vec<Placement>,
    /// The cube base block (m, n, k) of a matmul: the layout of the L0 buffers.
    pub cube: Option<[u64; 3]>,
    /// Scalar operands of vector instructions.
    pub constants: Vec<f64>,
    /// Extents of vector boxes, outermost first.
    pub boxes: Vec<Vec<u64>>,
    /// Byte strides of vector operands, one per box dimension.
    pub strides: Vec<Vec<u64>>,
    /// Shapes of global-memory copies.
    pub copies: Vec<CopyShape>,
    /// What each `vgather` gathers from, by [`VectorKind::Gather`]'s index.
    #[serde(default)]
    pub gathers: Vec<Gather>,
    /// Whether the kernel has a `select`, so its UB buffers stay below the target's
    /// [`api_scratch`](crate::target::Memory::api_scratch) (the validator's `Placement`
    /// rule, and the room a backend's own scratch may take).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub selects: bool,
    /// The distinct per-core codes.
    pub classes: Vec<CoreCode>,
    /// The cores that get work, in core order; cores without tiles are left out.
    pub cores: Vec<CoreAssignment>,
}

/// Where one buffer of the plan lives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The plan's name for the buffer, as listings and the validator's messages give it.
    pub name: String,
    /// The memory it lives in.
    pub level: Level,
    /// What it holds: a staged tensor's tiles, an intermediate, or an accumulator.
    pub kind: BufferKind,
    /// Byte address of slot 0; slot `s` starts at `address + s * slot_bytes`.
    pub address: u64,
    /// Bytes of one slot: one tile.
    pub slot_bytes: u64,
    /// Slots: the depth of the queue (2 for double buffering).
    pub depth: u64,
}

impl Placement {
    /// Byte address of slot `slot`.
    pub fn slot(&self, slot: u64) -> u64 {
        self.address + slot * self.slot_bytes
    }

    /// One past the last byte of the last slot.
    pub fn end(&self) -> u64 {
        self.address + self.slot_bytes * self.depth
    }
}

/// The instruction streams one class of cores runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoreCode {
    /// One stream per pipe, indexed by [`Pipe::index`].
    pub streams: [Vec<Instr>; Pipe::COUNT],
    /// Scalar loop iterations (`loop` instructions on S).
    pub tiles: u32,
    /// What this class covers, for listings: e.g. `8 tiles of i, the last a tail of 96`.
    pub summary: String,
    /// Runs of alike tiles held as two copies and a count (the `repeat` module); empty
    /// in a program written out in full.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<Repeat>,
}

/// A run of `count` alike copies of `tiles` loop iterations, the first two held in
/// the streams at `start[pipe]..start[pipe] + 2 × len[pipe]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repeat {
    /// Per pipe, where copy 0 starts in the stream as held (the earlier runs held
    /// compactly too).
    pub start: [usize; Pipe::COUNT],
    /// Per pipe, the instructions of one copy.
    pub len: [usize; Pipe::COUNT],
    /// Loop iterations per copy.
    pub tiles: u32,
    /// Copies in all, the two held ones included (at least 2).
    pub count: u64,
}

impl CoreCode {
    /// The held instructions of `pipe`'s stream: a compact code's runs are not written
    /// out ([`StreamView`] reads the full stream).
    pub fn stream(&self, pipe: Pipe) -> &[Instr] {
        &self.streams[pipe.index()]
    }

    /// Appends `op` to `pipe`'s stream, issued in loop iteration `tile`.
    pub fn push(&mut self, pipe: Pipe, tile: u32, op: Op) {
        self.streams[pipe.index()].push(Instr { tile, op });
    }

    /// The producer `from` signals `to` on `event`: a `SetFlag` on `from`'s stream.
    pub fn set_flag(&mut self, tile: u32, from: Pipe, to: Pipe, event: u16) {
        self.push(from, tile, Op::SetFlag { from, to, event });
    }

    /// The consumer `to` waits for `from`'s signal on `event`: a `WaitFlag` on `to`'s stream.
    pub fn wait_flag(&mut self, tile: u32, from: Pipe, to: Pipe, event: u16) {
        self.push(to, tile, Op::WaitFlag { from, to, event });
    }

    /// One more than the highest event id a flag of this code uses (at least 1): the
    /// extent of a table indexed by event id.
    pub fn event_ids(&self) -> usize {
        self.streams
            .iter()
            .flatten()
            .filter_map(|instr| match instr.op {
                Op::SetFlag { event, .. } | Op::WaitFlag { event, .. } => {
                    Some(usize::from(event) + 1)
                }
                _ => None,
            })
            .fold(1, usize::max)
    }

    /// Instructions, every copy of a run counted.
    pub fn instruction_count(&self) -> u64 {
        (0..Pipe::COUNT)
            .map(|pipe| self.stream_len(pipe) as u64)
            .sum()
    }
}

/// One core with work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreAssignment {
    /// The core's id, below [`Program::requested_cores`].
    pub core: u32,
    /// Index into [`Program::classes`].
    pub class: u32,
    /// Element offset of the core's origin in each tensor (kernel tensor order); copy
    /// instructions hold offsets relative to it.
    pub gm_base: Vec<u64>,
}

/// The shape of a copy between global memory and a buffer: nested runs, outermost
/// first. Element `(i0, i1, ..)` moves between `gm + Σ i·gm_stride` (elements) and
/// `address + Σ i·buf_stride` (bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyShape {
    /// One per tensor dimension, outermost first.
    pub dims: Vec<CopyDim>,
    /// Bytes per element of the tensor.
    pub element_bytes: u64,
    /// Valid bytes.
    pub bytes: u64,
    /// Bytes the DMA moves: each burst rounded up to the alignment when padded.
    pub moved: u64,
    /// Contiguous runs in global memory.
    pub bursts: u64,
}

/// The table and index of a `vgather`: element `e` of the box reads the index `v` at
/// the index view and then the table view moved by `v × row_bytes`, after checking
/// `0 <= v < extent`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gather {
    /// The gathered tensor and the integer index tensor, by index into
    /// [`Program::tensors`] (for error messages).
    pub table: u16,
    /// The index tensor, by index into [`Program::tensors`].
    pub index: u16,
    /// The index tensor's integer dtype, as its tile holds it in UB.
    pub index_dtype: Dtype,
    /// The gathered dimension of the table and its length.
    pub dim: u64,
    /// The table's length along `dim`: every index must lie in `0..extent`.
    pub extent: u64,
    /// Bytes between consecutive rows in the table's buffer.
    pub row_bytes: u64,
    /// The index tensor's shape, to name the element an error is about.
    pub index_shape: Vec<u64>,
}

/// One dimension of a [`CopyShape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyDim {
    /// Elements along it.
    pub len: u64,
    /// Elements between neighbours along it in global memory.
    pub gm_stride: u64,
    /// Bytes between neighbours along it in the buffer.
    pub buf_stride: u64,
}

impl CopyShape {
    /// Elements the copy moves: the product of the dimensions' lengths, no padding.
    pub fn elements(&self) -> u64 {
        self.dims.iter().map(|d| d.len).product()
    }
}

/// An instruction and the scalar iteration that issued it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Instr {
    /// The scalar loop iteration that issued it; it does not start before S has issued
    /// that iteration.
    pub tile: u32,
    /// The operation and its operands.
    pub op: Op,
}

/// An operation and its operands, by pipe (see the module's instruction set);
/// [`Op::pipe`] gives the pipe.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Op {
    /// S: issue one loop iteration.
    Loop,
    /// Posted on `from`: raises flag (`from`, `to`, `event`) once the pipe's earlier
    /// transfers have landed.
    SetFlag {
        /// The producer, whose stream holds the set.
        from: Pipe,
        /// The consumer, whose stream holds the matching wait.
        to: Pipe,
        /// Event id, below the target's `events`.
        event: u16,
    },
    /// On `to`: stalls until a matching `SetFlag`; each set satisfies one wait.
    WaitFlag {
        /// The producer, whose stream holds the matching set.
        from: Pipe,
        /// The consumer, whose stream holds the wait.
        to: Pipe,
        /// Event id, below the target's `events`.
        event: u16,
    },
    /// Every pipe: waits until each pipe of the core is at its barrier or done. Lowering
    /// ends each stream a core uses with one.
    Barrier,
    /// MTE2: global memory to UB or L1.
    CopyIn {
        /// The source tensor, by index into [`Program::tensors`].
        tensor: u16,
        /// Element offset of the copy's origin, relative to the core's
        /// [`CoreAssignment::gm_base`].
        gm: u64,
        /// The destination: UB, or L1 for a matmul's tiles.
        level: Level,
        /// Byte address of the destination in `level`.
        address: u32,
        /// Index into [`Program::copies`].
        shape: u32,
        /// A padded copy (DataCopyPad): its bursts rounded up to the alignment, at
        /// `dma.pad_penalty`.
        padded: bool,
    },
    /// MTE3: UB to global memory.
    CopyOut {
        /// The destination tensor, by index into [`Program::tensors`].
        tensor: u16,
        /// Element offset of the copy's origin, relative to the core's
        /// [`CoreAssignment::gm_base`].
        gm: u64,
        /// Byte address of the source in UB.
        address: u32,
        /// Index into [`Program::copies`].
        shape: u32,
        /// A padded copy (DataCopyPad), as for `CopyIn`.
        padded: bool,
    },
    /// V: one vector instruction.
    Vector(VectorInstr),
    /// MTE1: a row-major block from an L1 tile into L0A or L0B.
    LoadL0 {
        /// The destination: L0A or L0B.
        level: Level,
        /// Byte address in L1 of the block's first row.
        source: u32,
        /// Bytes between rows in L1.
        source_row_bytes: u32,
        /// Byte address in the L0 buffer.
        dest: u32,
        /// Bytes between rows in L0: a base block's row, `k` elements for L0A and `n` for
        /// L0B.
        dest_row_bytes: u32,
        /// Rows moved.
        rows: u32,
        /// Elements per row moved.
        cols: u32,
        /// The elements' dtype: the matmul's input dtype.
        dtype: Dtype,
    },
    /// M: `c[m × n] (+)= a[m × k] · b[k × n]` on row-major base blocks of
    /// [`Program::cube`]; `init` starts from zero. Accumulates in f32 (i32 for integers).
    Mmad {
        /// Byte address in L0A of the `m × k` block.
        a: u32,
        /// Byte address in L0B of the `k × n` block.
        b: u32,
        /// Byte address in L0C of the `m × n` accumulator block.
        c: u32,
        /// Rows of `a` and `c`.
        m: u32,
        /// Columns of `b` and `c`.
        n: u32,
        /// Columns of `a` and rows of `b`: the depth summed over.
        k: u32,
        /// Whether `c` starts from zero instead of accumulating onto what it holds.
        init: bool,
        /// The input dtype of `a` and `b`; `c` holds its accumulator.
        dtype: Dtype,
    },
    /// FIX: an L0C block to global memory, cast to the tensor's dtype.
    Fixpipe {
        /// Byte address in L0C of the block's first accumulator.
        source: u32,
        /// Bytes between rows in L0C.
        source_row_bytes: u32,
        /// The output tensor, by index into [`Program::tensors`].
        tensor: u16,
        /// Element offset of the block's first element, relative to the core's
        /// [`CoreAssignment::gm_base`].
        gm: u64,
        /// Elements between rows in the tensor.
        gm_row_stride: u64,
        /// Rows moved.
        rows: u32,
        /// Elements per row moved.
        cols: u32,
        /// The dtype each accumulator is rounded to: the output's.
        dtype: Dtype,
    },
}

impl Op {
    /// The pipe an instruction runs on; `None` for flags and barriers, which run on
    /// whichever stream holds them.
    pub fn pipe(&self) -> Option<Pipe> {
        Some(match self {
            Op::Loop => Pipe::S,
            Op::CopyIn { .. } => Pipe::Mte2,
            Op::CopyOut { .. } => Pipe::Mte3,
            Op::Vector(_) => Pipe::V,
            Op::LoadL0 { .. } => Pipe::Mte1,
            Op::Mmad { .. } => Pipe::M,
            Op::Fixpipe { .. } => Pipe::Fix,
            Op::SetFlag { .. } | Op::WaitFlag { .. } | Op::Barrier => return None,
        })
    }
}

impl Program {
    /// The box dimension a scan runs along: the first where its running value (the
    /// second source) has stride 0. `None` for other instructions, or a scan whose
    /// running value is not a view of the box.
    pub fn scan_dimension(&self, v: &VectorInstr) -> Option<usize> {
        let (Some(_), Operand::Ub { strides, .. }) = (v.kind.scan(), v.src[1]) else {
            return None;
        };
        self.strides
            .get(strides as usize)?
            .iter()
            .position(|s| *s == 0)
    }

    /// Instructions over every core.
    pub fn instruction_count(&self) -> u64 {
        self.cores
            .iter()
            .map(|c| self.classes[c.class as usize].instruction_count())
            .sum()
    }

    /// Instructions of one core of each class, every copy of a run counted: what a
    /// timing-only simulation runs (alike cores run alike).
    pub fn class_instruction_count(&self) -> u64 {
        self.classes.iter().map(CoreCode::instruction_count).sum()
    }

    /// Cores that get work.
    pub fn active_cores(&self) -> u64 {
        self.cores.len() as u64
    }

    /// The highest byte any buffer at `level` reaches.
    pub fn peak(&self, level: Level) -> u64 {
        self.buffers
            .iter()
            .filter(|b| b.level == level)
            .map(Placement::end)
            .max()
            .unwrap_or(0)
    }

    /// The code `core` runs: its class's.
    pub fn code(&self, core: &CoreAssignment) -> &CoreCode {
        &self.classes[core.class as usize]
    }

    /// Whether some class holds runs of tiles compactly ([`Repeat`]).
    pub fn is_compact(&self) -> bool {
        self.classes.iter().any(|c| !c.repeats.is_empty())
    }

    /// The same program with every run of tiles written out.
    pub fn into_expanded(mut self) -> Program {
        for code in &mut self.classes {
            if !code.repeats.is_empty() {
                *code = code.expanded();
            }
        }
        self
    }
}
