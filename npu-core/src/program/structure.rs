//! The structural self-check of a [`Program`]: every index an instruction holds names
//! an entry of the program's tables, so a simulator can run it without bounds failures.

use std::fmt;

use super::{Op, Operand, Pipe, Program, VectorInstr, VectorKind};

/// Where a program refers to something it does not have (see [`Program::validate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    /// The class and pipe of the instruction, when one is to blame.
    pub at: Option<(u32, Pipe, String)>,
    /// What is wrong, e.g. `names copy shape 7 of 3`.
    pub message: String,
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some((class, pipe, instruction)) => {
                write!(
                    f,
                    "{pipe} of core class {class} at `{instruction}`: {}",
                    self.message
                )
            }
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ProgramError {}

impl Program {
    /// Checks that every index an instruction holds names an entry of the program's
    /// tables, each instruction sits in its own pipe's stream, and every core names a
    /// class, so a simulator can run the program without bounds failures. Lowered
    /// programs always pass; hand-built ones may not.
    pub fn validate(&self) -> Result<(), ProgramError> {
        let fail = |message: String| Err(ProgramError { at: None, message });
        for core in &self.cores {
            if core.class as usize >= self.classes.len() {
                return fail(format!(
                    "core {} names class {} of {}",
                    core.core,
                    core.class,
                    self.classes.len()
                ));
            }
            if core.gm_base.len() != self.tensors.len() {
                return fail(format!(
                    "core {} has {} tensor bases for {} tensors",
                    core.core,
                    core.gm_base.len(),
                    self.tensors.len()
                ));
            }
        }
        for (class, code) in self.classes.iter().enumerate() {
            code.check_repeats().map_err(|message| ProgramError {
                at: None,
                message: format!("core class {class}: {message}"),
            })?;
            for pipe in Pipe::ALL {
                for instr in code.stream(pipe) {
                    if let Some(problem) = self.problem(pipe, &instr.op) {
                        return Err(ProgramError {
                            at: Some((class as u32, pipe, self.instruction_text(&instr.op))),
                            message: problem,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    fn problem(&self, pipe: Pipe, op: &Op) -> Option<String> {
        if let Some(owner) = op.pipe()
            && owner != pipe
        {
            return Some(format!("a {owner} instruction in the {pipe} stream"));
        }
        let tensor = |t: u16| {
            (usize::from(t) >= self.tensors.len())
                .then(|| format!("names tensor {t} of {}", self.tensors.len()))
        };
        let copy = |c: u32| {
            (c as usize >= self.copies.len())
                .then(|| format!("names copy shape {c} of {}", self.copies.len()))
        };
        match op {
            Op::CopyIn {
                tensor: t, shape, ..
            }
            | Op::CopyOut {
                tensor: t, shape, ..
            } => tensor(*t).or_else(|| copy(*shape)),
            Op::Fixpipe { tensor: t, .. } => tensor(*t),
            Op::Mmad { .. } if self.cube.is_none() => Some("needs the program's cube block".into()),
            Op::Vector(VectorInstr {
                kind: VectorKind::Gather(g),
                ..
            }) if *g as usize >= self.gathers.len() => {
                Some(format!("names gather {g} of {}", self.gathers.len()))
            }
            Op::Vector(VectorInstr {
                kind: VectorKind::Gather(g),
                ..
            }) if self
                .gathers
                .get(*g as usize)
                .is_some_and(|g| tensor(g.table).is_some() || tensor(g.index).is_some()) =>
            {
                Some(format!(
                    "gather {g} names a tensor the program does not have"
                ))
            }
            Op::Vector(v) => {
                let Some(rank) = self.boxes.get(v.shape as usize).map(Vec::len) else {
                    return Some(format!("names box {} of {}", v.shape, self.boxes.len()));
                };
                let misfit = |strides: u32| {
                    (self.strides.get(strides as usize).map(Vec::len) != Some(rank)).then(|| {
                        format!("has strides {strides} that do not fit its box of rank {rank}")
                    })
                };
                v.src.iter().fold(misfit(v.dst_strides), |problem, src| {
                    problem.or_else(|| match *src {
                        Operand::Ub { strides, .. } => misfit(strides),
                        Operand::Scalar(index) if index as usize >= self.constants.len() => Some(
                            format!("names constant {index} of {}", self.constants.len()),
                        ),
                        Operand::Param(t) => tensor(t),
                        _ => None,
                    })
                })
            }
            _ => None,
        }
    }
}
