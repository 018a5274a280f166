//! The data a core works on and what each instruction does to it.
//!
//! Every memory holds elements in their own dtype ([`crate::storage`]): a level is
//! bytes indexed by byte address, with a tag per byte saying which dtype was last
//! written there, and global memory one encoded array per tensor. Each result is
//! rounded to its dtype exactly as [`npu_core::scalar`] and the host reference round
//! it, so a correct program reproduces the reference bit for bit wherever it adds in
//! the same order. Vector instructions run in [`crate::vector`], the cube's in
//! [`crate::cube`]; copies move bytes.
//!
//! In a program that gathers, the unified buffer also remembers, for every byte a
//! gather index was copied to, the element of its tensor it came from, so that an
//! out-of-range index is reported at its position in the index tensor.

use std::collections::BTreeMap;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use npu_core::program::{CopyShape, Op, Program};
use npu_core::target::{Implementation, Level as LevelKind, Target, VectorOp};

use crate::cube::{self, Gemm};
use crate::engine::level_index;
use crate::fault::Fault;
use crate::level::Level;
use crate::storage::{self, Global, Tensor, move_elements};
use crate::vector::{self, Lanes};

#[derive(Debug)]
pub(crate) struct Machine<'h> {
    levels: [Level; 5],
    /// Global memory: each tensor's elements, in kernel order.
    pub gm: Vec<Global<'h>>,
    /// The cube's packed operands, kept between instructions.
    gemm: Gemm,
    /// The vector unit's lanes, kept between instructions.
    lanes: Box<Lanes>,
    /// In a program that gathers, for each UB byte address a gather index was copied
    /// to, the element of its tensor it came from. Empty otherwise.
    origins: Vec<u64>,
    /// How the target computes each function ([`Target::implementation`]).
    functions: BTreeMap<VectorOp, Implementation>,
}

