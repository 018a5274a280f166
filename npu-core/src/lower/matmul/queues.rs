//! The queues of a matmul class, one per staged buffer, and where each step finds its
//! L1 tile of an operand (the module doc's L1 residency).

use crate::ir::{BufferKind, MatmulShape};
use crate::lower::Lowering;
use crate::lower::queue::Queue;
use crate::target::Level;

/// One of a matmul's two input operands.
#[derive(Clone, Copy)]
pub(super) enum Operand {
    A,
    B,
}

/// Where each step finds its L1 tile of one operand (module doc: L1 residency).
pub(super) struct Residency {
    /// The slot holding the step's tile.
    pub(super) slot: Vec<u64>,
    /// The step copies its tile into that slot.
    pub(super) load: Vec<bool>,
    /// The step is the tile's last use before its slot is refilled (or the program ends).
    pub(super) release: Vec<bool>,
}

impl Residency {
    pub(super) fn plan<K: PartialEq + Copy>(keys: &[K], depth: u64) -> Residency {
        let mut held: Vec<Option<(K, usize)>> = vec![None; depth as usize];
        let mut fills = 0u64;
        let mut residency = Residency {
            slot: Vec::with_capacity(keys.len()),
            load: Vec::with_capacity(keys.len()),
            release: vec![false; keys.len()],
        };
        let mut last_use: Vec<usize> = Vec::new();
        for (step, key) in keys.iter().enumerate() {
            let hit = held.iter().position(|h| h.is_some_and(|(k, _)| k == *key));
            let slot = match hit {
                Some(slot) => {
                    let fill = held[slot].map_or(0, |(_, fill)| fill);
                    last_use[fill] = step;
                    slot
                }
                None => {
                    let slot = (fills % depth) as usize;
                    held[slot] = Some((*key, last_use.len()));
                    last_use.push(step);
                    fills += 1;
                    slot
                }
            };
            residency.slot.push(slot as u64);
            residency.load.push(hit.is_none());
        }
        for step in last_use {
            residency.release[step] = true;
        }
        residency
    }
}

/// The queues of a matmul class by level; events are numbered per pipe pair in stage
/// order.
pub(super) struct Queues {
    pub(super) l1a: Queue,
    pub(super) l1b: Queue,
    pub(super) l0a: Queue,
    pub(super) l0b: Queue,
    pub(super) l0c: Queue,
}

impl Queues {
    /// The queues of the class's staged buffers, the operand staged first taking the
    /// first events of each pipe pair.
    pub(super) fn new(lowering: &Lowering, mm: &MatmulShape) -> Queues {
        let mut queues = Queues {
            l1a: staged_queue(lowering, mm.a, Level::L1),
            l1b: staged_queue(lowering, mm.b, Level::L1),
            l0a: staged_queue(lowering, mm.a, Level::L0a),
            l0b: staged_queue(lowering, mm.b, Level::L0b),
            l0c: staged_queue(lowering, mm.c, Level::L0c),
        };
        let stages = &lowering.schedule.stages;
        let a_first = stages.iter().position(|s| s.tensor == mm.a)
            <= stages.iter().position(|s| s.tensor == mm.b);
        for (first, second) in [
            (&mut queues.l1a, &mut queues.l1b),
            (&mut queues.l0a, &mut queues.l0b),
        ] {
            if a_first {
                second.event = first.depth as u16;
            } else {
                first.event = second.depth as u16;
            }
        }
        queues
    }

    /// An operand's L1 queue.
    pub(super) fn l1(&mut self, operand: Operand) -> &mut Queue {
        match operand {
            Operand::A => &mut self.l1a,
            Operand::B => &mut self.l1b,
        }
    }

    /// An operand's L0 queue and the L1 queue it is loaded from.
    pub(super) fn l0_and_l1(&mut self, operand: Operand) -> (&mut Queue, &mut Queue) {
        match operand {
            Operand::A => (&mut self.l0a, &mut self.l1a),
            Operand::B => (&mut self.l0b, &mut self.l1b),
        }
    }
}

/// The queue of a tensor's buffer in `level`, its events from 0.
fn staged_queue(lowering: &Lowering, tensor: usize, level: Level) -> Queue {
    let buffer = lowering
        .program
        .buffers
        .iter()
        .position(|b| b.kind == BufferKind::Tensor(tensor) && b.level == level)
        .expect("the checker requires every matmul stage");
    let depth = lowering.program.buffers[buffer].depth;
    Queue {
        buffer,
        depth,
        ..Queue::default()
    }
}
