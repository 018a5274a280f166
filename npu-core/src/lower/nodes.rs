//! The expressions of a vector kernel as nodes with buffers, and the planner that turns
//! the nodes of one loop iteration into vector instructions.
//!
//! Each node of a statement (numbered in pre-order, as the plan numbers temporaries)
//! knows where its value is read from: a scalar (constants fold), the staged tile of a
//! load that covers the node's space, or a buffer (its temporary; a reduction's
//! accumulator). Operations write their temporary, or the output tile at the root.

use super::Lowering;
use super::vector::Queue;
use crate::dtype::Dtype;
use crate::ir::{BufferKind, Expr, Role, Subscript};
use crate::lower::{constant_value, vector_width};
use crate::plan;
use crate::program::{Gather, Operand, VectorInstr, VectorKind};
use crate::scalar;
use crate::target::Level;

/// Where a node's value is read from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Value {
    Scalar(u32),
    /// A tile in its staged buffer, seen through these strides.
    Staged {
        tensor: usize,
        strides: u32,
    },
    Buffer {
        address: u32,
        strides: u32,
    },
    /// A scalar parameter, read from its scalar register (the tensor's index).
    Param(u16),
}

pub(super) struct Node<'e> {
    expr: &'e Expr,
    children: [usize; 3],
    arity: usize,
    /// The space the node is evaluated over, an index into the spaces
    /// [`build_statements`] returns: the statement's axes, or inside a reduction over
    /// `axis` those and `axis`.
    space: usize,
    value: Value,
    /// A reduction's accumulator seen over the reduction's space, stride 0 along the
    /// reduced axes: where the fold writes.
    dest: Option<(u32, u32)>,
    /// A load's view of its staged tile over the node's space.
    view: Option<u32>,
    /// A gather's entry in the program's gathers and its index tensor's view.
    gather: Option<(u8, u32)>,
    /// A reduction's accumulator over the output axes, in the accumulator dtype.
    accumulator: Option<(u32, u32)>,
    /// A broadcast's last fill: the source's copy generation and the box.
    filled: Option<(u64, u32)>,
    /// An arg reduction's value accumulator, or a scan's carry: its address, its
    /// strides over `second_space`, and its strides over the space the fold or scan
    /// runs over (0 along the reduced or scanned axis).
    second: Option<(u32, u32, u32)>,
    /// The space `second` is filled over: the statement's axes for an arg reduction,
    /// those without the scan axis for a scan.
    second_space: usize,
    /// Bytes per element its instruction is charged for.
    width: u8,
}

pub(super) struct Statement<'e> {
    pub(super) output: usize,
    pub(super) nodes: Vec<Node<'e>>,
    /// Strides of the output tile over the output axes.
    pub(super) output_strides: u32,
    /// The space of the statement's own axes (see [`Node::space`]).
    pub(super) space: usize,
    /// The buffer of a `let` intermediate the statement writes instead of an output.
    pub(super) local: Option<u32>,
}

/// A vector instruction before its flags are placed around it.
pub(super) struct Planned {
    pub(super) instr: VectorInstr,
    pub(super) reads: [Option<usize>; 3],
    /// The statement whose output this writes.
    pub(super) writes: Option<usize>,
}

/// Row-major byte strides over `dims` with full tiles.
fn dense(tiles: &[u64], dims: &[usize], element_bytes: u64) -> Vec<u64> {
    let mut strides = vec![0u64; dims.len()];
    let mut stride = element_bytes;
    for (slot, axis) in dims.iter().enumerate().rev() {
        strides[slot] = stride;
        stride *= tiles[*axis];
    }
    strides
}

/// The index of the space over `dims`, added to `spaces` if new.
fn space_index(spaces: &mut Vec<Vec<usize>>, dims: Vec<usize>) -> usize {
    match spaces.iter().position(|s| *s == dims) {
        Some(index) => index,
        None => {
            spaces.push(dims);
            spaces.len() - 1
        }
    }
}

