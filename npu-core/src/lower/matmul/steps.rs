//! The iterations of a matmul class, and the runs of alike output tiles its compact
//! form holds as two copies.

use crate::ir::MatmulShape;
use crate::lower::Lowering;
use crate::lower::skip::Skip;
use crate::program::{CoreCode, Instr, Pipe, moved_on};

/// One innermost iteration: a k tile of one base block of one matrix of one output
/// tile. `t` is the batch tile and `bt` the matrix within it (both 0 without a batch).
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub t: u64,
    pub bt: u64,
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub block_m: u64,
    pub block_n: u64,
}

/// The iterations of one core class: output tiles in `schedule.order` (the batch tile
/// among them), then each matrix of the batch tile, the base blocks of the matrix with
/// `m` and `n` in the same relative order, and the k tiles innermost.
pub(super) fn steps(lowering: &Lowering, mm: &MatmulShape, cm: u64, cn: u64) -> Vec<Step> {
    let (ranges, order) = (lowering.ranges, &lowering.schedule.order);
    let count = |axis: usize| ranges[axis].count;
    let m_outer = order.iter().position(|a| *a == mm.m) < order.iter().position(|a| *a == mm.n);
    let mut steps = Vec::new();
    let tiles: u64 = order.iter().map(|a| count(*a)).product();
    let mut at = vec![0u64; lowering.kernel.axes.len()];
    for flat in 0..tiles {
        // Mixed radix over the order, its last axis fastest.
        let mut rest = flat;
        for axis in order.iter().rev() {
            at[*axis] = rest % count(*axis);
            rest /= count(*axis);
        }
        let (m, n) = (at[mm.m], at[mm.n]);
        let t = mm.batch.map_or(0, |axis| at[axis]);
        let matrices = mm.batch.map_or(1, |axis| ranges[axis].extent(t));
        let blocks_m = ranges[mm.m].extent(m).div_ceil(cm);
        let blocks_n = ranges[mm.n].extent(n).div_ceil(cn);
        let (outer, inner) = if m_outer {
            (blocks_m, blocks_n)
        } else {
            (blocks_n, blocks_m)
        };
        for bt in 0..matrices {
            for block_outer in 0..outer {
                for block_inner in 0..inner {
                    let (block_m, block_n) = if m_outer {
                        (block_outer, block_inner)
                    } else {
                        (block_inner, block_outer)
                    };
                    for k in 0..count(mm.k) {
                        steps.push(Step {
                            t,
                            bt,
                            m,
                            n,
                            k,
                            block_m,
                            block_n,
                        });
                    }
                }
            }
        }
    }
    steps
}

/// A run of alike output tiles as steps: copy 0 starts at step `first`, each copy is
/// `steps` steps, and there are `count` copies.
pub(super) struct Run {
    pub first: usize,
    pub steps: usize,
    pub count: u64,
}

/// The runs `skip` marks in `steps`, one per pass over its axis (the steps of a run
/// are contiguous); none when the copies of a run differ in their number of steps.
pub(super) fn runs(steps: &[Step], mm: &MatmulShape, order: &[usize], skip: Skip) -> Vec<Run> {
    let at = |s: &Step, axis: usize| {
        if axis == mm.m {
            s.m
        } else if axis == mm.n {
            s.n
        } else {
            s.t
        }
    };
    let copy_at = |s: &Step| {
        let x = at(s, order[skip.level]);
        (x >= skip.first && x < skip.first + skip.count * skip.copy)
            .then(|| (x - skip.first) / skip.copy)
    };
    let same_pass = |a: &Step, b: &Step| order[..skip.level].iter().all(|x| at(a, *x) == at(b, *x));
    let mut runs = Vec::new();
    let mut index = 0;
    while index < steps.len() {
        if copy_at(&steps[index]).is_none() {
            index += 1;
            continue;
        }
        let first = index;
        let mut per_copy = vec![0usize; skip.count as usize];
        while index < steps.len() && same_pass(&steps[first], &steps[index]) {
            let Some(copy) = copy_at(&steps[index]) else {
                break;
            };
            per_copy[copy as usize] += 1;
            index += 1;
        }
        if per_copy.iter().any(|n| *n == 0 || *n != per_copy[0]) {
            return Vec::new();
        }
        runs.push(Run {
            first,
            steps: per_copy[0],
            count: skip.count,
        });
    }
    runs
}

/// Whether the scratch streams hold exactly copy `times + 1` of a run whose copies 0
/// and 1 start at `marks[0]` and `marks[1]` of `code`'s streams.
pub(super) fn repeats_copy_1(
    code: &CoreCode,
    scratch: &CoreCode,
    marks: &[[usize; Pipe::COUNT]; 3],
    times: u64,
    tiles: u32,
) -> bool {
    (0..Pipe::COUNT).all(|pipe| {
        let len = marks[1][pipe] - marks[0][pipe];
        let held = &code.streams[pipe];
        let later: &[Instr] = &scratch.streams[pipe];
        marks[2][pipe] - marks[1][pipe] == len
            && later.len() == len
            && (0..len).all(|i| {
                let expected = moved_on(
                    &held[marks[0][pipe] + i],
                    &held[marks[1][pipe] + i],
                    times,
                    tiles,
                );
                expected == later[i]
            })
    })
}
