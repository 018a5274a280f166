//! Fixes: the concrete schedule edits a diagnostic's help line proposes.
//!
//! A help line such as "split i by 4096 and add `tail pad;`" is printed from a [`Fix`],
//! and the checker offers a fix only after applying it to the schedule and checking the
//! result again: the edit must clear the diagnostic without bringing a new one. Tools
//! (the tuner's repairs, tests that apply every help of the UI suite) apply the same
//! [`Fix`] to a kernel with [`Fix::apply`] instead of reading the help text.

use std::fmt;

use proc_macro2::{Ident, Span};

use crate::ast::{self, Item, ItemKind, KernelDef, Number};
use crate::target::Level;

/// Edits to one schedule that together clear a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// The schedule the edits apply to.
    pub schedule: String,
    /// The edits, applied in order.
    pub edits: Vec<Edit>,
}

/// One edit of a schedule block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Sets the tile of an axis: replaces its `split` item, or adds one.
    Split {
        /// The axis split.
        axis: String,
        /// Its tile, in elements.
        tile: u64,
    },
    /// Sets the cores of an axis's `parallel` item; 1 removes the item.
    Cores {
        /// The axis spread over cores.
        axis: String,
        /// How many cores.
        cores: u64,
    },
    /// Sets the tail policy: replaces the `tail` item, or adds one.
    Tail {
        /// `pad` or `exact`, as the `tail` item writes it.
        policy: String,
    },
    /// Sets the buffer depth of these tensors at a level, splitting a `stage` item that
    /// also names other tensors.
    Depth {
        /// The tensors whose depth changes.
        tensors: Vec<String>,
        /// The memory level they are staged in.
        level: Level,
        /// The new depth (buffer slots).
        depth: u64,
    },
    /// Adds `stage TENSORS in LEVEL depth DEPTH;`.
    Stage {
        /// The tensors staged.
        tensors: Vec<String>,
        /// The level they are staged in.
        level: Level,
        /// Their buffer depth.
        depth: u64,
    },
    /// Sets the cube base block along an axis.
    Cube {
        /// The matmul axis (m, n or k).
        axis: String,
        /// The block along it, in elements.
        tile: u64,
    },
}

impl Fix {
    /// Applies the edits to the named schedule of `def`; returns whether it was found.
    pub fn apply(&self, def: &mut KernelDef) -> bool {
        match def
            .schedules
            .iter_mut()
            .find(|s| s.name == self.schedule.as_str())
        {
            Some(schedule) => {
                *schedule = self.applied(schedule);
                true
            }
            None => false,
        }
    }

    /// A copy of `schedule` with the edits applied.
    pub fn applied(&self, schedule: &ast::Schedule) -> ast::Schedule {
        let mut out = schedule.clone();
        for edit in &self.edits {
            edit.apply(&mut out.items);
        }
        out
    }
}

impl Edit {
    fn apply(&self, items: &mut Vec<Item>) {
        match self {
            Edit::Split { axis, tile } => set_split(items, axis, *tile),
            Edit::Cores { axis, cores } => set_cores(items, axis, *cores),
            Edit::Tail { policy } => {
                items.retain(|item| !matches!(item.kind, ItemKind::Tail { .. }));
                push(
                    items,
                    ItemKind::Tail {
                        policy: ident(policy),
                    },
                );
            }
            Edit::Depth {
                tensors,
                level,
                depth,
            } => set_depth(items, tensors, *level, *depth),
            Edit::Stage {
                tensors,
                level,
                depth,
            } => push(
                items,
                ItemKind::Stage {
                    tensors: tensors.iter().map(|t| ident(t)).collect(),
                    level: ident(level.name()),
                    depth: Some(number(*depth)),
                },
            ),
            Edit::Cube { axis, tile } => set_cube(items, axis, *tile),
        }
    }
}

/// `split axis by tile`: the axis's split item changed, or one added.
fn set_split(items: &mut Vec<Item>, axis: &str, tile: u64) {
    let found = items.iter_mut().find_map(|item| match &mut item.kind {
        ItemKind::Split { axis: a, tile } if a == axis => Some(tile),
        _ => None,
    });
    match found {
        Some(number) => number.value = tile,
        None => push(
            items,
            ItemKind::Split {
                axis: ident(axis),
                tile: number(tile),
            },
        ),
    }
}