/// The statements as nodes with their buffers, and the spaces (axis lists) the nodes
/// are evaluated over.
pub(super) fn build_statements<'e>(
    lowering: &mut Lowering<'e>,
) -> (Vec<Statement<'e>>, Vec<Vec<usize>>) {
    let kernel = lowering.kernel;
    let tiles = lowering.schedule.tiles.clone();
    let temps = plan::temps(kernel, &tiles, kernel.target.align.ub);
    let locals = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Local)
        .count();
    let first_temp = lowering.schedule.stages.len() + locals;
    let local_address = |lowering: &Lowering, tensor: usize| {
        if kernel.tensors[tensor].role != Role::Local {
            return None;
        }
        lowering
            .program
            .buffers
            .iter()
            .find(|b| b.kind == BufferKind::Tensor(tensor) && b.level == Level::Ub)
            .map(|b| b.address as u32)
    };
    let mut spaces: Vec<Vec<usize>> = vec![kernel.output_axes().to_vec()];
    let mut statements = Vec::new();
    for (index, assign) in kernel.body.iter().enumerate() {
        let outer = assign.axes.clone();
        let space = space_index(&mut spaces, outer.clone());
        let mut nodes = Vec::new();
        build(&assign.value, space, &outer, &mut spaces, &mut nodes);
        for (node_index, node) in nodes.iter_mut().enumerate() {
            let expr = node.expr;
            let dims = spaces[node.space].clone();
            let specs = || {
                temps
                    .iter()
                    .filter(move |t| t.statement == index && t.node == node_index)
            };
            let address_of =
                |t: &plan::TempSpec| lowering.program.buffers[first_temp + t.buffer].address as u32;
            // A scan's result is its temporary; its carry is the accumulator.
            let temp = specs()
                .find(|t| t.kind == BufferKind::Temp || !matches!(expr, Expr::Scan { .. }))
                .map(address_of);
            let second = specs().nth(1).or_else(|| {
                specs().find(|t| {
                    t.kind == BufferKind::Accumulator && matches!(expr, Expr::Scan { .. })
                })
            });
            let second = second.map(address_of);
            let value = if let Some(value) = constant_value(expr) {
                Value::Scalar(lowering.constant(value))
            } else if let Expr::Param { tensor, .. } = expr {
                Value::Param(*tensor as u16)
            } else {
                match expr {
                    Expr::Load {
                        tensor, subscripts, ..
                    } => {
                        let info = &lowering.tensors[*tensor];
                        let strides: Vec<u64> =
                            dims.iter().map(|a| info.buffer_stride(*a)).collect();
                        let view = lowering.strides(strides);
                        node.view = Some(view);
                        node.gather = gather_entry(lowering, *tensor, subscripts, &dims);
                        let local = local_address(lowering, *tensor);
                        match temp {
                            // A broadcast: the copy into the temporary reads `view`.
                            Some(address) => {
                                let dense =
                                    lowering.strides(dense(&tiles, &dims, expr.dtype().size()));
                                Value::Buffer {
                                    address,
                                    strides: dense,
                                }
                            }
                            None => match local {
                                // An intermediate is read in place.
                                Some(address) => Value::Buffer {
                                    address,
                                    strides: view,
                                },
                                None => Value::Staged {
                                    tensor: *tensor,
                                    strides: view,
                                },
                            },
                        }
                    }
                    Expr::Reduce {
                        op,
                        dtype,
                        accumulator,
                        axes,
                        ..
                    } => {
                        // An arg reduction's accumulator is its index, in its dtype.
                        let acc = if op.is_arg() {
                            dtype.size()
                        } else {
                            accumulator.size()
                        };
                        let address = temp.expect("the plan gives every reduction an accumulator");
                        let mut folded = dense(&tiles, &outer, acc);
                        node.accumulator = Some((address, lowering.strides(folded.clone())));
                        folded.extend(axes.iter().map(|_| 0));
                        node.dest = Some((address, lowering.strides(folded)));
                        if op.is_arg() {
                            let values = second.expect("an arg reduction has a value accumulator");
                            let mut folded = dense(&tiles, &outer, accumulator.size());
                            let own = lowering.strides(folded.clone());
                            folded.extend(axes.iter().map(|_| 0));
                            node.second = Some((values, own, lowering.strides(folded)));
                        }
                        Value::Buffer {
                            address,
                            strides: lowering.strides(dense(&tiles, &outer, dtype.size())),
                        }
                    }
                    Expr::Scan {
                        axis, accumulator, ..
                    } => {
                        let carry = second.expect("the plan gives every scan a carry");
                        let carry_dims: Vec<usize> =
                            dims.iter().copied().filter(|a| a != axis).collect();
                        let own = dense(&tiles, &carry_dims, accumulator.size());
                        // Over the scan's space: stride 0 along the scan axis.
                        let mut over = own.clone();
                        let position = dims.iter().position(|a| a == axis).unwrap_or(0);
                        over.insert(position, 0);
                        node.second = Some((carry, lowering.strides(own), lowering.strides(over)));
                        node.second_space = space_index(&mut spaces, carry_dims);
                        let strides = lowering.strides(dense(&tiles, &dims, expr.dtype().size()));
                        node_buffer(temp, strides)
                    }
                    Expr::Compare { .. } => {
                        let strides = lowering.strides(dense(&tiles, &dims, 1));
                        node_buffer(temp, strides)
                    }
                    _ => {
                        let strides = lowering.strides(dense(&tiles, &dims, expr.dtype().size()));
                        node_buffer(temp, strides)
                    }
                }
            };
            node.value = value;
        }
        let output_dims = lowering.tensors[assign.output]
            .axes
            .iter()
            .flatten()
            .copied()
            .collect::<Vec<_>>();
        debug_assert_eq!(output_dims, outer);
        let output_strides = lowering.strides(dense(
            &tiles,
            &outer,
            kernel.tensors[assign.output].dtype.size(),
        ));
        let local = local_address(lowering, assign.output);
        statements.push(Statement {
            output: assign.output,
            nodes,
            output_strides,
            space,
            local,
        });
    }
    (statements, spaces)
}

