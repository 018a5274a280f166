//! One program order for a core class's pipe streams.
//!
//! A core's scalar unit issues instructions in program order, each into its pipe's
//! queue; the pipes run concurrently and meet only at flags and barriers. Any order
//! that keeps each pipe's own order is therefore the same program on the device. The
//! order chosen here also puts every `set_flag` before the `wait_flag` it satisfies,
//! so a model that runs the calls one after the other (the CPU model the tests use)
//! never waits for a flag not yet set; ties go to the earliest tile, then to the pipe
//! order of [`Pipe::ALL`], so the text reads tile by tile, as the listing does.
//!
//! A run of alike tiles ([`npu_core::program::Repeat`]) becomes a [`Block::Loop`]: its
//! copy 0 is written out, its copy 1 is the loop body, repeated `count - 1` times with
//! each global-memory offset moved on by its step from copy 0 to copy 1. The body's
//! order is the one found for its first iteration; it stays feasible for later ones
//! only if an iteration leaves no flag with fewer pending sets than it found, which is
//! checked.

use std::collections::BTreeMap;

use npu_core::Pipe;
use npu_core::program::{CoreCode, Instr, Op};

/// A flag: from, to, event id.
type Flag = (Pipe, Pipe, u16);

/// One instruction in program order, with the step its global-memory offset moves by
/// per loop iteration (0 outside loops and for instructions without one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Step {
    pub pipe: Pipe,
    pub op: Op,
    pub gm_step: i64,
}

/// A straight run of steps, or a loop over a body.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Block {
    Straight(Vec<Step>),
    /// The body runs `count` times, iteration `j` with offsets moved by `j × gm_step`.
    Loop {
        count: u64,
        body: Vec<Step>,
    },
}

/// Why no program order exists (a hand-built or broken program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OrderError(pub String);

/// The blocks of one core class, in program order.
pub(crate) fn blocks(code: &CoreCode) -> Result<Vec<Block>, OrderError> {
    let mut pending: BTreeMap<Flag, i64> = BTreeMap::new();
    let mut position = [0usize; Pipe::COUNT];
    let mut blocks = Vec::new();
    for repeat in &code.repeats {
        let slice = |from: &[usize; Pipe::COUNT], len: &dyn Fn(usize) -> usize| {
            std::array::from_fn(|p| &code.streams[p][from[p]..from[p] + len(p)])
        };
        let before: [&[Instr]; Pipe::COUNT] = slice(&position, &|p| repeat.start[p] - position[p]);
        blocks.push(Block::Straight(merge(before, &mut pending)?));
        let first: [&[Instr]; Pipe::COUNT] = slice(&repeat.start, &|p| repeat.len[p]);
        blocks.push(Block::Straight(merge(first, &mut pending)?));
        let second_start = std::array::from_fn(|p| repeat.start[p] + repeat.len[p]);
        let second: [&[Instr]; Pipe::COUNT] = slice(&second_start, &|p| repeat.len[p]);
        let body = loop_body(first, second, repeat.count - 1, &mut pending)?;
        blocks.push(body);
        position = std::array::from_fn(|p| repeat.start[p] + 2 * repeat.len[p]);
    }
    let rest: [&[Instr]; Pipe::COUNT] = std::array::from_fn(|p| &code.streams[p][position[p]..]);
    blocks.push(Block::Straight(merge(rest, &mut pending)?));
    blocks.retain(|b| !matches!(b, Block::Straight(steps) if steps.is_empty()));
    Ok(blocks)
}

/// Copy 1 of a run as a loop body of `count` iterations, each global-memory offset
/// stepping by copy 1's minus copy 0's.
fn loop_body(
    first: [&[Instr]; Pipe::COUNT],
    second: [&[Instr]; Pipe::COUNT],
    count: u64,
    pending: &mut BTreeMap<Flag, i64>,
) -> Result<Block, OrderError> {
    let before = pending.clone();
    let mut body = merge(second, pending)?;
    for (flag, now) in pending.iter_mut() {
        let was = before.get(flag).copied().unwrap_or(0);
        if *now < was {
            return Err(OrderError(format!(
                "an iteration of a run leaves flag {}->{} #{} with fewer pending sets than it found",
                flag.0, flag.1, flag.2
            )));
        }
        *now += (*now - was) * (count as i64 - 1);
    }
    // The step of each instruction: the same instruction of copy 0 is at the same
    // index of its pipe's slice.
    let mut index = [0usize; Pipe::COUNT];
    for step in body.iter_mut().filter(|s| s.op != Op::Barrier) {
        let p = step.pipe.index();
        while second[p][index[p]].op != step.op {
            index[p] += 1;
        }
        step.gm_step = gm(&step.op).wrapping_sub(gm(&first[p][index[p]].op)) as i64;
        index[p] += 1;
    }
    Ok(Block::Loop { count, body })
}

/// The global-memory offset an instruction holds (0 if none).
pub(crate) fn gm(op: &Op) -> u64 {
    match *op {
        Op::CopyIn { gm, .. } | Op::CopyOut { gm, .. } | Op::Fixpipe { gm, .. } => gm,
        _ => 0,
    }
}

/// The streams' instructions in one order: repeatedly the ready head with the
/// earliest tile (then the first pipe); a barrier is taken when every pipe with
/// instructions left has one at its head. `Loop` instructions are dropped: the
/// emitted loops are the scalar unit's.
fn merge(
    streams: [&[Instr]; Pipe::COUNT],
    pending: &mut BTreeMap<Flag, i64>,
) -> Result<Vec<Step>, OrderError> {
    let mut at = [0usize; Pipe::COUNT];
    let mut steps = Vec::new();
    loop {
        let heads: Vec<(usize, &Instr)> = (0..Pipe::COUNT)
            .filter_map(|p| streams[p].get(at[p]).map(|i| (p, i)))
            .collect();
        if heads.is_empty() {
            return Ok(steps);
        }
        if heads.iter().all(|(_, i)| i.op == Op::Barrier) {
            steps.push(Step {
                pipe: Pipe::S,
                op: Op::Barrier,
                gm_step: 0,
            });
            heads.iter().for_each(|(p, _)| at[*p] += 1);
            continue;
        }
        let ready = |i: &Instr| match i.op {
            Op::WaitFlag { from, to, event } => pending.get(&(from, to, event)) > Some(&0),
            Op::Barrier => false,
            _ => true,
        };
        let Some(&(p, instr)) = heads
            .iter()
            .filter(|(_, i)| ready(i))
            .min_by_key(|(p, i)| (i.tile, *p))
        else {
            return Err(OrderError(stuck(&heads)));
        };
        at[p] += 1;
        match instr.op {
            Op::SetFlag { from, to, event } => *pending.entry((from, to, event)).or_default() += 1,
            Op::WaitFlag { from, to, event } => *pending.entry((from, to, event)).or_default() -= 1,
            Op::Loop => continue,
            _ => {}
        }
        steps.push(Step {
            pipe: Pipe::ALL[p],
            op: instr.op,
            gm_step: 0,
        });
    }
}

/// What every pipe waits for when none can go on.
fn stuck(heads: &[(usize, &Instr)]) -> String {
    let waits: Vec<String> = heads
        .iter()
        .map(|(p, i)| match i.op {
            Op::WaitFlag { from, to, event } => {
                format!("{} waits {from}->{to} #{event}", Pipe::ALL[*p])
            }
            _ => format!("{} is at a barrier", Pipe::ALL[*p]),
        })
        .collect();
    format!("no pipe can go on: {}", waits.join(", "))
}
