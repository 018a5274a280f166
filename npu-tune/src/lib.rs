//! The npu tuner: the tuning loop with its generators, the LLM client, prompts and
//! feedback, the bundled kernels, the build helper and the `autotune` command line.
//! The facade crate `npu` re-exports it as `npu::tuner` (and [`build`] as
//! `npu::build`, [`kernels`] as `npu::kernels`) behind its `tune` feature.
//!
//! [`run::run`] drives rounds of a [`generator::Generator`] over [`evaluate::Problem`]s;
//! every evaluation is a [`record::CandidateRecord`], appended to the [`journal`] as it
//! finishes and gathered into the [`report`]s. A campaign splits into [`shard`]s, each
//! run by its own process, which `autotune merge` joins into the one-run outputs.

#![warn(missing_docs)]

// The bundled kernels are `npu_kernel!` blocks, whose expansions name
// `::npu::__private`; inside this crate that is npu-core's support for them.
extern crate self as npu;
#[doc(hidden)]
pub use npu_core::internal::generated as __private;

/// The bundled kernels' modules have no `emit` (the facade's `KERNEL::emit`). Not
/// public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __emit_fn {
    () => {};
}

pub mod atomic;
pub mod build;
#[cfg(feature = "emit")]
pub mod calibrate;
pub mod draft;
#[cfg(feature = "emit")]
pub mod emit;
pub mod evaluate;
pub mod generator;
pub mod grammar;
pub mod journal;
pub mod kernels;
pub mod knowledge;
#[cfg(feature = "llm")]
pub mod llm;
#[cfg(feature = "llm")]
pub mod prompt;
pub mod record;
pub mod replay;
pub mod reply;
pub mod report;
pub mod run;
pub mod shard;
pub mod space;
pub mod suite;
pub mod variants_writer;
