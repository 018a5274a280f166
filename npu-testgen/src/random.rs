//! The seeded random source of the workspace's tests: `fastrand`, with the few helpers
//! the template generators use.

/// A seeded generator (`fastrand::Rng`) with percent chances and picks.
#[derive(Clone, Debug)]
pub struct Random(pub fastrand::Rng);

impl Random {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Random {
        Random(fastrand::Rng::with_seed(seed))
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.u64(0..n.max(1))
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items`, uniformly.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.0.usize(0..items.len())]
    }
}
