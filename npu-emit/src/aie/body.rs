//! The tile bodies: the program's buffers as kernel arguments (`Layout`), each tile's
//! vector instructions written relative to their buffers (`Body`), and alike tiles
//! sharing one function (`tiles`).

use std::collections::BTreeMap;

use npu_core::ir::{BufferKind, Role};
use npu_core::program::{Op, VectorInstr, VectorKind};
use npu_core::{Dtype, Level, Pipe, Program};

use super::{c_type, reduce, scalar, unsupported, vector};
use crate::Unsupported;
use crate::text::Text;

/// The buffers of the program as kernel arguments: name, element dtype, placement.
pub(super) struct Layout {
    /// Argument order: staged inputs, outputs, then the rest, each in plan order.
    pub args: Vec<Arg>,
}

pub(super) struct Arg {
    pub name: String,
    pub dtype: Dtype,
    pub address: u64,
    pub slot_bytes: u64,
    pub depth: u64,
}

impl Layout {
    pub(super) fn new(program: &Program) -> Result<Layout, Unsupported> {
        let mut args: Vec<(u8, Arg)> = Vec::new();
        for buffer in &program.buffers {
            if buffer.level != Level::Ub {
                return Err(unsupported(
                    &format!("buffer `{}` in {}", buffer.name, buffer.level.name()),
                    "a tile kernel computes on the tile's local data memory only",
                ));
            }
            let (rank, dtype) = match buffer.kind {
                BufferKind::Tensor(k) => {
                    let tensor = program.signature.get(k).ok_or_else(|| {
                        unsupported(
                            &format!("buffer `{}`", buffer.name),
                            "its tensor is not in the program's signature",
                        )
                    })?;
                    let rank = match tensor.role {
                        Role::Input => 0,
                        Role::Output => 1,
                        Role::Local => 2,
                    };
                    (rank, tensor.dtype)
                }
                _ => (2, first_written(program, buffer.address, buffer.end())),
            };
            args.push((
                rank,
                Arg {
                    name: buffer.name.clone(),
                    dtype,
                    address: buffer.address,
                    slot_bytes: buffer.slot_bytes,
                    depth: buffer.depth,
                },
            ));
        }
        args.sort_by_key(|(rank, _)| *rank);
        Ok(Layout {
            args: args.into_iter().map(|(_, a)| a).collect(),
        })
    }

    /// The argument holding UB byte `address`: its index, slot and offset in the slot.
    pub fn locate(&self, address: u64) -> Option<(usize, u64, u64)> {
        self.args.iter().enumerate().find_map(|(index, a)| {
            let end = a.address + a.slot_bytes * a.depth;
            (a.address <= address && address < end && a.slot_bytes > 0).then(|| {
                let from = address - a.address;
                (index, from / a.slot_bytes, from % a.slot_bytes)
            })
        })
    }
}

/// The dtype the first vector instruction writing into `[start, end)` writes.
fn first_written(program: &Program, start: u64, end: u64) -> Dtype {
    let code = &program.classes[0];
    code.stream(Pipe::V)
        .iter()
        .find_map(|i| match i.op {
            Op::Vector(v) if (start..end).contains(&u64::from(v.dst)) => Some(written(&v)),
            _ => None,
        })
        .unwrap_or(Dtype::U8)
}

/// The dtype an instruction leaves at its destination.
pub(super) fn written(v: &VectorInstr) -> Dtype {
    match v.kind {
        VectorKind::Compare(_) => Dtype::U8,
        VectorKind::Reduce(op, accumulator) if !op.is_arg() => accumulator,
        _ => v.dtype,
    }
}

/// One tile's call: the function (by index into the bodies) and each argument's slot.
pub(super) struct Call {
    pub tile: u32,
    pub body: usize,
    pub slots: Vec<u64>,
}

/// The distinct tile bodies (their text) and the calls, in tile order.
pub(super) struct Tiles {
    pub bodies: Vec<String>,
    pub calls: Vec<Call>,
}

