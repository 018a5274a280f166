//! AIE C++ (the AIE API) for the aie2_tile preset: the tile kernel.
//!
//! On an AIE tile the data movement (the object FIFOs that fill and drain the tile's
//! local buffers) is the array's design, not the kernel's; docs/emit.md describes the
//! design a schedule implies. What is emitted is the kernel the core runs once per
//! tile on buffers already in its local memory: `extern "C" void NAME(bfloat16 *x,
//! ..., bfloat16 *y, int16_t param)`, one pointer per buffer of the program (staged
//! tensors, then the temporaries and accumulators the design allocates beside them),
//! the scalar parameters last. Each tile's vector instructions are written with
//! offsets relative to their buffers; tiles whose code is the same text share one
//! function, so a tail tile gets a function of its own. The header comment lists the
//! calls the design makes, tile by tile, with the buffer slots each gets.
//!
//! Arithmetic and bitwise instructions on contiguous runs are AIE API vector calls
//! (the `vector` module); moves, fills, casts and the order-preserving folds of
//! reductions and scans run on the scalar unit (the `scalar` module) but for integer
//! max and min, which reduce a vector at a time (`reduce`), and so do the
//! operations the AIE API lacks, as documented helpers (the `math` module).

mod math;
mod reduce;
mod scalar;
mod vector;

use std::collections::BTreeMap;

use npu_core::ir::{BufferKind, Role};
use npu_core::program::{Op, Operand, VectorInstr, VectorKind};
use npu_core::{CheckedKernel, Dtype, Level, Pipe, Program, Target};

use crate::text::Text;
use crate::{Backend, Emitted, File, Unsupported};

/// Writes the tile kernel of `program`.
pub(crate) fn emit(
    program: &Program,
    target: &Target,
    kernel: &CheckedKernel,
) -> Result<Emitted, Unsupported> {
    supported_target(target)?;
    if program.cube.is_some() || program.classes.len() != 1 || program.cores.len() != 1 {
        return Err(unsupported(
            &format!("program {}.{}", program.kernel, program.schedule),
            "an AIE tile kernel is written for one core's vector program",
        ));
    }
    for tensor in &program.signature {
        c_type(tensor.dtype).ok_or_else(|| {
            unsupported(
                &format!("tensor `{}` of {}", tensor.name, tensor.dtype.name()),
                "the AIE API has no element type for it",
            )
        })?;
    }
    let program = program.clone().into_expanded();
    let layout = Layout::new(&program)?;
    let tiles = tiles(&program, &layout)?;
    let name = crate::ascend::function_name(&program);
    let text = source(&program, target, kernel, &layout, &tiles, &name);
    Ok(Emitted {
        files: vec![File {
            path: format!("{name}.cc"),
            text,
        }],
    })
}

/// An error naming a construct this backend cannot write.
pub(crate) fn unsupported(construct: &str, reason: &str) -> Unsupported {
    Unsupported {
        backend: Backend::Aie,
        construct: construct.to_string(),
        reason: reason.to_string(),
    }
}

fn supported_target(target: &Target) -> Result<(), Unsupported> {
    if target.name.starts_with("aie") {
        return Ok(());
    }
    let reason = if target.name.starts_with("ascend") {
        "an Ascend AI core runs Ascend C, not the AIE API"
    } else if target.name == "npueval_demo" {
        "`npueval_demo` is a demonstration target of no vendor; no backend writes for it"
    } else {
        "AIE C++ is written for the aie2_tile preset only"
    };
    Err(unsupported(&format!("target {}", target.name), reason))
}

/// The AIE API's element type of a dtype.
pub(crate) fn c_type(dtype: Dtype) -> Option<&'static str> {
    Some(match dtype {
        Dtype::Bf16 => "bfloat16",
        Dtype::F32 => "float",
        Dtype::I8 => "int8_t",
        Dtype::U8 => "uint8_t",
        Dtype::I16 => "int16_t",
        Dtype::U16 => "uint16_t",
        Dtype::I32 => "int32_t",
        Dtype::U32 => "uint32_t",
        _ => return None,
    })
}

/// The buffers of the program as kernel arguments: name, element dtype, placement.
pub(crate) struct Layout {
    /// Argument order: staged inputs, outputs, then the rest, each in plan order.
    pub args: Vec<Arg>,
}

pub(crate) struct Arg {
    pub name: String,
    pub dtype: Dtype,
    pub address: u64,
    pub slot_bytes: u64,
    pub depth: u64,
}

