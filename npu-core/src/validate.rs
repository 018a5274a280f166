//! The validator: a second, independent check of a lowered [`Program`] against a
//! [`Target`], instruction by instruction.
//!
//! The checker ([`crate::check`], [`crate::schedule`]) judges a kernel and a schedule
//! before lowering, with spans and fixes. This module judges what lowering actually
//! emitted, reading nothing but the program and the target, so a mistake in the
//! checker's rules, in the plan or in lowering shows up as a disagreement between the
//! two guards (the differential test keeps them in step) instead of as a program the
//! simulator runs on a machine that could not. It shares no code with the checker.
//!
//! What it checks, each rule from the instruction's own operands:
//!
//! - **Capacity.** Every placement lies in its level (a level of capacity 0 holds
//!   nothing), and so does every byte range an instruction touches: a copy's range from
//!   its shape (a padded copy's last burst rounded up to the alignment), a vector
//!   operand's from its box and byte strides, a cube block's from the program's block.
//! - **Alignment.** Every placement and the on-chip start of every copy is a multiple
//!   of the level's alignment. A copy's bursts (its contiguous runs in global memory,
//!   found from the strides) must start aligned on chip. An unpadded copy (`DataCopy`)
//!   also needs each burst's length, each stride between bursts and its start in
//!   global memory aligned, for every core that runs it. A padded copy (`DataCopyPad`)
//!   takes any length and global-memory stride, but each padded burst must fit before
//!   the next burst on chip and the bytes it moves must be the padded bursts.
//! - **Repeats.** A vector instruction issues `ceil(elements × width / repeat_bytes)`
//!   repeats, at most `vector.max_repeat`; `elements` is its box's product and `width`
//!   the widest element it touches (the accumulator's for `vreduce` and `vscan`, the
//!   wider of index and value for `vreduce.argmax`; the recorded
//!   width where a cast's source dtype is not in the instruction).
//! - **Events.** Every flag id is below `target.events`; each `set_flag` sits in its
//!   `from` pipe's stream, each `wait_flag` in its `to` pipe's, and per core class the
//!   sets and waits of every `(from, to, event)` balance. A queue reserves one id per
//!   buffer slot between the pipes it joins (as Ascend C's `TQue` does when its buffers
//!   are initialised), whether or not a tile fills the slot: per pair of pipes, the
//!   slots of the buffers the program copies through between them fit the ids.
//! - **Cores.** The requested and the assigned cores fit the target's cube cores when
//!   the program uses the cube, its vector cores otherwise.
//! - **Gathers.** A `vgather`'s table view, moved by any row up to its extent, and
//!   its index view (in the index's dtype) lie in UB, as the capacity rule asks of
//!   every operand (a violation is reported as [`Rule::Capacity`]).
//! - **Units.** Vector arithmetic (unary, binary, compare, select, reduce) computes in
//!   a dtype of `vector.dtypes`; moves (`vdup`, `vcopy`) and conversions (`vconv`)
//!   and `vgather` only move bits, and a reduction's accumulator is the unit's own wider format, so
//!   those are not held to the list; a reduction's accumulator dtype must be in
//!   `vector.dtypes` or `vector.accumulators`, and so must a scan's; a sum that
//!   multiplies two sources before folding them (a multiply-accumulate) accumulates in
//!   a dtype that holds every product of its own. Cube instructions need `target.cube`, one of its
//!   dtypes and a block that is a multiple of its fractal.
//! - **Signature.** The program's signature names its tensors in order; a `copy_in`
//!   reads an input, a `copy_out` or `fixpipe` writes an output, each with the
//!   element size and dtype of its tensor; a scalar-parameter operand names a rank-0
//!   input; a cube instruction's dtype is its tensors' (a backend declares its
//!   arguments and element types from the signature alone).
//!
//! The copy rules live in the private `copy` module, the vector rules in `vector`, the
//! cube rules in `cube`, the signature rule in `signature`, the rest here.

mod copy;
mod cube;
mod signature;
mod vector;

use std::fmt;

use crate::program::{Op, Pipe, Program};
use crate::target::{Level, Target};

/// Violations reported at most; the rest are counted in a last one.
const MAX_VIOLATIONS: usize = 64;

/// One thing a program does that its target cannot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken; its name starts the violation's `Display` text.
    pub rule: Rule,
    /// The core class, pipe and listing text of the instruction to blame, if one is.
    pub at: Option<(u32, Pipe, String)>,
    /// What is wrong, for a person: operands, limits and the target's values.
    pub message: String,
}

