//! The vector rules of the validator: repeats, operands in UB, units and dtypes, a
//! gather's views (see the parent module for the rules).

use super::{Rule, Site, Validator};
use crate::ir::ReduceOp;
use crate::program::{Operand, VectorInstr, VectorKind};
use crate::target::Level;

impl Validator<'_> {
    /// Checks one vector instruction against every vector rule, in the order its
    /// reports are listed.
    pub(super) fn vector(&mut self, site: Site, v: &VectorInstr) {
        let elements: u64 = self.program.boxes[v.shape as usize].iter().product();
        self.vector_elements(site, v, elements);
        self.vector_unit(site, v);
        self.vector_accumulator(site, v);
        self.vector_repeats(site, v, elements);
        if elements > 0 {
            self.vector_views(site, v);
        }
    }

    /// The instruction's element count is its box's.
    fn vector_elements(&mut self, site: Site, v: &VectorInstr, elements: u64) {
        if elements != u64::from(v.elements) {
            let message = format!(
                "says it covers {} elements but its box holds {elements}",
                v.elements
            );
            self.report(Rule::Structure, Some(site), message);
        }
    }

    /// The vector unit computes the instruction's dtype (unless it only moves data) and
    /// its operation.
    fn vector_unit(&mut self, site: Site, v: &VectorInstr) {
        let arithmetic = !matches!(
            v.kind,
            VectorKind::Dup
                | VectorKind::Copy
                | VectorKind::Cast
                | VectorKind::SatCast
                | VectorKind::Gather(_)
        );
        // A `vpairsum` adds lanes in their accumulator registers.
        let computes = match v.kind {
            VectorKind::PairSum => self.target.accumulates_in(v.dtype),
            _ => self.target.computes_in(v.dtype),
        };
        if arithmetic && !computes {
            let names: Vec<&str> = self.target.vector.dtypes.iter().map(|d| d.name()).collect();
            let message = format!(
                "computes in {}, but the vector unit of `{}` computes in {}",
                v.dtype,
                self.target.name,
                names.join(", ")
            );
            self.report(Rule::Unit, Some(site), message);
        }
        let op = v.kind.cost_op();
        if !self.target.computes(op) {
            let message = format!(
                "is `{}`, which the vector unit of `{}` does not compute (no `vector.cycles.{}`)",
                v.kind.mnemonic(),
                self.target.name,
                op.name()
            );
            self.report(Rule::Unit, Some(site), message);
        }
        if v.kind == VectorKind::Select && !self.program.selects {
            let message = "is a `vsel` in a program not marked `selects`, so its plan may reach the vendor library's scratch".to_string();
            self.report(Rule::Capacity, Some(site), message);
        }
    }

    /// A fold or scan accumulates in a dtype the vector unit computes or accumulates
    /// in, and a multiply-accumulate fold holds every product exactly.
    fn vector_accumulator(&mut self, site: Site, v: &VectorInstr) {
        if let VectorKind::Reduce(_, accumulator)
        | VectorKind::Cumsum(accumulator)
        | VectorKind::Cumprod(accumulator) = v.kind
            && !self.target.accumulates_in(accumulator)
        {
            let message = format!(
                "accumulates in {accumulator}, which the vector unit of `{}` neither computes nor accumulates in",
                self.target.name
            );
            self.report(Rule::Unit, Some(site), message);
        }
        // A fold with a second source multiplies the two first (a multiply-accumulate),
        // which only a sum whose accumulator holds every product does exactly.
        if let VectorKind::Reduce(op, accumulator) = v.kind
            && !op.is_arg()
            && v.src[1] != Operand::None
            && (op != ReduceOp::Sum || !accumulator.holds_products(v.dtype))
        {
            let message = format!(
                "multiplies {} values before folding them in {accumulator}, which holds not every product",
                v.dtype
            );
            self.report(Rule::Unit, Some(site), message);
        }
    }

    /// The instruction's elements at its widest operand fit the repeats the target
    /// issues at most.
    fn vector_repeats(&mut self, site: Site, v: &VectorInstr, elements: u64) {
        let (dst_bytes, src_bytes) = operand_bytes(v);
        let width = dst_bytes
            .max(src_bytes.iter().copied().max().unwrap_or(0))
            .max(u64::from(v.width));
        let repeat_bytes = self.target.vector.repeat_bytes;
        let repeats = (elements * width).div_ceil(repeat_bytes);
        let max_repeat = self.target.vector.max_repeat;
        if repeats > max_repeat {
            let message = format!(
                "{elements} elements of {width} B need {repeats} repeats of {repeat_bytes} B but `{}` issues at most {max_repeat}",
                self.target.name
            );
            self.report(Rule::Repeats, Some(site), message);
        }
    }

    /// Every view the instruction writes or reads lies in UB.
    fn vector_views(&mut self, site: Site, v: &VectorInstr) {
        for (address, end) in self.vector_view_ranges(v) {
            self.range(site, Level::Ub, u64::from(address), end);
        }
    }

    /// The start and end of each view of a vector instruction in UB: its destination,
    /// then its sources in UB, a gather's table moved by up to `extent - 1` rows and
    /// its index view in the index's dtype.
    fn vector_view_ranges(&self, v: &VectorInstr) -> Vec<(u32, u64)> {
        let program = self.program;
        let extents = &program.boxes[v.shape as usize];
        let view_end = |address: u32, index: u32, bytes: u64| {
            let last: u64 = program.strides[index as usize]
                .iter()
                .zip(extents)
                .map(|(stride, extent)| extent.saturating_sub(1) * stride)
                .sum();
            u64::from(address) + last + bytes
        };
        let (dst_bytes, src_bytes) = operand_bytes(v);
        let mut views = vec![(v.dst, view_end(v.dst, v.dst_strides, dst_bytes))];
        for (operand, bytes) in v.src.iter().zip(src_bytes) {
            if let Operand::Ub { address, strides } = *operand {
                views.push((address, view_end(address, strides, bytes)));
            }
        }
        if let VectorKind::Gather(g) = v.kind
            && let Some(gather) = program.gathers.get(g as usize)
            && let [
                Operand::Ub {
                    address,
                    strides: table,
                },
                Operand::Ub {
                    address: index,
                    strides: index_strides,
                },
                _,
            ] = v.src
        {
            let rows = gather
                .extent
                .saturating_sub(1)
                .saturating_mul(gather.row_bytes);
            views.truncate(1);
            views.push((
                address,
                view_end(address, table, dst_bytes).saturating_add(rows),
            ));
            views.push((
                index,
                view_end(index, index_strides, gather.index_dtype.size()),
            ));
        }
        views
    }
}

