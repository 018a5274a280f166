//! Compare and select: `vcmp` as `Compare` (`Compares` against a scalar) and `vsel`
//! as `Select`.
//!
//! The program's mask buffer holds a byte per element (1 or 0); Ascend C's compare
//! writes a bit per element (little-endian bit order) and its select reads bits. The
//! emitter writes the bit mask where the byte mask would start and the select reads
//! it there. That is sound only when nothing else reads a mask buffer, so `check`
//! (run over the whole program before anything is written) requires that every
//! instruction touching a mask buffer is a compare writing it or a select reading its
//! mask from it, call by call in the same order as a compare with the same address,
//! strides and box wrote it.
//!
//! `Compare` takes a count whose elements fill whole 256-byte blocks and leaves the
//! rest undone, so a compare runs over its count rounded up: the extra elements are
//! read from the same buffer slot (they must lie inside it) and their bits land past
//! the count, where the select does not look (the bits must fit in the byte mask's
//! own bytes).

use npu_core::Level;
use npu_core::ir::CompareOp;
use npu_core::program::Placement;
use npu_core::program::{Op, Operand, Program, VectorInstr, VectorKind};

use super::math::span;
use super::names::{c_type, infinity, unsupported};
use super::view::{Layout, layout};
use crate::output::Unsupported;
use crate::text::Text;

/// Whether this module writes `v`.
pub(super) fn writes(v: &VectorInstr) -> bool {
    matches!(v.kind, VectorKind::Compare(_) | VectorKind::Select)
}

/// Requires that only compares write and only selects read the mask buffers (those
/// the compares write), each select's mask laid out as a compare writes it.
pub(super) fn check(program: &Program) -> Result<(), Unsupported> {
    let ops = || {
        program
            .classes
            .iter()
            .flat_map(|code| code.streams.iter().flatten())
            .map(|instr| instr.op)
    };
    let compares: Vec<VectorInstr> = ops()
        .filter_map(|op| match op {
            Op::Vector(v) if matches!(v.kind, VectorKind::Compare(_)) => Some(v),
            _ => None,
        })
        .collect();
    let masks: Vec<&Placement> = compares
        .iter()
        .filter_map(|c| buffer_of(program, c.dst))
        .collect();
    let in_mask = |address: u32| {
        buffer_of(program, address).is_some_and(|b| masks.iter().any(|m| m.name == b.name))
    };
    for op in ops() {
        match op {
            Op::CopyIn { address, level, .. } if level == Level::Ub && in_mask(address) => {
                return Err(foreign("a copy into a compare's mask buffer"));
            }
            Op::CopyOut { address, .. } if in_mask(address) => {
                return Err(foreign("a copy out of a compare's mask buffer"));
            }
            Op::Vector(v) => check_vector(program, &v, &compares, &in_mask)?,
            _ => {}
        }
    }
    Ok(())
}

/// One vector instruction's part of `check`.
fn check_vector(
    program: &Program,
    v: &VectorInstr,
    compares: &[VectorInstr],
    in_mask: &dyn Fn(u32) -> bool,
) -> Result<(), Unsupported> {
    let construct = || format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let compare = matches!(v.kind, VectorKind::Compare(_));
    let select = v.kind == VectorKind::Select;
    if in_mask(v.dst) && !compare {
        return Err(foreign(&format!("{} writing a mask buffer", construct())));
    }
    for (index, operand) in v.src.iter().enumerate() {
        if let Operand::Ub { address, .. } = operand
            && in_mask(*address)
            && !(select && index == 0)
        {
            return Err(foreign(&format!("{} reading a mask buffer", construct())));
        }
    }
    if !select {
        return Ok(());
    }
    let Operand::Ub { address, strides } = v.src[0] else {
        return Err(foreign("a select whose mask is not in the UB"));
    };
    let frame = |v: &VectorInstr, types: &[(&str, u64)], operand| {
        layout(program, v, types).map(|l| l.frame(operand))
    };
    let ty = c_type(v.dtype).unwrap_or("float");
    let mine = frame(v, &select_types(ty, v.dtype.size()), 1)?;
    for c in compares {
        if (c.dst, c.dst_strides, c.shape) == (address, strides, v.shape)
            && frame(c, &compare_types(ty, c.dtype.size()), 0)? == mine
        {
            return Ok(());
        }
    }
    Err(foreign(
        "a select whose mask no compare writes in the same layout",
    ))
}

