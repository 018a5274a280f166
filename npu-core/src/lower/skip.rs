//! Which tiles of a class the compact form holds: the skip over runs of alike
//! iterations, which the vector and cube lowerings and the estimates share.

use super::AxisRange;

/// Which tiles of a class the compact form holds: along axis `order[level]`, in each
/// pass over it, iterations `first..first + 2 × copy` are held as the two copies of a
/// [`crate::program::Repeat`] of `count` copies, and the `(count - 2) × copy`
/// iterations after them are left out.
#[derive(Clone, Copy, Debug)]
pub(super) struct Skip {
    pub level: usize,
    pub first: u64,
    pub copy: u64,
    pub count: u64,
}

/// The skip that leaves the fewest iterations to lower, if any leaves out some. A run
/// starts after one copy's worth of iterations (every queue has filled each slot by
/// then) and ends before the axis's last whole tile, so the iteration after it is
/// the next tile of the same pass, as it is after every copy; a copy is as many
/// iterations as every queue's depth divides, so each copy starts at the same slots.
/// Also returns how many output tiles it leaves to lower.
pub(super) fn choose_skip(ranges: &[AxisRange], order: &[usize], copy: u64) -> Option<(u64, Skip)> {
    let tiles: u64 = order.iter().map(|a| ranges[*a].count).product();
    let mut best: Option<(u64, Skip)> = None;
    for (level, &axis) in order.iter().enumerate() {
        let range = ranges[axis];
        let kept_after = if range.last_extent == range.tile {
            1
        } else {
            2
        };
        let Some(room) = range.count.checked_sub(copy + kept_after) else {
            continue;
        };
        let count = room / copy;
        if count < 3 {
            continue;
        }
        let skipped = (count - 2) * copy;
        let kept = tiles / range.count * (range.count - skipped);
        if best.is_none_or(|(fewest, _)| kept < fewest) {
            let skip = Skip {
                level,
                first: copy,
                copy,
                count,
            };
            best = Some((kept, skip));
        }
    }
    best
}

/// The least common multiple of `a` and `b`: a copy of a run is as many iterations as
/// every queue's depth divides.
pub(super) fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}