impl<'h> Machine<'h> {
    /// On-chip memories as large as the program's buffers reach (an access past them
    /// is outside every buffer, so it is reported rather than silently allowed).
    pub(crate) fn new(target: &Target, program: &Program, gm: Vec<Global<'h>>) -> Machine<'h> {
        let bytes = |level: LevelKind| program.peak(level).min(target.capacity(level)) as usize;
        let level = |level: LevelKind| Level::new(bytes(level));
        let origins = if program.gathers.is_empty() {
            Vec::new()
        } else {
            vec![u64::MAX; bytes(LevelKind::Ub)]
        };
        Machine {
            levels: [
                level(LevelKind::Ub),
                level(LevelKind::L1),
                level(LevelKind::L0a),
                level(LevelKind::L0b),
                level(LevelKind::L0c),
            ],
            gm,
            gemm: Gemm::default(),
            lanes: Box::default(),
            origins,
            functions: target.vector.functions.clone(),
        }
    }

    /// Forgets on-chip data between cores, up to each level's peak.
    pub(crate) fn clear(&mut self, program: &Program) {
        for level in LevelKind::ALL {
            self.levels[level_index(level)].clear(program.peak(level) as usize);
        }
    }

    pub(crate) fn execute(
        &mut self,
        program: &Program,
        op: &Op,
        gm_base: &[u64],
    ) -> Result<(), Fault> {
        match *op {
            Op::Vector(ref v) => {
                let gm = &self.gm;
                vector::execute(
                    &mut self.levels[level_index(LevelKind::Ub)],
                    &mut self.lanes,
                    program,
                    v,
                    &self.origins,
                    self.functions
                        .get(&v.kind.cost_op())
                        .copied()
                        .unwrap_or_default(),
                    |t| gm.get(usize::from(t)).and_then(Global::first),
                )
            }
            _ => Ok(self.transfer(program, op, gm_base)?),
        }
    }

    /// Every instruction but a vector one: copies, the cube and its fixpipe.
    fn transfer(&mut self, program: &Program, op: &Op, gm_base: &[u64]) -> Result<(), String> {
        match *op {
            Op::Loop | Op::SetFlag { .. } | Op::WaitFlag { .. } | Op::Barrier => Ok(()),
            Op::CopyIn { .. } => self.copy_in(program, op, gm_base),
            Op::CopyOut { .. } => self.copy_out(program, op, gm_base),
            Op::Vector(_) => Err("a vector instruction is not a transfer".into()),
            Op::LoadL0 { .. } => self.load_l0(op),
            Op::Mmad { .. } => self.mmad(program, op),
            Op::Fixpipe { .. } => self.fixpipe(op, gm_base),
        }
    }

    /// A copy from global memory into a level; a gather's index tile remembers where each
    /// element came from.
    fn copy_in(&mut self, program: &Program, op: &Op, gm_base: &[u64]) -> Result<(), String> {
        let Op::CopyIn {
            tensor,
            gm,
            level,
            address,
            shape,
            ..
        } = *op
        else {
            return Err(format!("{op:?} is not a copy into a level"));
        };
        let copy = shape_of(program, shape)?;
        let base = base(gm_base, tensor, gm)?;
        let source = self.gm.get(usize::from(tensor)).ok_or("names no tensor")?;
        let dest = &mut self.levels[level_index(level)];
        let size = source.dtype().size() as usize;
        let tag = storage::tag(source.dtype());
        // A gather's index tile remembers where each element came from.
        let mut origins =
            if level == LevelKind::Ub && program.gathers.iter().any(|g| g.index == tensor) {
                Some(&mut self.origins)
            } else {
                None
            };
        copy_rows(copy, size, |gm, buffer, len, gm_stride, buf_stride| {
            let from = element_range(base, gm, size, len, gm_stride)
                .filter(|range| range.end <= source.bytes().len())
                .ok_or("reads past the end of its tensor")?;
            let to = byte_range(address, buffer, size, len, buf_stride)
                .filter(|range| range.end <= dest.bytes.len())
                .ok_or("writes past the end of its level")?;
            move_elements(
                &source.bytes()[from],
                gm_stride * size,
                &mut dest.bytes[to.clone()],
                buf_stride,
                size,
                len,
            );
            if let Some(origins) = origins.as_deref_mut() {
                let first = base.saturating_add(gm);
                for i in 0..len {
                    if let Some(origin) = origins.get_mut(to.start + i * buf_stride) {
                        *origin = first.saturating_add((i * gm_stride) as u64);
                    }
                }
            }
            dest.tags[to].fill(tag);
            Ok(())
        })
    }

    /// A copy from UB to global memory, converting the values when the tile holds
    /// another dtype than the tensor.
    fn copy_out(&mut self, program: &Program, op: &Op, gm_base: &[u64]) -> Result<(), String> {
        let Op::CopyOut {
            tensor,
            gm,
            address,
            shape,
            ..
        } = *op
        else {
            return Err(format!("{op:?} is not a copy out"));
        };
        let copy = shape_of(program, shape)?;
        let base = base(gm_base, tensor, gm)?;
        let source = &self.levels[level_index(LevelKind::Ub)];
        let dest = self
            .gm
            .get_mut(usize::from(tensor))
            .ok_or("names no tensor")?
            .written();
        let size = dest.dtype.size() as usize;
        copy_rows(copy, size, |gm, buffer, len, gm_stride, buf_stride| {
            let from = byte_range(address, buffer, size, len, buf_stride)
                .filter(|range| range.end <= source.bytes.len())
                .ok_or("reads past the end of ub")?;
            let to = element_range(base, gm, size, len, gm_stride)
                .filter(|range| range.end <= dest.bytes.len())
                .ok_or("writes past the end of its tensor")?;
            let held = source.dtype_at(from.start, dest.dtype);
            if held == dest.dtype {
                move_elements(
                    &source.bytes[from],
                    buf_stride,
                    &mut dest.bytes[to],
                    gm_stride * size,
                    size,
                    len,
                );
            } else {
                // The tile holds another dtype (an integer literal's `select`
                // writing a float output): the values move, not the bytes.
                convert_elements(
                    held,
                    &source.bytes,
                    from.start,
                    buf_stride,
                    dest,
                    to.start,
                    gm_stride * size,
                    len,
                )?;
            }
            Ok(())
        })
    }

    /// A copy of rows from L1 into L0A or L0B.
    fn load_l0(&mut self, op: &Op) -> Result<(), String> {
        let Op::LoadL0 {
            level,
            source,
            source_row_bytes,
            dest,
            dest_row_bytes,
            rows,
            cols,
            dtype,
        } = *op
        else {
            return Err(format!("{op:?} is not a load into L0"));
        };
        let size = dtype.size() as usize;
        let row_bytes = cols as usize * size;
        let [l1, l0] = self.levels_mut(LevelKind::L1, level);
        let tag = storage::tag(dtype);
        // Rows that land back to back take their tags in one fill, after all
        // of them have landed in bounds.
        let back_to_back = dest_row_bytes as usize == row_bytes;
        for row in 0..rows as usize {
            let from = source as usize + row * source_row_bytes as usize;
            let to = dest as usize + row * dest_row_bytes as usize;
            let from = l1
                .bytes
                .get(from..from + row_bytes)
                .ok_or("reads past the end of l1")?;
            l0.bytes
                .get_mut(to..to + row_bytes)
                .ok_or("writes past the end of l0")?
                .copy_from_slice(from);
            if !back_to_back {
                l0.tags[to..to + row_bytes].fill(tag);
            }
        }
        if back_to_back {
            let start = dest as usize;
            l0.tags[start..start + rows as usize * row_bytes].fill(tag);
        }
        Ok(())
    }

    /// A matrix multiply on the cube, from L0A and L0B into L0C.
    fn mmad(&mut self, program: &Program, op: &Op) -> Result<(), String> {
        let Op::Mmad {
            a,
            b,
            c,
            m,
            n,
            k,
            init,
            dtype,
        } = *op
        else {
            return Err(format!("{op:?} is not a matrix multiply"));
        };
        let [_, cn_block, ck_block] = program
            .cube
            .ok_or("mmad in a program without a cube block")?;
        let [_, _, l0a, l0b, l0c] = &mut self.levels;
        self.gemm.mmad(
            cube::Mmad {
                a: a as usize,
                b: b as usize,
                c: c as usize,
                m: m as usize,
                n: n as usize,
                k: k as usize,
                a_row: ck_block as usize,
                b_row: cn_block as usize,
                c_row: cn_block as usize,
                init,
                dtype,
            },
            l0a,
            l0b,
            l0c,
        )
    }

    /// The fixpipe: L0C to global memory, converting to the tensor's dtype.
    fn fixpipe(&mut self, op: &Op, gm_base: &[u64]) -> Result<(), String> {
        let Op::Fixpipe {
            source,
            source_row_bytes,
            tensor,
            gm,
            gm_row_stride,
            rows,
            cols,
            dtype,
        } = *op
        else {
            return Err(format!("{op:?} is not a fixpipe"));
        };
        let base = base(gm_base, tensor, gm)?;
        let l0c = &self.levels[level_index(LevelKind::L0c)];
        let dest = self
            .gm
            .get_mut(usize::from(tensor))
            .ok_or("names no tensor")?
            .written();
        cube::fixpipe(
            l0c,
            source as usize,
            source_row_bytes as usize,
            dest,
            base,
            gm_row_stride,
            rows as usize,
            cols as usize,
            dtype,
        )
    }

    fn levels_mut(&mut self, a: LevelKind, b: LevelKind) -> [&mut Level; 2] {
        let (i, j) = (level_index(a), level_index(b));
        let [ub, l1, l0a, l0b, l0c] = &mut self.levels;
        let mut all = [Some(ub), Some(l1), Some(l0a), Some(l0b), Some(l0c)];
        let first = all[i].take().expect("distinct levels");
        let second = all[j].take().expect("distinct levels");
        [first, second]
    }

    /// The tensors `keep` picks, as host tensors of the shape `shape` gives.
    pub(crate) fn into_outputs<'s>(
        self,
        keep: impl Fn(usize) -> Option<&'s [u64]>,
    ) -> Vec<HostTensor> {
        self.gm
            .into_iter()
            .enumerate()
            .filter_map(|(index, tensor)| Some(tensor.into_host(keep(index)?)))
            .collect()
    }
}

