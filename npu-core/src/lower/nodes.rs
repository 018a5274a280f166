//! The expressions of a vector kernel as nodes with buffers, which instruction
//! selection ([`super::select`]) turns into the vector instructions of one loop iteration.
//!
//! Each node of a statement (numbered in pre-order, as the plan numbers temporaries)
//! knows where its value is read from: a scalar (constants fold), the staged tile of a
//! load that covers the node's space, or a buffer (its temporary; a reduction's
//! accumulator). Operations write their temporary, or the output tile at the root.

use std::collections::HashMap;

use super::Lowering;
use crate::ir::{Assign, BufferKind, Expr, Role, Subscript};
use crate::lower::{constant_value, vector_width};
use crate::plan;
use crate::program::{Gather, VectorInstr};
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
    pub(super) expr: &'e Expr,
    pub(super) children: [usize; 3],
    pub(super) arity: usize,
    /// The space the node is evaluated over, an index into the spaces
    /// [`build_statements`] returns: the statement's axes, or inside a reduction over
    /// `axis` those and `axis`.
    pub(super) space: usize,
    pub(super) value: Value,
    /// A reduction's accumulator seen over the reduction's space, stride 0 along the
    /// reduced axes: where the fold writes.
    pub(super) dest: Option<(u32, u32)>,
    /// A load's view of its staged tile over the node's space.
    pub(super) view: Option<u32>,
    /// A gather's entry in the program's gathers and its index tensor's view.
    pub(super) gather: Option<(u8, u32)>,
    /// A reduction's accumulator over the output axes, in the accumulator dtype.
    pub(super) accumulator: Option<(u32, u32)>,
    /// A broadcast's last fill: the source's copy generation and the box.
    pub(super) filled: Option<(u64, u32)>,
    /// An arg reduction's value accumulator, or a scan's carry: its address, its
    /// strides over `second_space`, and its strides over the space the fold or scan
    /// runs over (0 along the reduced or scanned axis).
    pub(super) second: Option<(u32, u32, u32)>,
    /// The space `second` is filled over: the statement's axes for an arg reduction,
    /// those without the scan axis for a scan.
    pub(super) second_space: usize,
    /// Bytes per element its instruction is charged for.
    pub(super) width: u8,
    /// Which step of a chain the node is (1 for the first), 0 for other nodes: a chain
    /// is one node per step (see [`plan::preorder`]).
    pub(super) step: usize,
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
pub(super) struct Selected {
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

/// The temporaries of each (statement, node), in plan order.
type TempsByNode<'t> = HashMap<(usize, usize), Vec<&'t plan::TempSpec>>;

/// The statements as nodes with their buffers, and the spaces (axis lists) the nodes
/// are evaluated over.
pub(super) fn build_statements<'e>(
    lowering: &mut Lowering<'e>,
) -> (Vec<Statement<'e>>, Vec<Vec<usize>>) {
    let kernel = lowering.kernel;
    let tiles = lowering.schedule.tiles.clone();
    let temps = plan::temps(kernel, &tiles, kernel.target.align.ub);
    let temps = temps_by_node(&temps);
    let locals = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Local)
        .count();
    let mut builder = StatementBuilder {
        first_temp: lowering.schedule.stages.len() + locals,
        lowering,
        tiles,
        spaces: vec![kernel.output_axes().to_vec()],
    };
    let statements = (kernel.body.iter().enumerate())
        .map(|(index, assign)| builder.statement(index, assign, &temps))
        .collect();
    (statements, builder.spaces)
}

/// Builds the statements' nodes, adding the spaces they are evaluated over as it goes.
struct StatementBuilder<'l, 'e> {
    lowering: &'l mut Lowering<'e>,
    /// The schedule's tile extent of each axis.
    tiles: Vec<u64>,
    /// The placement index of the first temporary.
    first_temp: usize,
    spaces: Vec<Vec<usize>>,
}

