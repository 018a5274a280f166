//! Copies between global memory and a staged buffer: their alignment, and the tails a
//! tile leaves.
//!
//! A tile is copied as lowering copies it: the inner dimensions that are whole in the
//! tensor merge with the first partial one into one contiguous run (a burst), and the
//! dimensions outside it repeat the burst. An unpadded copy (DataCopy) needs every
//! burst's length and both its starts, in global memory and on chip, to be multiples
//! of the level's alignment. A padded copy (DataCopyPad, under `tail pad;`) takes any
//! length and global-memory start, pads each burst on chip to the alignment, and so
//! needs only the bursts' on-chip starts aligned. A padded view's tile is always
//! copied so, one row per burst, each row at an aligned pitch on chip, so any of its
//! tiles is legal (its buffer is the larger for it, see `plan::tile_strides`).

use proc_macro2::Span;

use super::{Collected, ScheduleChecker, StageItem};
use crate::diag::{Code, Diagnostic};
use crate::fix::Edit;
use crate::ir::*;
use crate::plan;
use crate::target::Level;

/// The help of an E021 none of whose candidate fixes checks: a help line names an
/// edit only when the edit was applied and cleared the error (`help`).
const NO_ALIGNING_FIX: &str =
    "neither an aligned tile nor `tail pad;` clears this without bringing another error";

/// How one staged tensor's tiles are copied.
struct CopyModel {
    /// The dimension the contiguous run starts at: inner dimensions are whole.
    inner: usize,
    /// Elements of a full tile's burst, and of the tail tile's when the run's own
    /// dimension leaves a tail.
    run: u64,
    tail_run: Option<u64>,
    /// Bursts per full tile.
    bursts: u64,
    /// Element steps by which bursts start apart in global memory, with what they are
    /// for the message: the row stride inside a tile, the distance between tiles, a
    /// fixed subscript's offset.
    steps: Vec<(u64, &'static str)>,
}

impl ScheduleChecker<'_> {
    /// A tile that does not divide its axis leaves a tail, which needs a policy.
    pub(super) fn tails(&mut self, collected: &Collected) {
        if self.tail != Tail::None {
            return;
        }
        let kernel = self.kernel;
        for (a, axis) in kernel.axes.iter().enumerate() {
            let tile = collected.tiles[a];
            let remainder = axis.extent % tile;
            if remainder == 0 {
                continue;
            }
            let span = collected.splits.get(&a).map(|n| n.span).or_else(|| {
                collected
                    .parallel
                    .iter()
                    .find(|(p, _, _)| *p == a)
                    .map(|(_, _, s)| *s)
            });
            let Some(span) = span else { continue };
            let pad = vec![vec![Edit::Tail {
                policy: "pad".into(),
            }]];
            let step = self.align_step(a);
            let divisors: Vec<Vec<Edit>> = (1..=tile / step)
                .rev()
                .map(|k| k * step)
                .filter(|t| axis.extent.is_multiple_of(*t))
                .map(|t| {
                    vec![Edit::Split {
                        axis: axis.name.clone(),
                        tile: t,
                    }]
                })
                .collect();
            self.error_with_fixes(
                Diagnostic::new(
                    Code::E033,
                    span,
                    format!(
                        "a tile of {tile} leaves a tail of {remainder} on `{}` (extent {})",
                        axis.name, axis.extent
                    ),
                ),
                vec![pad, divisors],
                "neither `tail pad;` nor a tile that divides the extent clears this without bringing another error",
            );
        }
    }

    /// Copies between global memory and a staged buffer must be aligned.
    pub(super) fn alignment(&mut self, collected: &Collected) {
        for item in &collected.stages {
            self.stage_alignment(collected, item);
        }
    }

