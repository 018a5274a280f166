//! The copy of one tensor's tile between global memory and a buffer: its interned
//! shape, its offset, and for a padded view the window of the tile that lies inside
//! the tensor.

use super::Lowering;
use super::copy;
use super::tensors::Window;
use crate::plan;
use crate::target::Level;

impl Lowering<'_> {
    /// The copy of `tensor`'s tile at `coords` between global memory and a buffer of
    /// `level`: the interned shape, the element offset relative to the core's origin,
    /// and whether it is padded.
    pub(crate) fn copy(&mut self, tensor: usize, level: Level, coords: &[u64]) -> (u32, u64, bool) {
        let info = &self.tensors[tensor];
        if info.padded {
            let window = self.window(tensor, coords);
            return self.clipped_copy(tensor, level, &window);
        }
        let mut offset = 0;
        let mut mask = 0u64;
        for (subscript, stride) in info.subscripts.iter().zip(&info.gm_strides) {
            let mut first = subscript.offset();
            for (a, c) in subscript.terms() {
                first += (c * coords[a] * self.schedule.tiles[a]) as i64;
                if self.ranges[a].is_tail(coords[a]) {
                    mask |= 1 << a;
                }
            }
            // The checker proved every unpadded read in range, so no start is negative.
            offset += first.max(0) as u64 * stride;
        }
        let (index, padded) = match self
            .tables
            .copies
            .iter()
            .find(|(k, _)| *k == (tensor, mask))
        {
            Some((_, entry)) => *entry,
            None => {
                let extents: Vec<u64> = (0..self.ranges.len())
                    .map(|a| self.extent(a, coords))
                    .collect();
                let lens: Vec<u64> = info
                    .subscripts
                    .iter()
                    .map(|s| plan::subscript_extent(s, &extents))
                    .collect();
                let align = self.kernel.target.alignment(level);
                // Where a copy of this tensor can start: its tiles (and so every core's
                // origin) step by `tile × stride` along each axis it is split on.
                let size = info.dtype.size();
                let start_misaligned =
                    info.subscripts
                        .iter()
                        .zip(&info.gm_strides)
                        .any(|(subscript, stride)| {
                            let offset = subscript.offset().unsigned_abs() * stride * size;
                            let steps = subscript.terms().into_iter().filter_map(|(a, c)| {
                                let tile = self.schedule.tiles[a];
                                (self.kernel.axes[a].extent > tile)
                                    .then_some(c * tile * stride * size)
                            });
                            std::iter::once(offset)
                                .chain(steps)
                                .any(|step| !step.is_multiple_of(align))
                        });
                let (copy, padded) = copy::copy_shape(
                    &lens,
                    &info.shape,
                    &info.tile_strides,
                    info.dtype,
                    self.schedule.tail,
                    align,
                    start_misaligned,
                );
                self.program.copies.push(copy);
                let index = (self.program.copies.len() - 1) as u32;
                self.tables.copies.push(((tensor, mask), (index, padded)));
                (index, padded)
            }
        };
        (index, offset, padded)
    }

    /// The window of a padded view's tile at `coords` along each dimension: where it
    /// starts in the tensor (possibly before 0), its length, and the part inside
    /// the tensor.
    pub(crate) fn window(&self, tensor: usize, coords: &[u64]) -> Vec<Window> {
        let info = &self.tensors[tensor];
        let extents: Vec<u64> = (0..self.ranges.len())
            .map(|a| self.extent(a, coords))
            .collect();
        info.subscripts
            .iter()
            .zip(&info.shape)
            .map(|(subscript, extent)| {
                let mut start = subscript.offset();
                for (a, c) in subscript.terms() {
                    start += (c * (self.start[a] + coords[a]) * self.schedule.tiles[a]) as i64;
                }
                let len = plan::subscript_extent(subscript, &extents) as i64;
                let low = start.clamp(0, *extent as i64);
                let high = (start + len).clamp(low, *extent as i64);
                Window {
                    start,
                    len: len as u64,
                    low,
                    high,
                }
            })
            .collect()
    }

    /// The copy of the part of a padded view's window inside the tensor: its shape,
    /// its absolute element offset, and that it is padded (always DataCopyPad; a
    /// clipped copy's first element may land past the start of an alignment block on
    /// chip, which DataCopyPad's left padding allows). The caller adds
    /// [`Lowering::clipped_offset`] to the slot's address.
    fn clipped_copy(&mut self, tensor: usize, level: Level, window: &[Window]) -> (u32, u64, bool) {
        let info = &self.tensors[tensor];
        let lens: Vec<u64> = window.iter().map(|w| (w.high - w.low) as u64).collect();
        let offset: u64 = window
            .iter()
            .zip(&info.gm_strides)
            .map(|(w, stride)| w.low as u64 * stride)
            .sum();
        let align = self.kernel.target.alignment(level);
        let (mut copy, _) = copy::copy_shape(
            &lens,
            &info.shape,
            &info.tile_strides,
            info.dtype,
            self.schedule.tail,
            align,
            false,
        );
        // Every copy of a padded view is a DataCopyPad: the clipped ones need it, and
        // the rest then need no rule of their own, however the view's offset aligns.
        // Each burst is padded from the alignment block it starts in to the end of the
        // block it ends in.
        let lead = self.clipped_offset(tensor, window) % align;
        let burst = copy.bytes / copy.bursts.max(1);
        copy.moved = if copy.bytes == 0 {
            0
        } else {
            copy.bursts * plan::align_up(lead + burst, align)
        };
        let index = match self.program.copies.iter().position(|c| *c == copy) {
            Some(index) => index as u32,
            None => {
                self.program.copies.push(copy);
                (self.program.copies.len() - 1) as u32
            }
        };
        (index, offset, true)
    }

    /// Bytes from the start of a padded view's tile to its first element inside the
    /// tensor.
    pub(crate) fn clipped_offset(&self, tensor: usize, window: &[Window]) -> u64 {
        let info = &self.tensors[tensor];
        if window.iter().any(|w| w.high <= w.low) {
            return 0;
        }
        window
            .iter()
            .zip(&info.tile_strides)
            .map(|(w, stride)| (w.low - w.start) as u64 * stride * info.dtype.size())
            .sum()
    }
}