/// The kind of rule a [`Violation`] breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// The program's tables do not fit its instructions ([`Program::validate`]).
    Structure,
    /// A placement, or a byte range an instruction touches (a gather's views
    /// included), lies outside its memory level.
    Capacity,
    /// A placement, a copy's on-chip start, or an unpadded copy's bursts and strides
    /// are not multiples of the level's alignment, or padded bursts overlap.
    Alignment,
    /// A vector instruction needs more repeats than `vector.max_repeat`.
    Repeats,
    /// Event flags: an id past `target.events`, a set or wait in the wrong pipe's
    /// stream, unbalanced sets and waits, or queues reserving more ids than exist.
    Events,
    /// The requested or assigned cores exceed the target's cube or vector cores.
    Cores,
    /// The program needs what the target lacks: a memory level, the cube, a dtype its
    /// vector or cube unit computes or accumulates in, a block of whole fractals.
    Unit,
    /// An instruction disagrees with the program's signature: a copy of a tensor in
    /// the wrong direction or with the wrong element size, a parameter that is not a
    /// scalar input.
    Signature,
}

impl Rule {
    /// The rule's lowercase name, which starts a violation's `Display` text.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Structure => "structure",
            Rule::Capacity => "capacity",
            Rule::Alignment => "alignment",
            Rule::Repeats => "repeats",
            Rule::Events => "events",
            Rule::Cores => "cores",
            Rule::Unit => "unit",
            Rule::Signature => "signature",
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some((class, pipe, instruction)) => write!(
                f,
                "{}: {pipe} of core class {class} at `{instruction}`: {}",
                self.rule.name(),
                self.message
            ),
            None => write!(f, "{}: {}", self.rule.name(), self.message),
        }
    }
}

impl std::error::Error for Violation {}

/// Checks `program` against `target`: first the program's own tables
/// ([`Program::validate`]), then every placement and instruction.
pub fn validate(program: &Program, target: &Target) -> Result<(), Vec<Violation>> {
    if let Err(error) = program.validate() {
        return Err(vec![Violation {
            rule: Rule::Structure,
            at: error.at,
            message: error.message,
        }]);
    }
    let mut validator = Validator {
        program,
        target,
        found: Vec::new(),
        dropped: 0,
    };
    validator.signature();
    validator.placements();
    validator.reservations();
    validator.cores();
    for class in 0..program.classes.len() {
        validator.class(class as u32);
    }
    validator.global_memory();
    let Validator {
        mut found, dropped, ..
    } = validator;
    if dropped > 0 {
        found.push(Violation {
            rule: found[0].rule,
            at: None,
            message: format!("and {dropped} more violations"),
        });
    }
    if found.is_empty() { Ok(()) } else { Err(found) }
}

struct Validator<'p> {
    program: &'p Program,
    target: &'p Target,
    found: Vec<Violation>,
    dropped: usize,
}

/// Where a violation is, before its instruction text is written.
#[derive(Clone, Copy)]
struct Site<'o> {
    class: u32,
    pipe: Pipe,
    op: &'o Op,
}