/// Each tile's vector instructions as a body, alike bodies shared.
pub(super) fn tiles(program: &Program, layout: &Layout) -> Result<Tiles, Unsupported> {
    let mut by_tile: BTreeMap<u32, Vec<VectorInstr>> = BTreeMap::new();
    for instr in program.classes[0].stream(Pipe::V) {
        if let Op::Vector(v) = instr.op {
            by_tile.entry(instr.tile).or_default().push(v);
        }
    }
    let mut tags = BTreeMap::new();
    let mut tiles = Tiles {
        bodies: Vec::new(),
        calls: Vec::new(),
    };
    for (tile, instructions) in by_tile {
        let mut body = Body {
            program,
            layout,
            slots: vec![None; layout.args.len()],
            text: Text::default(),
            tags: &mut tags,
        };
        for v in &instructions {
            body.instruction(v)?;
        }
        let slots = body.slots.iter().map(|s| s.unwrap_or(0)).collect();
        let text = body.text.finish();
        let index = match tiles.bodies.iter().position(|b| *b == text) {
            Some(index) => index,
            None => {
                tiles.bodies.push(text);
                tiles.bodies.len() - 1
            }
        };
        tiles.calls.push(Call {
            tile,
            body: index,
            slots,
        });
    }
    Ok(tiles)
}

/// The text of one tile's body being written, with the slot each argument gets.
pub(super) struct Body<'p> {
    pub program: &'p Program,
    pub layout: &'p Layout,
    pub slots: Vec<Option<u64>>,
    pub text: Text,
    /// The dtype each UB address was last written in (a cast reads its source in it).
    pub tags: &'p mut BTreeMap<u32, Dtype>,
}

impl Body<'_> {
    fn instruction(&mut self, v: &VectorInstr) -> Result<(), Unsupported> {
        self.text.comment(&describe(self.program, v));
        if vector::writes(self.program, v) {
            vector::elementwise(self, v)?;
        } else if reduce::writes(self.program, v) {
            reduce::reduce(self, v)?;
        } else {
            scalar::instruction(self, v)?;
        }
        self.tags.insert(v.dst, written(v));
        Ok(())
    }

    /// The dtype `address` was last written in, or `default`.
    /// A buffer not written yet holds its argument's dtype (a staged tensor's).
    pub fn tag(&self, address: u32, default: Dtype) -> Dtype {
        let held = || {
            let (index, _, _) = self.layout.locate(u64::from(address))?;
            Some(self.layout.args[index].dtype)
        };
        self.tags
            .get(&address)
            .copied()
            .or_else(held)
            .unwrap_or(default)
    }

    /// UB byte `address` as `dtype`: a pointer expression (its argument, cast if the
    /// argument holds another dtype) and an element offset from it; records the
    /// argument's slot.
    pub fn pointer(&mut self, address: u32, dtype: Dtype) -> Result<(String, u64), Unsupported> {
        let construct = || format!("an operand at ub 0x{address:05x}");
        let (index, slot, offset) = self.layout.locate(u64::from(address)).ok_or_else(|| {
            unsupported(&construct(), "it lies in no buffer of the program's plan")
        })?;
        match self.slots[index] {
            Some(other) if other != slot => {
                return Err(unsupported(
                    &construct(),
                    "one tile reads two slots of a buffer; a tile kernel gets one",
                ));
            }
            _ => self.slots[index] = Some(slot),
        }
        let arg = &self.layout.args[index];
        let size = dtype.size();
        if !offset.is_multiple_of(size) {
            return Err(unsupported(
                &construct(),
                "the operand does not start on an element of its dtype",
            ));
        }
        let ty = c_type(dtype).ok_or_else(|| unsupported(&construct(), "no AIE element type"))?;
        let base = if arg.dtype == dtype {
            arg.name.clone()
        } else {
            format!("reinterpret_cast<{ty} *>({})", arg.name)
        };
        Ok((base, offset / size))
    }
}

/// The listing form of an instruction, for the comment above its code.
fn describe(program: &Program, v: &VectorInstr) -> String {
    let extents: Vec<String> = program.boxes[v.shape as usize]
        .iter()
        .map(u64::to_string)
        .collect();
    format!(
        "{} {} [{}]",
        v.kind.mnemonic(),
        v.dtype.name(),
        extents.join("x")
    )
}
