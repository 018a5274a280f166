//! The program's buffers as the tile kernel's arguments (`Layout`): each buffer's
//! name, the dtype it is passed in and where its slots lie, and the dtype an
//! instruction leaves at its destination. It is a leaf the tile writers share.

use npu_core::ir::{BufferKind, Role};
use npu_core::program::{Op, VectorInstr, VectorKind};
use npu_core::{Dtype, Level, Pipe, Program};

use super::names::unsupported;
use crate::output::Unsupported;

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
    pub(super) fn locate(&self, address: u64) -> Option<(usize, u64, u64)> {
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

/// The greatest common divisor: the alignment a view keeps whatever its indices.
pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
