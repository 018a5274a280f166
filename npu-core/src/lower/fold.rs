//! The instructions of a reduction's fold: on its first step the accumulators'
//! fills, then its body and the fold into the accumulators (in lanes for a sum the
//! target folds so, see [`super::lanes`]), and on its last step the lanes combined.

use super::nodes::Statement;
use super::select::Selector;
use crate::ir::Expr;
use crate::lower::vector_width;
use crate::program::{Operand, VectorInstr, VectorKind};
use crate::scalar;

impl Selector<'_, '_> {
    /// The reductions over the axis list `group` in a statement: on the first step of
    /// the fold their accumulators' fills, then their bodies and the fold, and on the
    /// last step the lanes of a sum in lanes combined.
    pub(super) fn reductions(
        &mut self,
        statement: &mut Statement,
        group: &[usize],
        (first, last): (bool, bool),
    ) {
        for index in 0..statement.nodes.len() {
            let Expr::Reduce { axes, .. } = statement.nodes[index].expr else {
                continue;
            };
            if axes.as_slice() != group {
                continue;
            }
            let lanes = u64::from(self.lowering.kernel.fold_lanes(statement.nodes[index].expr));
            self.fold(statement, index, (lanes, first));
            if last && lanes > 1 {
                let mut first_lanes = self.over_outputs(statement, index);
                first_lanes.kind = VectorKind::PairSum;
                self.pair_sum(first_lanes, lanes);
            }
        }
    }

    /// An instruction in the accumulator dtype over reduction `index`'s outputs, into
    /// its accumulator (a `vdup` of nothing, for the caller to complete).
    fn over_outputs(&mut self, statement: &Statement, index: usize) -> VectorInstr {
        let node = &statement.nodes[index];
        let Expr::Reduce { accumulator, .. } = node.expr else {
            unreachable!("over_outputs is called on reductions")
        };
        let (dst, dst_strides) = node.accumulator.expect("a reduction has an accumulator");
        let space = statement.space;
        let (shape, elements) = self
            .lowering
            .vector_box(space, &self.spaces[space], self.coords);
        VectorInstr {
            kind: VectorKind::Dup,
            dtype: *accumulator,
            width: accumulator.size() as u8,
            elements: elements as u32,
            shape,
            dst,
            dst_strides,
            src: [Operand::None; 3],
        }
    }

    /// A fold's starting values: its accumulator (each lane of a sum in lanes) and an
    /// arg reduction's index at 0, its value below (above) every number.
    fn fill_accumulators(&mut self, statement: &Statement, index: usize, lanes: u64) {
        let node = &statement.nodes[index];
        let Expr::Reduce { op, dtype, .. } = node.expr else {
            unreachable!("fill_accumulators is called on reductions")
        };
        let (op, dtype, second) = (*op, *dtype, node.second);
        let init = self.lowering.constant(scalar::reduce_init(op));
        let mut fill = self.over_outputs(statement, index);
        fill.src[0] = Operand::Scalar(init);
        match second {
            Some((values, own, _)) => {
                let zero = self.lowering.constant(0.0);
                let index_fill = VectorInstr {
                    dtype,
                    width: dtype.size() as u8,
                    src: [Operand::Scalar(zero), Operand::None, Operand::None],
                    ..fill
                };
                self.push(index_fill, None);
                let value_fill = VectorInstr {
                    dst: values,
                    dst_strides: own,
                    ..fill
                };
                self.push(value_fill, None);
            }
            None if lanes > 1 => self.fill_lanes(fill, lanes),
            None => self.push(fill, None),
        }
    }

    /// The fold of reduction `index` over this step's tile of its axes: its body's
    /// instructions, on the `first` step the accumulators' fills, then the fold.
    fn fold(&mut self, statement: &mut Statement, index: usize, (lanes, first): (u64, bool)) {
        let [(source, read), (factor, factor_read)] = self.fold_sources(statement, index);
        if first {
            self.fill_accumulators(statement, index, lanes);
        }
        let node = &statement.nodes[index];
        let Expr::Reduce {
            op,
            dtype,
            accumulator,
            axes,
            ..
        } = node.expr
        else {
            unreachable!("fold is called on reductions")
        };
        let (dest, folded) = node.dest.expect("a reduction has an accumulator");
        let body_space = statement.nodes[node.children[0]].space;
        let (shape, elements) =
            self.lowering
                .vector_box(body_space, &self.spaces[body_space], self.coords);
        // Charged at the widest element it touches (see `vector_width`), the width
        // the checker's E022 counts and the validator finds.
        let width = vector_width(node.expr).unwrap_or(accumulator.size());
        // An arg reduction reads and updates its values beside the index, and numbers
        // this tile's elements from the tile's first position.
        let src = match node.second {
            Some((values, _, folded_values)) => {
                let axis = axes[0];
                let first = (self.lowering.start[axis] + self.coords[axis])
                    * self.lowering.schedule.tiles[axis];
                let first = self.lowering.constant(first as f64);
                let values = Operand::Ub {
                    address: values,
                    strides: folded_values,
                };
                [source, values, Operand::Scalar(first)]
            }
            None => [source, factor, Operand::None],
        };
        let instr = VectorInstr {
            kind: VectorKind::Reduce(*op, *accumulator),
            dtype: *dtype,
            width: width as u8,
            elements: elements as u32,
            shape,
            dst: dest,
            dst_strides: folded,
            src,
        };
        let reads = [read, factor_read, None];
        if lanes > 1 {
            self.fold_in_lanes(instr, reads, (lanes, accumulator.size()));
        } else {
            self.push_reading(instr, reads, None);
        }
    }

    /// What the fold of reduction `index` reads, its instructions selected first: its
    /// body's value, or for a multiply-accumulate ([`crate::plan::mac_operands`]) the
    /// product's two operands under their casts. Each with the staged input it reads,
    /// if any.
    fn fold_sources(
        &mut self,
        statement: &mut Statement,
        index: usize,
    ) -> [(Operand, Option<usize>); 2] {
        let node = &statement.nodes[index];
        let body = node.children[0];
        let operands = match crate::plan::mac_operands(node.expr) {
            Some(_) => {
                let product = &statement.nodes[body];
                let operand = |slot: usize| statement.nodes[product.children[slot]].children[0];
                vec![operand(0), operand(1)]
            }
            None => vec![body],
        };
        for &operand in &operands {
            self.subtree(statement, operand);
        }
        let second = match operands.get(1) {
            Some(&operand) => self.operand(statement, operand),
            None => (Operand::None, None),
        };
        [self.operand(statement, operands[0]), second]
    }
}