impl Layout {
    fn new(program: &Program) -> Result<Layout, Unsupported> {
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
pub(crate) fn written(v: &VectorInstr) -> Dtype {
    match v.kind {
        VectorKind::Compare(_) => Dtype::U8,
        VectorKind::Reduce(op, accumulator) if !op.is_arg() => accumulator,
        _ => v.dtype,
    }
}

/// One tile's call: the function (by index into the bodies) and each argument's slot.
pub(crate) struct Call {
    pub tile: u32,
    pub body: usize,
    pub slots: Vec<u64>,
}

/// The distinct tile bodies (their text) and the calls, in tile order.
pub(crate) struct Tiles {
    pub bodies: Vec<String>,
    pub calls: Vec<Call>,
}

/// Each tile's vector instructions as a body, alike bodies shared.
fn tiles(program: &Program, layout: &Layout) -> Result<Tiles, Unsupported> {
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
pub(crate) struct Body<'p> {
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

/// The argument list of a tile function.
fn parameters(program: &Program, layout: &Layout) -> String {
    let mut parameters: Vec<String> = layout
        .args
        .iter()
        .map(|a| format!("{} *{}", c_type(a.dtype).unwrap_or("uint8_t"), a.name))
        .collect();
    for (_, t) in crate::ascend::parameters(program) {
        parameters.push(format!(
            "{} {}",
            c_type(t.dtype).unwrap_or("int32_t"),
            t.name
        ));
    }
    parameters.join(", ")
}

/// The function name of body `index` of `count`.
pub(crate) fn body_name(name: &str, index: usize, count: usize) -> String {
    if count == 1 {
        name.to_string()
    } else {
        format!("{name}_{index}")
    }
}

/// The source: header comment with the calls, helpers, one function per body.
fn source(
    program: &Program,
    target: &Target,
    kernel: &CheckedKernel,
    layout: &Layout,
    tiles: &Tiles,
    name: &str,
) -> String {
    let mut text = Text::default();
    header(&mut text, program, target, kernel, layout, tiles, name);
    text.line("#include <aie_api/aie.hpp>");
    text.line("#include <cmath>");
    text.line("#include <cstdint>");
    text.line("#include <cstring>");
    text.line("");
    for line in scalar::HELPERS.lines().chain(math::HELPERS.lines()) {
        text.line(line);
    }
    for (index, body) in tiles.bodies.iter().enumerate() {
        text.line("");
        text.open(format!(
            "extern \"C\" void {}({})",
            body_name(name, index, tiles.bodies.len()),
            parameters(program, layout)
        ));
        text.line("aie::set_rounding(aie::rounding_mode::conv_even);");
        text.line("aie::set_saturation(aie::saturation_mode::none);");
        for line in body.lines() {
            text.line(line);
        }
        text.close("");
    }
    text.finish()
}

/// What the file is, the buffers, and the calls the data-movement design makes.
fn header(
    text: &mut Text,
    program: &Program,
    target: &Target,
    kernel: &CheckedKernel,
    layout: &Layout,
    tiles: &Tiles,
    name: &str,
) {
    text.comment(&format!(
        "AIE C++ (AIE API) tile kernel for kernel `{}`, schedule `{}`, target {}.\n\
         Written by npu-emit from the validated program; do not edit by hand.\n\
         kernel-hash: {}\n\
         \nBuffers in the tile's data memory (the object FIFOs' elements; slot bytes x depth):",
        program.kernel,
        program.schedule,
        target.name,
        crate::kernel_hash(kernel)
    ));
    for arg in &layout.args {
        text.comment(&format!(
            "  {} {}: {} B x {}",
            c_type(arg.dtype).unwrap_or("uint8_t"),
            arg.name,
            arg.slot_bytes,
            arg.depth
        ));
    }
    text.comment(&format!(
        "Schedule: {}; {} calls, one per tile, in this order (function: buffer slots):",
        program.classes[0].summary,
        tiles.calls.len()
    ));
    let mut start = 0;
    while start < tiles.calls.len() {
        let same =
            |c: &Call| c.body == tiles.calls[start].body && c.slots == tiles.calls[start].slots;
        let run = tiles.calls[start..].iter().take_while(|c| same(c)).count();
        let (first, last) = (&tiles.calls[start], &tiles.calls[start + run - 1]);
        let slots: Vec<String> = first.slots.iter().map(u64::to_string).collect();
        text.comment(&format!(
            "  calls {}..{}: {} ({})",
            first.tile,
            last.tile,
            body_name(name, first.body, tiles.bodies.len()),
            slots.join(" ")
        ));
        start += run;
    }
    text.line("");
}

/// The value of constant or parameter `operand` as a C++ expression of `dtype`: a
/// constant must be a value of the dtype (the simulator computes with it unrounded).
pub(crate) fn scalar_value(
    program: &Program,
    operand: Operand,
    dtype: Dtype,
) -> Result<String, Unsupported> {
    let ty = c_type(dtype).unwrap_or("float");
    match operand {
        Operand::Param(tensor) => parameter_name(program, tensor),
        Operand::Scalar(index) => {
            let value = program.constants[index as usize];
            literal(value, dtype, ty)
        }
        _ => Err(unsupported("an operand", "not a scalar")),
    }
}

/// The name of scalar parameter `tensor`, as the kernel's argument.
pub(crate) fn parameter_name(program: &Program, tensor: u16) -> Result<String, Unsupported> {
    program
        .signature
        .get(usize::from(tensor))
        .map(|t| t.name.clone())
        .ok_or_else(|| {
            unsupported(
                &format!("scalar parameter #{tensor}"),
                "it is not in the program's signature",
            )
        })
}

/// A C++ literal of `value` as `ty`, or why the dtype cannot hold it.
pub(crate) fn literal(value: f64, dtype: Dtype, ty: &str) -> Result<String, Unsupported> {
    if value.is_infinite() && dtype.is_float() {
        let sign = if value < 0.0 { "-" } else { "" };
        return Ok(format!("{ty}({sign}__builtin_huge_valf())"));
    }
    if value.is_nan() || dtype.round(value).to_bits() != value.to_bits() {
        return Err(unsupported(
            &format!("the constant {value} as {}", dtype.name()),
            "the dtype does not hold it, and the simulator computes with it unrounded",
        ));
    }
    Ok(if dtype.is_float() {
        format!("{ty}({value:?}f)")
    } else {
        format!("{ty}({value})")
    })
}