/// The program's entry for a gathering load of `table` (added if new) and the view of
/// its index tile over `dims`; `None` for other loads.
fn gather_entry(
    lowering: &mut Lowering,
    table: usize,
    subscripts: &[Subscript],
    dims: &[usize],
) -> Option<(u8, u32)> {
    let (dim, (index, _)) = subscripts
        .iter()
        .enumerate()
        .find_map(|(dim, s)| Some((dim, s.gather()?)))?;
    let info = &lowering.tensors[table];
    let index_info = &lowering.tensors[index];
    let Subscript::Gather { dtype, extent, .. } = subscripts[dim] else {
        return None;
    };
    let entry = Gather {
        table: table as u16,
        index: index as u16,
        index_dtype: dtype,
        dim: dim as u64,
        extent,
        row_bytes: info.tile_strides[dim] * info.dtype.size(),
        index_shape: index_info.shape.clone(),
    };
    let strides: Vec<u64> = dims.iter().map(|a| index_info.buffer_stride(*a)).collect();
    let view = lowering.strides(strides);
    let gathers = &mut lowering.program.gathers;
    let position = match gathers.iter().position(|g| *g == entry) {
        Some(position) => position,
        None => {
            gathers.push(entry);
            gathers.len() - 1
        }
    };
    Some((u8::try_from(position).ok()?, view))
}

/// The value of an operation node: its temporary, or (for the root, which has none)
/// a placeholder; the root writes the output tile instead.
fn node_buffer(temp: Option<u32>, strides: u32) -> Value {
    Value::Buffer {
        address: temp.unwrap_or(u32::MAX),
        strides,
    }
}

/// Appends `expr` and its subtree in pre-order (the plan's numbering); returns its index.
/// `outer` are the statement's axes.
fn build<'e>(
    expr: &'e Expr,
    space: usize,
    outer: &[usize],
    spaces: &mut Vec<Vec<usize>>,
    nodes: &mut Vec<Node<'e>>,
) -> usize {
    let index = nodes.len();
    nodes.push(Node {
        expr,
        children: [0; 3],
        arity: 0,
        space,
        value: Value::Scalar(0),
        dest: None,
        view: None,
        gather: None,
        accumulator: None,
        filled: None,
        second: None,
        second_space: space,
        width: vector_width(expr).unwrap_or(expr.dtype().size()) as u8,
    });
    let (children, inner): (Vec<&Expr>, usize) = match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => (vec![], space),
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::Scan { body: arg, .. } => {
            (vec![arg], space)
        }
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => (vec![lhs, rhs], space),
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => (vec![cond, then, otherwise], space),
        Expr::Reduce { axes, body, .. } => {
            let mut dims = outer.to_vec();
            dims.extend_from_slice(axes);
            (vec![body], space_index(spaces, dims))
        }
    };
    for (slot, child) in children.into_iter().enumerate() {
        let child_index = build(child, inner, outer, spaces, nodes);
        nodes[index].children[slot] = child_index;
        nodes[index].arity = slot + 1;
    }
    index
}

