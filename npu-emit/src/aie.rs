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
//! buffers as arguments are the `layout` module's, a tile's body being written the
//! `body` module's, and the tiles as calls the `tiles` module's.
//!
//! Arithmetic and bitwise instructions on contiguous runs are AIE API vector calls
//! (the `vector` module); moves, fills, casts and the order-preserving folds of
//! reductions and scans run on the scalar unit (the `scalar` module) but for integer
//! max and min, which reduce a vector at a time (`reduce`), and so do the
//! operations the AIE API lacks, as documented helpers (the `math` module), but for
//! the functions the target computes with the vector unit's own algorithms
//! (`functions`: bf16 exp, rsqrt, division and their kin), which are vector code.

mod body;
mod cast;
mod functions;
mod lanes;
mod layout;
mod math;
mod names;
mod pair_sum;
mod reduce;
mod scalar;
mod tiles;
mod vector;

use npu_core::{CheckedKernel, Program, Target};

use self::body::Helpers;
use self::layout::Layout;
use self::names::{c_type, unsupported};
use self::tiles::{Call, Tiles, tiles};
use crate::output::{Emitted, File, Unsupported, kernel_hash};
use crate::signature::{self, file_stem, function_name};
use crate::text::Text;

/// Writes the tile kernel of `program`.
pub(crate) fn emit(
    program: &Program,
    target: &Target,
    kernel: &CheckedKernel,
) -> Result<Emitted, Unsupported> {
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
    let tiles = tiles(&program, target, &layout)?;
    let name = function_name(&program, kernel);
    let text = source(&program, target, kernel, &layout, &tiles, &name);
    Ok(Emitted {
        files: vec![File {
            path: format!("{}.cc", file_stem(&program)),
            text,
        }],
    })
}

/// The argument list of a tile function.
fn parameters(program: &Program, layout: &Layout) -> String {
    let mut parameters: Vec<String> = layout
        .args
        .iter()
        .map(|a| format!("{} *{}", c_type(a.dtype).unwrap_or("uint8_t"), a.name))
        .collect();
    for (_, t) in signature::parameters(program) {
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
    let blocks = [
        (tiles.helpers.contains(&Helpers::Steps), scalar::HELPERS),
        (tiles.helpers.contains(&Helpers::Math), math::HELPERS),
        (tiles.helpers.contains(&Helpers::Popcount), math::POPCOUNT),
    ];
    for (_, block) in blocks.iter().filter(|(called, _)| *called) {
        for line in block.lines() {
            text.line(line);
        }
    }
    for line in functions::helpers(program, target).lines() {
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
         For AIE-ML (AIE2): aligned vector loads and stores are aligned to their vector up\n\
         to 32 bytes, as AIE-ML asks; AIE-MLv2 asks 64 bytes of a 512-bit access, which\n\
         this kernel does not promise.\n\
         kernel-hash: {}\n\
         \nBuffers in the tile's data memory (the object FIFOs' elements; slot bytes x depth):",
        program.kernel,
        program.schedule,
        target.name,
        kernel_hash(kernel)
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
