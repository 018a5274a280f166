//! Repeated tiles held once: the compact form of a [`CoreCode`].
//!
//! A core that walks thousands of tiles alike runs the same instructions for each,
//! but for the tile they belong to and where in global memory they copy. A
//! [`Repeat`] stores such a run as its first two copies, side by side in each stream,
//! and a count: copy `r` (`r >= 2`) is copy 1 with every tile moved on by
//! `(r - 1) × tiles` and every global-memory offset by `r - 1` times the step from
//! copy 0 to copy 1. Everything else in a copy (addresses, shapes, flags) is the same
//! in all of them, which [`CoreCode::check_repeats`] verifies, so the compact form
//! means exactly one full program ([`CoreCode::expanded`]). The instructions after a
//! run keep their own tiles.
//!
//! Lowering builds the compact form for the timing-only simulator
//! ([`crate::lower::lower_compact`]), whose cost then grows with the distinct tile
//! shapes rather than the tiles; everything that reads instructions one by one on
//! real data works on the expanded program.

use super::{CoreCode, Instr, Op, Pipe, Repeat};

impl Repeat {
    /// The copies not held.
    fn extra(&self) -> usize {
        self.count.saturating_sub(2) as usize
    }
}

/// `later` moved on by `times` more steps of `later - earlier` (its tile by `tiles`
/// per step): the instruction of copy `1 + times` from copies 0 and 1.
#[inline(always)]
pub(crate) fn moved_on(earlier: &Instr, later: &Instr, times: u64, tiles: u32) -> Instr {
    let shift = |a: u64, b: u64| b.wrapping_add(b.wrapping_sub(a).wrapping_mul(times));
    let mut op = later.op;
    match (&earlier.op, &mut op) {
        (Op::CopyIn { gm: a, .. }, Op::CopyIn { gm, .. })
        | (Op::CopyOut { gm: a, .. }, Op::CopyOut { gm, .. })
        | (Op::Fixpipe { gm: a, .. }, Op::Fixpipe { gm, .. }) => *gm = shift(*a, *gm),
        _ => {}
    }
    Instr {
        tile: later.tile + (times as u32).wrapping_mul(tiles),
        op,
    }
}

/// Whether two instructions differ at most in their tile and global-memory offset.
pub(crate) fn alike(a: &Instr, b: &Instr) -> bool {
    let mut b = b.op;
    match (&a.op, &mut b) {
        (Op::CopyIn { gm, .. }, Op::CopyIn { gm: other, .. })
        | (Op::CopyOut { gm, .. }, Op::CopyOut { gm: other, .. })
        | (Op::Fixpipe { gm, .. }, Op::Fixpipe { gm: other, .. }) => *other = *gm,
        _ => {}
    }
    a.op == b
}

impl CoreCode {
    /// Instructions in `pipe`'s stream, every copy of every run counted.
    pub fn stream_len(&self, pipe: usize) -> usize {
        self.streams[pipe].len()
            + self
                .repeats
                .iter()
                .map(|r| r.extra() * r.len[pipe])
                .sum::<usize>()
    }

    /// The held instructions of `pipe`'s stream with how many of the full stream each
    /// stands for: copy 1 of a run stands for every copy after copy 0.
    pub fn weighted(&self, pipe: Pipe) -> impl Iterator<Item = (&Instr, u64)> {
        let p = pipe.index();
        let stream = &self.streams[p];
        let mut runs = self.repeats.iter().peekable();
        stream.iter().enumerate().map(move |(index, instr)| {
            while runs
                .peek()
                .is_some_and(|r| index >= r.start[p] + 2 * r.len[p])
            {
                runs.next();
            }
            let weight = match runs.peek() {
                Some(r) if index >= r.start[p] + r.len[p] => r.count - 1,
                _ => 1,
            };
            (instr, weight)
        })
    }

