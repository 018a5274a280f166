//! The producer/consumer state of one staged buffer, in a vector or a matmul class:
//! its slots and the events that hand them between the pipes on either side.

use crate::program::{CoreCode, Pipe};

/// Producer/consumer state of one staged buffer.
#[derive(Clone, Copy, Default)]
pub(super) struct Queue {
    /// Placement index.
    pub(super) buffer: usize,
    pub(super) depth: u64,
    /// First event id of its slots.
    pub(super) event: u16,
    /// Fills so far; the current slot is `(count - 1) % depth`.
    pub(super) count: u64,
    /// Set when a fill has not been waited for by the consumer yet.
    pub(super) pending: bool,
    /// The slot the current step reads (a matmul's L1 queues, whose tiles stay
    /// resident across steps; see lower/matmul.rs).
    pub(super) current: u64,
}

impl Queue {
    /// The slot of the latest fill.
    pub(super) fn slot(&self) -> u64 {
        (self.count.max(1) - 1) % self.depth
    }

    /// The slot the next fill goes to.
    pub(super) fn next_slot(&self) -> u64 {
        self.count % self.depth
    }

    pub(super) fn event(&self, slot: u64) -> u16 {
        self.event + slot as u16
    }

    /// At the end of a tile, `from` waits for the consumer `to`'s frees of the last
    /// `min(count, depth)` fills, so no flag is left set.
    pub(super) fn drain(&self, code: &mut CoreCode, tile: u32, from: Pipe, to: Pipe) {
        let outstanding = self.count.min(self.depth);
        for fill in self.count - outstanding..self.count {
            code.wait_flag(tile, from, to, self.event(fill % self.depth));
        }
    }
}
