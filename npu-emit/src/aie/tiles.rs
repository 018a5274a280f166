//! The tiles as calls: each tile's vector instructions written as a body, each
//! instruction by the module that writes its kind (`vector`, `reduce` or `scalar`),
//! and alike bodies sharing one function.

use std::collections::{BTreeMap, BTreeSet};

use npu_core::program::{Op, VectorInstr, VectorKind};
use npu_core::{Pipe, Program, Target};

use super::body::{Body, Helpers};
use super::layout::{Layout, written};
use super::{cast, lanes, pair_sum, reduce, scalar, vector};
use crate::output::Unsupported;
use crate::text::Text;

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
    /// The helper blocks the bodies call.
    pub helpers: BTreeSet<Helpers>,
}

/// Each tile's vector instructions as a body, alike bodies shared.
pub(super) fn tiles(
    program: &Program,
    target: &Target,
    layout: &Layout,
) -> Result<Tiles, Unsupported> {
    let mut by_tile: BTreeMap<u32, Vec<VectorInstr>> = BTreeMap::new();
    for instr in program.classes[0].stream(Pipe::V) {
        if let Op::Vector(v) = instr.op {
            by_tile.entry(instr.tile).or_default().push(v);
        }
    }
    let mut tags = BTreeMap::new();
    let mut helpers = BTreeSet::new();
    let mut tiles = Tiles {
        bodies: Vec::new(),
        calls: Vec::new(),
        helpers: BTreeSet::new(),
    };
    for (tile, instructions) in by_tile {
        let mut body = Body {
            program,
            target,
            layout,
            slots: vec![None; layout.args.len()],
            text: Text::default(),
            tags: &mut tags,
            helpers: &mut helpers,
        };
        for v in &instructions {
            instruction(&mut body, v)?;
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
    tiles.helpers = helpers;
    Ok(tiles)
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

/// Writes one instruction into `body` through the module that writes its kind, and
/// records the dtype it leaves at its destination.
fn instruction(body: &mut Body, v: &VectorInstr) -> Result<(), Unsupported> {
    body.text.comment(&describe(body.program, v));
    if vector::writes(body, v) {
        vector::elementwise(body, v)?;
    } else if cast::writes(body, v) {
        cast::cast(body, v)?;
    } else if reduce::writes(body.program, v) {
        reduce::reduce(body, v)?;
    } else if lanes::writes(body.program, v) {
        lanes::lanes(body, v)?;
    } else if v.kind == VectorKind::PairSum {
        pair_sum::pair_sum(body, v)?;
    } else {
        scalar::instruction(body, v)?;
    }
    body.tags.insert(v.dst, written(v));
    Ok(())
}