impl<'e> StatementBuilder<'_, 'e> {
    /// One statement as nodes, each knowing where its value is read from.
    fn statement(
        &mut self,
        index: usize,
        assign: &'e Assign,
        temps: &TempsByNode,
    ) -> Statement<'e> {
        let kernel = self.lowering.kernel;
        let outer = assign.axes.clone();
        let space = space_index(&mut self.spaces, outer.clone());
        let mut nodes = Vec::new();
        build(&assign.value, space, &outer, &mut self.spaces, &mut nodes);
        for (node_index, node) in nodes.iter_mut().enumerate() {
            let specs = temps
                .get(&(index, node_index))
                .map_or(&[][..], Vec::as_slice);
            node.value = self.node_value(node, specs, &outer);
        }
        let output_dims = self.lowering.tensors[assign.output]
            .axes
            .iter()
            .flatten()
            .copied()
            .collect::<Vec<_>>();
        debug_assert_eq!(output_dims, outer);
        let output_bytes = kernel.tensors[assign.output].dtype.size();
        let output_strides = self.dense_view(&outer, output_bytes);
        Statement {
            output: assign.output,
            nodes,
            output_strides,
            space,
            local: self.local_address(assign.output),
        }
    }

    /// Where a node's value is read from, filling in the node's views and accumulators
    /// on the way.
    fn node_value(
        &mut self,
        node: &mut Node<'e>,
        specs: &[&plan::TempSpec],
        outer: &[usize],
    ) -> Value {
        let expr = node.expr;
        let dims = self.spaces[node.space].clone();
        let (temp, second) = self.temp_addresses(expr, specs);
        if let Some(value) = constant_value(expr) {
            return Value::Scalar(self.lowering.constant(value));
        }
        match expr {
            Expr::Param { tensor, .. } => Value::Param(*tensor as u16),
            Expr::Load {
                tensor, subscripts, ..
            } => self.load_value(node, *tensor, subscripts, &dims, temp),
            Expr::Reduce { .. } => self.reduce_value(node, outer, temp, second),
            Expr::Scan { .. } => self.scan_value(node, &dims, temp, second),
            Expr::Compare { .. } => node_buffer(temp, self.dense_view(&dims, 1)),
            _ => node_buffer(temp, self.dense_view(&dims, expr.dtype().size())),
        }
    }

    /// The addresses of a node's first two temporaries: its value's (for a scan its
    /// result, not its carry) and its second (an arg reduction's value accumulator, a
    /// scan's carry).
    fn temp_addresses(&self, expr: &Expr, specs: &[&plan::TempSpec]) -> (Option<u32>, Option<u32>) {
        let address_of = |t: &&plan::TempSpec| {
            self.lowering.program.buffers[self.first_temp + t.buffer].address as u32
        };
        let scan = matches!(expr, Expr::Scan { .. });
        // A scan's result is its temporary; its carry is the accumulator.
        let temp = specs
            .iter()
            .find(|t| t.kind == BufferKind::Temp || !scan)
            .map(address_of);
        let second = specs
            .get(1)
            .or_else(|| {
                specs
                    .iter()
                    .find(|t| t.kind == BufferKind::Accumulator && scan)
            })
            .map(address_of);
        (temp, second)
    }

    /// A load's value: its broadcast temporary, an intermediate read in place, or its
    /// staged tile, seen through the load's view over `dims`.
    fn load_value(
        &mut self,
        node: &mut Node<'e>,
        tensor: usize,
        subscripts: &[Subscript],
        dims: &[usize],
        temp: Option<u32>,
    ) -> Value {
        let info = &self.lowering.tensors[tensor];
        let strides: Vec<u64> = dims.iter().map(|a| info.buffer_stride(*a)).collect();
        let view = self.lowering.strides(strides);
        node.view = Some(view);
        node.gather = gather_entry(self.lowering, tensor, subscripts, dims);
        let local = self.local_address(tensor);
        match (temp, local) {
            // A broadcast: the copy into the temporary reads `view`.
            (Some(address), _) => Value::Buffer {
                address,
                strides: self.dense_view(dims, node.expr.dtype().size()),
            },
            // An intermediate is read in place.
            (None, Some(address)) => Value::Buffer {
                address,
                strides: view,
            },
            (None, None) => Value::Staged {
                tensor,
                strides: view,
            },
        }
    }

    /// A reduction's value, its accumulator over the output axes; also the node's views
    /// of the accumulator (and an arg reduction's value accumulator) the fold writes.
    fn reduce_value(
        &mut self,
        node: &mut Node<'e>,
        outer: &[usize],
        temp: Option<u32>,
        second: Option<u32>,
    ) -> Value {
        let Expr::Reduce {
            op,
            dtype,
            accumulator,
            axes,
            ..
        } = node.expr
        else {
            unreachable!("reduce_value is called on reductions")
        };
        // An arg reduction's accumulator is its index, in its dtype.
        let acc = if op.is_arg() {
            dtype.size()
        } else {
            accumulator.size()
        };
        let address = temp.expect("the plan gives every reduction an accumulator");
        // A sum in lanes keeps each output's lanes side by side: its accumulator (and
        // its value, once the lanes are folded into the first) is every output's
        // first lane.
        let lanes = u64::from(self.lowering.kernel.fold_lanes(node.expr));
        let mut folded = dense(&self.tiles, outer, acc * lanes);
        let accumulator_view = self.lowering.strides(folded.clone());
        node.accumulator = Some((address, accumulator_view));
        folded.extend(axes.iter().map(|_| 0));
        node.dest = Some((address, self.lowering.strides(folded)));
        if op.is_arg() {
            let values = second.expect("an arg reduction has a value accumulator");
            let mut folded = dense(&self.tiles, outer, accumulator.size());
            let own = self.lowering.strides(folded.clone());
            folded.extend(axes.iter().map(|_| 0));
            node.second = Some((values, own, self.lowering.strides(folded)));
        }
        let strides = match lanes {
            1 => self.dense_view(outer, dtype.size()),
            _ => accumulator_view,
        };
        Value::Buffer { address, strides }
    }

    /// A scan's value, its temporary; also its carry's views over the axes other than
    /// the scan axis and over the scan's space (stride 0 along the scan axis).
    fn scan_value(
        &mut self,
        node: &mut Node<'e>,
        dims: &[usize],
        temp: Option<u32>,
        second: Option<u32>,
    ) -> Value {
        let Expr::Scan {
            axis, accumulator, ..
        } = node.expr
        else {
            unreachable!("scan_value is called on scans")
        };
        let carry = second.expect("the plan gives every scan a carry");
        let carry_dims: Vec<usize> = dims.iter().copied().filter(|a| a != axis).collect();
        let own = dense(&self.tiles, &carry_dims, accumulator.size());
        let mut over = own.clone();
        let position = dims.iter().position(|a| a == axis).unwrap_or(0);
        over.insert(position, 0);
        let (own, over) = (self.lowering.strides(own), self.lowering.strides(over));
        node.second = Some((carry, own, over));
        node.second_space = space_index(&mut self.spaces, carry_dims);
        node_buffer(temp, self.dense_view(dims, node.expr.dtype().size()))
    }

    /// The strides entry of a dense tile over `dims`.
    fn dense_view(&mut self, dims: &[usize], element_bytes: u64) -> u32 {
        self.lowering
            .strides(dense(&self.tiles, dims, element_bytes))
    }

    /// The ub address of a `let` intermediate; `None` for other tensors.
    fn local_address(&self, tensor: usize) -> Option<u32> {
        if self.lowering.kernel.tensors[tensor].role != Role::Local {
            return None;
        }
        self.lowering
            .program
            .buffers
            .iter()
            .find(|b| b.kind == BufferKind::Tensor(tensor) && b.level == Level::Ub)
            .map(|b| b.address as u32)
    }
}

