//! The instructions of a sum folded in lanes (docs/dsl.md, "The order of a fold"): the lanes
//! filled with +0, each block of `L` elements along the reduction axis added into them
//! elementwise, the last partial block into the first lanes, and at the end of the fold
//! `vpairsum` combining each output's lanes into its first.

use super::select::Selector;
use crate::program::{Operand, VectorInstr};

impl Selector<'_, '_> {
    /// `fill` (over the outputs, into the accumulator's first lanes) widened to every
    /// lane.
    pub(super) fn fill_lanes(&mut self, fill: VectorInstr, lanes: u64) {
        let instr = self.widen(fill, lanes);
        self.push_reading(instr, [None; 3], None);
    }

    /// `fold` (over the outputs and the reduction axis, the box's last dimension, into
    /// one accumulator per output) as folds into each output's lanes: whole blocks of
    /// `lanes` elements in one instruction, the rest into the first lanes.
    pub(super) fn fold_in_lanes(
        &mut self,
        fold: VectorInstr,
        reads: [Option<usize>; 3],
        (lanes, lane_bytes): (u64, u64),
    ) {
        let extents = self.lowering.program.boxes[fold.shape as usize].clone();
        let (&length, outer) = extents.split_last().expect("a fold has its axis");
        let outer_elements: u64 = outer.iter().product();
        let dst = self.lowering.program.strides[fold.dst_strides as usize].clone();
        let dst = &dst[..dst.len() - 1];
        let (blocks, rest) = (length / lanes, length % lanes);
        if blocks > 0 {
            let mut instr = fold;
            instr.shape = self.lowering.raw_box([outer, &[blocks, lanes]].concat());
            instr.elements = (outer_elements * blocks * lanes) as u32;
            instr.dst_strides = self.lowering.strides([dst, &[0, lane_bytes]].concat());
            for operand in &mut instr.src {
                *operand = self.split_last(*operand, lanes);
            }
            self.push_reading(instr, reads, None);
        }
        if rest > 0 {
            let mut instr = fold;
            instr.shape = self.lowering.raw_box([outer, &[rest]].concat());
            instr.elements = (outer_elements * rest) as u32;
            instr.dst_strides = self.lowering.strides([dst, &[lane_bytes]].concat());
            for operand in &mut instr.src {
                *operand = self.skip_last(*operand, blocks * lanes);
            }
            self.push_reading(instr, reads, None);
        }
    }

    /// `vpairsum` over the accumulator's lanes, leaving each output's sum in its first
    /// lane; `first_lanes` is a `vpairsum` over the outputs' first lanes (its box, its
    /// destination), which this widens to every lane.
    pub(super) fn pair_sum(&mut self, first_lanes: VectorInstr, lanes: u64) {
        let widened = self.widen(first_lanes, lanes);
        let source = Operand::Ub {
            address: first_lanes.dst,
            strides: widened.dst_strides,
        };
        let instr = VectorInstr {
            dst_strides: self.extend_strides(first_lanes.dst_strides, 0),
            src: [source, Operand::None, Operand::None],
            ..widened
        };
        self.push_reading(instr, [None; 3], None);
    }

    /// `instr` over its box and `lanes` more along a new last dimension, where its
    /// destination moves by one element per lane.
    fn widen(&mut self, instr: VectorInstr, lanes: u64) -> VectorInstr {
        let mut extents = self.lowering.program.boxes[instr.shape as usize].clone();
        extents.push(lanes);
        VectorInstr {
            shape: self.lowering.raw_box(extents),
            elements: instr.elements * lanes as u32,
            dst_strides: self.extend_strides(instr.dst_strides, instr.dtype.size()),
            ..instr
        }
    }

    /// The strides `index` with `stride` appended.
    fn extend_strides(&mut self, index: u32, stride: u64) -> u32 {
        let mut strides = self.lowering.program.strides[index as usize].clone();
        strides.push(stride);
        self.lowering.strides(strides)
    }

    /// A UB operand's last dimension split into blocks of `lanes` and the lanes.
    fn split_last(&mut self, operand: Operand, lanes: u64) -> Operand {
        let Operand::Ub { address, strides } = operand else {
            return operand;
        };
        let mut split = self.lowering.program.strides[strides as usize].clone();
        let last = split.pop().expect("a fold's source has its axis");
        split.extend([last * lanes, last]);
        Operand::Ub {
            address,
            strides: self.lowering.strides(split),
        }
    }

    /// A UB operand moved `elements` along its last dimension.
    fn skip_last(&mut self, operand: Operand, elements: u64) -> Operand {
        let Operand::Ub { address, strides } = operand else {
            return operand;
        };
        let last = *self.lowering.program.strides[strides as usize]
            .last()
            .expect("a fold's source has its axis");
        Operand::Ub {
            address: address + (last * elements) as u32,
            strides,
        }
    }
}
