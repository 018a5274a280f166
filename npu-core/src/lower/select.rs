//! Instruction selection: turns the nodes of one loop iteration (see [`super::nodes`]) into
//! vector instructions.

use super::Lowering;
use super::nodes::{Selected, Statement, Value};
use super::queue::Queue;
use crate::dtype::Dtype;
use crate::ir::{BufferKind, Expr, Role};
use crate::program::{Operand, VectorInstr, VectorKind};
use crate::scalar;
use crate::target::Level;

/// Turns the nodes of one iteration into vector instructions.
pub(super) struct Selector<'l, 'a> {
    pub(super) lowering: &'l mut Lowering<'a>,
    pub(super) queues: &'l [Queue],
    pub(super) coords: &'l [u64],
    /// The axes of each space (see [`Node::space`](super::nodes::Node::space)).
    pub(super) spaces: &'l [Vec<usize>],
    pub(super) out: &'l mut Vec<Selected>,
}

impl Selector<'_, '_> {
    /// What a statement computes outside its reductions, ending in the write of its
    /// output tile.
    pub(super) fn outer(&mut self, statement: &mut Statement, index: usize) {
        let root = &statement.nodes[0];
        let output = statement.output;
        // An intermediate's buffer is no queue: no flags around its writes.
        let (address, index) = match statement.local {
            Some(address) => (address, None),
            None => {
                let queue = &self.queues[output];
                let slot = queue.next_slot();
                let address = self.lowering.program.buffers[queue.buffer].slot(slot) as u32;
                (address, Some(index))
            }
        };
        let strides = statement.output_strides;
        let dtype = root.expr.dtype();
        let space = statement.space;
        let (shape, elements) = self
            .lowering
            .vector_box(space, &self.spaces[space], self.coords);
        let base = VectorInstr {
            kind: VectorKind::Copy,
            dtype,
            width: dtype.size() as u8,
            elements: elements as u32,
            shape,
            dst: address,
            dst_strides: strides,
            src: [Operand::None; 3],
        };
        match (root.expr, root.value) {
            (_, Value::Scalar(constant)) => {
                let instr = VectorInstr {
                    kind: VectorKind::Dup,
                    src: [Operand::Scalar(constant), Operand::None, Operand::None],
                    ..base
                };
                self.push(instr, index);
            }
            (_, Value::Param(tensor)) => {
                let instr = VectorInstr {
                    kind: VectorKind::Dup,
                    src: [Operand::Param(tensor), Operand::None, Operand::None],
                    ..base
                };
                self.push(instr, index);
            }
            (expr, _) if expr.is_gather() => {
                self.gather(statement, 0, Some((address, strides, index)));
            }
            (Expr::Load { tensor, .. }, _) => {
                // A copy (or broadcast) of an input straight into the output tile.
                let view = root.view.expect("a load has a view of its tile");
                let (address, read) = self.source(*tensor);
                let source = Operand::Ub {
                    address,
                    strides: view,
                };
                self.push_reading(
                    VectorInstr {
                        src: [source, Operand::None, Operand::None],
                        ..base
                    },
                    [read, None, None],
                    index,
                );
            }
            (Expr::Reduce { accumulator, .. }, _) => {
                let accumulator = *accumulator;
                let (acc, acc_strides) = root.accumulator.expect("a reduction has an accumulator");
                let instr = VectorInstr {
                    kind: VectorKind::Cast,
                    width: accumulator.size().max(dtype.size()) as u8,
                    src: [
                        Operand::Ub {
                            address: acc,
                            strides: acc_strides,
                        },
                        Operand::None,
                        Operand::None,
                    ],
                    ..base
                };
                self.push(instr, index);
            }
            _ => {
                self.operands(statement, 0);
                self.operation(statement, 0, Some((address, strides, index)));
            }
        }
    }

    pub(super) fn subtree(&mut self, statement: &mut Statement, index: usize) {
        let node = &statement.nodes[index];
        if matches!(
            node.value,
            Value::Scalar(_) | Value::Staged { .. } | Value::Param(_)
        ) {
            return;
        }
        match node.expr {
            expr if expr.is_gather() => self.gather(statement, index, None),
            Expr::Load { tensor, dtype, .. } => self.broadcast(statement, index, *tensor, *dtype),
            Expr::Reduce {
                op,
                dtype,
                accumulator,
                ..
            } => {
                // Outside the reduction loop: round the accumulator to the reduction's
                // dtype in place, where the parent reads it. An arg reduction's index
                // is its result already.
                let accumulator = *accumulator;
                if accumulator == *dtype || op.is_arg() {
                    return;
                }
                let (acc, acc_strides) = node.accumulator.expect("a reduction has an accumulator");
                let Value::Buffer { address, strides } = node.value else {
                    return;
                };
                let space = statement.space;
                let (shape, elements) =
                    self.lowering
                        .vector_box(space, &self.spaces[space], self.coords);
                self.push(
                    VectorInstr {
                        kind: VectorKind::Cast,
                        dtype: *dtype,
                        width: accumulator.size().max(dtype.size()) as u8,
                        elements: elements as u32,
                        shape,
                        dst: address,
                        dst_strides: strides,
                        src: [
                            Operand::Ub {
                                address: acc,
                                strides: acc_strides,
                            },
                            Operand::None,
                            Operand::None,
                        ],
                    },
                    None,
                );
            }
            _ => {
                self.operands(statement, index);
                self.operation(statement, index, None);
            }
        }
    }

