//! The backend: writes device source from a lowered, validated [`Program`].
//!
//! The pipeline ends here: text → syntax tree → checked kernel → program → (simulator |
//! validator | emitter). The emitter reads nothing but the program, its [`Target`] and
//! the [`CheckedKernel`] it came from (for the kernel's name, its canonical text's hash
//! and its schedule's name), and nothing upstream depends on it.
//!
//! Stages, each in its own module:
//!
//! - `order`: the per-pipe streams of each core class laid into one
//!   program order that keeps every pipe's own order and puts each `set_flag` before
//!   the `wait_flag` it satisfies; a run of alike tiles becomes one loop.
//! - `aie`: the AIE C++ tile kernel (the AIE API) for aie2_tile, one call per tile.
//! - `ascend`: the Ascend C kernel (`extern "C" __global__ __aicore__`), its
//!   `DataCopyPad` and vector calls, and the host side (launch file and CMakeLists).
//!
//! What the backends share sits in leaves both read, so neither backend depends on
//! the other or on this dispatcher: `output` (the backend's name, the emitted files,
//! [`Unsupported`] and the kernel hash) and `signature` (the program's symbol, its
//! global-memory tensors and its scalar parameters). The symbol is
//! `KERNEL_SCHEDULE_HASH` ([`symbol`]): msprof names its rows by it, so `autotune
//! calibrate` maps a profiler's row back to the schedule that produced it.
//!
//! A construct the chosen API cannot express is an [`Unsupported`] error that names
//! it; nothing is guessed. Emission is deterministic: the same program gives the same
//! bytes.
//!
//! ```
//! # use npu_core::{check_source, Target};
//! let target = Target::preset("ascend910b").unwrap();
//! let kernel = check_source(
//!     "kernel double(x: [f32; 65536]) -> y: [f32; 65536] { y[i] = x[i] * 2.0; }
//!      target ascend910b;
//!      schedule s { parallel i over 4 cores; split i by 2048; stage x, y in ub depth 2; }",
//!     &target,
//! )
//! .unwrap();
//! let program = npu_core::lower::lower_compact(&kernel, 0);
//! let emitted = npu_emit::emit(&program, &target, &kernel, npu_emit::Backend::AscendC).unwrap();
//! let names: Vec<&str> = emitted.files.iter().map(|f| f.path.as_str()).collect();
//! assert_eq!(names, ["double_s.cpp", "main.cpp", "CMakeLists.txt"]);
//! ```
//!
//! On aie2_tile the AIE backend writes the tile kernel, one call per tile:
//!
//! ```
//! # use npu_core::{check_source, Target};
//! let target = Target::preset("aie2_tile").unwrap();
//! let kernel = check_source(
//!     "kernel relu(x: [bf16; 4096]) -> y: [bf16; 4096] { y[i] = relu(x[i]); }
//!      target aie2_tile;
//!      schedule s { split i by 512; stage x, y in ub depth 1; }",
//!     &target,
//! )
//! .unwrap();
//! let program = npu_core::lower::lower_compact(&kernel, 0);
//! let emitted = npu_emit::emit(&program, &target, &kernel, npu_emit::Backend::Aie).unwrap();
//! let text = &emitted.file("relu_s.cc").unwrap().text;
//! let symbol = npu_emit::symbol(&kernel, "s"); // relu_s and a hash of kernel, target, schedule
//! assert!(text.contains(&format!("extern \"C\" void {symbol}(bfloat16 *x, bfloat16 *y)")));
//! assert!(text.contains(&format!("//   calls 0..7: {symbol} (0 0)")));
//! ```

// Every public item says what it is; CI denies warnings.
#![warn(missing_docs)]

mod aie;
mod ascend;
mod order;
mod output;
mod signature;
mod text;

use npu_core::{CheckedKernel, Program, Target};

pub use output::{Backend, Emitted, File, Unsupported};
pub use signature::schedule_hash;

/// The symbol of schedule `schedule` of `kernel` (checked for its own target) as the
/// backends write it: `KERNEL_SCHEDULE_HASH`, the hash being [`schedule_hash`] of the
/// kernel, its target's name and the schedule. The emitted files keep the readable
/// `KERNEL_SCHEDULE` stem; a profiler's rows carry the symbol.
pub fn symbol(kernel: &CheckedKernel, schedule: &str) -> String {
    let hash = schedule_hash(kernel, &kernel.target.name, schedule);
    format!("{}_{schedule}_{hash}", kernel.name)
}

/// Writes `program` (lowered from `kernel` for `target`, and valid there) as source for
/// `backend`. A program the validator rejects, or one for another target, is refused
/// as unsupported rather than written.
pub fn emit(
    program: &Program,
    target: &Target,
    kernel: &CheckedKernel,
    backend: Backend,
) -> Result<Emitted, Unsupported> {
    let refuse = |construct: String, reason: String| Unsupported {
        backend,
        construct,
        reason,
    };
    if program.target != target.name || program.kernel != kernel.name {
        return Err(refuse(
            format!("program {}.{}", program.kernel, program.schedule),
            format!(
                "it is lowered from kernel `{}` for target `{}`, not `{}` for `{}`",
                program.kernel, program.target, kernel.name, target.name
            ),
        ));
    }
    if let Some(reason) = backend.refusal(target) {
        return Err(refuse(format!("target {}", target.name), reason));
    }
    let mut names = [&program.kernel, &program.schedule]
        .into_iter()
        .chain(program.signature.iter().map(|tensor| &tensor.name));
    if let Some(name) = names.find(|name| !name.is_ascii()) {
        return Err(refuse(
            format!("the name `{name}`"),
            "symbols, file names and the host's identifiers are ASCII: rename it".into(),
        ));
    }
    if let Err(violations) = npu_core::validate(program, target) {
        return Err(refuse(
            format!("program {}.{}", program.kernel, program.schedule),
            format!("the validator rejects it: {}", violations[0]),
        ));
    }
    match backend {
        Backend::AscendC => ascend::emit(program, target, kernel),
        Backend::Aie => aie::emit(program, target, kernel),
    }
}
