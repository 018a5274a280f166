//! npu-core's integration tests, one binary: the parser, the checker (with its
//! snapshot cases), lowering, the validator, the language's items, and the
//! differential test of the checker against the validator (sized by
//! `NPU_DIFF_SCHEDULES`).

mod check;
mod differential;
mod functions;
mod guards;

mod language;
mod limits;
mod linear;
mod lower;
mod missing_semicolon;
mod parse;
mod repeated_checks;
mod rewrite;
mod rounding;
mod targets;
mod validate;