    /// The alignment of the copies of one staged tensor: its rows (under `tail pad;`
    /// only where they start on chip), the steps between its bursts, and its tail.
    fn stage_alignment(&mut self, collected: &Collected, item: &StageItem) {
        let kernel = self.kernel;
        let stage = item.stage;
        if matches!(stage.level, Level::L0a | Level::L0b | Level::L0c) {
            return; // L0 blocks are whole fractals, aligned by construction.
        }
        if !plan::is_accessed(kernel, stage.tensor) {
            return; // Never copied: lowering skips a tensor nothing reads.
        }
        let tensor = &kernel.tensors[stage.tensor];
        let size = tensor.dtype.size();
        let align = self.target.alignment(stage.level);
        let model = self.copy_model(stage.tensor, &collected.tiles);
        let axes_of = plan::tensor_axes(kernel, stage.tensor);
        let run_axis = axes_of.get(model.inner).copied().flatten();
        let run_span = run_axis
            .and_then(|a| collected.splits.get(&a).map(|n| n.span))
            .unwrap_or(item.keyword);
        let pad = vec![vec![Edit::Tail {
            policy: "pad".into(),
        }]];
        let aligned = |elements: u64| (elements * size).is_multiple_of(align);

        // A padded view is always copied with DataCopyPad (see `lower`), each row
        // landing at an aligned pitch (`plan::tile_strides`, which E020 counts):
        // any tile of it is copied legally.
        if plan::is_padded(kernel, stage.tensor) {
            return;
        }
        // Under `tail pad;` only where the rows start on chip matters.
        if self.tail == Tail::Pad {
            self.padded_rows(collected, item, &model, run_axis, run_span);
            return;
        }
        if !aligned(model.run) {
            let what = run_text(kernel, tensor, run_axis, &collected.tiles, model.run * size);
            let tiles = run_axis.map_or_else(Vec::new, |a| {
                self.tile_candidates(a, self.aligned_tile(a, collected.tiles[a]))
            });
            self.error_with_fixes(
                Diagnostic::new(
                    Code::E021,
                    run_span,
                    format!(
                        "{what}, not a multiple of the {align}-byte {} alignment",
                        stage.level
                    ),
                ),
                vec![tiles, pad],
                NO_ALIGNING_FIX,
            );
            return;
        }
        if let Some((step, what)) = model.steps.iter().find(|(step, _)| !aligned(*step)) {
            let message = format!(
                "{what} of `{}` start every {} B in global memory, not a multiple of the {align}-byte alignment",
                tensor.name,
                step * size
            );
            self.error_with_fixes(
                Diagnostic::new(Code::E021, item.keyword, message),
                vec![pad],
                NO_ALIGNING_FIX,
            );
            return;
        }
        if self.tail == Tail::Exact
            && let Some(tail_run) = model.tail_run
            && !aligned(tail_run)
        {
            let span = run_axis
                .and_then(|a| collected.splits.get(&a).map(|n| n.span))
                .unwrap_or(item.keyword);
            let message = format!(
                "the tail copy of `{}` is {} B, not a multiple of {align} B, so it cannot be copied exactly",
                tensor.name,
                tail_run * size
            );
            self.error_with_fixes(
                Diagnostic::new(Code::E033, span, message),
                vec![pad],
                "`tail pad;` does not clear this without bringing another error",
            );
        }
    }

    /// The rows of a tile copied under `tail pad;`: each burst starts on chip one run
    /// after the last, so the run must be a multiple of the alignment.
    fn padded_rows(
        &mut self,
        collected: &Collected,
        item: &StageItem,
        model: &CopyModel,
        run_axis: Option<usize>,
        run_span: Span,
    ) {
        let stage = item.stage;
        let tensor = &self.kernel.tensors[stage.tensor];
        let size = tensor.dtype.size();
        let align = self.target.alignment(stage.level);
        if model.bursts <= 1 || (model.run * size).is_multiple_of(align) {
            return;
        }
        let fixes = run_axis.map_or_else(Vec::new, |a| {
            self.tile_candidates(a, self.aligned_tile(a, collected.tiles[a]))
        });
        let message = format!(
            "rows of the `{}` tile are {} B apart in {}, not a multiple of the {align}-byte alignment that padded copies start each row at",
            tensor.name,
            model.run * size,
            stage.level
        );
        self.error_with_fixes(
            Diagnostic::new(Code::E021, run_span, message),
            vec![fixes],
            "make each row of the tile a multiple of the alignment",
        );
    }

