//! The producer/consumer state of one staged buffer of a vector class: its slots and
//! the events that hand them between the copy and compute pipes.

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
}
