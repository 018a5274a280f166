//! Integer casts as AIE API vector calls.
//!
//! - A widening cast that keeps the signedness (`i8` to `i16` or `i32`, `u16` to
//!   `u32`, ...) is `vector::unpack()`, once per doubling: each element sign- or
//!   zero-extended to twice its size, the value unchanged, as the simulator's cast.
//! - A saturating narrowing cast to half the size (`i16` to `i8` or `u8`, `i32` to
//!   `i16` or `u16`) goes through an integer accumulator (`acc32` from 16-bit
//!   elements, `acc64` from 32-bit ones: the AIE-ML shift-round-saturate pairs,
//!   UG1583's `ssrs`) and back with `to_vector<T>(0)` under
//!   `saturation_mode::saturate`, which clamps to T's range (0 and up for an unsigned
//!   T), the simulator's saturation; the kernel's default mode is set again after.
//!
//! Every other cast (floats, a change of signedness, a wrapping narrowing) stays on
//! the scalar unit (`scalar.rs`). A box is written when its innermost run is
//! contiguous in both operands and a whole number of the vectors below.

use npu_core::Dtype;
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::body::Body;
use super::layout::gcd;
use super::names::{c_type, unsupported};
use crate::output::Unsupported;

/// How a cast from `from` to `to` is written, if it is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// `unpack()` this many times.
    Unpack(u32),
    /// Through this accumulator, saturating.
    Saturate(&'static str),
}

fn form(kind: VectorKind, from: Dtype, to: Dtype) -> Option<Form> {
    if from.is_float() || to.is_float() || c_type(from).is_none() || c_type(to).is_none() {
        return None;
    }
    let signed = |d: Dtype| d.range().0 < 0.0;
    match kind {
        VectorKind::Cast if signed(from) == signed(to) && to.size() > from.size() => {
            Some(Form::Unpack((to.size() / from.size()).trailing_zeros()))
        }
        VectorKind::SatCast if signed(from) && from.size() == 2 * to.size() => match from.size() {
            2 => Some(Form::Saturate("acc32")),
            4 => Some(Form::Saturate("acc64")),
            _ => None,
        },
        _ => None,
    }
}

/// Lanes per vector: 512 bits of the wider type, and never under 128 bits of the
/// narrower one.
fn lanes(from: Dtype, to: Dtype) -> u64 {
    64 / from.size().max(to.size())
}

/// The cast's source: its view and the dtype it was written in.
fn source(body: &Body, v: &VectorInstr) -> Option<(u32, u32, Dtype)> {
    match v.src[0] {
        Operand::Ub { address, strides } => Some((address, strides, body.tag(address, v.dtype))),
        _ => None,
    }
}

/// Whether this module writes `v`.
pub(super) fn writes(body: &Body, v: &VectorInstr) -> bool {
    let Some((_, src_strides, from)) = source(body, v) else {
        return false;
    };
    let program = body.program;
    let extents = &program.boxes[v.shape as usize];
    let Some(inner) = extents.iter().rposition(|e| *e > 1) else {
        return false;
    };
    form(v.kind, from, v.dtype).is_some()
        && program.strides[v.dst_strides as usize][inner] == v.dtype.size()
        && program.strides[src_strides as usize][inner] == from.size()
        && extents[inner].is_multiple_of(lanes(from, v.dtype))
}

/// One operand of the cast: its pointer expression inside the loops, the alignment
/// every iteration keeps, and its element type.
struct Side {
    pointer: String,
    aligned: u64,
    dtype: Dtype,
}

impl Side {
    /// `load_v`/`store_v` when every vector of `n` lanes is aligned to it, else the
    /// unaligned form (`stem` is `load` or `store`).
    fn access(&self, stem: &str, n: u64) -> String {
        let bytes = n * self.dtype.size();
        match gcd(self.aligned, bytes).is_multiple_of(bytes.min(32)) {
            true => format!("{stem}_v"),
            false => format!("{stem}_unaligned_v"),
        }
    }
}

/// Writes the cast: loops over the outer dimensions and the run's vectors.
pub(super) fn cast(body: &mut Body, v: &VectorInstr) -> Result<(), Unsupported> {
    let construct = || {
        unsupported(
            &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
            "not a vector cast",
        )
    };
    let (src_address, src_strides, from) = source(body, v).ok_or_else(construct)?;
    let form = form(v.kind, from, v.dtype).ok_or_else(construct)?;
    let program: &Program = body.program;
    let extents = program.boxes[v.shape as usize].clone();
    let inner = extents.iter().rposition(|e| *e > 1).ok_or_else(construct)?;
    let outer: Vec<usize> = (0..inner).filter(|d| extents[*d] > 1).collect();
    let mut sides = Vec::new();
    for (address, strides, dtype) in [
        (v.dst, v.dst_strides, v.dtype),
        (src_address, src_strides, from),
    ] {
        let strides = program.strides[strides as usize].clone();
        let (base, offset) = body.pointer(address, dtype)?;
        let mut side = Side {
            pointer: format!("{base} + {offset}"),
            aligned: u64::from(address),
            dtype,
        };
        for &d in &outer {
            side.pointer
                .push_str(&format!(" + v{d} * {}", strides[d] / dtype.size()));
            side.aligned = gcd(side.aligned, strides[d]);
        }
        sides.push(side);
    }
    for &d in &outer {
        body.text.open(format!(
            "for (int32_t v{d} = 0; v{d} < {}; ++v{d})",
            extents[d]
        ));
    }
    let n = lanes(from, v.dtype);
    body.text.open(format!(
        "for (int32_t k = 0; k < {}; ++k)",
        extents[inner] / n
    ));
    vector_step(body, form, &sides[0], &sides[1], n);
    body.text.close("");
    for _ in &outer {
        body.text.close("");
    }
    Ok(())
}

/// One vector of `n` lanes: the load, the conversion, the store.
fn vector_step(body: &mut Body, form: Form, dst: &Side, src: &Side, n: u64) {
    let from_ty = c_type(src.dtype).unwrap_or("int8_t");
    let to_ty = c_type(dst.dtype).unwrap_or("int8_t");
    let (load, store) = (src.access("load", n), dst.access("store", n));
    let pointer = &src.pointer;
    body.text.line(format!(
        "const aie::vector<{from_ty}, {n}> va = aie::{load}<{n}>({pointer} + k * {n});"
    ));
    let result = match form {
        Form::Unpack(times) => format!("va{}", ".unpack()".repeat(times as usize)),
        Form::Saturate(accumulator) => {
            body.text
                .line(format!("aie::accum<{accumulator}, {n}> vacc;"));
            body.text.line("vacc.from_vector(va);");
            body.text
                .line("aie::set_saturation(aie::saturation_mode::saturate);");
            body.text.line(format!(
                "const aie::vector<{to_ty}, {n}> vr = vacc.to_vector<{to_ty}>(0);"
            ));
            body.text
                .line("aie::set_saturation(aie::saturation_mode::none);");
            "vr".to_string()
        }
    };
    body.text.line(format!(
        "aie::{store}({} + k * {n}, {result});",
        dst.pointer
    ));
}