fn foreign(construct: &str) -> Unsupported {
    unsupported(
        construct,
        "Compare writes a bit mask where the program's byte mask would be, so only a select laid out as the compare may read it",
    )
}

/// The UB buffer holding `address`.
fn buffer_of(program: &Program, address: u32) -> Option<&Placement> {
    let address = u64::from(address);
    program
        .buffers
        .iter()
        .find(|b| b.level == Level::Ub && b.address <= address && address < b.end())
}

fn compare_types(ty: &str, size: u64) -> [(&str, u64); 3] {
    [("uint8_t", 1), (ty, size), (ty, size)]
}

fn select_types(ty: &str, size: u64) -> [(&str, u64); 4] {
    [(ty, size), ("uint8_t", 1), (ty, size), (ty, size)]
}

/// Writes a compare: `Compare` of two tensors, or `Compares` of a tensor and a
/// scalar (a scalar first swaps the operands and mirrors the mode, exact for NaN
/// too), over the count rounded up to whole 256-byte blocks.
pub(super) fn compare(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
) -> Result<(), Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let (Some(ty), true, VectorKind::Compare(op)) = (c_type(v.dtype), v.dtype.is_float(), v.kind)
    else {
        return Err(unsupported(
            &construct,
            "Compare is written for half and float (the A2/A3 cores compare int32 for equality only)",
        ));
    };
    let size = v.dtype.size();
    let layout = layout(program, v, &compare_types(ty, size))?;
    let rounded = (layout.count * size).div_ceil(256) * 256 / size;
    if rounded / 8 > layout.count {
        return Err(unsupported(
            &format!("{construct} of {} elements", layout.count),
            "Compare runs over whole 256-byte blocks, and their bit mask would not fit in the byte mask",
        ));
    }
    over_read_stays_in_slot(program, v, &layout, rounded * size, &construct)?;
    let (mask, a) = (&layout.views[0], &layout.views[1]);
    layout.open(text);
    match (v.src[0], v.src[1]) {
        (Operand::Ub { .. }, Operand::Ub { .. }) => text.line(format!(
            "AscendC::Compare({mask}, {a}, {}, AscendC::CMPMODE::{}, {rounded});",
            layout.views[2],
            mode(op)
        )),
        (Operand::Ub { .. }, scalar) => text.line(format!(
            "AscendC::Compares({mask}, {a}, {}, AscendC::CMPMODE::{}, {rounded});",
            scalar_text(program, v, scalar, ty)?,
            mode(op)
        )),
        (scalar, _) => text.line(format!(
            "AscendC::Compares({mask}, {a}, {}, AscendC::CMPMODE::{}, {rounded});",
            scalar_text(program, v, scalar, ty)?,
            mode(mirror(op))
        )),
    }
    layout.close(text);
    Ok(())
}

/// The rounded-up compare reads `bytes` from each source view in every iteration;
/// they must lie in the buffer slot the source starts in.
fn over_read_stays_in_slot(
    program: &Program,
    v: &VectorInstr,
    layout: &Layout,
    bytes: u64,
    construct: &str,
) -> Result<(), Unsupported> {
    let sources = v.src.iter().filter_map(|operand| match *operand {
        Operand::Ub { address, .. } => Some(address),
        _ => None,
    });
    for (index, address) in sources.enumerate() {
        // The layout's operands are the destination, then the UB sources in order.
        let last: u64 = layout
            .frame(1 + index)
            .0
            .iter()
            .map(|(len, stride)| (len - 1) * stride)
            .sum();
        let fits = buffer_of(program, address).is_some_and(|b| {
            let slot = (u64::from(address) - b.address) / b.slot_bytes.max(1);
            u64::from(address) + last + bytes <= b.slot(slot + 1)
        });
        if !fits {
            return Err(unsupported(
                construct,
                "Compare runs over whole 256-byte blocks, which would read past the source's buffer slot",
            ));
        }
    }
    Ok(())
}