/// The bytes of `len` elements of `size` bytes, `stride` elements apart, from element
/// `base + offset` of a tensor.
fn element_range(
    base: u64,
    offset: u64,
    size: usize,
    len: usize,
    stride: usize,
) -> Option<std::ops::Range<usize>> {
    let first = usize::try_from(base.checked_add(offset)?).ok()?;
    let last = first.checked_add(len.checked_sub(1)?.checked_mul(stride)?)?;
    Some(first.checked_mul(size)?..last.checked_add(1)?.checked_mul(size)?)
}

/// The bytes of `len` elements of `size` bytes, `stride` bytes apart, from byte
/// `address + offset` of a level.
fn byte_range(
    address: u32,
    offset: u64,
    size: usize,
    len: usize,
    stride: usize,
) -> Option<std::ops::Range<usize>> {
    let first = (address as usize).checked_add(usize::try_from(offset).ok()?)?;
    let last = first.checked_add(len.checked_sub(1)?.checked_mul(stride)?)?;
    Some(first..last.checked_add(size)?)
}

/// Converts `len` elements of `held` from byte `from` of `source`, `from_stride`
/// bytes apart, to the dtype of `dest`, from its byte `to`, `to_stride` bytes apart.
#[allow(clippy::too_many_arguments)] // Two strided runs, each with its memory.
fn convert_elements(
    held: Dtype,
    source: &[u8],
    from: usize,
    from_stride: usize,
    dest: &mut Tensor,
    to: usize,
    to_stride: usize,
    len: usize,
) -> Result<(), &'static str> {
    let size = dest.dtype.size() as usize;
    let mut lanes = [0.0f64; storage::CHUNK];
    for start in (0..len).step_by(storage::CHUNK) {
        let count = storage::CHUNK.min(len - start);
        let run = storage::Run {
            offset: from + start * from_stride,
            stride: from_stride,
            len: count,
        };
        if !storage::load(held, source, run, &mut lanes) {
            return Err("reads past the end of ub");
        }
        for (i, lane) in lanes[..count].iter().enumerate() {
            let at = to + (start + i) * to_stride;
            let element = dest
                .bytes
                .get_mut(at..at + size)
                .ok_or("writes past the end of its tensor")?;
            storage::encode(dest.dtype, std::slice::from_ref(lane), element);
        }
    }
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

