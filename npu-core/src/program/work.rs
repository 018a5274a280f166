//! The element operations a program performs, per pipe: what a census of the device
//! (or of a CPU model running emitted code) counts and compares.

use super::{Op, Pipe, Program};

impl Program {
    /// Element operations each pipe performs over the whole run (every core, every
    /// tile), indexed by [`Pipe::index`]: a vector instruction counts the elements of
    /// its box, an `mmad` its `m × n × k` multiply-adds; copies, flags and loop control
    /// count nothing. A compact program counts every copy of its runs.
    pub fn element_ops(&self) -> [u64; Pipe::COUNT] {
        let mut per_class = vec![[0u64; Pipe::COUNT]; self.classes.len()];
        for (code, counts) in self.classes.iter().zip(&mut per_class) {
            for pipe in Pipe::ALL {
                counts[pipe.index()] = code
                    .weighted(pipe)
                    .map(|(instr, weight)| weight * elements(&instr.op))
                    .sum();
            }
        }
        let mut total = [0u64; Pipe::COUNT];
        for core in &self.cores {
            for (sum, count) in total.iter_mut().zip(per_class[core.class as usize]) {
                *sum += count;
            }
        }
        total
    }
}

/// The element operations of one instruction.
fn elements(op: &Op) -> u64 {
    match op {
        Op::Vector(v) => u64::from(v.elements),
        Op::Mmad { m, n, k, .. } => u64::from(*m) * u64::from(*n) * u64::from(*k),
        _ => 0,
    }
}
