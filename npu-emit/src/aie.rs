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
//! calls the design makes, tile by tile, with the buffer slots each gets. The
//! buffers as arguments and the tile bodies are the `body` module's.
//!
//! Arithmetic and bitwise instructions on contiguous runs are AIE API vector calls
//! (the `vector` module); moves, fills, casts and the order-preserving folds of
//! reductions and scans run on the scalar unit (the `scalar` module) but for integer
//! max and min, which reduce a vector at a time (`reduce`), and so do the
//! operations the AIE API lacks, as documented helpers (the `math` module).

mod body;
mod math;
mod reduce;
mod scalar;
mod vector;

use npu_core::program::Operand;
use npu_core::{CheckedKernel, Dtype, Program, Target};

use self::body::{Body, Call, Layout, Tiles, tiles};
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
