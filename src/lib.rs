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
//! The pipeline stages live in npu-core and are re-exported here: [`parse`], [`check`]
//! and [`schedule`], [`plan`], [`ir`], [`print`](mod@print), [`lower`](mod@lower) to a [`Program`], and the
//! scalar semantics both the host reference and the simulator use, [`scalar`].

// Generated code names this crate `::npu`; this makes the name work inside it too.
extern crate self as npu;

/// The simulator: run a lowered schedule on data, get cycles per pipe and a report.
pub use npu_sim as sim;

#[cfg(feature = "tune")]
pub mod build;
#[cfg(feature = "tune")]
pub mod kernels;
pub mod testing;
#[cfg(feature = "tune")]
pub mod tuner;

use std::path::Path;

pub use half::{bf16, f16};
pub use npu_core::host::{Element, HostTensor};
pub use npu_core::scalar::{IndexError, InputError, ShapeError};
pub use npu_core::{
    CheckedKernel, Code, Diagnostic, DiagnosticRecord, Diagnostics, Dtype, Edit, Fix, Level, Pipe,
    Program, Target, TargetError, check_source, check_source_with,
};
pub use npu_core::{
    ast, check, diag, dtype, fix, ir, lower, parse, plan, print, program, scalar, schedule, target,
    validate, variants,
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

/// What the code `npu_kernel!` generates refers to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use std::sync::OnceLock;

    pub use npu_core::host::Element;
    pub use npu_core::ir::{BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp};
    pub use npu_core::scalar;
    pub use npu_core::{CheckedKernel, Dtype, Target, check, parse};

    use npu_core::host::HostTensor;
    use npu_core::scalar::{IndexError, ShapeError};

    /// The row a gather reads: `value`, the element of `index` at `position`, when it
    /// lies in `0..extent` (dimension `dim` of `table`), else the error that names them.
    pub fn gather_index(
        value: f64,
        extent: u64,
        index: &str,
        position: &[u64],
        table: &str,
        dim: usize,
    ) -> Result<usize, IndexError> {
        IndexError::check(value, extent, || IndexError {
            index: index.to_string(),
            position: position.to_vec(),
            value: value as i64,
            table: table.to_string(),
            dim,
            extent,
        })
        .map(|row| row as usize)
    }

    /// The checked kernel of a generated module, from its source and target text. Both
    /// passed the checker when the crate compiled, so a failure is a bug in npu.
    pub fn recheck(name: &str, source: &str, target_toml: &str) -> CheckedKernel {
        let checked = Target::from_toml(target_toml)
            .map_err(|error| error.to_string())
            .and_then(|target| {
                npu_core::check_source(source, &target).map_err(|d| d.render(source))
            });
        match checked {
            Ok(kernel) => kernel,
            Err(error) => panic!(
                "npu bug: kernel `{name}` passed the checker at compile time but not at run time\n{error}"
            ),
        }
    }

    /// `Ok` when a slice has its tensor's element count.
    pub fn check_length(tensor: &str, expected: usize, actual: usize) -> Result<(), ShapeError> {
        if expected == actual {
            Ok(())
        } else {
            Err(ShapeError {
                tensor: tensor.to_string(),
                expected,
                actual,
            })
        }
    }

    pub fn to_f64s<T: Element>(values: &[T]) -> Vec<f64> {
        values.iter().map(|value| value.to_f64()).collect()
    }

    pub fn from_f64s<T: Element>(values: &[f64]) -> Vec<T> {
        values.iter().map(|value| T::from_f64(*value)).collect()
    }

    /// The value of a 0-d output, which `evaluate` computes as one element.
    pub fn from_f64<T: Element>(values: &[f64]) -> T {
        T::from_f64(values[0])
    }

    /// The values of `inputs` after checking them against the declared `(name, dtype,
    /// elements)` of each input, rounded to the declared dtype.
    pub fn host_inputs<const N: usize>(
        inputs: &[HostTensor],
        declared: [(&str, Dtype, usize); N],
    ) -> Result<[Vec<f64>; N], ShapeError> {
        check_length("inputs", N, inputs.len())?;
        let mut values: [Vec<f64>; N] = std::array::from_fn(|_| Vec::new());
        for ((slot, input), (name, dtype, elements)) in values.iter_mut().zip(inputs).zip(declared)
        {
            check_length(name, elements, input.len())?;
            *slot = input.values_as(dtype);
        }
        Ok(values)
    }

    /// Output values as tensors of the declared `(dtype, shape)`.
    pub fn host_outputs<const N: usize>(
        values: [Vec<f64>; N],
        declared: [(Dtype, &[u64]); N],
    ) -> Vec<HostTensor> {
        values
            .into_iter()
            .zip(declared)
            .map(|(data, (dtype, shape))| HostTensor::from_values(dtype, shape, &data))
            .collect()
    }
}
