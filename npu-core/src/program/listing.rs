//! The text of a [`Program`]: one instruction as listings show it, and the listing of
//! every core class.

use std::fmt::{self, Write};

use super::{CoreCode, Op, Operand, Pipe, Program, VectorInstr, VectorKind};
use crate::ir::BufferKind;

impl Program {
    /// The text of one instruction, as listings show it.
    pub fn instruction_text(&self, op: &Op) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_op(&mut text, op);
        text
    }

    fn write_op(&self, out: &mut String, op: &Op) -> fmt::Result {
        match *op {
            Op::Loop => write!(out, "loop"),
            Op::SetFlag { from, to, event } => write!(out, "set_flag {from}->{to} #{event}"),
            Op::WaitFlag { from, to, event } => write!(out, "wait_flag {from}->{to} #{event}"),
            Op::Barrier => write!(out, "barrier"),
            Op::CopyIn {
                tensor,
                gm,
                level,
                address,
                shape,
                padded,
            } => {
                write!(
                    out,
                    "copy_in {} -> {level}@{address:#07x} ",
                    self.tensor_at(tensor, gm)
                )?;
                self.write_copy_shape(out, shape, padded)
            }
            Op::CopyOut {
                tensor,
                gm,
                address,
                shape,
                padded,
            } => {
                write!(
                    out,
                    "copy_out ub@{address:#07x} -> {} ",
                    self.tensor_at(tensor, gm)
                )?;
                self.write_copy_shape(out, shape, padded)
            }
            Op::Vector(v) => self.write_vector(out, &v),
            Op::LoadL0 {
                level,
                source,
                dest,
                rows,
                cols,
                dtype,
                ..
            } => {
                write!(
                    out,
                    "load_{level} l1@{source:#07x} -> {level}@{dest:#07x} {rows}x{cols} {dtype}"
                )
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
                let op = if init { "=" } else { "+=" };
                write!(
                    out,
                    "mmad l0c@{c:#07x} {op} l0a@{a:#07x} * l0b@{b:#07x} {m}x{n}x{k} {dtype}"
                )
            }
            Op::Fixpipe {
                source,
                tensor,
                gm,
                rows,
                cols,
                dtype,
                ..
            } => {
                write!(
                    out,
                    "fixpipe l0c@{source:#07x} -> {} {rows}x{cols} {dtype}",
                    self.tensor_at(tensor, gm)
                )
            }
        }
    }

    fn tensor_at(&self, tensor: u16, gm: u64) -> String {
        match self.tensors.get(usize::from(tensor)) {
            Some(name) => format!("{name}[+{gm}]"),
            None => format!("t{tensor}[+{gm}]"),
        }
    }

    fn write_copy_shape(&self, out: &mut String, shape: u32, padded: bool) -> fmt::Result {
        let Some(copy) = self.copies.get(shape as usize) else {
            return write!(out, "<shape {shape}>");
        };
        let dims: Vec<String> = copy.dims.iter().map(|d| d.len.to_string()).collect();
        write!(out, "[{}] {} B", dims.join("x"), copy.bytes)?;
        if copy.bursts > 1 {
            write!(out, " in {} bursts", copy.bursts)?;
        }
        if padded {
            write!(out, " padded to {} B", copy.moved)?;
        }
        Ok(())
    }

    fn write_vector(&self, out: &mut String, v: &VectorInstr) -> fmt::Result {
        let extents = self
            .boxes
            .get(v.shape as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        write!(out, "{} {} ", v.kind.mnemonic(), v.dtype)?;
        match v.kind {
            VectorKind::Reduce(_, accumulator)
            | VectorKind::Cumsum(accumulator)
            | VectorKind::Cumprod(accumulator)
                if accumulator != v.dtype.accumulator() =>
            {
                write!(out, "in {accumulator} ")?;
            }
            _ => {}
        }
        if let Some(dim) = self.scan_dimension(v) {
            write!(out, "along {dim} ")?;
        }
        self.write_view(out, v.dst, v.dst_strides, extents)?;
        let mut first = true;
        for src in &v.src {
            match *src {
                Operand::None => continue,
                Operand::Ub { address, strides } => {
                    out.push_str(if first { " <- " } else { ", " });
                    self.write_view(out, address, strides, extents)?;
                }
                Operand::Scalar(index) => {
                    out.push_str(if first { " <- " } else { ", " });
                    let value = self
                        .constants
                        .get(index as usize)
                        .copied()
                        .unwrap_or(f64::NAN);
                    write!(out, "#{value}")?;
                }
                Operand::Param(tensor) => {
                    out.push_str(if first { " <- " } else { ", " });
                    match self.tensors.get(usize::from(tensor)) {
                        Some(name) => write!(out, "${name}")?,
                        None => write!(out, "$t{tensor}")?,
                    }
                }
            }
            first = false;
        }
        let dims: Vec<String> = extents.iter().map(u64::to_string).collect();
        write!(out, " [{}]", dims.join("x"))
    }

    /// `ub@0x00100`, with the strides in elements-of-bytes when they are not the dense
    /// row-major layout of the box.
    fn write_view(
        &self,
        out: &mut String,
        address: u32,
        strides: u32,
        extents: &[u64],
    ) -> fmt::Result {
        write!(out, "ub@{address:#07x}")?;
        let Some(strides) = self.strides.get(strides as usize) else {
            return Ok(());
        };
        let dense = strides.last().is_some_and(|last| {
            let mut expected = *last;
            strides.iter().zip(extents).rev().all(|(s, e)| {
                let ok = *s == expected;
                expected *= e;
                ok
            })
        });
        if !dense {
            let list: Vec<String> = strides.iter().map(u64::to_string).collect();
            write!(out, "{{{}}}", list.join(","))?;
        }
        Ok(())
    }

    /// The listing of every core class. `full` lists every tile; otherwise a class with
    /// more than four tiles shows its first two and last two, which is enough to see
    /// the steady state of a double-buffered pipeline and the tail.
    pub fn listing(&self, full: bool) -> String {
        let mut out = String::new();
        let _ = self.write_listing(&mut out, full);
        out
    }

    fn write_listing(&self, out: &mut String, full: bool) -> fmt::Result {
        writeln!(
            out,
            "program {}.{} on {}: {} of {} cores with work, {} instructions",
            self.kernel,
            self.schedule,
            self.target,
            self.cores.len(),
            self.requested_cores,
            self.instruction_count()
        )?;
        writeln!(out, "buffers:")?;
        for b in &self.buffers {
            let kind = match b.kind {
                BufferKind::Tensor(_) => "tile",
                BufferKind::Temp => "temp",
                BufferKind::Accumulator => "acc",
            };
            writeln!(
                out,
                "  {:<4} {:#07x}..{:#07x}  {:<8} {:<4} {} x {} B",
                b.level.name(),
                b.address,
                b.end(),
                b.name,
                kind,
                b.depth,
                b.slot_bytes
            )?;
        }
        for (index, class) in self.classes.iter().enumerate() {
            let cores: Vec<u32> = self
                .cores
                .iter()
                .filter(|c| c.class as usize == index)
                .map(|c| c.core)
                .collect();
            writeln!(out, "cores {}: {}", core_ranges(&cores), class.summary)?;
            self.write_class(out, class, full)?;
        }
        Ok(())
    }

    fn write_class(&self, out: &mut String, class: &CoreCode, full: bool) -> fmt::Result {
        let tiles = class.tiles;
        // Tile `tiles` is the epilogue: what the pipes do after the last loop iteration.
        let shown = |tile: u32| full || tiles <= 4 || tile < 2 || tile + 2 >= tiles;
        let mut cursors = [0usize; Pipe::COUNT];
        for tile in 0..=tiles {
            let show = shown(tile);
            if !show && tile == 2 {
                if tiles == 5 {
                    writeln!(out, "  tile 2: like tile 1, slots and offsets advancing")?;
                } else {
                    writeln!(
                        out,
                        "  tiles 2..{}: {} more like tile 1, slots and offsets advancing",
                        tiles - 3,
                        tiles - 4
                    )?;
                }
            }
            let mut header = false;
            for pipe in Pipe::ALL {
                let stream = class.stream(pipe);
                let cursor = &mut cursors[pipe.index()];
                while *cursor < stream.len() && (stream[*cursor].tile <= tile || tile == tiles) {
                    if show {
                        if !header {
                            if tile == tiles {
                                writeln!(out, "  end")?;
                            } else {
                                writeln!(out, "  tile {tile}")?;
                            }
                            header = true;
                        }
                        writeln!(
                            out,
                            "    {:<4} {}",
                            pipe.name(),
                            self.instruction_text(&stream[*cursor].op)
                        )?;
                    }
                    *cursor += 1;
                }
            }
        }
        Ok(())
    }
}

/// `0-6, 8` for a list of core ids.
fn core_ranges(cores: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut index = 0;
    while index < cores.len() {
        let start = cores[index];
        let mut end = start;
        while index + 1 < cores.len() && cores[index + 1] == end + 1 {
            index += 1;
            end = cores[index];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        index += 1;
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// The compact listing (see [`Program::listing`]); `{:#}` lists every tile.
impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.listing(f.alternate()))
    }
}
