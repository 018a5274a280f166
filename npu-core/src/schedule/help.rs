//! Help lines that are checked: candidate fixes, and the recheck that picks among them.
//!
//! A rule that can name a concrete edit (a tile, a core count, a depth, `tail pad;`)
//! gives candidates in order of preference, nearest to what the user wrote first.
//! Once every rule has run, each candidate is applied to a copy of the schedule and
//! the copy is checked again; the first candidate that clears the diagnostic without
//! bringing a diagnostic the schedule did not already have is offered. A diagnostic
//! none of whose candidates checks gets a plain help without numbers.

use std::collections::BTreeMap;

use super::{Collected, ScheduleChecker};
use crate::diag::{Code, Diagnostics, SpanKey};
use crate::fix::{Edit, Fix};
use crate::ir::*;
use crate::plan;

/// The most candidates tried per alternative: enough to step past a few tiles that
/// leave misaligned tails, few enough that a bad schedule checks in microseconds.
pub(super) const CANDIDATES: usize = 48;

/// "1 core", "8 cores".
pub(super) fn cores_word(count: u64) -> String {
    if count == 1 {
        "1 core".into()
    } else {
        format!("{count} cores")
    }
}

/// What a candidate fix does to the schedule.
enum Recheck {
    Legal,
    Clears,
    Fails,
}

