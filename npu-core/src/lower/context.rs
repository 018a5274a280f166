//! What lowering one class of cores works with: the kernel, its schedule and tensors,
//! the program being built and its table caches, and the tiles the class runs along
//! each axis. Kept apart from `lower.rs` so the lowering steps depend on it and not on
//! the driver that calls them.

use super::tensors::TensorInfo;
use crate::ir::{CheckedKernel, CheckedSchedule};
use crate::program::Program;

/// The tiles one core runs along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AxisRange {
    /// Tiles along the axis.
    pub count: u64,
    /// The tile extent.
    pub tile: u64,
    /// The extent of the last tile: `tile`, or the tail's length.
    pub last_extent: u64,
}

impl AxisRange {
    /// The extent of local tile `index`.
    pub(crate) fn extent(&self, index: u64) -> u64 {
        if index + 1 == self.count {
            self.last_extent
        } else {
            self.tile
        }
    }

    pub(crate) fn is_tail(&self, index: u64) -> bool {
        index + 1 == self.count && self.last_extent != self.tile
    }
}

/// What lowering one class of cores needs.
pub(crate) struct Lowering<'a> {
    pub kernel: &'a CheckedKernel,
    pub schedule: &'a CheckedSchedule,
    pub tensors: &'a [TensorInfo],
    pub program: &'a mut Program,
    pub tables: &'a mut Tables,
    pub ranges: &'a [AxisRange],
    /// The first tile of each axis of the cores of this class.
    pub start: &'a [u64],
    /// How to hold runs of alike tiles ([`super::lower_compact`]).
    pub compact: Compact,
}

/// How a class holds runs of alike tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compact {
    /// Written out.
    No,
    /// Each copy as many output tiles as every queue's depth divides, so each starts
    /// at the same slots.
    Yes,
    /// Each copy one output tile: a matmul's tile refills its queues many times, most
    /// often a whole number of times each.
    SingleTiles,
}

/// Caches from small keys to entries of the program's tables, so each instruction
/// finds its copy shape or box without comparing vectors.
#[derive(Default)]
pub(crate) struct Tables {
    /// The interned shape and whether the copy is padded.
    pub(super) copies: Vec<((usize, u64), (u32, bool))>,
    pub(super) boxes: Vec<((usize, u64), u32)>,
}

impl Lowering<'_> {
    /// The extent of axis `axis` in the tile at `coords`.
    pub(crate) fn extent(&self, axis: usize, coords: &[u64]) -> u64 {
        self.ranges[axis].extent(coords[axis])
    }

    pub(crate) fn constant(&mut self, value: f64) -> u32 {
        let constants = &mut self.program.constants;
        match constants
            .iter()
            .position(|c| c.to_bits() == value.to_bits())
        {
            Some(index) => index as u32,
            None => {
                constants.push(value);
                (constants.len() - 1) as u32
            }
        }
    }

    pub(crate) fn strides(&mut self, strides: Vec<u64>) -> u32 {
        let table = &mut self.program.strides;
        match table.iter().position(|s| *s == strides) {
            Some(index) => index as u32,
            None => {
                table.push(strides);
                (table.len() - 1) as u32
            }
        }
    }

    /// The box of `dims` (axes) in the tile at `coords`; `space` names the dimension
    /// list for the cache.
    pub(crate) fn vector_box(
        &mut self,
        space: usize,
        dims: &[usize],
        coords: &[u64],
    ) -> (u32, u64) {
        let mask = dims.iter().fold(0u64, |m, &a| {
            if self.ranges[a].is_tail(coords[a]) {
                m | 1 << a
            } else {
                m
            }
        });
        let index = match self.tables.boxes.iter().find(|(k, _)| *k == (space, mask)) {
            Some((_, index)) => *index,
            None => {
                let extents: Vec<u64> = dims.iter().map(|&a| self.extent(a, coords)).collect();
                let table = &mut self.program.boxes;
                let index = match table.iter().position(|b| *b == extents) {
                    Some(index) => index as u32,
                    None => {
                        table.push(extents);
                        (table.len() - 1) as u32
                    }
                };
                self.tables.boxes.push(((space, mask), index));
                index
            }
        };
        let elements = self.program.boxes[index as usize].iter().product();
        (index, elements)
    }

    /// The index of a box of `extents` in the program's table.
    pub(crate) fn raw_box(&mut self, extents: Vec<u64>) -> u32 {
        let table = &mut self.program.boxes;
        match table.iter().position(|b| *b == extents) {
            Some(index) => index as u32,
            None => {
                table.push(extents);
                (table.len() - 1) as u32
            }
        }
    }
}
