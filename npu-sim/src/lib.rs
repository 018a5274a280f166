//! npu-sim: a functional and cycle-approximate simulator of lowered npu programs on an
//! Ascend-style AI core ([`npu_core::program`] documents the instruction set and each
//! instruction's cost).
//!
//! The machine model:
//!
//! - **Pipes.** S, MTE2, MTE1, V, M, FIX and MTE3 run concurrently, each in order.
//!   Order between them comes only from `set_flag`/`wait_flag` (counting: each set
//!   satisfies one wait) and barriers. An instruction does not start before the
//!   scalar unit has issued its loop iteration (`loop_cycles` each).
//! - **Costs.** A global-memory copy holds its pipe for `bytes / bandwidth` (plus
//!   `burst_cycles` per extra burst of a strided copy, the transfer times
//!   `pad_penalty` when padded) and lands `latency` cycles later, so one copy takes
//!   `latency + bytes / bandwidth` and consecutive copies overlap their latencies; a
//!   `set_flag` after it goes up when it has landed. Vector: `issue + repeats ×
//!   cycles[op]`, `repeats = ceil(bytes / repeat_bytes)`; a scan one such step per
//!   position along its axis ([`npu_core::program`] gives the formula); a `vgather` reads one address per
//!   element, `repeats = elements`. Cube: `issue + fractals ×
//!   cycles_per_fractal`. MTE1: `bytes / mte1_bytes_per_cycle`.
//! - **Bandwidth.** The cores with work share global memory evenly: each gets
//!   `min(core_bytes_per_cycle, chip rate / cores)`; the chip rate is
//!   `gm_bytes_per_cycle`, raised by a target's L2 for programs that read bytes more
//!   than once (see the `costs` module). A core's MTE2, MTE3 and
//!   FIX transfers take turns on its port, first come first served. Cores are
//!   otherwise independent; the total is the slowest core's.
//! - **Data.** With [`SimOptions::functional`], every instruction also runs on real
//!   values, each held in its own dtype (f16 in two bytes, i8 in one) and rounded
//!   exactly as [`npu_core::scalar`] and the host reference round it; inputs are
//!   read where the caller's [`HostTensor`]s hold them (in the same encoding) and
//!   outputs handed back as written, never converted; vector
//!   instructions run as loops over lanes a chunk at a time, and the cube's `mmad` as a
//!   blocked matrix multiply accumulating in f32 (i32 for integers) in L0C. A gather
//!   index outside its table stops the run with [`SimError::Index`], naming the index
//!   tensor, the element and the value. Values never change cycles, so the data runs
//!   apart from the timing: every core's instructions once each, in an order the
//!   program's flags and barriers allow (see `functional.rs`), with no clock.
//!
//! The timing simulates each class of identical cores once, and within a core
//! advances over iterations that repeat with the same timing by arithmetic (the
//! steady-state collapse, exact by construction: see `engine/collapse.rs`); S, when it
//! runs nothing but its loops, issues them by formula. A traced run times every core's
//! every instruction.
//! [`evaluate`] lowers a kernel to the compact program
//! ([`npu_core::lower::lower_compact`]: each run of alike tiles held once), which the
//! engine reads copy by copy: validation costs what the distinct tile shapes cost, and
//! so does a timing-only run: a 16M-element vmla in 32,768 tiles is a 188-instruction
//! program whose 753,668 instructions the engine times running about 280 of them one
//! at a time.
//!
//! A wait no pipe can satisfy is a [`SimError::Deadlock`], never a hang, a program
//! longer than the budget is refused with [`SimError::InstructionBudget`] (counted on
//! what the run executes: every core's instructions on data, one core's of each class
//! for timing, and for a compact program only those run one at a time;
//! [`evaluate`] refuses a schedule whose estimate is far past it
//! with [`SimError::TooLargeToLower`] without building it), and a
//! program the validator ([`npu_core::validate()`]) rejects for its target is refused
//! with [`SimError::Invalid`] before anything runs.
//!
//! ```
//! let source = "
//!     kernel vmla(a: [f16; 4096], b: [f16; 4096], c: [f16; 4096]) -> y: [f16; 4096] {
//!         y[i] = a[i] * b[i] + c[i];
//!     }
//!     target npueval_demo;
//!     schedule pipelined { split i by 1024; stage a, b, c, y in ub depth 2; }
//! ";
//! let target = npu_core::Target::preset("npueval_demo").unwrap();
//! let kernel = npu_core::check_source(source, &target).unwrap();
//! let inputs: Vec<_> = (0..3).map(|seed| npu_core::host::HostTensor::random(npu_core::Dtype::F16, &[4096], seed)).collect();
//! let evaluation = npu_sim::evaluate(&kernel, 0, &inputs, None, &npu_sim::SimOptions::default()).unwrap();
//! assert!(matches!(evaluation.correctness, npu_sim::Correctness::Passed { .. }));
//! assert!(evaluation.report.total_cycles >= evaluation.report.roofline_cycles);
//! ```

