//! Knowledge steers the heuristic: the entries that fit the best schedule's symptom and
//! the latest diagnostics ([`KnowledgeBase::retrieve`], the same retrieval as the LLM's
//! prompt) become edits of that schedule. A template is a schedule for another kernel,
//! so what carries over is what it says about the machine, knob by knob: spread over
//! every core, this buffer depth, this tail policy, copies of about this many bytes,
//! this cube block.

use npu_core::ir::{CheckedKernel, Role, Tail};

use super::draft::Draft;
use super::expert::filled;
use super::expert::widest;
use crate::evaluate::Problem;
use crate::kernels::Bundled;
use crate::knowledge::{Entry, KnowledgeBase, Query};
use crate::record::CandidateRecord;
use crate::space::{Space, Spec};

/// A schedule the heuristic may propose, and the knowledge entries it came from.
#[derive(Clone, Debug)]
pub(super) struct Idea {
    pub(super) draft: Draft,
    pub(super) knowledge: Vec<String>,
}

impl Idea {
    pub(super) fn plain(draft: Draft) -> Idea {
        Idea {
            draft,
            knowledge: Vec::new(),
        }
    }
}

/// How many entries steer one round.
const ENTRIES: usize = 3;

/// Edits of `base` the entries retrieved for `records` advise, each with the entry it
/// came from: per entry, all its knobs at once, then each knob alone.
pub(super) fn edits(
    problem: &Problem,
    space: &Space,
    knowledge: &KnowledgeBase,
    records: &[CandidateRecord],
    base: &Draft,
) -> Vec<Idea> {
    let kernel = &problem.kernel;
    let query = Query::from_history(kernel, records);
    let mut ideas = Vec::new();
    for entry in knowledge.retrieve(&query, ENTRIES) {
        let Some(template) = template_spec(entry) else {
            continue;
        };
        let knobs = knobs(kernel, space, &base.spec, &template);
        if knobs.is_empty() {
            continue;
        }
        let mut all = base.spec.clone();
        for knob in &knobs {
            knob.apply(&mut all);
        }
        let mut specs = vec![all];
        if knobs.len() > 1 {
            specs.extend(knobs.iter().map(|knob| {
                let mut one = base.spec.clone();
                knob.apply(&mut one);
                one
            }));
        }
        for mut spec in specs {
            spec.fix_tail(kernel);
            if spec != base.spec {
                ideas.push(Idea {
                    draft: base.edited(spec),
                    knowledge: vec![entry.id.clone()],
                });
            }
        }
    }
    ideas
}

/// One knob a template sets.
#[derive(Clone, Debug, PartialEq)]
enum Knob {
    Cores([u64; 2]),
    Depth(u64),
    Tail(Tail),
    Tiles(Vec<Option<u64>>),
    Cube([u64; 3], u64, u64),
}

impl Knob {
    fn apply(&self, spec: &mut Spec) {
        match self {
            Knob::Cores([cores, cores_n]) => (spec.cores, spec.cores_n) = (*cores, *cores_n),
            Knob::Depth(depth) => spec.depth = *depth,
            Knob::Tail(tail) => spec.tail = *tail,
            Knob::Tiles(tiles) => spec.tiles = tiles.clone(),
            Knob::Cube(block, l0, l0c) => {
                spec.cube = Some(*block);
                (spec.l0_depth, spec.l0c_depth) = (*l0, *l0c);
            }
        }
    }
}

/// The template's knobs, carried over to `kernel` where they differ from `spec`.
fn knobs(kernel: &CheckedKernel, space: &Space, spec: &Spec, template: &Template) -> Vec<Knob> {
    let mut knobs = Vec::new();
    // A template across several cores says "spread": over every core this kernel has
    // (for a matmul, the grid that gives every cube core whole blocks).
    if let Some(widest) = widest(kernel, space, spec)
        && template.spec.cores * template.spec.cores_n > 1
        && spec.cores * spec.cores_n < widest[0] * widest[1]
    {
        knobs.push(Knob::Cores(widest));
    }
    if space.depths.contains(&template.spec.depth) && template.spec.depth != spec.depth {
        knobs.push(Knob::Depth(template.spec.depth));
    }
    if template.spec.tail != Tail::None
        && template.spec.tail != spec.tail
        && space.tails.contains(&template.spec.tail)
    {
        knobs.push(Knob::Tail(template.spec.tail));
    }
    // Copies of the template's size: the same bytes per tile, laid out as the first
    // drafts lay a tile out. Only a change of at least 2x is advice.
    if spec.cube.is_none() && template.spec.cube.is_none() {
        let bytes = tile_bytes(kernel, spec);
        let wanted = template.bytes;
        if wanted >= 2 * bytes || 2 * wanted <= bytes {
            let elements = (wanted / element_bytes(kernel)).max(1);
            let tiles = filled(kernel, space, spec.cores, elements);
            if tiles != spec.tiles {
                knobs.push(Knob::Tiles(tiles));
            }
        }
    }
    if let (Some(_), Some(block)) = (spec.cube, template.spec.cube)
        && space.cube.contains(&block)
        && (Some(block), template.spec.l0_depth, template.spec.l0c_depth)
            != (spec.cube, spec.l0_depth, spec.l0c_depth)
    {
        knobs.push(Knob::Cube(
            block,
            template.spec.l0_depth,
            template.spec.l0c_depth,
        ));
    }
    knobs
}

/// A template read in its own kernel's knobs.
struct Template {
    spec: Spec,
    /// Bytes of one tile of the template's kernel (see [`tile_bytes`]).
    bytes: u64,
}

fn template_spec(entry: &Entry) -> Option<Template> {
    let kernel = (Bundled::find(&entry.kernel)?.kernel)();
    let schedules = npu_core::internal::parse_schedules_str(&entry.template).ok()?;
    let spec = Spec::from_schedule(kernel, schedules.first()?);
    Some(Template {
        bytes: tile_bytes(kernel, &spec),
        spec,
    })
}

/// Bytes of one tile of the kernel's first input: the product of the effective tiles
/// of every axis, in that input's element size.
fn tile_bytes(kernel: &CheckedKernel, spec: &Spec) -> u64 {
    let elements: u64 = (0..kernel.axes.len())
        .map(|axis| spec.effective_tile(kernel, axis))
        .product();
    elements * element_bytes(kernel)
}

fn element_bytes(kernel: &CheckedKernel) -> u64 {
    kernel
        .tensors
        .iter()
        .find(|t| t.role == Role::Input && !t.is_scalar())
        .map_or(4, |t| t.dtype.size())
}
