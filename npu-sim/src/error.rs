//! Why a simulation stops: [`SimError`], and the flag a deadlock is about.

use std::fmt;

use npu_core::program::Pipe;
use serde::{Deserialize, Serialize};

/// A flag a pipe waits for: `wait_flag from->to #event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    pub from: Pipe,
    pub to: Pipe,
    pub event: u16,
}

/// Why a simulation stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SimError {
    /// No pipe can go on. `pipe` of `core` has waited longest, since `cycle`, at
    /// `instruction` (for `event`, when it is a flag); `reason` says why it never ends.
    Deadlock {
        core: u32,
        pipe: Pipe,
        event: Option<Flag>,
        instruction: String,
        cycle: u64,
        reason: String,
    },
    /// The run would execute more instructions than [`SimOptions::max_instructions`](crate::SimOptions::max_instructions):
    /// `needed` is the real count, of every core's instructions on data and of one
    /// core's of each class of identical cores for timing. A compact program
    /// ([`npu_core::lower::lower_compact`]) in a timing-only run with the collapse is
    /// held to the instructions the engine runs one at a time, the collapse advancing
    /// over the rest; its refusal too states the real count.
    InstructionBudget { limit: u64, needed: u64 },
    /// [`evaluate`](crate::evaluate) did not lower the schedule: the estimate of what the run would
    /// execute ([`npu_core::lower::estimate_instructions`], which overshoots by up to
    /// about 2×, on data; for timing, of the instructions the program holds,
    /// [`npu_core::lower::estimate_held_instructions`]) is more than
    /// [`LOWERING_FACTOR`](crate::LOWERING_FACTOR) times the budget, so the real count would be over it too
    /// and building the program would only waste memory.
    TooLargeToLower { limit: u64, estimate: u64 },
    /// Inputs, expected outputs or a schedule index that do not fit the kernel.
    BadInput { message: String },
    /// A program the validator ([`npu_core::validate()`]) rejects for its target: the
    /// first violation, and how many there are.
    Invalid {
        violation: String,
        violations: usize,
    },
    /// A pipe's time passed [`MAX_CYCLES`](crate::MAX_CYCLES): the costs of the target or the program are
    /// out of any real range, and a cycle count that large would not be exact.
    CycleOverflow {
        core: u32,
        pipe: Pipe,
        instruction: String,
        limit: u64,
    },
    /// A gather met an index outside the dimension it indexes: the input data's
    /// fault. Nothing was read.
    Index {
        core: u32,
        error: npu_core::scalar::IndexError,
    },
    /// An instruction that touches memory outside its level or tensor.
    BadProgram {
        core: u32,
        pipe: Pipe,
        instruction: String,
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