// Every public item says what it is; CI denies warnings.
#![warn(missing_docs)]

mod compare;
mod costs;
mod cube;
mod engine;
mod error;
mod fault;
mod functional;
mod level;
mod machine;
mod reference;
mod report;
pub mod roofline;
mod storage;
pub mod testing;
mod trace;
mod vector;

use npu_core::host::HostTensor;
use npu_core::ir::{CheckedKernel, CheckedSchedule, Role};
use npu_core::lower::{estimate_held_instructions, estimate_instructions, holds_compactly, lower};
use npu_core::program::{Pipe, Program};
use npu_core::validate::Rule;
use serde::{Deserialize, Serialize};

pub use compare::{Fold, Mismatch, Tolerance, compare_outputs, compare_outputs_with, folds};
pub use engine::MAX_CYCLES;
pub use error::{Flag, SimError};
pub use reference::reference;
pub use report::{LevelUse, PipeReport, Report, Traffic};
pub use roofline::{Attainable, Roofline, attainable, machine_roofline, roofline_cycles};
pub use trace::{Trace, TraceEvent};

use crate::costs::Costs;
use crate::machine::Machine;
use crate::report::ClassRun;
use crate::storage::{Global, Tensor};

/// What to simulate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimOptions {
    /// Execute on the input data and return the outputs (otherwise timing only, which
    /// needs no inputs and simulates each class of identical cores once).
    pub functional: bool,
    /// Record every instruction for a Chrome trace.
    pub trace: bool,
    /// The most instructions a run may execute: every core's in a functional or traced
    /// run, one core's of each class of identical cores in a timing-only run (with the
    /// collapse, of a compact program only those run one at a time).
    pub max_instructions: u64,
    /// Untraced runs: advance over iterations that repeat with the same timing by
    /// arithmetic instead of timing each (the report is the same; see
    /// `engine/collapse.rs`), and issue S's loops by formula when S runs nothing
    /// else. Off only to compare against the full simulation.
    #[serde(default = "collapse_by_default")]
    pub collapse: bool,
}

fn collapse_by_default() -> bool {
    true
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            functional: true,
            trace: false,
            max_instructions: 50_000_000,
            collapse: true,
        }
    }
}

/// The result of [`simulate`].
#[derive(Clone, Debug, PartialEq)]
pub struct Simulation {
    /// The cycles, pipes, traffic and bottleneck measured.
    pub report: Report,
    /// The outputs in signature order; empty unless [`SimOptions::functional`].
    pub outputs: Vec<HostTensor>,
    /// Every executed instruction, when [`SimOptions::trace`] asked for it.
    pub trace: Option<Trace>,
    /// Instructions advanced over by arithmetic instead of timed one by one (over
    /// the timed cores: one per class unless traced): the steady-state
    /// collapse's and S's loops issued by formula; 0 without [`SimOptions::collapse`].
    pub collapsed: u64,
}

/// How far over [`SimOptions::max_instructions`] the estimate of a schedule may be
/// before [`evaluate`] refuses to lower it. The estimate is at most about 2.1× the real
/// count, so a program within the budget is always lowered and counted for real.
pub const LOWERING_FACTOR: u64 = 4;

