//! Vector instructions as Ascend C vector calls over a count of elements.
//!
//! An instruction's box becomes one call over its contiguous innermost run (after
//! merging runs that continue each other in every operand), inside a bounded loop of
//! calls for the dimensions further out. A box whose innermost run is strided in some
//! operand (a broadcast along it, or a gap) is unsupported: the count form of the API
//! reads and writes contiguous elements.

use npu_core::Dtype;
use npu_core::ir::{BinaryOp, UnaryOp};
use npu_core::program::{Operand, Program, VectorInstr, VectorKind};

use super::cast::{Conversion, conversion};
use super::names::{Chip, element_type, infinity, unsupported};
use super::view::{View, aligned, flatten};
use crate::output::Unsupported;
use crate::text::Text;

/// Writes one vector instruction; `source_dtype` is the dtype its first source was
/// last written in (a cast's source dtype is not in the instruction: the simulator
/// reads it from the memory's tags, and the emitter tracks the same tags).
pub(super) fn vector(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    source_dtype: Dtype,
) -> Result<(), Unsupported> {
    let construct = || format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let (ty, source_ty) = (element_type(v.dtype), element_type(source_dtype));
    let (call, mode) = call_and_mode(program, v, source_dtype)?;
    let mut operands = vec![(v.dst, v.dst_strides, ty, v.dtype.size())];
    for operand in v.src {
        if let Operand::Ub { address, strides } = operand {
            let (ty, size) = match v.kind {
                VectorKind::Cast | VectorKind::SatCast => (source_ty, source_dtype.size()),
                _ => (ty, v.dtype.size()),
            };
            operands.push((address, strides, ty, size));
        }
    }
    if super::fill::masked_fill(text, program, v, &operands) {
        return Ok(());
    }
    // Staging gathers (or duplicates) a source, and neither call takes 8-bit
    // elements: such a source must be readable as it lies.
    if call != "DataCopy" && operands.iter().all(|(_, _, _, size)| *size > 1) {
        super::strided::stage(text, program, v, &mut operands);
    }
    let (loops, count) = match flatten(program, v, &operands) {
        Ok(flat) => flat,
        Err(_) if call == "DataCopy" => {
            bytes_move(v)?;
            return super::strided::strided_move(text, program, v, &operands);
        }
        Err(error) => return Err(error),
    };
    if call == "Div" && operands.len() == 2 && overlap(program, v, &operands) {
        return Err(unsupported(
            &construct(),
            "a division by a scalar fills the destination with it first, so the destination may not overlap the source",
        ));
    }
    if call == "Cast" && source_dtype.size() != v.dtype.size() && overlap(program, v, &operands) {
        return Err(unsupported(
            &construct(),
            "a cast's source and destination may overlap only completely, and this one changes the element's size in place",
        ));
    }
    let aligned = aligned(&operands, &loops);
    if call == "DataCopy" && (!aligned || !(count * v.dtype.size()).is_multiple_of(32)) {
        bytes_move(v)?;
        return super::strided::short_move(text, program, v, &operands, &loops, count);
    }
    if !aligned {
        return Err(unsupported(
            &construct(),
            "a vector call's operands start 32-byte aligned, and this box's steps leave them unaligned",
        ));
    }
    for (depth, dim) in loops.iter().enumerate() {
        text.open(format!(
            "for (uint64_t v{depth} = 0; v{depth} < {}; ++v{depth})",
            dim.len
        ));
    }
    let views = operands
        .iter()
        .enumerate()
        .map(|(operand, (address, _, ty, _))| {
            let moves: String = loops
                .iter()
                .enumerate()
                .map(|(d, dim)| format!(" + v{d} * {}", dim.strides[operand]))
                .collect();
            format!("ub[{address}{moves}].ReinterpretCast<{ty}>()")
        });
    let scalar = scalar_operand(program, v, ty)?;
    if call == "Div" && scalar.is_some() {
        let views: Vec<String> = views.collect();
        divide_by_scalar(text, v, &views, scalar.as_deref().unwrap_or("0"), count);
    } else {
        let arguments: Vec<String> = views.chain(scalar).chain(mode).collect();
        text.line(format!(
            "AscendC::{call}({}, {count});",
            arguments.join(", ")
        ));
    }
    for _ in &loops {
        text.close("");
    }
    Ok(())
}