/// Turns the nodes of one iteration into vector instructions.
pub(super) struct Planner<'l, 'a> {
    pub(super) lowering: &'l mut Lowering<'a>,
    pub(super) queues: &'l [Queue],
    pub(super) coords: &'l [u64],
    /// The axes of each space (see [`Node::space`]).
    pub(super) spaces: &'l [Vec<usize>],
    pub(super) out: &'l mut Vec<Planned>,
}

impl Planner<'_, '_> {
    /// The reductions over the axis list `group` in a statement: their bodies, then the
    /// fold.
    pub(super) fn reductions(&mut self, statement: &mut Statement, group: &[usize], first: bool) {
        for index in 0..statement.nodes.len() {
            let node = &statement.nodes[index];
            let Expr::Reduce {
                op,
                dtype,
                accumulator,
                axes,
                ..
            } = node.expr
            else {
                continue;
            };
            if axes.as_slice() != group {
                continue;
            }
            let body = node.children[0];
            self.subtree(statement, body);
            let node = &statement.nodes[index];
            let (acc_address, acc_strides) =
                node.accumulator.expect("a reduction has an accumulator");
            let (dest, folded) = node.dest.expect("a reduction has an accumulator");
            let body_space = statement.nodes[body].space;
            let accumulator = *accumulator;
            let second = node.second;
            let space = statement.space;
            if first {
                let (shape, elements) =
                    self.lowering
                        .vector_box(space, &self.spaces[space], self.coords);
                let fill = |dtype: Dtype, dst: u32, dst_strides: u32, value: u32| VectorInstr {
                    kind: VectorKind::Dup,
                    dtype,
                    width: dtype.size() as u8,
                    elements: elements as u32,
                    shape,
                    dst,
                    dst_strides,
                    src: [Operand::Scalar(value), Operand::None, Operand::None],
                };
                let init = self.lowering.constant(scalar::reduce_init(*op));
                match second {
                    // An arg reduction starts at index 0 and a value below (above)
                    // every number.
                    Some((values, own, _)) => {
                        let zero = self.lowering.constant(0.0);
                        self.push(fill(*dtype, acc_address, acc_strides, zero), None);
                        self.push(fill(accumulator, values, own, init), None);
                    }
                    None => self.push(fill(accumulator, acc_address, acc_strides, init), None),
                }
            }
            let (shape, elements) =
                self.lowering
                    .vector_box(body_space, &self.spaces[body_space], self.coords);
            let (source, read) = self.operand(statement, body);
            // An arg reduction reads and updates its values beside the index, and
            // numbers this tile's elements from the tile's first position.
            let (src, width) = match second {
                Some((values, _, folded_values)) => {
                    let axis = axes[0];
                    let first = (self.lowering.start[axis] + self.coords[axis])
                        * self.lowering.schedule.tiles[axis];
                    let first = self.lowering.constant(first as f64);
                    let values = Operand::Ub {
                        address: values,
                        strides: folded_values,
                    };
                    let width = accumulator.size().max(dtype.size());
                    ([source, values, Operand::Scalar(first)], width)
                }
                None => ([source, Operand::None, Operand::None], accumulator.size()),
            };
            self.push_reading(
                VectorInstr {
                    kind: VectorKind::Reduce(*op, accumulator),
                    dtype: *dtype,
                    width: width as u8,
                    elements: elements as u32,
                    shape,
                    dst: dest,
                    dst_strides: folded,
                    src,
                },
                [read, None, None],
                None,
            );
        }
    }

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
                for slot in 0..root.arity {
                    let child = statement.nodes[0].children[slot];
                    self.subtree(statement, child);
                }
                self.operation(statement, 0, Some((address, strides, index)));
            }
        }
    }

    /// Plans a non-root node and what it needs, children first.
    fn subtree(&mut self, statement: &mut Statement, index: usize) {
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
                for slot in 0..node.arity {
                    let child = statement.nodes[index].children[slot];
                    self.subtree(statement, child);
                }
                self.operation(statement, index, None);
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

    fn operand(&self, statement: &Statement, index: usize) -> (Operand, Option<usize>) {
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

    fn push(&mut self, instr: VectorInstr, writes: Option<usize>) {
        self.push_reading(instr, [None; 3], writes);
    }

    fn push_reading(
        &mut self,
        instr: VectorInstr,
        reads: [Option<usize>; 3],
        writes: Option<usize>,
    ) {
        self.out.push(Planned {
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
