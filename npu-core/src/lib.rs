//! The npu DSL: syntax tree, parser, hardware targets, legality checker and lowering.
//!
//! The stages, each in its own module:
//!
//! 1. [`parse`]: tokens or text to a [`KernelDef`](ast::KernelDef) with spans.
//! 2. [`check`]: a `KernelDef` and a [`Target`] to a span-free [`CheckedKernel`], or
//!    [`Diagnostics`] that point at the offending tokens.
//!
//! npu-core does no I/O: a target file's text is read by the caller and given to
//! [`Target::from_toml`].

pub mod ast;
pub mod diag;
pub mod dtype;
pub mod ir;
pub mod parse;
pub mod target;

pub use diag::{Code, Diagnostic, DiagnosticRecord, Diagnostics};
pub use dtype::Dtype;
pub use ir::CheckedKernel;
pub use target::{Level, Target, TargetError};