/// `x / c` or `c / x` as two calls, the scalar written into the destination first
/// (`Duplicate`, exact: the scalar is a value of the element type) and then divided
/// into or by (`Div` with the destination as a source, in place): Ascend C has no
/// scalar division, and `Muls` by the reciprocal rounds twice.
fn divide_by_scalar(text: &mut Text, v: &VectorInstr, views: &[String], scalar: &str, count: u64) {
    let (dst, src) = (&views[0], &views[1]);
    text.line(format!("AscendC::Duplicate({dst}, {scalar}, {count});"));
    if matches!(v.src[0], Operand::Ub { .. }) {
        text.line(format!("AscendC::Div({dst}, {src}, {dst}, {count});"));
    } else {
        text.line(format!("AscendC::Div({dst}, {dst}, {src}, {count});"));
    }
}

/// Whether the byte ranges the destination and the source span over the box meet.
fn overlap(program: &Program, v: &VectorInstr, operands: &[View]) -> bool {
    let extents = &program.boxes[v.shape as usize];
    let span = |(address, strides, _, size): &View| {
        let strides = &program.strides[*strides as usize];
        let last: u64 = extents
            .iter()
            .zip(strides)
            .map(|(len, stride)| len.saturating_sub(1) * stride)
            .sum();
        (u64::from(*address), u64::from(*address) + last + size)
    };
    let (a, b) = (span(&operands[0]), span(&operands[1]));
    a.0 < b.1 && b.0 < a.1
}

/// The call of an instruction and, for a `Cast`, its round mode: a cast by the
/// `cast` module's rules for the program's chip, anything else by the element types
/// its call takes.
fn call_and_mode(
    program: &Program,
    v: &VectorInstr,
    source_dtype: Dtype,
) -> Result<(&'static str, Option<String>), Unsupported> {
    let construct = || format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let saturating = match v.kind {
        VectorKind::Cast => false,
        VectorKind::SatCast => true,
        _ => {
            takes(v)?;
            return Ok((call_name(v)?, None));
        }
    };
    let chip = Chip::named(&program.target);
    let from = format!("{} from {}", construct(), source_dtype.name());
    match conversion(source_dtype, v.dtype, saturating, chip) {
        Ok(Conversion::Move) => Ok(("DataCopy", None)),
        Ok(Conversion::Cast(mode)) => Ok(("Cast", Some(format!("AscendC::RoundMode::{mode}")))),
        Err(reason) => Err(unsupported(&from, &reason)),
    }
}

/// Whether the call of an instruction other than a cast takes its element type:
/// half and float for every call; int16 and int32 for `Add` `Sub` `Mul` `Max` `Min`
/// (and their scalar forms), `Duplicate` and moves, and `And` `Or` on int16 (the
/// types the reference lists for them); `And` `Or` on uint16, `Duplicate` on uint16,
/// uint32 and bfloat16; moves of every type. bf16 arithmetic is refused: the Atlas A2
/// `Add`, `Mul`, `Max` and the rest take half and float, not bfloat16_t.
fn takes(v: &VectorInstr) -> Result<(), Unsupported> {
    let dtype = v.dtype;
    let supported = match v.kind {
        _ if matches!(dtype, Dtype::F16 | Dtype::F32) => true,
        VectorKind::Copy => true,
        VectorKind::Dup => !matches!(dtype, Dtype::I8 | Dtype::U8),
        VectorKind::Binary(BinaryOp::And | BinaryOp::Or) => {
            matches!(dtype, Dtype::I16 | Dtype::U16)
        }
        VectorKind::Binary(
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min,
        ) => matches!(dtype, Dtype::I16 | Dtype::I32),
        _ => false,
    };
    if supported {
        return Ok(());
    }
    let reason = match dtype {
        Dtype::Bf16 => {
            "the Atlas A2 vector arithmetic calls take half and float, not bfloat16_t; cast to f32 first"
        }
        Dtype::I8 | Dtype::U8 => {
            "the vector arithmetic calls take no 8-bit integers; cast to f16 first"
        }
        _ => "no Ascend C call is written for it on integers yet (see docs/emit.md)",
    };
    Err(unsupported(
        &format!("{} {}", v.kind.mnemonic(), dtype.name()),
        reason,
    ))
}

