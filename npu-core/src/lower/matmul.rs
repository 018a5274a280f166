//! Matmul kernels on the cube: MTE2 copies tiles of `a` and `b` from global memory
//! into L1, MTE1 moves base blocks into L0A and L0B, M multiplies them into an L0C
//! block, accumulating across `k`, and FIX writes the finished block to global memory
//! in the output's dtype.
//!
//! L0C holds one base block per slot, so each block of an output tile runs the whole
//! `k` loop before the next block starts. Within an output tile the blocks walk `m`
//! and `n` in `schedule.order`.
//!
//! L1 residency: each L1 buffer keeps the last `depth` tiles it was given, and a step
//! whose tile is still there uses it again instead of copying it. So when `k` is not
//! split, the L1 tiles of an output tile stay put for all its blocks (and an `a` tile
//! stays across the `n` loop when `m` is outermost); when `k` is split into at most
//! `depth` tiles, `stage b in l1 depth 4;` keeps the whole `k` panel of `b` in L1
//! across the `m` loop (`order n, m;`), as Ascend's matmul library keeps a B panel
//! resident while it walks `m`. Otherwise the tiles are copied again for each block,
//! the cost of a small L1 the tuner weighs. A tile is freed for MTE2 after its last
//! use before a copy overwrites its slot (slots are refilled in turn).
//!
//! Compact form ([`super::lower_compact`]): along the order axis
//! [`vector::choose_skip`] picks, a run of alike output tiles is held as its first two
//! copies. The copies after them are still lowered, into a scratch stream, so every
//! queue's state is exactly the full lowering's, and each is checked to be copy 1
//! moved on (its tiles and global-memory offsets); one that is not sends the class
//!
//! `lower_class` works out the class's `Facts` (its sizes, steps, L1 residency and
//! compact runs), then `emit` writes each step pipe by pipe.

mod emit;
mod facts;
mod queues;
mod steps;

use super::Lowering;
use crate::ir::KernelClass;
use crate::program::CoreCode;
use emit::MatmulLowering;
use facts::Facts;
use queues::Queues;

/// Lowers one class into `code`; `false` when a compact lowering's runs turned out
/// not to repeat (the caller then lowers the class in full).
pub(super) fn lower_class(lowering: &mut Lowering, code: &mut CoreCode) -> bool {
    let KernelClass::Matmul(mm) = &lowering.kernel.class else {
        return true;
    };
    let queues = Queues::new(lowering, mm);
    let facts = Facts::new(lowering, mm, &queues);
    let coords = vec![0u64; lowering.kernel.axes.len()];
    let mut class = MatmulLowering {
        lowering,
        facts: &facts,
        queues,
        coords,
    };
    if !class.emit_steps(code) {
        return false;
    }
    class.close(code);
    true
}