/// The version of the cycle model: lowering, the engine and the presets together. A
/// run journal records it, and `--resume` refuses a journal of another version, whose
/// cycles this simulator would not reproduce. Bump it whenever simulated cycles change,
/// and add its line to [`MODEL_FINGERPRINTS`]: the test
/// `model_version_is_bumped_when_cycles_change` (tests/it/cycles.rs) fails until both are
/// done.
pub const MODEL_VERSION: u32 = 3;

/// FNV-1a over the cycles of a fixed set of kernels (listed in the test named above)
/// under [`MODEL_VERSION`], each version's value kept as a line of history so a change
/// of cycles cannot be recorded without a new version. The last pair is the current one.
pub const MODEL_FINGERPRINTS: &[(u32, &str)] = &[
    (1, "fnv1a64:68ad779d53941f49"),
    (2, "fnv1a64:1385db7a186becdc"),
    (3, "fnv1a64:2153dc0aab46750c"),
];

/// Whether the simulated outputs matched the expected ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Correctness {
    /// Every element within tolerance; the largest absolute difference.
    Passed {
        /// The largest absolute difference from the expected outputs.
        max_abs_error: f64,
    },
    /// Some element, shape or count differs; the first difference.
    Mismatch(Mismatch),
    /// Timing only: nothing was computed.
    NotChecked,
}

/// The result of [`evaluate`].
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// What the simulation measured.
    pub report: Report,
    /// Whether the outputs matched.
    pub correctness: Correctness,
    /// Every executed instruction, when asked for.
    pub trace: Option<Trace>,
}

/// Runs `program` (lowered from `kernel`) on `inputs` (signature order).
pub fn simulate(
    kernel: &CheckedKernel,
    program: &Program,
    inputs: &[HostTensor],
    options: &SimOptions,
) -> Result<Simulation, SimError> {
    let schedule = admit(kernel, program)?;
    // The budget counts what the run executes: a functional or traced run every
    // core's instructions (a compact program's runs read copy by copy), a timing-only
    // run one core of each class (alike cores run alike). A timing-only run with the
    // collapse advances over a compact program's steady runs by arithmetic, so the
    // engine counts the instructions it runs one at a time instead (`engine::run`).
    let every_core = options.functional || options.trace;
    let needed = budget_count(program, every_core);
    let collapses = options.collapse && !every_core;
    if !(program.is_compact() && collapses) && needed > options.max_instructions {
        return Err(SimError::InstructionBudget {
            limit: options.max_instructions,
            needed,
        });
    }
    let chip_rate = costs::Demand::of(kernel, program).chip_rate(&kernel.target);
    let costs = Costs::new(&kernel.target, program.active_cores(), chip_rate);
    let mut machine = if options.functional {
        Some(Machine::new(
            &kernel.target,
            program,
            global_memory(kernel, inputs)?,
        ))
    } else {
        None
    };
    let mut events = options.trace.then(Vec::new);
    let (runs, collapsed) = time_classes(program, &costs, options, events.as_mut())?;
    // Values do not change cycles: the data runs apart from the timing, every core.
    if let Some(machine) = machine.as_mut() {
        for (index, core) in program.cores.iter().enumerate() {
            if index > 0 {
                machine.clear(program);
            }
            functional::run(
                program,
                program.code(core),
                core.core,
                &core.gm_base,
                machine,
            )?;
        }
    }
    let report = report::build(kernel, schedule, program, &runs);
    let outputs = match machine {
        Some(machine) => machine.into_outputs(|index| {
            let tensor = &kernel.tensors[index];
            (tensor.role == Role::Output).then_some(tensor.shape.as_slice())
        }),
        None => Vec::new(),
    };
    Ok(Simulation {
        report,
        outputs,
        trace: events.map(|events| Trace { events }),
        collapsed,
    })
}