/// `parallel axis over cores cores`: changed or added, or dropped for one core.
fn set_cores(items: &mut Vec<Item>, axis: &str, cores: u64) {
    if cores <= 1 {
        items.retain(|item| !matches!(&item.kind, ItemKind::Parallel { axis: a, .. } if a == axis));
        return;
    }
    let found = items.iter_mut().find_map(|item| match &mut item.kind {
        ItemKind::Parallel { axis: a, cores } if a == axis => Some(cores),
        _ => None,
    });
    match found {
        Some(number) => number.value = cores,
        None => push(
            items,
            ItemKind::Parallel {
                axis: ident(axis),
                cores: number(cores),
            },
        ),
    }
}

/// The named tensors' `stage` items at `level` given `depth`; a tensor staged beside
/// others keeps them in an item of their own.
fn set_depth(items: &mut Vec<Item>, tensors: &[String], level: Level, depth: u64) {
    let mut out = Vec::with_capacity(items.len() + 1);
    for item in items.drain(..) {
        let ItemKind::Stage {
            tensors: staged,
            level: item_level,
            depth: item_depth,
        } = &item.kind
        else {
            out.push(item);
            continue;
        };
        if item_level != level.name() {
            out.push(item);
            continue;
        }
        let (named, others): (Vec<Ident>, Vec<Ident>) = staged
            .iter()
            .cloned()
            .partition(|t| tensors.iter().any(|n| t == n.as_str()));
        if named.is_empty() {
            out.push(item);
            continue;
        }
        // A split-off item is an item of its own in the edited text, so
        // it gets a span of its own: a rule that reports once per item
        // (E021 of the tensors of one `stage`) then counts it as the
        // text checked again would.
        let mut keyword = item.keyword;
        if !others.is_empty() {
            out.push(Item {
                keyword: item.keyword,
                kind: ItemKind::Stage {
                    tensors: others,
                    level: item_level.clone(),
                    depth: *item_depth,
                },
            });
            keyword = Span::call_site();
        }
        out.push(Item {
            keyword,
            kind: ItemKind::Stage {
                tensors: named,
                level: item_level.clone(),
                depth: Some(number(depth)),
            },
        });
    }
    *items = out;
}

/// `cube axis by tile`: the axis's tile in the cube item changed or added, or a cube
/// item added.
fn set_cube(items: &mut Vec<Item>, axis: &str, tile: u64) {
    let cube = items.iter_mut().find_map(|item| match &mut item.kind {
        ItemKind::Cube { tiles } => Some(tiles),
        _ => None,
    });
    match cube {
        Some(tiles) => match tiles.iter_mut().find(|(a, _)| a == axis) {
            Some((_, number)) => number.value = tile,
            None => tiles.push((ident(axis), number(tile))),
        },
        None => push(
            items,
            ItemKind::Cube {
                tiles: vec![(ident(axis), number(tile))],
            },
        ),
    }
}

impl fmt::Display for Fix {
    /// The edits as a help line says them: "split i by 4096 and add `tail pad;`".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Cube edits read best as one block: "use `cube m by 64, n by 32`".
        let mut cube = Vec::new();
        let mut parts = Vec::new();
        for edit in &self.edits {
            match edit {
                Edit::Split { axis, tile } => parts.push(format!("split {axis} by {tile}")),
                Edit::Cores { axis, cores } if *cores <= 1 => parts.push(format!(
                    "run `{axis}` on one core (drop its `parallel` item)"
                )),
                Edit::Cores { axis, cores } => {
                    parts.push(format!("use `parallel {axis} over {cores} cores;`"))
                }
                Edit::Tail { policy } => parts.push(format!("add `tail {policy};`")),
                Edit::Depth {
                    tensors,
                    level,
                    depth,
                } => parts.push(format!(
                    "use depth {depth} for {} in {level}",
                    crate::words::list(tensors)
                )),
                Edit::Stage {
                    tensors,
                    level,
                    depth,
                } => parts.push(format!(
                    "add `stage {} in {level} depth {depth};`",
                    tensors.join(", ")
                )),
                Edit::Cube { axis, tile } => cube.push(format!("{axis} by {tile}")),
            }
        }
        if !cube.is_empty() {
            parts.push(format!("use `cube {}`", cube.join(", ")));
        }
        f.write_str(&parts.join(" and "))
    }
}

fn push(items: &mut Vec<Item>, kind: ItemKind) {
    items.push(Item {
        keyword: Span::call_site(),
        kind,
    });
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

fn number(value: u64) -> Number {
    Number {
        value,
        span: Span::call_site(),
    }
}