/// Writes a select: `Select` in tensor-tensor or tensor-scalar mode; a scalar first
/// is duplicated into the destination, which the select then reads in place.
pub(super) fn select(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
) -> Result<(), Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let Some(ty) = c_type(v.dtype).filter(|_| v.dtype.is_float()) else {
        return Err(unsupported(&construct, "Select takes half and float"));
    };
    partial_overlap(program, v, &construct)?;
    let layout = layout(program, v, &select_types(ty, v.dtype.size()))?;
    let (dst, mask, count) = (&layout.views[0], &layout.views[1], layout.count);
    let tensor_tensor = "AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE";
    let tensor_scalar = "AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE";
    layout.open(text);
    match (v.src[1], v.src[2]) {
        (Operand::Ub { .. }, Operand::Ub { .. }) => text.line(format!(
            "AscendC::Select({dst}, {mask}, {}, {}, {tensor_tensor}, {count});",
            layout.views[2], layout.views[3]
        )),
        (Operand::Ub { .. }, scalar) => text.line(format!(
            "AscendC::Select({dst}, {mask}, {}, {}, {tensor_scalar}, {count});",
            layout.views[2],
            scalar_text(program, v, scalar, ty)?
        )),
        (first, second) => {
            let first = scalar_text(program, v, first, ty)?;
            text.line(format!("AscendC::Duplicate({dst}, {first}, {count});"));
            match second {
                Operand::Ub { .. } => text.line(format!(
                    "AscendC::Select({dst}, {mask}, {dst}, {}, {tensor_tensor}, {count});",
                    layout.views[2]
                )),
                scalar => text.line(format!(
                    "AscendC::Select({dst}, {mask}, {dst}, {}, {tensor_scalar}, {count});",
                    scalar_text(program, v, scalar, ty)?
                )),
            }
        }
    }
    layout.close(text);
    Ok(())
}

/// The reference allows a destination that is a source exactly, not one that
/// overlaps a source in part; a scalar first is written into the destination
/// before the second source is read, so then the destination must be apart from it.
fn partial_overlap(program: &Program, v: &VectorInstr, construct: &str) -> Result<(), Unsupported> {
    let dst = span(program, v, v.dst, v.dst_strides);
    let scalar_first = !matches!(v.src[1], Operand::Ub { .. });
    for operand in &v.src[1..] {
        let Operand::Ub { address, strides } = *operand else {
            continue;
        };
        let src = span(program, v, address, strides);
        let same = (address, strides) == (v.dst, v.dst_strides);
        if dst.0 < src.1 && src.0 < dst.1 && (scalar_first || !same) {
            return Err(unsupported(
                construct,
                "the destination overlaps a source in part (or is read after it is filled)",
            ));
        }
    }
    Ok(())
}

/// The scalar argument as the element type: a constant (a value of the dtype) or
/// a parameter.
fn scalar_text(
    program: &Program,
    v: &VectorInstr,
    operand: Operand,
    ty: &str,
) -> Result<String, Unsupported> {
    match operand {
        Operand::Param(tensor) => Ok(program.signature[usize::from(tensor)].name.clone()),
        Operand::Scalar(index) => {
            let value = program.constants[index as usize];
            if value.is_infinite() {
                return Ok(infinity(ty, value));
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
            Ok(format!("static_cast<{ty}>({value:?})"))
        }
        _ => Err(unsupported(
            &format!("{} {}", v.kind.mnemonic(), v.dtype.name()),
            "an operand is missing",
        )),
    }
}

fn mode(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Lt => "LT",
        CompareOp::Le => "LE",
        CompareOp::Gt => "GT",
        CompareOp::Ge => "GE",
        CompareOp::Eq => "EQ",
        CompareOp::Ne => "NE",
    }
}

/// `c op x` as `x mirror(op) c`.
fn mirror(op: CompareOp) -> CompareOp {
    match op {
        CompareOp::Lt => CompareOp::Gt,
        CompareOp::Le => CompareOp::Ge,
        CompareOp::Gt => CompareOp::Lt,
        CompareOp::Ge => CompareOp::Le,
        other => other,
    }
}
