//! What the engine says when no pipe can go on: the pipe that has waited longest on
//! a flag (the others block behind it), the instruction, and why nothing will end the
//! wait.

use npu_core::program::{Op, Pipe, Program};

use super::Engine;
use crate::{Flag, SimError};

impl Engine<'_> {
    pub(super) fn deadlock(&self, program: &Program, core: u32) -> SimError {
        // Blame the pipe that has waited longest on a flag: the others block behind it.
        let mut blame: Option<(u8, f64, usize)> = None;
        for &pipe in &self.active {
            let Some(instr) = self.streams[pipe].get(self.pc[pipe]) else {
                continue;
            };
            let rank = match instr.op {
                Op::WaitFlag { .. } => 0,
                Op::Barrier => 2,
                _ => 1,
            };
            let key = (rank, self.time[pipe], pipe);
            if blame.is_none_or(|best| (key.0, key.1) < (best.0, best.1)) {
                blame = Some(key);
            }
        }
        let (_, _, pipe) = blame.expect("a deadlock leaves a pipe unfinished");
        let op = self.streams[pipe]
            .get(self.pc[pipe])
            .expect("the blamed pipe is unfinished")
            .op;
        let (event, reason) = match op {
            Op::WaitFlag { from, to, event } => {
                let source = &self.streams[from.index()];
                let next = self.pc[from.index()];
                let sets = (next..source.len())
                    .filter_map(|index| source.get(index))
                    .any(|i| i.op == (Op::SetFlag { from, to, event }));
                let reason = match source.get(next) {
                    Some(blocked) if sets => {
                        format!(
                            "{from}, which would set it, is itself blocked at `{}`",
                            program.instruction_text(&blocked.op)
                        )
                    }
                    _ => format!("no {from} instruction left sets event {event} for {to}"),
                };
                (Some(Flag { from, to, event }), reason)
            }
            Op::Barrier => (None, "the other pipes never reach the barrier".to_string()),
            _ => (
                None,
                "the scalar unit never issues its iteration".to_string(),
            ),
        };
        SimError::Deadlock {
            core,
            pipe: Pipe::ALL[pipe],
            event,
            instruction: program.instruction_text(&op),
            cycle: self.time[pipe].ceil() as u64,
            reason,
        }
    }
}