    /// The same code with every run written out.
    pub fn expanded(&self) -> CoreCode {
        if self.repeats.is_empty() {
            return self.clone();
        }
        let mut streams: [Vec<Instr>; Pipe::COUNT] = Default::default();
        for (pipe, stream) in streams.iter_mut().enumerate() {
            let view = StreamView::new(self, pipe);
            stream.reserve_exact(view.len());
            stream.extend((0..view.len()).map(|i| view.get(i).expect("within the length")));
        }
        CoreCode {
            streams,
            tiles: self.tiles,
            summary: self.summary.clone(),
            repeats: Vec::new(),
        }
    }

    /// Whether the runs are well formed: in order, within their streams, at least two
    /// copies each, and copy 1 the same as copy 0 but for tiles (moved on by the run's
    /// `tiles`) and global-memory offsets. Hand-built programs may break this.
    pub fn check_repeats(&self) -> Result<(), String> {
        let mut end = [0usize; Pipe::COUNT];
        for (index, repeat) in self.repeats.iter().enumerate() {
            if repeat.count < 2 || repeat.tiles == 0 {
                return Err(format!(
                    "run {index} has {} copies of {} tiles; a run holds at least 2 copies of at least one tile",
                    repeat.count, repeat.tiles
                ));
            }
            // Loop iterations are numbered in 32 bits.
            if repeat.count.saturating_mul(u64::from(repeat.tiles)) > u64::from(u32::MAX) {
                return Err(format!(
                    "run {index} has {} copies of {} tiles, more loop iterations than a core numbers",
                    repeat.count, repeat.tiles
                ));
            }
            for (pipe, end) in end.iter_mut().enumerate() {
                let (start, len) = (repeat.start[pipe], repeat.len[pipe]);
                let stream = &self.streams[pipe];
                let held_end = len.checked_mul(2).and_then(|held| start.checked_add(held));
                if start < *end || held_end.is_none_or(|held_end| held_end > stream.len()) {
                    return Err(format!(
                        "run {index} holds twice {len} instructions of {} from {start}, which overlaps an earlier run or the stream's end",
                        Pipe::ALL[pipe]
                    ));
                }
                for i in start..start + len {
                    let (a, b) = (&stream[i], &stream[i + len]);
                    if !alike(a, b) || b.tile.checked_sub(a.tile) != Some(repeat.tiles) {
                        return Err(format!(
                            "run {index}: instruction {i} of {} is not repeated by instruction {}",
                            Pipe::ALL[pipe],
                            i + len
                        ));
                    }
                }
                // What follows the run keeps its own tiles: it comes after the last copy.
                if len > 0
                    && let Some(next) = stream.get(start + 2 * len)
                {
                    let last = u64::from(stream[start + 2 * len - 1].tile)
                        + (repeat.count - 2) * u64::from(repeat.tiles);
                    if u64::from(next.tile) < last {
                        return Err(format!(
                            "run {index}: instruction {} of {} (tile {}) comes before the run's last copy ends (tile {last})",
                            start + 2 * len,
                            Pipe::ALL[pipe],
                            next.tile
                        ));
                    }
                }
                *end = start + 2 * len;
            }
        }
        Ok(())
    }
}

/// One stream of a [`CoreCode`] as its full instruction sequence, read by index in
/// `O(log runs)`: what a simulator walks.
#[derive(Clone, Debug)]
pub struct StreamView<'a> {
    held: &'a [Instr],
    runs: Vec<Segment>,
    len: usize,
}

/// A position in a [`StreamView`], read with [`StreamView::at`] and moved on by
/// [`StreamView::advance`]; the default is the stream's start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Index in the full stream.
    pub index: usize,
    /// The first run that has not ended at `index`, and instructions left out
    /// before it.
    run: usize,
    skipped: usize,
    /// Within that run, once past its two held copies: the copy and the
    /// instruction in it.
    copy: usize,
    offset: usize,
}

