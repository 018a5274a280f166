//! What the engine keeps while it runs one core, and what the run measured. The engine
//! and its timing and collapse all work on these, so they sit below all three.

use std::collections::VecDeque;

use npu_core::program::{CoreCode, Instr, Pipe, StreamView};
use npu_core::target::VectorOp;

use crate::costs::Costs;

/// What one run of a core measured.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoreRun {
    pub total: f64,
    pub busy: [f64; Pipe::COUNT],
    pub stall: [f64; Pipe::COUNT],
    /// Stall of each pipe by the pipe whose flag it waited for.
    pub stall_by: [[f64; Pipe::COUNT]; Pipe::COUNT],
    pub instructions: [u64; Pipe::COUNT],
    pub gm_read: u64,
    pub gm_written: u64,
    pub into: [u64; 5],
    pub out_of: [u64; 5],
    pub copies_in: u64,
    pub copy_in_cycles: f64,
    pub copy_in_bytes: u64,
    pub vector_by_op: ByOp,
    /// Cycles in which MTE2 and the compute pipe (V or M) were both busy.
    pub overlap: f64,
    pub executed: u64,
    /// Of `executed`, the instructions the collapse advanced over.
    pub collapsed: u64,
}

/// Vector cycles per operation, indexed by `VectorOp as usize`. A newtype because
/// arrays longer than 32 have no `Default`.
#[derive(Clone, Debug)]
pub(crate) struct ByOp(pub [f64; VectorOp::ALL.len()]);

impl Default for ByOp {
    fn default() -> ByOp {
        ByOp([0.0; VectorOp::ALL.len()])
    }
}

impl std::ops::Deref for ByOp {
    type Target = [f64; VectorOp::ALL.len()];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for ByOp {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// One flag: how often it was set and waited for, and the set times not consumed yet.
#[derive(Clone, Debug, Default)]
pub(super) struct FlagQueue {
    pub(super) sets: usize,
    pub(super) waits: usize,
    pub(super) pending: VecDeque<f64>,
}

/// Why a pipe cannot start its next instruction yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Blocked {
    No,
    /// Waiting for a set of this (dense) flag.
    Flag(usize),
    /// Waiting for S to issue the instruction's loop iteration.
    Issue,
    /// At a barrier some pipe has not reached.
    Barrier,
}

/// The state of one core's run: where each pipe is, what it waits for, what it
/// measured so far. Its fields are the engine's and its children's to read and write.
pub(super) struct Engine<'a> {
    pub(super) code: &'a CoreCode,
    /// Each pipe's full stream, runs of a compact class written out on the fly.
    pub(super) streams: [StreamView<'a>; Pipe::COUNT],
    pub(super) costs: &'a Costs,
    /// Pipes with instructions.
    pub(super) active: Vec<usize>,
    pub(super) pc: [usize; Pipe::COUNT],
    /// Each pipe's instruction at `pc` (`None` when it is done) and the tile of the
    /// one before it, kept by [`Engine::moved`].
    pub(super) next: [Option<Instr>; Pipe::COUNT],
    pub(super) previous_tile: [Option<u32>; Pipe::COUNT],
    pub(super) time: [f64; Pipe::COUNT],
    pub(super) busy: [f64; Pipe::COUNT],
    pub(super) stall: [f64; Pipe::COUNT],
    pub(super) stall_by: [[f64; Pipe::COUNT]; Pipe::COUNT],
    pub(super) count: [u64; Pipe::COUNT],
    /// Each pipe's next start time, valid unless `dirty`; recomputed only when
    /// something it depends on changed.
    pub(super) candidate: [f64; Pipe::COUNT],
    pub(super) blocked: [Blocked; Pipe::COUNT],
    /// The flag a pipe's next start time was read from.
    pub(super) reads: [Option<usize>; Pipe::COUNT],
    pub(super) dirty: [bool; Pipe::COUNT],
    /// Dense flag ids by `(from, to, event)`, and each flag's queue of set times.
    pub(super) flag_ids: Vec<u32>,
    pub(super) events: usize,
    pub(super) flags: Vec<FlagQueue>,
    /// When each scalar loop iteration was issued.
    pub(super) issued: Vec<f64>,
    pub(super) loops: usize,
    /// Set when S runs nothing but its loops and the closing barrier, and the engine
    /// took them as done at the start ([`Engine::issue_by_formula`]): loop `t` is then
    /// issued at `(t + 1) × loop_cycles`, and `issued` stays empty.
    pub(super) by_formula: bool,
    /// Instructions that started at their issue time, S issuing by formula.
    pub(super) issue_bound: u64,
    /// The compute pipe (M for a cube program, V otherwise), the latest busy interval
    /// of MTE2 and of the compute pipe, and how long both were busy at once so far.
    pub(super) compute: usize,
    pub(super) last_busy: [(f64, f64); 2],
    pub(super) overlap: f64,
    /// Barriers each pipe has passed, and the release time of each barrier.
    pub(super) barriers: [usize; Pipe::COUNT],
    pub(super) releases: Vec<f64>,
    /// When the core's global-memory port is next free.
    pub(super) port: f64,
    /// When the last transfer each pipe issued lands.
    pub(super) landed: [f64; Pipe::COUNT],
}
