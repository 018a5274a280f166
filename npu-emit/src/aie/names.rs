//! The facts every AIE C++ writer shares: the element type of a dtype, scalar
//! parameters and constants as C++ expressions, and the error that names a construct
//! the backend cannot write. It is a leaf, so the writers use it without depending on
//! the module that assembles the tile kernel.

use npu_core::program::Operand;
use npu_core::{Dtype, Program};

use crate::output::{Backend, Unsupported};

/// An error naming a construct this backend cannot write.
pub(crate) fn unsupported(construct: &str, reason: &str) -> Unsupported {
    Unsupported {
        backend: Backend::Aie,
        construct: construct.to_string(),
        reason: reason.to_string(),
    }
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
