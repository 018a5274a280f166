//! The rows of a box: its outer dimensions (all but the last) visited as an odometer.

/// Where the row at `index` (the outer dimensions' positions) of an operand at
/// `address` with `strides` starts.
pub(super) fn row_base(address: usize, index: &[u64], strides: &[u64]) -> Result<usize, String> {
    index
        .iter()
        .zip(strides)
        .try_fold(address, |at, (i, s)| {
            at.checked_add(usize::try_from(i * s).ok()?)
        })
        .ok_or_else(|| "addresses past the end of ub".to_string())
}

/// Advances `index` over the outer dimensions of a box of `extents` (all but its
/// last) as an odometer, innermost fastest.
pub(super) fn next_row(index: &mut [u64], extents: &[u64]) {
    for dim in (0..extents.len() - 1).rev() {
        index[dim] += 1;
        if index[dim] < extents[dim] {
            break;
        }
        index[dim] = 0;
    }
}