    /// Plans what operation `index` reads, each operand's subtree first.
    fn operands(&mut self, statement: &mut Statement, index: usize) {
        if statement.nodes[index].step > 0 {
            return self.chain_below(statement, index);
        }
        for slot in 0..statement.nodes[index].arity {
            let child = statement.nodes[index].children[slot];
            self.subtree(statement, child);
        }
    }

    /// Plans what step `index` of a chain reads, in a loop rather than once per step
    /// on the stack: the first operand, then each earlier step after its operand, and
    /// last the operand of `index` itself (whose operation the caller plans).
    fn chain_below(&mut self, statement: &mut Statement, index: usize) {
        let mut steps = vec![index];
        while let Some(&step) = steps.last()
            && statement.nodes[step].step > 1
        {
            steps.push(statement.nodes[step].children[0]);
        }
        let first = *steps.last().expect("at least the step itself");
        self.subtree(statement, statement.nodes[first].children[0]);
        for (position, &step) in steps.iter().enumerate().rev() {
            self.subtree(statement, statement.nodes[step].children[1]);
            if position > 0 {
                self.operation(statement, step, None);
            }
        }
    }

    /// Fills a broadcast's temporary from the staged tile, unless it still holds it.
    fn broadcast(&mut self, statement: &mut Statement, index: usize, tensor: usize, dtype: Dtype) {
        let node = &statement.nodes[index];
        let (shape, elements) =
            self.lowering
                .vector_box(node.space, &self.spaces[node.space], self.coords);
        let (source_address, read) = self.source(tensor);
        let generation = self.queues[tensor].count;
        if read.is_some()
            && let Some((filled, filled_box)) = node.filled
            && filled == generation
            && contains(
                &self.lowering.program.boxes[filled_box as usize],
                &self.lowering.program.boxes[shape as usize],
            )
        {
            return;
        }
        let view = node.view.expect("a load has a view of its tile");
        let Value::Buffer { address, strides } = node.value else {
            return;
        };
        // A temporary planned over the intermediate it would read, with the same view,
        // already holds it: a copy onto itself moves nothing, and the device would run
        // it. (A staged tile's reads release its queue slot, so those stay.)
        let strides_of = |index: u32| &self.lowering.program.strides[index as usize];
        if read.is_none() && address == source_address && strides_of(strides) == strides_of(view) {
            statement.nodes[index].filled = Some((generation, shape));
            return;
        }
        let source = Operand::Ub {
            address: source_address,
            strides: view,
        };
        self.push_reading(
            VectorInstr {
                kind: VectorKind::Copy,
                dtype,
                width: dtype.size() as u8,
                elements: elements as u32,
                shape,
                dst: address,
                dst_strides: strides,
                src: [source, Operand::None, Operand::None],
            },
            [read, None, None],
            None,
        );
        statement.nodes[index].filled = Some((generation, shape));
    }

    /// A gathering load: one `vgather` from the table's staged tile (every row) through
    /// the index tile, into its temporary or, at the root, the output tile `root`.
    fn gather(
        &mut self,
        statement: &Statement,
        index: usize,
        root: Option<(u32, u32, Option<usize>)>,
    ) {
        let node = &statement.nodes[index];
        let Expr::Load { tensor, dtype, .. } = node.expr else {
            return;
        };
        let (Some((gather, index_view)), Some(view)) = (node.gather, node.view) else {
            return;
        };
        let (dst, dst_strides, writes) = match (root, node.value) {
            (Some((address, strides, statement)), _) => (address, strides, statement),
            (None, Value::Buffer { address, strides }) => (address, strides, None),
            (None, _) => return,
        };
        let index_tensor = self.lowering.program.gathers[gather as usize].index as usize;
        let (shape, elements) =
            self.lowering
                .vector_box(node.space, &self.spaces[node.space], self.coords);
        let (table_address, table_read) = self.source(*tensor);
        let (index_address, index_read) = self.source(index_tensor);
        let instr = VectorInstr {
            kind: VectorKind::Gather(gather),
            dtype: *dtype,
            width: dtype.size() as u8,
            elements: elements as u32,
            shape,
            dst,
            dst_strides,
            src: [
                Operand::Ub {
                    address: table_address,
                    strides: view,
                },
                Operand::Ub {
                    address: index_address,
                    strides: index_view,
                },
                Operand::None,
            ],
        };
        self.push_reading(instr, [table_read, index_read, None], writes);
    }

