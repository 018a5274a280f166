//! The data a core works on and what each instruction does to it.
//!
//! Every memory holds values, not bits: a level is an array of `f64` indexed by byte
//! address (an element lives at the address of its first byte), global memory an
//! array of elements per tensor. Each result is rounded to its dtype with
//! [`npu_core::scalar`], exactly as the host reference rounds it, so a correct program
//! reproduces the reference bit for bit wherever it adds in the same order. The cube
//! multiplies exactly and accumulates in f32 (i32 for integers), rounding after each
//! addition.

use npu_core::ir::ScanOp;
use npu_core::program::{CopyShape, Op, Operand, Program, VectorInstr, VectorKind};
use npu_core::scalar::{self, IndexError};
use npu_core::target::{Level, Target};

use crate::engine::level_index;

#[derive(Debug)]
pub(crate) struct Machine {
    levels: [Vec<f64>; 5],
    /// Global memory: each tensor's elements, in kernel order.
    pub gm: Vec<Vec<f64>>,
    /// In a program that gathers, for each UB byte address a gather index was copied
    /// to, the element of its tensor it came from, so that an out-of-range index is
    /// reported at its position in the tensor. Empty otherwise.
    origins: Vec<u64>,
}

/// Why an instruction could not run: the program is broken, or a gather met an index
/// outside its table (the data's fault, not the program's).
#[derive(Debug)]
pub(crate) enum Fault {
    Bad(String),
    Index(npu_core::scalar::IndexError),
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault::Bad(message)
    }
}

impl From<&str> for Fault {
    fn from(message: &str) -> Fault {
        Fault::Bad(message.to_string())
    }
}

impl Machine {
    /// On-chip memories as large as the program's buffers reach (an access past them
    /// is outside every buffer, so it is reported rather than silently allowed).
    pub fn new(target: &Target, program: &Program, gm: Vec<Vec<f64>>) -> Machine {
        let level =
            |level: Level| vec![f64::NAN; program.peak(level).min(target.capacity(level)) as usize];
        let origins = if program.gathers.is_empty() {
            Vec::new()
        } else {
            vec![u64::MAX; program.peak(Level::Ub).min(target.capacity(Level::Ub)) as usize]
        };
        Machine {
            origins,
            levels: [
                level(Level::Ub),
                level(Level::L1),
                level(Level::L0a),
                level(Level::L0b),
                level(Level::L0c),
            ],
            gm,
        }
    }

    /// Forgets on-chip data between cores, up to each level's peak.
    pub fn clear(&mut self, program: &Program) {
        for level in Level::ALL {
            let memory = &mut self.levels[level_index(level)];
            let peak = (program.peak(level) as usize).min(memory.len());
            memory[..peak].fill(f64::NAN);
        }
    }

