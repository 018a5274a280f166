//! The facts every Ascend C writer shares: the C++ element type of a dtype, the chip a
//! target is, and the error that names a construct the backend cannot write. It is a
//! leaf, so the writers use it without depending on the module that assembles the
//! kernel.

use npu_core::{Dtype, Target};

use crate::output::{Backend, Unsupported};

/// Which Ascend product a target is: the API reference lists data types and cast pairs
/// per product, and the CMakeLists names its SoC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Chip {
    /// Atlas A2 training and inference series (ascend910b, SoC Ascend910B3).
    AtlasA2,
    /// Atlas inference series AI Core (ascend310p, SoC Ascend310P3): no `bfloat16_t`,
    /// no `DataCopyPad`, fewer cast pairs.
    AtlasInference,
}

impl Chip {
    /// The chip of an Ascend target: `ascend310p` is the Atlas inference AI Core, every
    /// other Ascend target is taken for an Atlas A2 part.
    pub(crate) fn of(target: &Target) -> Chip {
        Chip::named(&target.name)
    }

    /// The chip of the Ascend target named `name` (a program records its target's name).
    pub(crate) fn named(name: &str) -> Chip {
        match name {
            "ascend310p" => Chip::AtlasInference,
            _ => Chip::AtlasA2,
        }
    }

    /// The product's name as the API reference's tables head it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Chip::AtlasA2 => "the Atlas A2 series",
            Chip::AtlasInference => "the Atlas inference AI Core",
        }
    }
}

/// An error naming a construct this backend cannot write.
pub(crate) fn unsupported(construct: &str, reason: &str) -> Unsupported {
    Unsupported {
        backend: Backend::AscendC,
        construct: construct.to_string(),
        reason: reason.to_string(),
    }
}

/// The C++ element type of a dtype the vector arithmetic calls take (f16, f32, i16,
/// i32: the types the reference lists for `Add`, `Mul`, `Max` and the rest on both
/// chips), or `None`.
pub(crate) fn c_type(dtype: Dtype) -> Option<&'static str> {
    match dtype {
        Dtype::F16 | Dtype::F32 | Dtype::I16 | Dtype::I32 => Some(element_type(dtype)),
        _ => None,
    }
}

/// The C++ element type of every dtype, as tensors, copies, moves and casts declare
/// it. `bfloat16_t` exists on the Atlas A2 series only (`emit` refuses a bf16 tensor
/// on the other chip).
pub(crate) fn element_type(dtype: Dtype) -> &'static str {
    match dtype {
        Dtype::F16 => "half",
        Dtype::Bf16 => "bfloat16_t",
        Dtype::F32 => "float",
        Dtype::I8 => "int8_t",
        Dtype::U8 => "uint8_t",
        Dtype::I16 => "int16_t",
        Dtype::U16 => "uint16_t",
        Dtype::I32 => "int32_t",
        Dtype::U32 => "uint32_t",
    }
}

/// An infinity of the sign of `value` as a constant of C++ type `ty`. Device code has
/// no `<cmath>`, so no `HUGE_VALF`: the compiler's own `__builtin_inff()` (clang, on
/// which the Ascend C compiler is built, and GCC) gives it.
pub(crate) fn infinity(ty: &str, value: f64) -> String {
    let sign = if value < 0.0 { "-" } else { "" };
    format!("static_cast<{ty}>({sign}__builtin_inff())")
}