/// Calls `f(gm element offset, buffer byte offset, len, gm stride in elements, buffer
/// stride in bytes)` for every row (innermost dimension) of a copy.
fn copy_rows(
    copy: &CopyShape,
    size: usize,
    mut f: impl FnMut(u64, u64, usize, usize, usize) -> Result<(), &'static str>,
) -> Result<(), String> {
    let dims = &copy.dims;
    if dims.is_empty() {
        // A copy of one element.
        return f(0, 0, 1, 1, size).map_err(String::from);
    }
    if dims.iter().any(|d| d.len == 0) {
        return Ok(());
    }
    let rank = dims.len();
    let row = dims[rank - 1];
    let (len, gm_stride, buf_stride) = (
        usize::try_from(row.len).map_err(|_| "copies a row too long for this host")?,
        usize::try_from(row.gm_stride).map_err(|_| "strides past the end of its tensor")?,
        usize::try_from(row.buf_stride).map_err(|_| "strides past the end of its level")?,
    );
    let mut index = vec![0u64; rank - 1];
    loop {
        let (mut gm, mut buffer) = (0u64, 0u64);
        for (i, dim) in index.iter().zip(dims) {
            gm = gm.saturating_add(i.saturating_mul(dim.gm_stride));
            buffer = buffer.saturating_add(i.saturating_mul(dim.buf_stride));
        }
        f(gm, buffer, len, gm_stride, buf_stride)?;
        let mut dim = rank - 1;
        loop {
            if dim == 0 {
                return Ok(());
            }
            dim -= 1;
            index[dim] += 1;
            if index[dim] < dims[dim].len {
                break;
            }
            index[dim] = 0;
        }
    }
}