/// A run as one stream sees it.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    /// Index of copy 0 in the full stream, and in the held one.
    pub at: usize,
    held: usize,
    /// Instructions per copy.
    pub len: usize,
    /// Copies in all.
    pub count: usize,
    /// Loop iterations per copy.
    pub tiles: u32,
    /// Instructions left out before this run's copies.
    skipped: usize,
}

impl Segment {
    /// One past the run's last instruction in the full stream.
    pub fn end(&self) -> usize {
        self.at + self.count * self.len
    }
}

impl<'a> StreamView<'a> {
    /// The full stream of pipe `pipe` (a [`Pipe::index`](super::Pipe::index)) of `code`.
    pub fn new(code: &'a CoreCode, pipe: usize) -> StreamView<'a> {
        let mut skipped = 0;
        let mut runs = Vec::with_capacity(code.repeats.len());
        for repeat in &code.repeats {
            let len = repeat.len[pipe];
            if len > 0 {
                runs.push(Segment {
                    at: repeat.start[pipe] + skipped,
                    held: repeat.start[pipe],
                    len,
                    count: repeat.count as usize,
                    tiles: repeat.tiles,
                    skipped,
                });
            }
            skipped += repeat.extra() * len;
        }
        let held = &code.streams[pipe];
        StreamView {
            held,
            runs,
            len: held.len() + skipped,
        }
    }

    /// Instructions in the full stream, every copy of every run counted.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the full stream has no instructions.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Instruction `index` of the full stream.
    #[inline(always)]
    pub fn get(&self, index: usize) -> Option<Instr> {
        if self.runs.is_empty() {
            return self.held.get(index).copied();
        }
        let after = self.runs.partition_point(|s| s.at + 2 * s.len <= index);
        let skipped = match after.checked_sub(1).map(|i| &self.runs[i]) {
            None => 0,
            Some(run) if index < run.end() => {
                let copy = (index - run.at) / run.len;
                let held = run.held + run.len + (index - run.at) % run.len;
                return Some(moved_on(
                    &self.held[held - run.len],
                    &self.held[held],
                    copy as u64 - 1,
                    run.tiles,
                ));
            }
            Some(run) => run.skipped + (run.count - 2) * run.len,
        };
        self.held.get(index - skipped).copied()
    }

    /// The instruction at `cursor`, which [`StreamView::advance`] moves on by one:
    /// a walk through the stream in order without the search and division of
    /// [`StreamView::get`].
    #[inline(always)]
    pub fn at(&self, cursor: &Cursor) -> Option<Instr> {
        match self.runs.get(cursor.run) {
            Some(run) if cursor.copy >= 2 => {
                let held = run.held + run.len + cursor.offset;
                Some(moved_on(
                    &self.held[held - run.len],
                    &self.held[held],
                    cursor.copy as u64 - 1,
                    run.tiles,
                ))
            }
            _ => self.held.get(cursor.index - cursor.skipped).copied(),
        }
    }

    /// Moves `cursor` to the next instruction.
    #[inline(always)]
    pub fn advance(&self, cursor: &mut Cursor) {
        cursor.index += 1;
        let Some(run) = self.runs.get(cursor.run) else {
            return;
        };
        if cursor.index == run.end() {
            cursor.skipped += (run.count - 2) * run.len;
            cursor.run += 1;
            cursor.copy = 0;
            cursor.offset = 0;
        } else if cursor.index == run.at + 2 * run.len {
            cursor.copy = 2;
        } else if cursor.copy >= 2 {
            cursor.offset += 1;
            if cursor.offset == run.len {
                cursor.offset = 0;
                cursor.copy += 1;
            }
        }
    }

    /// The run whose copies cover `index` of the full stream, if one does.
    pub fn run_at(&self, index: usize) -> Option<&Segment> {
        let after = self.runs.partition_point(|s| s.end() <= index);
        self.runs.get(after).filter(|run| run.at <= index)
    }
}
