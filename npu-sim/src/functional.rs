//! A core's program run on data: every instruction executed once, in an order its
//! flags and barriers allow, apart from the timing.
//!
//! A correctly synchronised program computes the same values in every order its
//! synchronisation allows, so data need not follow the timing engine's order: each
//! pipe here runs ahead until a `wait_flag` finds no set to consume or it reaches a
//! barrier, then the next pipe runs; a barrier passes once every pipe with
//! instructions left stands at it. That order is as legal as the hardware's, and one
//! that runs every producer as far ahead as its flags let it, so a missing
//! synchronisation shows up as wrong values rather than hiding behind the timing.
//!
//! The timing of a run on data comes from the engine's timing-only pass over the
//! same program: cycles do not depend on values.

use npu_core::program::{CoreCode, Cursor, Op, Pipe, Program, StreamView};

use crate::SimError;
use crate::fault::Fault;
use crate::machine::Machine;

/// Runs `code`, core `core`'s program, on `machine`.
pub(crate) fn run(
    program: &Program,
    code: &CoreCode,
    core: u32,
    gm_base: &[u64],
    machine: &mut Machine,
) -> Result<(), SimError> {
    let streams: [StreamView; Pipe::COUNT] =
        std::array::from_fn(|pipe| StreamView::new(code, pipe));
    let active: Vec<usize> = (0..Pipe::COUNT)
        .filter(|p| !streams[*p].is_empty())
        .collect();
    let mut flags = Flags::new(code);
    let mut pc = [Cursor::default(); Pipe::COUNT];
    loop {
        let mut moved = false;
        for &pipe in &active {
            while let Some(instr) = streams[pipe].at(&pc[pipe]) {
                match instr.op {
                    Op::Barrier => break,
                    Op::WaitFlag { from, to, event } => {
                        let pending = flags.pending(from, to, event);
                        if *pending == 0 {
                            break;
                        }
                        *pending -= 1;
                    }
                    Op::SetFlag { from, to, event } => *flags.pending(from, to, event) += 1,
                    Op::Loop => {}
                    ref op => {
                        machine
                            .execute(program, op, gm_base)
                            .map_err(|fault| match fault {
                                Fault::Bad(message) => SimError::BadProgram {
                                    core,
                                    pipe: Pipe::ALL[pipe],
                                    instruction: program.instruction_text(op),
                                    message,
                                },
                                Fault::Index(error) => SimError::Index { core, error },
                            })?
                    }
                }
                streams[pipe].advance(&mut pc[pipe]);
                moved = true;
            }
        }
        // Every pipe is done or stopped, at a barrier or at a wait.
        let next = |pipe: usize| streams[pipe].at(&pc[pipe]).map(|instr| instr.op);
        let mut stopped = active.iter().copied().filter(|&pipe| next(pipe).is_some());
        let Some(first) = stopped.next() else {
            return Ok(());
        };
        let at_barrier = |pipe: usize| matches!(next(pipe), Some(Op::Barrier));
        let release = at_barrier(first) && stopped.all(at_barrier);
        if !release && !moved {
            // The timing pass, which runs first over the same code, reports a
            // deadlock with its cause; this is only a guard against a hang.
            let op = next(first).expect("a stopped pipe has a next instruction");
            return Err(SimError::BadProgram {
                core,
                pipe: Pipe::ALL[first],
                instruction: program.instruction_text(&op),
                message: "waits for a flag no pipe sets".to_string(),
            });
        }
        if release {
            for &pipe in &active {
                if streams[pipe].at(&pc[pipe]).is_some() {
                    streams[pipe].advance(&mut pc[pipe]);
                }
            }
        }
    }
}

/// Sets not yet consumed, per flag `(from, to, event)`.
struct Flags {
    events: usize,
    pending: Vec<u32>,
}

impl Flags {
    fn new(code: &CoreCode) -> Flags {
        let events = code.event_ids();
        Flags {
            events,
            pending: vec![0; Pipe::COUNT * Pipe::COUNT * events],
        }
    }

    fn pending(&mut self, from: Pipe, to: Pipe, event: u16) -> &mut u32 {
        &mut self.pending[(from.index() * 7 + to.index()) * self.events + usize::from(event)]
    }
}