/// A move the count form of `DataCopy` cannot write goes through `Copy` or `Gather`,
/// which take 16- and 32-bit elements only.
fn bytes_move(v: &VectorInstr) -> Result<(), Unsupported> {
    if v.dtype.size() > 1 {
        return Ok(());
    }
    Err(unsupported(
        &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
        "a move of 8-bit elements that is not whole 32-byte blocks needs Copy or Gather, which take 16- and 32-bit elements only",
    ))
}

/// The API function of an instruction; with a scalar source, its scalar form.
fn call_name(v: &VectorInstr) -> Result<&'static str, Unsupported> {
    let scalar = v
        .src
        .iter()
        .any(|s| matches!(s, Operand::Scalar(_) | Operand::Param(_)));
    let name = match (v.kind, scalar) {
        (VectorKind::Dup, true) => Some("Duplicate"),
        (VectorKind::Copy, false) => Some("DataCopy"),
        (VectorKind::Unary(op), false) => unary(op),
        (VectorKind::Binary(op), false) => binary(op),
        (VectorKind::Binary(op), true) => binary_scalar(v, op),
        _ => None,
    };
    name.ok_or_else(|| {
        unsupported(
            &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
            "no Ascend C call is written for it yet (see docs/emit.md)",
        )
    })
}

fn unary(op: UnaryOp) -> Option<&'static str> {
    Some(match op {
        UnaryOp::Relu => "Relu",
        UnaryOp::Abs => "Abs",
        UnaryOp::Exp => "Exp",
        UnaryOp::Log => "Ln",
        UnaryOp::Sqrt => "Sqrt",
        UnaryOp::Rsqrt => "Rsqrt",
        UnaryOp::Recip => "Reciprocal",
        _ => return None,
    })
}

fn binary(op: BinaryOp) -> Option<&'static str> {
    Some(match op {
        BinaryOp::Add => "Add",
        BinaryOp::Sub => "Sub",
        BinaryOp::Mul => "Mul",
        BinaryOp::Div => "Div",
        BinaryOp::Max => "Max",
        BinaryOp::Min => "Min",
        BinaryOp::And => "And",
        BinaryOp::Or => "Or",
        _ => return None,
    })
}

/// The scalar form of a binary instruction: the scalar must be the second source,
/// except for the commutative operations.
fn binary_scalar(v: &VectorInstr, op: BinaryOp) -> Option<&'static str> {
    let scalar_first = !matches!(v.src[0], Operand::Ub { .. });
    let name = match op {
        BinaryOp::Add => "Adds",
        BinaryOp::Mul => "Muls",
        // Of two equal zeros the simulator's max and min keep the first operand, so
        // the operands may not be swapped.
        BinaryOp::Max if !scalar_first => "Maxs",
        BinaryOp::Min if !scalar_first => "Mins",
        // x - c is x + (-c) exactly, in every rounding.
        BinaryOp::Sub if !scalar_first && matches!(v.src[1], Operand::Scalar(_)) => "Adds",
        // Written as `Duplicate` and `Div` (`divide_by_scalar`).
        BinaryOp::Div => "Div",
        _ => return None,
    };
    Some(name)
}

/// The scalar argument of a scalar-form call, as the element type: a constant (which
/// must be a value of the dtype, or the call would round it first) or a parameter.
fn scalar_operand(
    program: &Program,
    v: &VectorInstr,
    ty: &str,
) -> Result<Option<String>, Unsupported> {
    let negate = matches!(v.kind, VectorKind::Binary(BinaryOp::Sub));
    for operand in v.src {
        match operand {
            Operand::Scalar(index) => {
                let value = program.constants[index as usize];
                let value = if negate { -value } else { value };
                if value.is_infinite() && v.dtype.is_float() {
                    return Ok(Some(infinity(ty, value)));
                }
                if value.is_nan() || v.dtype.round(value).to_bits() != value.to_bits() {
                    return Err(unsupported(
                        &format!(
                            "the constant {value} in {} {}",
                            v.kind.mnemonic(),
                            v.dtype.name()
                        ),
                        "the scalar form takes the element type, and the simulator computes with the constant unrounded",
                    ));
                }
                return Ok(Some(format!("static_cast<{ty}>({value:?})")));
            }
            Operand::Param(tensor) => {
                return Ok(Some(program.signature[usize::from(tensor)].name.clone()));
            }
            _ => {}
        }
    }
    Ok(None)
}