impl ScheduleChecker<'_> {
    /// Chooses the help of every pending diagnostic by rechecking its candidates.
    pub(super) fn resolve_fixes(&mut self, from: usize) {
        if self.pending.is_empty() {
            return;
        }
        let mut before: BTreeMap<Code, usize> = BTreeMap::new();
        for diagnostic in &self.diagnostics.list[from..] {
            *before.entry(diagnostic.code).or_default() += 1;
        }
        for pending in std::mem::take(&mut self.pending) {
            let code = self.diagnostics.list[pending.index].code;
            let at = SpanKey::of(self.diagnostics.list[pending.index].span);
            let mut fixes: Vec<Fix> = Vec::new();
            for alternative in pending.alternatives {
                // A candidate that leaves the schedule legal beats one that only clears
                // this diagnostic.
                let mut clearing = None;
                let mut legal = None;
                for edits in alternative.into_iter().take(CANDIDATES) {
                    let fix = Fix {
                        schedule: self.schedule.name.to_string(),
                        edits,
                    };
                    match self.recheck(&fix, code, at, &before) {
                        Recheck::Legal => {
                            legal = Some(fix);
                            break;
                        }
                        Recheck::Clears if clearing.is_none() => clearing = Some(fix),
                        _ => {}
                    }
                }
                let found = legal.or(clearing);
                if let Some(fix) = found
                    && !fixes.contains(&fix)
                {
                    fixes.push(fix);
                }
            }
            self.diagnostics.list[pending.index].resolve_fixes(fixes, pending.fallback);
        }
    }

    /// Checks the schedule with `fix` applied: legal, or without this diagnostic
    /// (`code` at the token `at`) and with no more of any code than `before`, or
    /// neither.
    fn recheck(
        &self,
        fix: &Fix,
        code: Code,
        at: SpanKey,
        before: &BTreeMap<Code, usize>,
    ) -> Recheck {
        let edited = fix.applied(self.schedule);
        let mut scratch = Diagnostics::default();
        ScheduleChecker::new(self.kernel, &edited, &mut scratch, true).check();
        if scratch.is_empty() {
            return Recheck::Legal;
        }
        let mut after: BTreeMap<Code, usize> = BTreeMap::new();
        for diagnostic in &scratch.list {
            *after.entry(diagnostic.code).or_default() += 1;
        }
        let count = |map: &BTreeMap<Code, usize>, c: Code| map.get(&c).copied().unwrap_or(0);
        // The edited schedule keeps the spans of the items it did not add.
        let still_there = scratch
            .list
            .iter()
            .any(|d| d.code == code && SpanKey::of(d.span) == at);
        if !still_there
            && count(&after, code) < count(before, code)
            && after.iter().all(|(c, n)| *n <= count(before, *c))
        {
            Recheck::Clears
        } else {
            Recheck::Fails
        }
    }

    /// Aligned tiles of `axis` from `from` down, each with `tail pad;` when it leaves
    /// a tail the schedule does not already handle. When an aligned divisor of the
    /// extent is at least half of `from`, it comes first: no tail beats a nearer tile.
    pub(super) fn tile_candidates(&self, axis: usize, from: u64) -> Vec<Vec<Edit>> {
        self.tile_candidates_from(axis, from, false)
    }

    /// As [`Self::tile_candidates`]; with `upward`, tiles from `from` up to the extent.
    pub(super) fn tile_candidates_from(
        &self,
        axis: usize,
        from: u64,
        upward: bool,
    ) -> Vec<Vec<Edit>> {
        if self.rechecking {
            return Vec::new();
        }
        let extent = self.kernel.axes[axis].extent;
        let step = self.align_step(axis);
        let mut tiles: Vec<u64> = if upward {
            let first = from.div_ceil(step).max(1);
            (first..=extent / step)
                .map(|k| k * step)
                .chain((!extent.is_multiple_of(step)).then_some(extent))
                .take(CANDIDATES)
                .collect()
        } else {
            let top = from.min(extent);
            let mut list: Vec<u64> = (1..=top / step)
                .rev()
                .map(|k| k * step)
                .take(CANDIDATES)
                .collect();
            // The whole axis is one contiguous tile, aligned or not.
            if top == extent && !list.contains(&extent) {
                list.insert(0, extent);
            }
            list
        };
        if !upward
            && let Some(divisor) = (1..=from.min(extent) / step)
                .rev()
                .map(|k| k * step)
                .find(|t| extent.is_multiple_of(*t))
            && divisor * 2 >= from.min(extent)
        {
            tiles.retain(|t| *t != divisor);
            tiles.insert(0, divisor);
        }
        self.split_edits(axis, tiles)
    }

    /// For each of `tiles`, the edits that split `axis` by it, with `tail pad;` where
    /// the tile leaves a tail and the schedule has no tail policy.
    fn split_edits(&self, axis: usize, tiles: Vec<u64>) -> Vec<Vec<Edit>> {
        let (name, extent) = (&self.kernel.axes[axis].name, self.kernel.axes[axis].extent);
        tiles
            .into_iter()
            .map(|tile| {
                let mut edits = vec![Edit::Split {
                    axis: name.clone(),
                    tile,
                }];
                if !extent.is_multiple_of(tile) && self.tail == Tail::None {
                    edits.push(Edit::Tail {
                        policy: "pad".into(),
                    });
                }
                edits
            })
            .collect()
    }

    /// Tiles of `axis` that keep a fold's `lanes` whole, nearest `tile` first: the
    /// multiples of `lanes` below and above it, then the whole axis.
    pub(super) fn lane_tile_candidates(
        &self,
        axis: usize,
        tile: u64,
        lanes: u64,
    ) -> Vec<Vec<Edit>> {
        if self.rechecking {
            return Vec::new();
        }
        let extent = self.kernel.axes[axis].extent;
        let below = tile / lanes * lanes;
        let above = tile.div_ceil(lanes) * lanes;
        let mut tiles: Vec<u64> = [below, above, extent]
            .into_iter()
            .filter(|t| *t > 0 && *t <= extent)
            .collect();
        tiles.dedup();
        self.split_edits(axis, tiles)
    }

    /// Core counts for a `parallel` axis from `most` down to 1 (which drops the item),
    /// each with `tail pad;` as a second choice when the share leaves a tail.
    pub(super) fn core_candidates(&self, axis: &str, most: u64) -> Vec<Vec<Edit>> {
        if self.rechecking {
            return Vec::new();
        }
        let mut out = Vec::new();
        for cores in (1..=most).rev().take(CANDIDATES / 2) {
            let edit = Edit::Cores {
                axis: axis.to_string(),
                cores,
            };
            out.push(vec![edit.clone()]);
            if self.tail == Tail::None {
                out.push(vec![
                    edit,
                    Edit::Tail {
                        policy: "pad".into(),
                    },
                ]);
            }
        }
        out
    }

    /// The axis a shrinking fix changes: the largest tile, a split one first on ties.
    pub(super) fn shrink_axis(&self, collected: &Collected) -> Option<usize> {
        let tiles = &collected.tiles;
        let whole = plan::whole_axes(self.kernel);
        (0..self.kernel.axes.len())
            .filter(|a| tiles[*a] > 1 && !whole.contains(a))
            .max_by_key(|a| (tiles[*a], collected.splits.contains_key(a)))
    }

    /// The help when every tile that may shrink is 1 already: fewer tensors, or, where
    /// axes must stay whole for the kernel's intermediates, a shallower depth or the
    /// kernel split into kernels whose reductions read only inputs, which may split them.
    fn nothing_shrinks(&self) -> String {
        let whole = plan::whole_axes(self.kernel);
        if whole.is_empty() {
            return "stage fewer tensors".into();
        }
        let names: Vec<String> = whole
            .iter()
            .map(|a| format!("`{}`", self.kernel.axes[*a].name))
            .collect();
        let it = if names.len() == 1 { "it" } else { "them" };
        format!(
            "every tile that may shrink is 1 already, and {} must stay whole, since the kernel's intermediates reduce over {it}: stage at depth 1, or compute each reduction in a kernel of its own that reads the ones before it as inputs, so that each may split {it}",
            names.join(", "),
        )
    }

    /// Candidates that shrink a tile until `fits` holds: for the largest tile and then
    /// each other, the largest aligned tile that fits, then smaller ones, taken in turn
    /// (the first that checks is the help). Also returns the help when none checks.
    pub(super) fn shrink_candidates(
        &self,
        collected: &Collected,
        fits: impl Fn(&[u64]) -> bool,
    ) -> (Vec<Vec<Edit>>, String) {
        let Some(axis) = self.shrink_axis(collected) else {
            return (Vec::new(), self.nothing_shrinks());
        };
        let name = &self.kernel.axes[axis].name;
        let fallback = format!("no tile of `{name}` fits; split another axis");
        if self.rechecking {
            return (Vec::new(), fallback);
        }
        let whole = plan::whole_axes(self.kernel);
        let mut others: Vec<usize> = (0..self.kernel.axes.len())
            .filter(|a| *a != axis && collected.tiles[*a] > 1 && !whole.contains(a))
            .collect();
        others.sort_by_key(|a| std::cmp::Reverse(collected.tiles[*a]));
        let per_axis: Vec<Vec<Vec<Edit>>> = std::iter::once(axis)
            .chain(others)
            .filter_map(|a| Some((a, self.largest_fitting(a, &collected.tiles, &fits)?)))
            .map(|(a, tile)| self.tile_candidates(a, tile))
            .collect();
        // Round robin, so that the checks the fixes get reach every axis's best tile.
        let longest = per_axis.iter().map(Vec::len).max().unwrap_or(0);
        let candidates = (0..longest)
            .flat_map(|i| per_axis.iter().filter_map(move |list| list.get(i).cloned()))
            .collect();
        (candidates, fallback)
    }

    /// The largest aligned tile of `axis` below its tile in `tiles` with which `fits`
    /// holds, the other tiles as they are.
    fn largest_fitting(
        &self,
        axis: usize,
        tiles: &[u64],
        fits: &impl Fn(&[u64]) -> bool,
    ) -> Option<u64> {
        let step = self.align_step(axis);
        let mut best = None;
        let (mut lo, mut hi) = (1u64, tiles[axis] / step);
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            let mut trial = tiles.to_vec();
            trial[axis] = mid * step;
            if fits(&trial) {
                best = Some(mid * step);
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        best
    }

    /// "use `cube m by 128, n by 128, k by 64`": the cube block halved, largest side
    /// first, until its buffers at `level` fit. Also returns the help when none does.
    pub(super) fn cube_help(
        &self,
        level: crate::target::Level,
        cube: Option<[u64; 3]>,
        fits: impl Fn([u64; 3]) -> bool,
    ) -> (Vec<Vec<Edit>>, String) {
        use crate::target::Level;
        let fallback = format!("no `cube` block fits {level}");
        let (KernelClass::Matmul(mm), Some(mut block), Some(fractal)) =
            (&self.kernel.class, cube, &self.target.cube)
        else {
            return (Vec::new(), fallback);
        };
        let units = [fractal.m, fractal.n, fractal.k];
        // The sides of the block each level holds: m x k in L0A, k x n in L0B, m x n in L0C.
        let sides: &[usize] = match level {
            Level::L0a => &[0, 2],
            Level::L0b => &[2, 1],
            _ => &[0, 1],
        };
        while !fits(block) {
            let halvable = sides.iter().copied().filter(|&side| {
                let half = block[side] / 2;
                block[side] % 2 == 0 && half >= units[side] && half % units[side] == 0
            });
            let Some(side) = halvable.max_by_key(|&side| block[side]) else {
                return (Vec::new(), fallback);
            };
            block[side] /= 2;
        }
        let edits = [mm.m, mm.n, mm.k]
            .iter()
            .zip(block)
            .map(|(axis, tile)| Edit::Cube {
                axis: self.kernel.axes[*axis].name.clone(),
                tile,
            })
            .collect();
        (vec![edits], fallback)
    }

    /// Elements a tile of `axis` must be a multiple of for aligned copies.
    pub(super) fn align_step(&self, axis: usize) -> u64 {
        let kernel = self.kernel;
        let mut step = 1;
        for (t, tensor) in kernel.tensors.iter().enumerate() {
            // An intermediate is never copied, so its tile needs no alignment.
            if tensor.role != Role::Local
                && crate::plan::tensor_axes(kernel, t)
                    .last()
                    .copied()
                    .flatten()
                    == Some(axis)
            {
                let align = self.target.align.ub;
                let need = align / gcd(align, tensor.dtype.size());
                step = step / gcd(step, need) * need;
            }
        }
        step
    }
}

pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}