    pub fn execute(&mut self, program: &Program, op: &Op, gm_base: &[u64]) -> Result<(), Fault> {
        match *op {
            Op::Loop | Op::SetFlag { .. } | Op::WaitFlag { .. } | Op::Barrier => Ok(()),
            Op::CopyIn {
                tensor,
                gm,
                level,
                address,
                shape,
                ..
            } => {
                let copy = shape_of(program, shape)?;
                let base = base(gm_base, tensor, gm)?;
                let (source, dest) = (
                    &self.gm[usize::from(tensor)],
                    &mut self.levels[level_index(level)],
                );
                let indexes =
                    level == Level::Ub && program.gathers.iter().any(|g| g.index == tensor);
                let origins = &mut self.origins;
                Ok(copy_box(copy, |offset, buffer| {
                    if indexes
                        && let Some(origin) = origins.get_mut(address as usize + buffer as usize)
                    {
                        *origin = base.saturating_add(offset);
                    }
                    let value = *source
                        .get(base.saturating_add(offset) as usize)
                        .ok_or("reads past the end of its tensor")?;
                    *dest
                        .get_mut(address as usize + buffer as usize)
                        .ok_or("writes past the end of its level")? = value;
                    Ok(())
                })?)
            }
            Op::CopyOut {
                tensor,
                gm,
                address,
                shape,
                ..
            } => {
                let copy = shape_of(program, shape)?;
                let base = base(gm_base, tensor, gm)?;
                let source = &self.levels[level_index(Level::Ub)];
                let dest = self
                    .gm
                    .get_mut(usize::from(tensor))
                    .ok_or("names no tensor")?;
                Ok(copy_box(copy, |offset, buffer| {
                    let value = *source
                        .get(address as usize + buffer as usize)
                        .ok_or("reads past the end of ub")?;
                    *dest
                        .get_mut(base.saturating_add(offset) as usize)
                        .ok_or("writes past the end of its tensor")? = value;
                    Ok(())
                })?)
            }
            Op::Vector(ref v) => self.vector(program, v),
            Op::LoadL0 {
                level,
                source,
                source_row_bytes,
                dest,
                dest_row_bytes,
                rows,
                cols,
                dtype,
            } => {
                let size = dtype.size() as usize;
                let [l1, l0] = self.levels_mut(Level::L1, level);
                for row in 0..rows as usize {
                    for col in 0..cols as usize {
                        let from = source as usize + row * source_row_bytes as usize + col * size;
                        let to = dest as usize + row * dest_row_bytes as usize + col * size;
                        *l0.get_mut(to).ok_or("writes past the end of l0")? =
                            *l1.get(from).ok_or("reads past the end of l1")?;
                    }
                }
                Ok(())
            }
            Op::Mmad {
                a,
                b,
                c,
                m,
                n,
                k,
                init,
                dtype,
            } => {
                let [cm_block, cn_block, ck_block] = program
                    .cube
                    .ok_or("mmad in a program without a cube block")?;
                let (cn_block, ck_block) = (cn_block as usize, ck_block as usize);
                let _ = cm_block;
                let size = dtype.size() as usize;
                let accumulator = dtype.accumulator();
                let acc_bytes = accumulator.size() as usize;
                let [l0a, l0b, l0c] = &mut self.levels[2..5] else {
                    unreachable!()
                };
                for i in 0..m as usize {
                    for j in 0..n as usize {
                        let at = c as usize + (i * cn_block + j) * acc_bytes;
                        let mut acc = if init {
                            0.0
                        } else {
                            *l0c.get(at).ok_or("reads past the end of l0c")?
                        };
                        for kk in 0..k as usize {
                            let x = *l0a
                                .get(a as usize + (i * ck_block + kk) * size)
                                .ok_or("reads past the end of l0a")?;
                            let y = *l0b
                                .get(b as usize + (kk * cn_block + j) * size)
                                .ok_or("reads past the end of l0b")?;
                            acc = accumulator.round(acc + x * y);
                        }
                        *l0c.get_mut(at).ok_or("writes past the end of l0c")? = acc;
                    }
                }
                Ok(())
            }
            Op::Fixpipe {
                source,
                source_row_bytes,
                tensor,
                gm,
                gm_row_stride,
                rows,
                cols,
                dtype,
            } => {
                let base = base(gm_base, tensor, gm)?;
                let l0c = &self.levels[level_index(Level::L0c)];
                let dest = self
                    .gm
                    .get_mut(usize::from(tensor))
                    .ok_or("names no tensor")?;
                for row in 0..u64::from(rows) {
                    for col in 0..u64::from(cols) {
                        let from = source as usize
                            + (row * u64::from(source_row_bytes) + col * 4) as usize;
                        let value = *l0c.get(from).ok_or("reads past the end of l0c")?;
                        let to = base
                            .saturating_add(row.saturating_mul(gm_row_stride))
                            .saturating_add(col) as usize;
                        *dest
                            .get_mut(to)
                            .ok_or("writes past the end of its tensor")? = dtype.round(value);
                    }
                }
                Ok(())
            }
        }
    }

    fn levels_mut(&mut self, a: Level, b: Level) -> [&mut Vec<f64>; 2] {
        let (i, j) = (level_index(a), level_index(b));
        let [ub, l1, l0a, l0b, l0c] = &mut self.levels;
        let mut all = [Some(ub), Some(l1), Some(l0a), Some(l0b), Some(l0c)];
        let first = all[i].take().expect("distinct levels");
        let second = all[j].take().expect("distinct levels");
        [first, second]
    }