/// The temporaries of each (statement, node), in plan order: one pass over the plan,
/// where a search of it per node took time quadratic in a long chain's steps.
fn temps_by_node(temps: &[plan::TempSpec]) -> TempsByNode<'_> {
    let mut by_node: HashMap<(usize, usize), Vec<&plan::TempSpec>> = HashMap::new();
    for spec in temps {
        by_node
            .entry((spec.statement, spec.node))
            .or_default()
            .push(spec);
    }
    by_node
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

fn node(expr: &Expr, space: usize, step: usize) -> Node<'_> {
    Node {
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
        step,
    }
}

/// Appends the steps of a chain after its last (already at the end of `nodes`), then
/// its operands, each step reading the step before it (or the first operand) and its
/// own operand: the numbering of [`plan::preorder`], in a loop over the operands.
fn build_chain<'e>(
    expr: &'e Expr,
    space: usize,
    outer: &[usize],
    spaces: &mut Vec<Vec<usize>>,
    nodes: &mut Vec<Node<'e>>,
) {
    let last = nodes.len() - 1;
    let operands = expr.children();
    let steps = operands.len() - 1;
    for offset in 1..steps {
        nodes.push(node(expr, space, plan::chain_step(expr, offset)));
    }
    let mut value_so_far = 0;
    for (position, operand) in operands.into_iter().enumerate() {
        let operand_index = build(operand, space, outer, spaces, nodes);
        if position == 0 {
            value_so_far = operand_index;
            continue;
        }
        let step = last + steps - position;
        nodes[step].children = [value_so_far, operand_index, 0];
        nodes[step].arity = 2;
        value_so_far = step;
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
    nodes.push(node(expr, space, plan::chain_step(expr, 0)));
    let (children, inner): (Vec<&Expr>, usize) = match expr {
        Expr::Chain { .. } => {
            build_chain(expr, space, outer, spaces, nodes);
            return index;
        }
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
