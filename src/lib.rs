//! npu: write NPU kernels as Rust code, with illegal schedules rejected at compile time.
//!
//! A kernel holds an algorithm, a target and named schedules. The [`npu_kernel!`] macro
//! checks every schedule against the target when the crate compiles and generates a
//! module with the checked kernel and a host reference:
//!
//! ```
//! use npu::{f16, npu_kernel};
//!
//! npu_kernel! {
//!     /// y = a * b + c
//!     kernel vmla(a: [f16; 4096], b: [f16; 4096], c: [f16; 4096]) -> y: [f16; 4096] {
//!         y[i] = a[i] * b[i] + c[i];
//!     }
//!     target npueval_demo;
//!
//!     schedule hand {
//!         split i by 1024;
//!         stage a, b, c, y in ub depth 2;
//!     }
//! }
//!
//! let a = vec![f16::from_f32(1.5); 4096];
//! let b = vec![f16::from_f32(2.0); 4096];
//! let c = vec![f16::from_f32(0.25); 4096];
//! let out = vmla::reference(&a, &b, &c).unwrap();
//! assert_eq!(out.y[0], f16::from_f32(3.25));
//! assert_eq!(vmla::SCHEDULES, ["hand"]);
//! assert_eq!(vmla::kernel().schedules[0].tiles, [1024]);
//! ```
//!
//! A schedule that does not fit the target fails the build at the offending token, with
//! a stable code, the numbers and a fix (`[E020] ub holds 131072 B but this schedule
//! needs 147456 B ...`, `help: split i by 4096, or use depth 1 ...`). The same checker serves
//! text, such as an LLM's answer, through [`check_source`] and [`check_file_source`];
//! its diagnostics render with a caret excerpt ([`Diagnostics::render`]).
//!
//! Generated schedules can join the hand-written ones: a kernel line `variants 4 from
//! "kernels/vmla.variants.npu";` compiles the schedules of that file, which
//! [`build::Variants`] writes from build.rs with the tuner, and
//! [`testing::bench_variants`] simulates and tabulates every schedule for a snapshot
//! test. With `default-features = false` the crate has only the kernel-facing part:
//! the macro, references, the simulator and [`testing`]; the features `tune` (the
//! tuner and build helper), `llm` (its HTTP client) and `cli` (`autotune`) add the rest.
//!
//! With the `emit` feature (on by default), [`emit`](mod@emit) writes a checked
//! schedule as Ascend C, and every generated module has `emit(backend, "schedule")`:
//!
//! ```
//! # #[cfg(feature = "emit")] {
//! npu::npu_kernel! {
//!     kernel double(x: [f32; 65536]) -> y: [f32; 65536] { y[i] = x[i] * 2.0; }
//!     target ascend910b;
//!     schedule s { parallel i over 4 cores; split i by 2048; stage x, y in ub depth 2; }
//! }
//! let emitted = double::emit(npu::emit::Backend::AscendC, "s").unwrap();
//! assert!(emitted.file("double_s.cpp").unwrap().text.contains("__aicore__"));
//! assert!(double::emit(npu::emit::Backend::AscendC, "t").is_err());
//! # }
//! ```
//!
//! The pipeline stages live in npu-core; what a user reaches is re-exported here:
//! [`check_source`] (parse and check), the syntax tree [`ast`], the checked kernel
//! [`ir`], its canonical text [`print`](mod@print), [`lower`](mod@lower) to a
//! [`Program`], the second guard [`validate`](mod@validate), variants files
//! [`variants`], and the scalar semantics both the host reference and the simulator
//! use, [`scalar`]. The parser's, checker's and buffer plan's internals are not.

// Every public item says what it is; CI denies warnings.
#![warn(missing_docs)]

// Generated code names this crate `::npu`; this makes the name work inside it too.
extern crate self as npu;

/// The simulator: run a lowered schedule on data, get cycles per pipe and a report.
pub use npu_sim as sim;
/// Test helpers: every schedule of a kernel simulated into a table, seeded inputs.
pub use npu_sim::testing;