    /// An arithmetic, comparison, select or cast node; `root` gives the output tile it
    /// writes instead of a temporary.
    fn operation(
        &mut self,
        statement: &Statement,
        index: usize,
        root: Option<(u32, u32, Option<usize>)>,
    ) {
        let node = &statement.nodes[index];
        let kind = match node.expr {
            Expr::Unary { op, .. } => VectorKind::Unary(*op),
            Expr::Binary { op, .. } => VectorKind::Binary(*op),
            Expr::Chain { rest, .. } => VectorKind::Binary(rest[node.step - 1].0),
            Expr::Compare { op, .. } => VectorKind::Compare(*op),
            Expr::Select { .. } => VectorKind::Select,
            Expr::Cast {
                saturate: false, ..
            } => VectorKind::Cast,
            Expr::Cast { saturate: true, .. } => VectorKind::SatCast,
            Expr::Scan {
                op, accumulator, ..
            } => VectorKind::from_scan(*op, *accumulator),
            Expr::Load { .. } | Expr::Const { .. } | Expr::Reduce { .. } | Expr::Param { .. } => {
                return;
            }
        };
        let (dst, dst_strides, writes) = match (root, node.value) {
            (Some((address, strides, statement)), _) => (address, strides, statement),
            (None, Value::Buffer { address, strides }) => (address, strides, None),
            (None, _) => return,
        };
        let (shape, elements) =
            self.lowering
                .vector_box(node.space, &self.spaces[node.space], self.coords);
        let mut src = [Operand::None; 3];
        let mut reads = [None; 3];
        for slot in 0..node.arity {
            let (operand, read) = self.operand(statement, node.children[slot]);
            src[slot] = operand;
            reads[slot] = read;
        }
        // A scan reads and leaves its carry, which starts over at the axis's first
        // tile (the scan axis is never split across cores).
        if let (Expr::Scan { op, axis, .. }, Some((carry, own, over))) = (node.expr, node.second) {
            if self.lowering.start[*axis] + self.coords[*axis] == 0 {
                let accumulator = kind.scan().map_or(node.expr.dtype(), |(_, a)| a);
                let init = self.lowering.constant(scalar::scan_init(*op));
                let (shape, elements) = self.lowering.vector_box(
                    node.second_space,
                    &self.spaces[node.second_space],
                    self.coords,
                );
                self.push(
                    VectorInstr {
                        kind: VectorKind::Dup,
                        dtype: accumulator,
                        width: accumulator.size() as u8,
                        elements: elements as u32,
                        shape,
                        dst: carry,
                        dst_strides: own,
                        src: [Operand::Scalar(init), Operand::None, Operand::None],
                    },
                    None,
                );
            }
            src[1] = Operand::Ub {
                address: carry,
                strides: over,
            };
        }
        let instr = VectorInstr {
            kind,
            dtype: node.expr.dtype(),
            width: node.width,
            elements: elements as u32,
            shape,
            dst,
            dst_strides,
            src,
        };
        self.push_reading(instr, reads, writes);
    }

    pub(super) fn operand(&self, statement: &Statement, index: usize) -> (Operand, Option<usize>) {
        match statement.nodes[index].value {
            Value::Scalar(constant) => (Operand::Scalar(constant), None),
            Value::Param(tensor) => (Operand::Param(tensor), None),
            Value::Staged { tensor, strides } => (
                Operand::Ub {
                    address: self.staged_address(tensor),
                    strides,
                },
                Some(tensor),
            ),
            Value::Buffer { address, strides } => (Operand::Ub { address, strides }, None),
        }
    }

    /// Where a load reads `tensor`'s tile, and the staged input it reads (none for an
    /// intermediate, whose buffer is no queue).
    fn source(&self, tensor: usize) -> (u32, Option<usize>) {
        match self
            .lowering
            .program
            .buffers
            .iter()
            .find(|b| b.kind == BufferKind::Tensor(tensor) && b.level == Level::Ub)
        {
            Some(buffer) if self.lowering.kernel.tensors[tensor].role == Role::Local => {
                (buffer.address as u32, None)
            }
            _ => (self.staged_address(tensor), Some(tensor)),
        }
    }

    /// The slot holding the current tile of an input.
    fn staged_address(&self, tensor: usize) -> u32 {
        let queue = &self.queues[tensor];
        self.lowering.program.buffers[queue.buffer].slot(queue.slot()) as u32
    }

    pub(super) fn push(&mut self, instr: VectorInstr, writes: Option<usize>) {
        self.push_reading(instr, [None; 3], writes);
    }

    pub(super) fn push_reading(
        &mut self,
        instr: VectorInstr,
        reads: [Option<usize>; 3],
        writes: Option<usize>,
    ) {
        self.out.push(Selected {
            instr,
            reads,
            writes,
        });
    }
}

/// Whether box `outer` covers box `inner` (same rank, each extent at least as large).
fn contains(outer: &[u64], inner: &[u64]) -> bool {
    outer.len() == inner.len() && outer.iter().zip(inner).all(|(o, i)| o >= i)
}