impl Validator<'_> {
    fn report(&mut self, rule: Rule, site: Option<Site>, message: String) {
        let at = site.map(|s| (s.class, s.pipe, self.program.instruction_text(s.op)));
        let violation = Violation { rule, at, message };
        if self.found.contains(&violation) {
            return;
        }
        if self.found.len() < MAX_VIOLATIONS {
            self.found.push(violation);
        } else {
            self.dropped += 1;
        }
    }

    /// The event ids the queues reserve: one per slot of each buffer that a pipe
    /// fills for another (found from the instructions that fill it), per pipe pair.
    fn reservations(&mut self) {
        let program = self.program;
        let holding = |level: Level, address: u64| {
            program
                .buffers
                .iter()
                .position(|b| b.level == level && (b.address..b.end()).contains(&address))
        };
        // Pipe pair -> the buffers queued between them (a few pairs: a list beats a map).
        let mut queues: Vec<((Pipe, Pipe), Vec<usize>)> = Vec::new();
        for code in &program.classes {
            for instr in code.streams.iter().flatten() {
                let queued = match instr.op {
                    Op::CopyIn { level, address, .. } => {
                        let consumer = if level == Level::L1 {
                            Pipe::Mte1
                        } else {
                            Pipe::V
                        };
                        holding(level, u64::from(address)).map(|b| ((Pipe::Mte2, consumer), b))
                    }
                    Op::CopyOut { address, .. } => {
                        holding(Level::Ub, u64::from(address)).map(|b| ((Pipe::V, Pipe::Mte3), b))
                    }
                    Op::LoadL0 { level, dest, .. } => {
                        holding(level, u64::from(dest)).map(|b| ((Pipe::Mte1, Pipe::M), b))
                    }
                    Op::Mmad { c, .. } => {
                        holding(Level::L0c, u64::from(c)).map(|b| ((Pipe::M, Pipe::Fix), b))
                    }
                    _ => None,
                };
                if let Some((pair, buffer)) = queued {
                    let list = entry(&mut queues, pair);
                    if !list.contains(&buffer) {
                        list.push(buffer);
                    }
                }
            }
        }
        queues.sort_unstable_by_key(|(pair, _)| *pair);
        let events = u64::from(self.target.events);
        for ((from, to), mut buffers) in queues {
            buffers.sort_unstable();
            let slots: u64 = buffers.iter().map(|b| program.buffers[*b].depth).sum();
            if slots > events {
                let parts: Vec<String> = buffers
                    .iter()
                    .map(|b| {
                        format!(
                            "{} x{}",
                            program.buffers[*b].name, program.buffers[*b].depth
                        )
                    })
                    .collect();
                let message = format!(
                    "the queues from {from} to {to} reserve {slots} event ids, one per slot ({}), but `{}` has {events}",
                    parts.join(", "),
                    self.target.name
                );
                self.report(Rule::Events, None, message);
            }
        }
    }

    /// Every buffer inside its level, starting aligned.
    fn placements(&mut self) {
        for buffer in &self.program.buffers {
            let level = buffer.level;
            let capacity = self.target.capacity(level);
            let align = self.target.alignment(level);
            let (start, end) = (buffer.address, buffer.end());
            if capacity == 0 {
                let message = format!(
                    "buffer `{}` is placed in {level}, which `{}` does not have",
                    buffer.name, self.target.name
                );
                self.report(Rule::Unit, None, message);
            } else if end > capacity {
                let message = format!(
                    "buffer `{}` at {level} {start:#x}..{end:#x} ends {} B past the {capacity} B of {level}",
                    buffer.name,
                    end - capacity
                );
                self.report(Rule::Capacity, None, message);
            } else if level == Level::Ub && end > self.target.ub_planned(self.program.selects) {
                let message = format!(
                    "buffer `{}` at ub {start:#x}..{end:#x} reaches the vendor library's scratch from {} B, which a select writes",
                    buffer.name,
                    self.target.ub_planned(true)
                );
                self.report(Rule::Capacity, None, message);
            }
            if !start.is_multiple_of(align)
                || (buffer.depth > 1 && !buffer.slot_bytes.is_multiple_of(align))
            {
                let message = format!(
                    "buffer `{}` has slots of {} B from {level} {start:#x}, not on the {align}-byte alignment",
                    buffer.name, buffer.slot_bytes
                );
                self.report(Rule::Alignment, None, message);
            }
        }
    }

    fn uses_cube(&self) -> bool {
        self.program.cube.is_some()
            || self.program.classes.iter().any(|code| {
                [Pipe::Mte1, Pipe::M, Pipe::Fix]
                    .iter()
                    .any(|pipe| !code.stream(*pipe).is_empty())
            })
    }

    fn cores(&mut self) {
        let cube = self.uses_cube();
        let (available, kind) = if cube {
            (u64::from(self.target.cores.cube), "cube")
        } else {
            (u64::from(self.target.cores.vector), "vector")
        };
        let requested = self.program.requested_cores;
        if requested > available {
            let message = format!(
                "the program asks for {requested} cores but `{}` has {available} {kind} cores",
                self.target.name
            );
            self.report(Rule::Cores, None, message);
        }
        let assigned = self.program.cores.len() as u64;
        let highest = self.program.cores.iter().map(|c| u64::from(c.core)).max();
        if assigned > available || highest.is_some_and(|h| h >= available) {
            let message = format!(
                "the program gives work to {assigned} cores up to core {} but `{}` has {available} {kind} cores",
                highest.unwrap_or(0),
                self.target.name
            );
            self.report(Rule::Cores, None, message);
        }
        if !cube {
            return;
        }
        match (&self.target.cube, self.program.cube) {
            (None, _) => {
                let message = format!(
                    "the program uses the cube but `{}` has no cube unit",
                    self.target.name
                );
                self.report(Rule::Unit, None, message);
            }
            (Some(unit), Some(block)) => {
                let fractal = [unit.m, unit.n, unit.k];
                if block.iter().zip(fractal).any(|(b, f)| !b.is_multiple_of(f)) {
                    let message = format!(
                        "the cube block {}x{}x{} is not a multiple of the {}x{}x{} fractal",
                        block[0], block[1], block[2], fractal[0], fractal[1], fractal[2]
                    );
                    self.report(Rule::Unit, None, message);
                }
            }
            (Some(_), None) => {}
        }
    }

    fn class(&mut self, class: u32) {
        let program = self.program;
        let code = &program.classes[class as usize];
        // (from, to, event) -> (sets, waits), sorted before reporting so reports come
        // in order (a class uses a few flags: a list beats a map).
        let mut flags: Vec<(FlagId, (u64, u64))> = Vec::new();
        // A run of a compact class is checked once: its copies after the first two
        // differ from the second only in tiles and global-memory offsets, which
        // `global_memory` checks by the first two; the second copy's flags count for
        // every copy after the first.
        for pipe in Pipe::ALL {
            for (instr, weight) in code.weighted(pipe) {
                let site = Site {
                    class,
                    pipe,
                    op: &instr.op,
                };
                if let Op::SetFlag { from, to, event } | Op::WaitFlag { from, to, event } = instr.op
                {
                    let set = matches!(instr.op, Op::SetFlag { .. });
                    self.flag(site, from, to, event, set);
                    let counts = entry(&mut flags, (from, to, event));
                    if set {
                        counts.0 += weight;
                    } else {
                        counts.1 += weight;
                    }
                } else {
                    self.instruction(site);
                }
            }
        }
        self.balance(class, flags);
    }

    /// The rules of one instruction other than a flag's.
    fn instruction(&mut self, site: Site<'_>) {
        match *site.op {
            Op::CopyIn {
                level,
                address,
                shape,
                padded,
                ..
            } => self.copy(site, level, address, shape, padded),
            Op::CopyOut {
                address,
                shape,
                padded,
                ..
            } => self.copy(site, Level::Ub, address, shape, padded),
            Op::Vector(ref v) => self.vector(site, v),
            Op::LoadL0 { .. } => self.load_l0(site),
            Op::Mmad {
                a,
                b,
                c,
                m,
                n,
                k,
                dtype,
                ..
            } => self.mmad(site, [a, b, c], [m, n, k], dtype),
            Op::Fixpipe {
                source,
                source_row_bytes,
                rows,
                cols,
                dtype,
                ..
            } => {
                let row = u64::from(cols) * dtype.accumulator().size();
                let end = rows_end(source, source_row_bytes, u64::from(rows), row);
                self.range(site, Level::L0c, u64::from(source), end);
                self.aligned(site, Level::L0c, u64::from(source));
            }
            Op::SetFlag { .. } | Op::WaitFlag { .. } | Op::Loop | Op::Barrier => {}
        }
    }

    /// Each flag of `class` set as many times as it is waited for.
    fn balance(&mut self, class: u32, mut flags: Vec<(FlagId, (u64, u64))>) {
        flags.sort_unstable_by_key(|(key, _)| *key);
        for ((from, to, event), (sets, waits)) in flags {
            if sets != waits {
                let message = format!(
                    "core class {class} sets flag {from}->{to} #{event} {sets} times but waits for it {waits} times"
                );
                self.report(Rule::Events, None, message);
            }
        }
    }

    fn flag(&mut self, site: Site, from: Pipe, to: Pipe, event: u16, set: bool) {
        let events = self.target.events;
        if u32::from(event) >= events {
            let message = format!(
                "event id {event} of {from}->{to}, but `{}` has ids 0 to {}",
                self.target.name,
                events.saturating_sub(1)
            );
            self.report(Rule::Events, Some(site), message);
        }
        let owner = if set { from } else { to };
        if from == to || site.pipe != owner {
            let message = format!(
                "a flag from {from} to {to} in the {} stream, which is not {owner}'s",
                site.pipe
            );
            self.report(Rule::Events, Some(site), message);
        }
    }

    /// Bytes `start..end` of `level` must exist.
    fn range(&mut self, site: Site, level: Level, start: u64, end: u64) {
        let capacity = self.target.capacity(level);
        if capacity == 0 {
            let message = format!("uses {level}, which `{}` does not have", self.target.name);
            self.report(Rule::Unit, Some(site), message);
        } else if end > capacity {
            let message = format!(
                "touches {level} {start:#x}..{end:#x}, {} B past the {capacity} B of {level}",
                end - capacity
            );
            self.report(Rule::Capacity, Some(site), message);
        }
    }

    fn aligned(&mut self, site: Site, level: Level, address: u64) {
        let align = self.target.alignment(level);
        if !address.is_multiple_of(align) {
            let message = format!(
                "starts at {level} {address:#x}, not a multiple of the {align}-byte {level} alignment"
            );
            self.report(Rule::Alignment, Some(site), message);
        }
    }
}

/// One past the last byte of `rows` rows of `row` bytes, `stride` bytes apart.
/// A flag: the pipe that sets it, the pipe that waits for it, and its event id.
type FlagId = (Pipe, Pipe, u16);

/// The value kept for `key` in a short list of pairs, a default one added if none is.
fn entry<K: PartialEq, V: Default>(list: &mut Vec<(K, V)>, key: K) -> &mut V {
    let index = match list.iter().position(|(k, _)| *k == key) {
        Some(index) => index,
        None => {
            list.push((key, V::default()));
            list.len() - 1
        }
    };
    &mut list[index].1
}

fn rows_end(start: u32, stride: u32, rows: u64, row: u64) -> u64 {
    if rows == 0 {
        return u64::from(start);
    }
    u64::from(start) + (rows - 1) * u64::from(stride) + row
}