/// Bytes per element of a vector instruction's destination and of each source. A
/// cast's source dtype is not in the instruction: counted from its recorded width
/// when that is wider than the result, else at one byte (its first).
fn operand_bytes(v: &VectorInstr) -> (u64, [u64; 3]) {
    let size = v.dtype.size();
    let width = u64::from(v.width);
    match v.kind {
        VectorKind::Compare(_) => (1, [size; 3]),
        VectorKind::Select => (size, [1, size, size]),
        // An arg reduction's destination is the index, its sources the values.
        VectorKind::Reduce(op, accumulator) if op.is_arg() => (size, [accumulator.size(); 3]),
        VectorKind::Reduce(_, accumulator) => (accumulator.size(), [size; 3]),
        VectorKind::Cumsum(accumulator) | VectorKind::Cumprod(accumulator) => {
            (size, [size, accumulator.size(), size])
        }
        VectorKind::Cast | VectorKind::SatCast if width > size => (size, [width; 3]),
        VectorKind::Cast | VectorKind::SatCast => (size, [1; 3]),
        VectorKind::Dup
        | VectorKind::Copy
        | VectorKind::Unary(_)
        | VectorKind::Binary(_)
        | VectorKind::PairSum => (size, [size; 3]),
        // The index's bytes are its gather's; `vector` counts them.
        VectorKind::Gather(_) => (size, [size, 1, size]),
    }
}
