//! Between crates: what npu's own crates (the code `npu_kernel!` generates, the macro,
//! the tuner, the test tools) use of npu-core beyond its user API. Not public API: no
//! stability promise, hidden from the docs. A user's crate reaches npu-core through
//! the facade `npu`.

pub mod generated;

pub use crate::check::{MAX_VARIANTS, check, check_algorithm, resolve_target, vector_op};
pub use crate::diag::SpanKey;
pub use crate::dtype::{bf16_from_f64, f16_from_f64};
pub use crate::encoding::{CHUNK, decode, encode};
pub use crate::merge;
pub use crate::parse::{
    parse_schedules_str, parse_str, parse_str_partial, parse_tokens, parse_tokens_partial,
};
pub use crate::plan::buffers as buffer_plan;
pub use crate::plan::{mac_operands, subscript_extent, tensor_axes, whole_axes};
pub use crate::schedule::{lane_fold, ordered_fold, scan_axes};
pub use crate::words::did_you_mean;