/// The schedule of `kernel` that `program` was lowered from, once the program is shown
/// to be for the kernel's target and to pass the validator.
fn admit<'k>(
    kernel: &'k CheckedKernel,
    program: &Program,
) -> Result<&'k CheckedSchedule, SimError> {
    let schedule = kernel
        .schedules
        .iter()
        .find(|s| s.name == program.schedule)
        .ok_or_else(|| SimError::BadInput {
            message: format!(
                "kernel `{}` has no schedule `{}`",
                kernel.name, program.schedule
            ),
        })?;
    if program.target != kernel.target.name {
        return Err(SimError::BadInput {
            message: format!(
                "the program is for target `{}` but the kernel is checked for `{}`",
                program.target, kernel.target.name
            ),
        });
    }
    // The second guard: the simulator runs only programs the target could run. The
    // validator first checks the program's own tables (`Program::validate`), and
    // reports a failure there as its only, `Structure`, violation: that is a bad
    // program rather than one its target cannot run. (Calling `Program::validate`
    // here as well would walk every instruction twice.)
    npu_core::validate(program, &kernel.target).map_err(|mut violations| {
        if violations[0].rule == Rule::Structure {
            let violation = violations.swap_remove(0);
            SimError::BadProgram {
                core: 0,
                pipe: violation.at.as_ref().map_or(Pipe::S, |(_, pipe, _)| *pipe),
                instruction: violation.at.map(|(_, _, text)| text).unwrap_or_default(),
                message: violation.message,
            }
        } else {
            SimError::Invalid {
                violation: violations[0].to_string(),
                violations: violations.len(),
            }
        }
    })?;
    Ok(schedule)
}

/// The timing of one core of each class (every core when tracing, so the trace shows
/// them all), and how many instructions the collapse advanced over.
fn time_classes(
    program: &Program,
    costs: &Costs,
    options: &SimOptions,
    mut events: Option<&mut Vec<TraceEvent>>,
) -> Result<(Vec<ClassRun>, u64), SimError> {
    let mut runs: Vec<Option<ClassRun>> = (0..program.classes.len()).map(|_| None).collect();
    let mut counts = vec![0u64; program.classes.len()];
    let mut collapsed = 0;
    for core in &program.cores {
        counts[core.class as usize] += 1;
    }
    for core in &program.cores {
        let class = core.class as usize;
        if runs[class].is_some() && !options.trace {
            continue;
        }
        let run = engine::run(
            program,
            program.code(core),
            core.core,
            costs,
            events.as_deref_mut(),
            options.max_instructions,
            options.collapse,
        )?;
        collapsed += run.collapsed;
        if runs[class].is_none() {
            runs[class] = Some(ClassRun {
                run,
                cores: counts[class],
                first_core: core.core,
            });
        }
    }
    Ok((runs.into_iter().flatten().collect(), collapsed))
}

/// The instructions a run executes, as [`SimOptions::max_instructions`] counts them.
fn budget_count(program: &Program, every_core: bool) -> u64 {
    if every_core {
        program.instruction_count()
    } else {
        program.class_instruction_count()
    }
}

/// Lowers schedule `schedule` of `kernel`, simulates it and, when functional, compares
/// the outputs with `expected`, or with [`reference()`] when `expected` is `None`, with
/// the tolerances of [`compare_outputs_with`] for the folds that feed each output.
pub fn evaluate(
    kernel: &CheckedKernel,
    schedule: usize,
    inputs: &[HostTensor],
    expected: Option<&[HostTensor]>,
    options: &SimOptions,
) -> Result<Evaluation, SimError> {
    let Some(checked) = kernel.schedules.get(schedule) else {
        return Err(SimError::BadInput {
            message: format!(
                "kernel `{}` has {} schedules, so there is no schedule {schedule}",
                kernel.name,
                kernel.schedules.len()
            ),
        });
    };
    // Refuse a run far too big before building its program; anything nearer the
    // budget is lowered, and `simulate` refuses it on its real count. A functional or
    // traced run executes every core's instructions; a timing-only one, what the
    // program holds (one core of each class, a vector kernel's runs of alike tiles
    // held once), the collapse advancing over the rest.
    let compact = holds_compactly(kernel, checked);
    let estimate = if options.functional || options.trace {
        estimate_instructions(kernel, checked)
    } else {
        estimate_held_instructions(kernel, checked)
    };
    if estimate > options.max_instructions.saturating_mul(LOWERING_FACTOR) {
        return Err(SimError::TooLargeToLower {
            limit: options.max_instructions,
            estimate,
        });
    }
    if options.functional {
        check_inputs(kernel, inputs)?;
        if let Some(expected) = expected {
            check_expected(kernel, expected)?;
        }
    }
    let program = if compact {
        npu_core::lower::lower_compact(kernel, schedule)
    } else {
        lower(kernel, schedule)
    };
    let simulation = simulate(kernel, &program, inputs, options)?;
    let correctness = if options.functional {
        let computed;
        let expected = match expected {
            Some(expected) => expected,
            None => {
                computed = reference(kernel, inputs).map_err(|error| SimError::BadInput {
                    message: error.to_string(),
                })?;
                &computed
            }
        };
        match compare_outputs_with(expected, &simulation.outputs, &folds(kernel)) {
            Ok(max_abs_error) => Correctness::Passed { max_abs_error },
            Err(mismatch) => {
                let names: Vec<String> = kernel
                    .tensors
                    .iter()
                    .filter(|t| t.role == Role::Output)
                    .map(|t| t.name.clone())
                    .collect();
                Correctness::Mismatch(compare::name_outputs(mismatch, &names))
            }
        }
    } else {
        Correctness::NotChecked
    };
    Ok(Evaluation {
        report: simulation.report,
        correctness,
        trace: simulation.trace,
    })
}

