//! The copy rules of the validator: a copy's bursts, where they lie on chip, and
//! whether a plain DataCopy or only a DataCopyPad can move them (see the parent
//! module for the rules).

use super::{Rule, Site, Validator};
use crate::program::{CopyDim, CopyShape, Op, Pipe};
use crate::target::Level;

impl Validator<'_> {
    /// A copy between global memory and `level`, as far as one instruction shows it;
    /// its global-memory start depends on the core and is checked in
    /// [`Validator::global_memory`].
    pub(super) fn copy(
        &mut self,
        site: Site,
        level: Level,
        address: u32,
        shape: u32,
        padded: bool,
    ) {
        let copy = &self.program.copies[shape as usize];
        let align = self.target.alignment(level);
        let runs = Bursts::of(copy);
        let address = u64::from(address);
        // DataCopyPad writes from the alignment block its data starts in (its left
        // padding), so a padded copy's data may start anywhere; a DataCopy's may not.
        let lead = if padded {
            address % align
        } else {
            self.aligned(site, level, address);
            0
        };
        for dim in &runs.outer {
            if !dim.buf_stride.is_multiple_of(align) {
                let message = format!(
                    "bursts start every {} B on chip, not a multiple of the {align}-byte {level} alignment",
                    dim.buf_stride
                );
                self.report(Rule::Alignment, Some(site), message);
            }
        }
        let padded_burst = if runs.burst_bytes == 0 {
            0
        } else {
            (lead + runs.burst_bytes).div_ceil(align) * align
        };
        let last_burst: u64 = runs.outer.iter().map(|d| (d.len - 1) * d.buf_stride).sum();
        let end = if padded {
            address - lead + last_burst + padded_burst
        } else {
            address + last_burst + runs.burst_bytes
        };
        self.range(site, level, address, end);
        if padded {
            if let Some(dim) = runs.outer.last()
                && dim.buf_stride < padded_burst
            {
                let message = format!(
                    "padded bursts of {padded_burst} B overlap: they start every {} B on chip",
                    dim.buf_stride
                );
                self.report(Rule::Alignment, Some(site), message);
            }
            if copy.moved != runs.bursts * padded_burst {
                let message = format!(
                    "moves {} B, but {} bursts of {} B padded to {align} B from {lead} B into a block are {} B",
                    copy.moved,
                    runs.bursts,
                    runs.burst_bytes,
                    runs.bursts * padded_burst
                );
                self.report(Rule::Alignment, Some(site), message);
            }
            return;
        }
        if !runs.burst_bytes.is_multiple_of(align) {
            let message = format!(
                "unpadded bursts of {} B, not a multiple of the {align}-byte {level} alignment",
                runs.burst_bytes
            );
            self.report(Rule::Alignment, Some(site), message);
        }
        for dim in &runs.outer {
            let stride = dim.gm_stride * copy.element_bytes;
            if !stride.is_multiple_of(align) {
                let message = format!(
                    "unpadded bursts start every {stride} B in global memory, not a multiple of the {align}-byte {level} alignment"
                );
                self.report(Rule::Alignment, Some(site), message);
            }
        }
        if copy.moved != copy.bytes {
            let message = format!(
                "an unpadded copy of {} B that moves {} B",
                copy.bytes, copy.moved
            );
            self.report(Rule::Alignment, Some(site), message);
        }
    }

    /// Where each unpadded copy starts in global memory, on every core that runs it.
    /// The copies of a run in a compact class step by the distance between the first
    /// two, so when those two start aligned every copy does: the held ones stand for
    /// all.
    pub(super) fn global_memory(&mut self) {
        let program = self.program;
        for core in &program.cores {
            let code = program.code(core);
            for pipe in [Pipe::Mte2, Pipe::Mte3] {
                for instr in code.stream(pipe) {
                    let (tensor, gm, level, shape) = match instr.op {
                        Op::CopyIn {
                            tensor,
                            gm,
                            level,
                            shape,
                            padded: false,
                            ..
                        } => (tensor, gm, level, shape),
                        Op::CopyOut {
                            tensor,
                            gm,
                            shape,
                            padded: false,
                            ..
                        } => (tensor, gm, Level::Ub, shape),
                        _ => continue,
                    };
                    let size = program.copies[shape as usize].element_bytes;
                    let start = (core.gm_base[usize::from(tensor)] + gm) * size;
                    let align = self.target.alignment(level);
                    if !start.is_multiple_of(align) {
                        let message = format!(
                            "core {} starts an unpadded copy at byte {start} of `{}` in global memory, not a multiple of the {align}-byte {level} alignment",
                            core.core,
                            program.tensors[usize::from(tensor)]
                        );
                        let site = Site {
                            class: core.class,
                            pipe,
                            op: &instr.op,
                        };
                        self.report(Rule::Alignment, Some(site), message);
                    }
                }
            }
        }
    }
}

/// The bursts of a copy: its innermost dimensions that are contiguous both in global
/// memory and on chip form one run; the dimensions outside it (of more than one
/// element) repeat the run.
struct Bursts {
    burst_bytes: u64,
    bursts: u64,
    /// The repeating dimensions, outermost first.
    outer: Vec<CopyDim>,
}

impl Bursts {
    fn of(copy: &CopyShape) -> Bursts {
        let size = copy.element_bytes;
        let mut dims: Vec<_> = copy.dims.iter().copied().filter(|d| d.len > 1).collect();
        let (mut run, mut gm, mut buf) = (1u64, 1u64, size);
        while let Some(dim) = dims.last() {
            if dim.gm_stride != gm || dim.buf_stride != buf {
                break;
            }
            run *= dim.len;
            gm *= dim.len;
            buf *= dim.len;
            dims.pop();
        }
        let empty = copy.dims.iter().any(|d| d.len == 0);
        Bursts {
            burst_bytes: if empty { 0 } else { run * size },
            bursts: dims.iter().map(|d| d.len).product(),
            outer: dims,
        }
    }
}
