//! Between crates: what npu's own crates (the code `npu_kernel!` generates, the macro,
//! the tuner, the test tools) use of npu-core beyond its user API. Not public API: no
//! stability promise, hidden from the docs. A user's crate reaches npu-core through
//! the facade `npu`.

pub mod generated;

pub use crate::check::{check, check_algorithm, resolve_target};
pub use crate::merge;
pub use crate::parse::{
    parse_schedules_str, parse_str, parse_str_partial, parse_tokens, parse_tokens_partial,
};