    fn vector(&mut self, program: &Program, v: &VectorInstr) -> Result<(), Fault> {
        let extents = program.boxes.get(v.shape as usize).ok_or("names no box")?;
        let strides = |index: u32| {
            program
                .strides
                .get(index as usize)
                .map(Vec::as_slice)
                .ok_or("names no strides")
        };
        let mut views: [(usize, &[u64]); 4] = [
            (v.dst as usize, strides(v.dst_strides)?),
            (0, &[]),
            (0, &[]),
            (0, &[]),
        ];
        let mut scalars = [f64::NAN; 3];
        let mut is_scalar = [true; 3];
        for (slot, operand) in v.src.iter().enumerate() {
            match *operand {
                Operand::None => {}
                Operand::Ub {
                    address,
                    strides: s,
                } => {
                    views[slot + 1] = (address as usize, strides(s)?);
                    is_scalar[slot] = false;
                }
                Operand::Scalar(index) => {
                    scalars[slot] = *program
                        .constants
                        .get(index as usize)
                        .ok_or("names no constant")?;
                }
                Operand::Param(tensor) => {
                    // The scalar register the core was given the parameter's value in.
                    scalars[slot] = *self
                        .gm
                        .get(usize::from(tensor))
                        .and_then(|values| values.first())
                        .ok_or("names no scalar parameter")?;
                }
            }
        }
        if views
            .iter()
            .enumerate()
            .any(|(slot, (_, s))| (slot == 0 || !is_scalar[slot - 1]) && s.len() != extents.len())
        {
            return Err("has strides of another rank than its box".into());
        }
        let gather = match v.kind {
            VectorKind::Gather(g) => {
                Some(program.gathers.get(g as usize).ok_or("names no gather")?)
            }
            _ => None,
        };
        let ub = &mut self.levels[level_index(Level::Ub)];
        let rank = extents.len();
        if extents.contains(&0) {
            return Ok(());
        }
        let mut index = vec![0u64; rank];
        let mut offsets = [views[0].0, views[1].0, views[2].0, views[3].0];
        let dtype = v.dtype;
        loop {
            let mut read = [0.0f64; 3];
            for slot in 0..3 {
                read[slot] = if is_scalar[slot] {
                    scalars[slot]
                } else {
                    *ub.get(offsets[slot + 1])
                        .ok_or("reads past the end of ub")?
                };
            }
            if let Some(gather) = gather {
                // The index, checked before the row it names is read.
                let row = IndexError::check(read[1], gather.extent, || {
                    let flat = self.origins.get(offsets[2]).copied().unwrap_or(u64::MAX);
                    IndexError {
                        index: tensor_name(program, gather.index),
                        position: IndexError::position_of(flat, &gather.index_shape),
                        value: read[1] as i64,
                        table: tensor_name(program, gather.table),
                        dim: gather.dim as usize,
                        extent: gather.extent,
                    }
                })
                .map_err(Fault::Index)?;
                let at = offsets[1] + (row * gather.row_bytes) as usize;
                read[0] = *ub.get(at).ok_or("reads past the end of ub")?;
            }
            match v.kind {
                // The index of this element along the reduced last dimension, and
                // the running value beside the index (see `VectorKind::Reduce`).
                VectorKind::Reduce(op, _) if op.is_arg() => {
                    if scalar::arg_takes(op, read[1], read[0]) {
                        let position = read[2] + index[rank - 1] as f64;
                        *ub.get_mut(offsets[2]).ok_or("writes past the end of ub")? = read[0];
                        *ub.get_mut(offsets[0]).ok_or("writes past the end of ub")? = position;
                    }
                }
                // The carry takes the step; the element gets it rounded.
                VectorKind::Cumsum(accumulator) | VectorKind::Cumprod(accumulator) => {
                    let op = v.kind.scan().map_or(ScanOp::Sum, |(op, _)| op);
                    let carry = scalar::scan_step(op, accumulator, read[1], read[0]);
                    *ub.get_mut(offsets[2]).ok_or("writes past the end of ub")? = carry;
                    *ub.get_mut(offsets[0]).ok_or("writes past the end of ub")? =
                        dtype.round(carry);
                }
                _ => self::elementwise(v.kind, dtype, ub, offsets[0], read)?,
            }
            // Advance the odometer, innermost dimension fastest.
            let mut dim = rank;
            loop {
                if dim == 0 {
                    return Ok(());
                }
                dim -= 1;
                index[dim] += 1;
                for (slot, offset) in offsets.iter_mut().enumerate() {
                    if let Some(stride) = views[slot].1.get(dim) {
                        *offset += *stride as usize;
                    }
                }
                if index[dim] < extents[dim] {
                    break;
                }
                for (slot, offset) in offsets.iter_mut().enumerate() {
                    if let Some(stride) = views[slot].1.get(dim) {
                        *offset -= (*stride * extents[dim]) as usize;
                    }
                }
                index[dim] = 0;
            }
        }
    }
}

