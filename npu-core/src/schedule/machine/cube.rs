//! The cube's base block of a matmul: present, in multiples of the fractal, dividing
//! the tiles, and naming the batch where there is one.

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::fix::Edit;
use crate::ir::*;
use crate::schedule::{ScheduleChecker, help};

impl ScheduleChecker<'_> {
    /// The cube's base block: present, multiples of the fractal, dividing the tiles.
    pub(in crate::schedule) fn cube_tiles(
        &mut self,
        cube: Option<&(Vec<(usize, ast::Number)>, Span)>,
        splits: &BTreeMap<usize, ast::Number>,
        tiles: &[u64],
    ) -> Option<[u64; 3]> {
        let KernelClass::Matmul(mm) = &self.kernel.class else {
            return None;
        };
        let fractal = self.target.cube.as_ref()?;
        let axes = &self.kernel.axes;
        let Some((list, keyword)) = cube else {
            self.no_cube_item(mm);
            return None;
        };
        let mut block = [0u64; 3];
        for (slot, (axis, unit)) in [(mm.m, fractal.m), (mm.n, fractal.n), (mm.k, fractal.k)]
            .into_iter()
            .enumerate()
        {
            let name = axes[axis].name.clone();
            let Some((_, number)) = list.iter().find(|(a, _)| *a == axis) else {
                let candidates = self.cube_candidates(axis, unit, tiles[axis], u64::MAX);
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E031,
                        *keyword,
                        format!("`cube` does not give `{name}`"),
                    ),
                    vec![candidates],
                    format!("add `{name} by {}`", unit * 4),
                );
                continue;
            };
            let value = number.value;
            if value == 0 || value % unit != 0 {
                let candidates = self.cube_candidates(axis, unit, tiles[axis], value.max(unit));
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E023,
                        number.span,
                        format!("cube `{name}` by {value} is not a multiple of the {unit}-element fractal of `{}`", self.target.name),
                    ),
                    vec![candidates],
                    format!("use a multiple of {unit} that divides the `{name}` tile"),
                );
                continue;
            }
            if value > tiles[axis] {
                let candidates = self.cube_candidates(axis, unit, tiles[axis], value);
                let splits_up = self.tile_candidates_from(axis, value, true);
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E023,
                        number.span,
                        format!(
                            "cube `{name}` by {value} is larger than the `{name}` tile of {}",
                            tiles[axis]
                        ),
                    ),
                    vec![candidates, splits_up],
                    format!("use a smaller `{name}` block or a larger `{name}` tile"),
                );
                continue;
            }
            if !tiles[axis].is_multiple_of(value) {
                let span = splits.get(&axis).map_or(number.span, |n| n.span);
                let multiples: Vec<Vec<Edit>> = (1..=tiles[axis] / value)
                    .rev()
                    .take(help::CANDIDATES)
                    .map(|times| {
                        vec![Edit::Split {
                            axis: name.clone(),
                            tile: times * value,
                        }]
                    })
                    .collect();
                let candidates = self.cube_candidates(axis, unit, tiles[axis], value);
                self.error_with_fixes(
                    Diagnostic::new(
                        Code::E023,
                        span,
                        format!(
                            "the `{name}` tile of {} is not a multiple of cube `{name}` by {value}",
                            tiles[axis]
                        ),
                    ),
                    vec![multiples, candidates],
                    format!("make the `{name}` tile a multiple of the `{name}` block"),
                );
                continue;
            }
            block[slot] = value;
        }
        block.iter().all(|v| *v > 0).then_some(block)
    }

    /// E031 for a matmul schedule without a `cube` item, with blocks of 64, 32 and 16
    /// as fixes.
    fn no_cube_item(&mut self, mm: &MatmulShape) {
        let axes = &self.kernel.axes;
        let schedule = self.schedule;
        let block = |size: u64| -> Vec<Edit> {
            [mm.m, mm.n, mm.k]
                .iter()
                .map(|a| Edit::Cube {
                    axis: axes[*a].name.clone(),
                    tile: size,
                })
                .collect()
        };
        let candidates = [64, 32, 16].into_iter().map(block).collect();
        self.error_with_fixes(
            Diagnostic::new(
                Code::E031,
                schedule.name.span(),
                format!(
                    "schedule `{}` has no `cube` item; a matmul needs the cube's base block",
                    schedule.name
                ),
            ),
            vec![candidates],
            format!(
                "add `cube {} by 64, {} by 64, {} by 64;`",
                axes[mm.m].name, axes[mm.n].name, axes[mm.k].name
            ),
        );
    }

    /// Reports a `cube` item that gives the batch axis of a batched matmul a block: the
    /// cube multiplies one matrix at a time, so its base block covers m, n and k only.
    /// The batch is tiled with `split` and spread with `parallel` instead.
    pub(in crate::schedule) fn cube_names_batch(
        &mut self,
        ident: &proc_macro2::Ident,
        axis: usize,
        number: &ast::Number,
    ) -> bool {
        let KernelClass::Matmul(mm) = &self.kernel.class else {
            return false;
        };
        if mm.batch != Some(axis) {
            return false;
        }
        let axes = &self.kernel.axes;
        let extent = axes[axis].extent;
        let (m, n, k) = (&axes[mm.m].name, &axes[mm.n].name, &axes[mm.k].name);
        let value = number.value;
        // `split t by N` is what a block along the batch most likely meant, when N
        // is a tile the batch can have.
        let split = if (1..extent).contains(&value) {
            format!("; `split {ident} by {value};` takes {value} matrices per tile")
        } else {
            format!(
                "; tile the batch with `split {ident} by ..` or spread it with `parallel {ident} over .. cores`"
            )
        };
        self.error(
            Diagnostic::new(
                Code::E032,
                ident.span(),
                format!(
                    "`{ident}` is the batch axis of this matmul, but the cube's base block covers `{m}`, `{n}` and `{k}` only: each of the {extent} matrices is multiplied on its own"
                ),
            )
            .help(format!("remove `{ident} by {value}` from `cube`{split}")),
        );
        true
    }

    /// Blocks of `axis` below `below`, multiples of the fractal `unit` that divide `tile`,
    /// largest first.
    fn cube_candidates(&self, axis: usize, unit: u64, tile: u64, below: u64) -> Vec<Vec<Edit>> {
        let largest = (tile.min(below) / unit) * unit;
        (1..=largest / unit)
            .rev()
            .map(|times| times * unit)
            .filter(|block| tile.is_multiple_of(*block) && *block != below)
            .take(help::CANDIDATES)
            .map(|block| {
                vec![Edit::Cube {
                    axis: self.kernel.axes[axis].name.clone(),
                    tile: block,
                }]
            })
            .collect()
    }
}

/// The help of E026 on a `cube` item of a kernel the cube cannot run: for a sum of
/// products that misses the cube's form, the forms it runs.
pub(in crate::schedule) fn no_matmul_help(kernel: &CheckedKernel) -> &'static str {
    if crate::check::near_matmul(kernel) {
        "the cube runs `c[m, n] = sum[k](a[m, k] * b[k, n])` or, batch axis first, `c[t, m, n] = sum[k](a[t, m, k] * b[t, k, n])` (`b[k, n]` when the batch shares it); write the kernel so, or remove the `cube` item"
    } else {
        "remove the `cube` item"
    }
}