    /// The copy of a full tile of `tensor`, as lowering builds it.
    fn copy_model(&self, tensor: usize, tiles: &[u64]) -> CopyModel {
        let kernel = self.kernel;
        let shape = &kernel.tensors[tensor].shape;
        let subscripts = plan::tensor_subscripts(kernel, tensor);
        let lens = plan::tile_shape(kernel, tensor, tiles);
        if lens.is_empty() {
            // A 0-d output (`-> y: f32`): one copy of one element.
            return CopyModel {
                inner: 0,
                run: 1,
                tail_run: None,
                bursts: 1,
                steps: Vec::new(),
            };
        }
        let rank = lens.len();
        let mut inner = rank - 1;
        while inner > 0 && lens[inner] == shape[inner] {
            inner -= 1;
        }
        let whole: u64 = shape[inner + 1..].iter().product();
        let run = lens[inner] * whole;
        // The tail tile's run: every axis of the inner subscript at its remainder.
        let inner_subscript = subscripts.as_ref().and_then(|s| s.get(inner));
        let tail_run = inner_subscript.and_then(|subscript| {
            let terms = subscript.terms();
            let has_tail = terms
                .iter()
                .any(|(a, _)| !kernel.axes[*a].extent.is_multiple_of(tiles[*a]));
            let last: Vec<u64> = (0..kernel.axes.len())
                .map(|a| match kernel.axes[a].extent % tiles[a] {
                    0 => tiles[a],
                    remainder => remainder,
                })
                .collect();
            has_tail.then(|| plan::subscript_extent(subscript, &last) * whole)
        });
        let bursts = lens[..inner].iter().product();
        let mut steps = Vec::new();
        let mut stride = 1;
        let mut strides = vec![0; rank];
        for d in (0..rank).rev() {
            strides[d] = stride;
            stride *= shape[d];
        }
        for d in 0..rank {
            if d < inner && lens[d] > 1 {
                steps.push((strides[d], "rows"));
            }
            let Some(subscript) = subscripts.as_ref().and_then(|s| s.get(d)) else {
                continue;
            };
            for (a, c) in subscript.terms() {
                if kernel.axes[a].extent > tiles[a] {
                    steps.push((c * tiles[a] * strides[d], "tiles"));
                }
            }
            // A fixed subscript or an affine offset: every copy starts that far in.
            let offset = subscript.offset().unsigned_abs();
            if offset > 0 {
                steps.push((offset * strides[d], "reads"));
            }
        }
        CopyModel {
            inner,
            run,
            tail_run,
            bursts,
            steps,
        }
    }

    /// The largest tile of `axis` at most `tile` whose run is aligned.
    fn aligned_tile(&self, axis: usize, tile: u64) -> u64 {
        let step = self.align_step(axis);
        (tile / step).max(1) * step
    }
}

/// What an unaligned copy of `tensor` is, in words: a tile's run along `run_axis`, or
/// the whole copy when the axis is not split.
fn run_text(
    kernel: &CheckedKernel,
    tensor: &Tensor,
    run_axis: Option<usize>,
    tiles: &[u64],
    run_bytes: u64,
) -> String {
    match run_axis {
        Some(a) if tiles[a] != kernel.axes[a].extent => format!(
            "a tile of {} {} along `{}` copies {run_bytes} B of `{}`",
            tiles[a], tensor.dtype, kernel.axes[a].name, tensor.name
        ),
        _ => format!("copies of `{}` are {run_bytes} B long", tensor.name),
    }
}