fn tensor_name(program: &Program, tensor: u16) -> String {
    program
        .tensors
        .get(usize::from(tensor))
        .cloned()
        .unwrap_or_else(|| format!("t{tensor}"))
}

/// One element of an elementwise vector instruction (or a plain fold) into `dst`.
fn elementwise(
    kind: VectorKind,
    dtype: npu_core::Dtype,
    ub: &mut [f64],
    dst: usize,
    read: [f64; 3],
) -> Result<(), String> {
    let dst = ub.get_mut(dst).ok_or("writes past the end of ub")?;
    *dst = match kind {
        VectorKind::Dup | VectorKind::Copy | VectorKind::Gather(_) => read[0],
        VectorKind::Unary(op) => scalar::unary(op, dtype, read[0]),
        VectorKind::Binary(op) => scalar::binary(op, dtype, read[0], read[1]),
        VectorKind::Compare(op) => f64::from(u8::from(scalar::compare(op, read[0], read[1]))),
        VectorKind::Select => {
            if read[0] != 0.0 {
                read[1]
            } else {
                read[2]
            }
        }
        VectorKind::Cast => scalar::cast(dtype, read[0]),
        VectorKind::SatCast => scalar::cast_saturating(dtype, read[0]),
        VectorKind::Reduce(op, accumulator) => {
            scalar::reduce_step_in(op, accumulator, *dst, read[0])
        }
        VectorKind::Cumsum(_) | VectorKind::Cumprod(_) => {
            return Err("a scan is not elementwise".into());
        }
    };
    Ok(())
}

fn shape_of(program: &Program, shape: u32) -> Result<&CopyShape, String> {
    program
        .copies
        .get(shape as usize)
        .ok_or_else(|| "names no copy shape".to_string())
}

/// The global-memory element `gm` of `tensor`. A sum past `u64` is an error, as any
/// other address outside the tensor is.
fn base(gm_base: &[u64], tensor: u16, gm: u64) -> Result<u64, String> {
    gm_base
        .get(usize::from(tensor))
        .ok_or("names no tensor")?
        .checked_add(gm)
        .ok_or_else(|| "addresses past the end of global memory".to_string())
}

/// Calls `f(gm element offset, buffer byte offset)` for every element of a copy.
fn copy_box(
    copy: &CopyShape,
    mut f: impl FnMut(u64, u64) -> Result<(), &'static str>,
) -> Result<(), String> {
    let dims = &copy.dims;
    if dims.iter().any(|d| d.len == 0) {
        return Ok(());
    }
    let rank = dims.len();
    let mut index = vec![0u64; rank];
    let (mut gm, mut buffer) = (0u64, 0u64);
    loop {
        f(gm, buffer)?;
        let mut dim = rank;
        loop {
            if dim == 0 {
                return Ok(());
            }
            dim -= 1;
            index[dim] += 1;
            gm += dims[dim].gm_stride;
            buffer += dims[dim].buf_stride;
            if index[dim] < dims[dim].len {
                break;
            }
            gm -= dims[dim].gm_stride * dims[dim].len;
            buffer -= dims[dim].buf_stride * dims[dim].len;
            index[dim] = 0;
        }
    }
}