/// Global memory for a functional run, each tensor in its dtype: the inputs, as the
/// caller's own bytes, and all-ones bytes for the outputs (NaN in a float dtype), so
/// an element no instruction writes shows up as a mismatch.
fn global_memory<'h>(
    kernel: &CheckedKernel,
    inputs: &'h [HostTensor],
) -> Result<Vec<Global<'h>>, SimError> {
    check_inputs(kernel, inputs)?;
    let mut next = inputs.iter();
    Ok(kernel
        .tensors
        .iter()
        .map(|tensor| match tensor.role {
            Role::Input => match next.next() {
                Some(input) => Global::Host(input),
                None => Global::Written(Tensor::poisoned(tensor.dtype, 0)),
            },
            Role::Output => {
                Global::Written(Tensor::poisoned(tensor.dtype, tensor.elements() as usize))
            }
            // An intermediate lives on chip: no global memory.
            Role::Local => Global::Written(Tensor::poisoned(tensor.dtype, 0)),
        })
        .collect())
}

/// Inputs must match the kernel's inputs in number, dtype and shape.
fn check_inputs(kernel: &CheckedKernel, inputs: &[HostTensor]) -> Result<(), SimError> {
    let declared: Vec<_> = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Input)
        .collect();
    if declared.len() != inputs.len() {
        return Err(SimError::BadInput {
            message: format!(
                "kernel `{}` takes {} inputs but was given {}",
                kernel.name,
                declared.len(),
                inputs.len()
            ),
        });
    }
    for (tensor, input) in declared.iter().zip(inputs) {
        if tensor.dtype != input.dtype()
            || tensor.shape != input.shape()
            || input.len() as u64 != tensor.elements()
        {
            return Err(SimError::BadInput {
                message: format!(
                    "input `{}` is {} {:?} but was given {} {:?} with {} values",
                    tensor.name,
                    tensor.dtype,
                    tensor.shape,
                    input.dtype(),
                    input.shape(),
                    input.len()
                ),
            });
        }
    }
    Ok(())
}

fn check_expected(kernel: &CheckedKernel, expected: &[HostTensor]) -> Result<(), SimError> {
    let declared: Vec<_> = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Output)
        .collect();
    if declared.len() != expected.len() {
        return Err(SimError::BadInput {
            message: format!(
                "kernel `{}` has {} outputs but {} expected tensors were given",
                kernel.name,
                declared.len(),
                expected.len()
            ),
        });
    }
    for (tensor, given) in declared.iter().zip(expected) {
        if tensor.dtype != given.dtype()
            || tensor.shape != given.shape()
            || given.len() as u64 != tensor.elements()
        {
            return Err(SimError::BadInput {
                message: format!(
                    "expected output `{}` is {} {:?} but the kernel declares {} {:?}",
                    tensor.name,
                    given.dtype(),
                    given.shape(),
                    tensor.dtype,
                    tensor.shape
                ),
            });
        }
    }
    Ok(())
}
