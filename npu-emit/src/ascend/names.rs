//! The facts every Ascend C writer shares: the C++ element type of a dtype, and the
//! error that names a construct the backend cannot write. It is a leaf, so the writers
//! use it without depending on the module that assembles the kernel.

use npu_core::Dtype;

use crate::output::{Backend, Unsupported};

/// An error naming a construct this backend cannot write.
pub(crate) fn unsupported(construct: &str, reason: &str) -> Unsupported {
    Unsupported {
        backend: Backend::AscendC,
        construct: construct.to_string(),
        reason: reason.to_string(),
    }
}

/// The C++ element type of a dtype, for the dtypes written so far.
pub(crate) fn c_type(dtype: Dtype) -> Option<&'static str> {
    match dtype {
        Dtype::F16 => Some("half"),
        Dtype::F32 => Some("float"),
        Dtype::I16 => Some("int16_t"),
        Dtype::I32 => Some("int32_t"),
        _ => None,
    }
}

/// An infinity of the sign of `value` as a constant of C++ type `ty`. Device code has
/// no `<cmath>`, so no `HUGE_VALF`: the compiler's own `__builtin_inff()` (clang, on
/// which the Ascend C compiler is built, and GCC) gives it.
pub(crate) fn infinity(ty: &str, value: f64) -> String {
    let sign = if value < 0.0 { "-" } else { "" };
    format!("static_cast<{ty}>({sign}__builtin_inff())")
}