/// The backends: Ascend C from a checked, lowered schedule (the npu-emit crate).
#[cfg(feature = "emit")]
pub use npu_emit as emit;
/// The tuner: generators, the LLM client, grammars, knowledge, journals and reports
/// (the npu-tune crate).
#[cfg(feature = "tune")]
pub use npu_tune as tuner;
/// The build-script helper that fills variants files (npu-tune's `build`).
#[cfg(feature = "tune")]
pub use npu_tune::build;
/// The bundled kernels the tuner works on (npu-tune's `kernels`).
#[cfg(feature = "tune")]
pub use npu_tune::kernels;

use std::path::Path;

pub use half::{bf16, f16};
pub use npu_core::host::{Element, HostTensor};
pub use npu_core::scalar::{IndexError, InputError, ShapeError};
pub use npu_core::{
    CheckedKernel, Code, Diagnostic, DiagnosticRecord, Diagnostics, Dtype, Edit, Fix, Level, Pipe,
    Program, Target, TargetError, check_source, check_source_with, parse,
};
pub use npu_core::{
    EXCERPT_CHARS, Label, LabelRecord, MAX_CHAIN_TERMS, MAX_EXPR_DEPTH, MAX_GROUP_DEPTH,
    MAX_SHOWN_PER_CODE, ast, ir, lower, print, program, scalar, target, validate, variants,
};
pub use npu_macros::npu_kernel;

/// Parses and checks kernel source text against the target it names. A target file
/// (`target "targets/chip.toml";`) is read relative to `dir`, as the macro reads it
/// relative to the crate's directory.
///
/// ```
/// let source = "
///     kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
///         y[i] = a[i] * b[i] + c[i];
///     }
///     target npueval_demo;
///     schedule big { split i by 8192; stage a, b, c, y in ub depth 2; }
/// ";
/// let error = npu::check_file_source(source, std::path::Path::new(".")).unwrap_err();
/// assert_eq!(error.codes(), [npu::Code::E020]);
/// assert!(error.render(source).contains("help: split i by"));
/// ```
pub fn check_file_source(source: &str, dir: &Path) -> Result<CheckedKernel, Diagnostics> {
    check_source_with(source, |path| npu_core::target::read_file(&dir.join(path)))
}

/// `KERNEL::emit` of the modules `npu_kernel!` generates. Not public API.
#[cfg(feature = "emit")]
#[doc(hidden)]
pub mod __emit {
    pub use npu_emit::{Backend, Emitted, Unsupported};

    use npu_core::CheckedKernel;

    /// Schedule `name` of `kernel`, lowered and written for `backend`.
    pub fn emit(
        kernel: &CheckedKernel,
        name: &str,
        backend: Backend,
    ) -> Result<Emitted, Unsupported> {
        let Some(index) = kernel.schedules.iter().position(|s| s.name == name) else {
            let names: Vec<&str> = kernel.schedules.iter().map(|s| s.name.as_str()).collect();
            return Err(Unsupported {
                backend,
                construct: format!("schedule `{name}`"),
                reason: format!(
                    "kernel `{}` has no such schedule; its schedules are: {}",
                    kernel.name,
                    names.join(", ")
                ),
            });
        };
        let program = npu_core::lower::lower_compact(kernel, index);
        npu_emit::emit(&program, &kernel.target, kernel, backend)
    }
}

/// Inside a generated kernel module: `emit(backend, "schedule")`, the schedule written
/// as device source (see [`emit`](mod@emit)). Not public API.
#[cfg(feature = "emit")]
#[doc(hidden)]
#[macro_export]
macro_rules! __emit_fn {
    () => {
        /// Schedule `schedule` of this kernel written as device source for `backend`
        /// (npu's `emit` feature), or why the backend cannot write it.
        ///
        /// # Errors
        ///
        /// An [`Unsupported`]($crate::__emit::Unsupported) naming the construct the
        /// backend cannot express, or the schedule the kernel does not have.
        pub fn emit(
            backend: $crate::__emit::Backend,
            schedule: &::core::primitive::str,
        ) -> ::core::result::Result<$crate::__emit::Emitted, $crate::__emit::Unsupported> {
            $crate::__emit::emit(kernel(), schedule, backend)
        }
    };
}

/// Without the `emit` feature, generated modules have no `emit`. Not public API.
#[cfg(not(feature = "emit"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __emit_fn {
    () => {};
}

/// What the code `npu_kernel!` generates refers to. Not public API.
#[doc(hidden)]
pub use npu_core::internal::generated as __private;
