//! Why a simulation stops: [`SimError`], and the flag a deadlock is about.

use std::fmt;

use npu_core::program::Pipe;
use serde::{Deserialize, Serialize};

/// A flag a pipe waits for: `wait_flag from->to #event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    /// The pipe that sets the flag.
    pub from: Pipe,
    /// The pipe that waits for it.
    pub to: Pipe,
    /// The event id.
    pub event: u16,
}

/// Why a simulation stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SimError {
    /// No pipe can go on. `pipe` of `core` has waited longest, since `cycle`, at
    /// `instruction` (for `event`, when it is a flag); `reason` says why it never ends.
    Deadlock {
        /// The core that waited longest.
        core: u32,
        /// Its pipe.
        pipe: Pipe,
        /// The flag it waits for, when it is a flag wait.
        event: Option<Flag>,
        /// The instruction it is stuck at, as the listing shows it.
        instruction: String,
        /// The cycle it started waiting.
        cycle: u64,
        /// Why the wait never ends.
        reason: String,
    },
    /// The run would execute more instructions than [`SimOptions::max_instructions`](crate::SimOptions::max_instructions):
    /// `needed` is the real count, of every core's instructions on data and of one
    /// core's of each class of identical cores for timing. A compact program
    /// ([`npu_core::lower::lower_compact`]) in a timing-only run with the collapse is
    /// held to the instructions the engine runs one at a time, the collapse advancing
    /// over the rest; its refusal too states the real count.
    InstructionBudget {
        /// The budget.
        limit: u64,
        /// The real count.
        needed: u64,
    },
    /// [`evaluate`](crate::evaluate) did not lower the schedule: the estimate of what the run would
    /// execute ([`npu_core::lower::estimate_instructions`], which overshoots by up to
    /// about 2×, on data; for timing, of the instructions the program holds,
    /// [`npu_core::lower::estimate_held_instructions`]) is more than
    /// [`LOWERING_FACTOR`](crate::LOWERING_FACTOR) times the budget, so the real count would be over it too
    /// and building the program would only waste memory.
    TooLargeToLower {
        /// The budget.
        limit: u64,
        /// The estimate of the instructions.
        estimate: u64,
    },
    /// Inputs, expected outputs or a schedule index that do not fit the kernel.
    BadInput {
        /// Why the input does not fit.
        message: String,
    },
    /// A program the validator ([`npu_core::validate()`]) rejects for its target: the
    /// first violation, and how many there are.
    Invalid {
        /// The first violation, as the validator words it.
        violation: String,
        /// How many violations there are.
        violations: usize,
    },
    /// A pipe's time passed [`MAX_CYCLES`](crate::MAX_CYCLES): the costs of the target or the program are
    /// out of any real range, and a cycle count that large would not be exact.
    CycleOverflow {
        /// The core whose pipe overflowed.
        core: u32,
        /// The pipe.
        pipe: Pipe,
        /// The instruction that passed the limit.
        instruction: String,
        /// The limit, in cycles.
        limit: u64,
    },
    /// A gather met an index outside the dimension it indexes: the input data's
    /// fault. Nothing was read.
    Index {
        /// The core that ran the gather.
        core: u32,
        /// The index and where it was read.
        error: npu_core::scalar::IndexError,
    },
    /// An instruction that touches memory outside its level or tensor.
    BadProgram {
        /// The core that ran it.
        core: u32,
        /// Its pipe.
        pipe: Pipe,
        /// The instruction, as the listing shows it.
        instruction: String,
        /// What it touched.
        message: String,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Deadlock {
                core,
                pipe,
                instruction,
                cycle,
                reason,
                ..
            } => {
                write!(
                    f,
                    "deadlock: {pipe} on core {core} waits at `{instruction}` from cycle {cycle}: {reason}"
                )
            }
            SimError::InstructionBudget { limit, needed } => {
                write!(
                    f,
                    "the run needs {needed} instructions, more than the budget of {limit}; use larger tiles"
                )
            }
            SimError::TooLargeToLower { limit, estimate } => {
                write!(
                    f,
                    "the run would need about {estimate} instructions (an estimate; the program was not built), far more than the budget of {limit}; use larger tiles"
                )
            }
            SimError::BadInput { message } => f.write_str(message),
            SimError::Invalid {
                violation,
                violations,
            } => {
                write!(f, "the program breaks its target's rules: {violation}")?;
                if *violations > 1 {
                    write!(f, " (and {} more)", violations - 1)?;
                }
                Ok(())
            }
            SimError::CycleOverflow {
                core,
                pipe,
                instruction,
                limit,
            } => {
                write!(
                    f,
                    "cycle count overflow: {pipe} on core {core} at `{instruction}` ends past cycle {limit}; check the target's latencies and bandwidths"
                )
            }
            SimError::Index { core, error } => write!(f, "{error} (on core {core})"),
            // A program whose tables are wrong has no one instruction to blame.
            SimError::BadProgram {
                instruction,
                message,
                ..
            } if instruction.is_empty() => write!(f, "bad program: {message}"),
            SimError::BadProgram {
                core,
                pipe,
                instruction,
                message,
            } => {
                write!(
                    f,
                    "bad program: {pipe} on core {core} at `{instruction}` {message}"
                )
            }
        }
    }
}

impl std::error::Error for SimError {}
