//! Grammars that hold an LLM's reply to schedules this kernel can have.
//!
//! The checker's knowledge becomes a grammar the server decodes under, so that even a
//! small model writes legal schedules and spends its effort on choosing well:
//!
//! - [`syntax_gbnf`]: the schedule block's syntax with only this kernel's axis and
//!   tensor names, the memory levels and items its class uses, core counts up to the
//!   target's, and aligned tiles up to each extent. Always available.
//! - [`exact_set`]: exactly the checker-accepted points of the tuner's [`Space`],
//!   written as a merged trie of their canonical lines, so capacity, alignment, tails
//!   and cube divisibility hold by construction. Built when the space has at most
//!   [`EXACT_SET_LIMIT`] points (every point is checked once: about a second on 2 cores).
//! - [`legal_set`]: the exact set when there is one, else a legal subset of a space too
//!   large to enumerate (the suite matmul's 2,200,000 points, with its core grids,
//!   take about ten minutes to check): every one-knob edit of the schedules to start
//!   from (the hand schedules, then the best so far) and an evenly spread sample of
//!   the space, [`SUBSET_CHECKS`] checks at most.
//!   Every reply is still legal; the subset moves with the best schedule round by round.
//! - [`json_schema`]: the same knobs as a JSON object, for servers with structured
//!   outputs (vLLM, hosted APIs); [`schedule_from_json`] prints the object as DSL text.
//!
//! GBNF is llama.cpp's grammar format (its server honours a `grammar` field on
//! `/v1/chat/completions`). Every grammar here produces the whole reply: one schedule
//! block in the canonical layout [`Spec::to_dsl`] writes, so a reply parses as is.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use npu_core::ir::{CheckedKernel, KernelClass, Tail};
use serde_json::{Value, json};

use super::evaluate::Problem;
use super::space::{Space, Spec, align_elements, gcd};

/// The largest space whose points are all checked to build the exact-set grammar.
pub const EXACT_SET_LIMIT: u64 = 50_000;

/// The most points checked to build the legal subset of a larger space: about a
/// second for a matmul on 2 cores.
pub const SUBSET_CHECKS: usize = 4_000;

/// The most tile values a grammar lists per axis: beyond it, powers of two times the
/// alignment step, and the extent.
const MAX_TILES: u64 = 64;

/// A constraint sent with a chat-completions request.
#[derive(Clone, Debug, PartialEq)]
pub enum Constraint {
    /// A GBNF grammar, as llama.cpp's `grammar` field takes it.
    Gbnf(String),
    /// A JSON Schema, sent as `response_format: {type: json_schema, ...}`.
    JsonSchema(Value),
}

/// How the LLM generator asks the server to constrain its replies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ConstrainMode {
    /// Probe the server once: GBNF if it honours a `grammar`, else JSON Schema if it
    /// honours `response_format`, else no constraint (with a warning saying why).
    #[default]
    Auto,
    /// A GBNF grammar in llama.cpp's `grammar` field.
    Gbnf,
    /// A JSON Schema in `response_format`.
    JsonSchema,
    /// Free decoding.
    None,
}

impl ConstrainMode {
    /// How the mode reads in messages (`a GBNF grammar`, `no constraint`).
    pub fn name(self) -> &'static str {
        match self {
            ConstrainMode::Auto => "auto",
            ConstrainMode::Gbnf => "a GBNF grammar",
            ConstrainMode::JsonSchema => "a JSON Schema",
            ConstrainMode::None => "no constraint",
        }
    }
}

/// The exact legal set of a kernel's tuning space, as a grammar.
#[derive(Clone, Debug)]
pub struct ExactSet {
    /// The grammar, in GBNF, admitting exactly the `points`, each in the canonical
    /// layout.
    pub gbnf: String,
    /// Legal points the grammar admits.
    pub points: usize,
    /// Points checked to find them.
    pub checked: u64,
    /// Whether these are all the legal points of the space, or a subset of them.
    pub complete: bool,
}

/// The syntax-and-names grammar of a schedule block for `kernel`.
pub fn syntax_gbnf(kernel: &CheckedKernel) -> String {
    let knobs = Knobs::of(kernel);
    let mut rules: BTreeMap<String, String> = BTreeMap::new();
    let mut body = Vec::new();
    // A kernel of 0-d outputs has no output axis to spread: no `parallel` item.
    if let Some(first) = &knobs.first_axis {
        body.push("parallel?".to_string());
        let parallel = match &knobs.second_axis {
            // A matmul spreads m, n or both (a grid, `parallel m, n over 4 x 5 cores;`).
            Some((second, _)) => format!(
                "\"    parallel \" ( \"{first} over \" cores | \"{second} over \" cores-n | \"{first}, {second} over \" cores \" x \" cores-n ) \" cores;\\n\""
            ),
            None => format!("\"    parallel {first} over \" cores \" cores;\\n\""),
        };
        rules.insert("parallel".into(), parallel);
        rules.insert("cores".into(), alternatives(&knobs.cores));
        if let Some((_, cores_n)) = &knobs.second_axis {
            rules.insert("cores-n".into(), alternatives(cores_n));
        }
    }
    for (position, (axis, tiles)) in knobs.tiles.iter().enumerate() {
        let (split, tile) = (
            rule_name("split-a", position),
            rule_name("tile-a", position),
        );
        body.push(format!("{split}?"));
        rules.insert(split, format!("\"    split {axis} by \" {tile} \";\\n\""));
        rules.insert(tile, alternatives(tiles));
    }
    match &kernel.class {
        KernelClass::Matmul(mm) => {
            let axes = &kernel.axes;
            let name = |a: usize| axes[a].name.as_str();
            body.push("cube".into());
            rules.insert(
                "cube".into(),
                format!(
                    "\"    cube {} by \" block \", {} by \" block \", {} by \" block \";\\n\"",
                    name(mm.m),
                    name(mm.n),
                    name(mm.k)
                ),
            );
            rules.insert("block".into(), alternatives(&knobs.blocks));
            let tensor = |t: usize| kernel.tensors[t].name.as_str();
            let (a, b, c) = (tensor(mm.a), tensor(mm.b), tensor(mm.c));
            body.push("stages".into());
            rules.insert(
                "stages".into(),
                format!(
                    "\"    stage {a}, {b} in l1 depth \" depth \";\\n    stage {a} in l0a depth \" depth \";\\n    stage {b} in l0b depth \" depth \";\\n    stage {c} in l0c depth \" depth \";\\n\""
                ),
            );
        }
        _ => {
            // Scalar parameters are held in scalar registers and intermediates live in
            // ub for the tile: neither is staged.
            let names: Vec<&str> = kernel
                .tensors
                .iter()
                .filter(|t| !t.is_scalar() && t.role != npu_core::ir::Role::Local)
                .map(|t| t.name.as_str())
                .collect();
            body.push("stages".into());
            rules.insert(
                "stages".into(),
                format!(
                    "\"    stage {} in ub depth \" depth \";\\n\"",
                    names.join(", ")
                ),
            );
        }
    }
    rules.insert("depth".into(), "\"1\" | \"2\"".into());
    body.push("tail?".into());
    rules.insert(
        "tail".into(),
        "\"    tail pad;\\n\" | \"    tail exact;\\n\"".into(),
    );
    let mut out = format!(
        "root ::= \"schedule \" name \" {{\\n\" {} \"}}\"\n",
        body.join(" ")
    );
    out += "name ::= [a-z] [a-z0-9_]*\n";
    for (name, rule) in rules {
        let _ = writeln!(out, "{name} ::= {rule}");
    }
    out
}

/// The exact legal set of the tuner's space for `problem`, or `None` when the space
/// has more than `limit` points.
pub fn exact_set(problem: &Problem, limit: u64) -> Option<ExactSet> {
    let kernel = &problem.kernel;
    let space = Space::of(kernel);
    let size = space.size();
    if size > limit {
        return None;
    }
    let specs = (0..size).map(|index| space.point(kernel, index));
    let mut set = checked_set(problem, specs)?;
    set.complete = true;
    Some(set)
}

/// The legal points to decode under: the exact set when the space has at most
/// [`EXACT_SET_LIMIT`] points, else a legal subset: `around` (the schedules to start
/// from), every one-knob edit of each, and an evenly spread sample of the space,
/// `checks` checks in all ([`SUBSET_CHECKS`] in the tuner). `None` when none of them
/// is legal.
pub fn legal_set(problem: &Problem, around: &[Spec], checks: usize) -> Option<ExactSet> {
    let kernel = &problem.kernel;
    let space = Space::of(kernel);
    let size = space.size();
    if size <= EXACT_SET_LIMIT {
        return exact_set(problem, EXACT_SET_LIMIT);
    }
    let mut specs: Vec<Spec> = Vec::new();
    for spec in around {
        for next in std::iter::once(spec.clone()).chain(space.edits(kernel, spec)) {
            if specs.len() < checks && !specs.contains(&next) {
                specs.push(next);
            }
        }
    }
    // A stride coprime with the size visits every point once before repeating, and a
    // large one spreads consecutive picks over every knob of the mixed-radix order.
    let mut stride = 0x9E37_79B9_7F4A_7C15 % size;
    while gcd(stride, size) != 1 {
        stride += 1;
    }
    let sample = checks.saturating_sub(specs.len()) as u64;
    for step in 0..sample.min(size) {
        let index = ((u128::from(step) * u128::from(stride)) % u128::from(size)) as u64;
        specs.push(space.point(kernel, index));
    }
    checked_set(problem, specs.into_iter())
}

/// The trie grammar of the legal ones among `specs`.
fn checked_set(problem: &Problem, specs: impl Iterator<Item = Spec>) -> Option<ExactSet> {
    let kernel = &problem.kernel;
    let mut bodies: Vec<String> = Vec::new();
    let mut checked = 0;
    for spec in specs {
        checked += 1;
        let text = spec.to_dsl(kernel, "s");
        if problem.check(&text).is_ok() {
            bodies.push(block_body(&text));
        }
    }
    bodies.sort();
    bodies.dedup();
    let points = bodies.len();
    if points == 0 {
        return None;
    }
    Some(ExactSet {
        gbnf: trie_gbnf(&bodies),
        points,
        checked,
        complete: false,
    })
}

/// The lines of a schedule block between its header and closing brace, each with
/// its newline.
fn block_body(text: &str) -> String {
    let mut lines = text.lines();
    lines.next();
    lines
        .filter(|l| l.trim() != "}")
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A grammar admitting exactly `bodies` after a schedule header, as a trie over lines:
/// one rule per node, so shared prefixes are written once.
fn trie_gbnf(bodies: &[String]) -> String {
    #[derive(Default)]
    struct Node {
        children: BTreeMap<String, Node>,
        end: bool,
    }
    let mut root = Node::default();
    for body in bodies {
        let mut node = &mut root;
        for line in body.split_inclusive('\n') {
            node = node.children.entry(line.to_string()).or_default();
        }
        node.end = true;
    }
    let mut rules = Vec::new();
    fn emit(node: &Node, rules: &mut Vec<String>) -> usize {
        let index = rules.len();
        rules.push(String::new());
        let mut alternatives: Vec<String> = Vec::new();
        if node.end {
            alternatives.push("\"}\"".into());
        }
        for (line, child) in &node.children {
            let child_index = emit(child, rules);
            alternatives.push(format!("{} n{child_index}", literal(line)));
        }
        rules[index] = format!("n{index} ::= {}", alternatives.join(" | "));
        index
    }
    let first = emit(&root, &mut rules);
    let mut out = format!("root ::= \"schedule \" name \" {{\\n\" n{first}\n");
    out += "name ::= [a-z] [a-z0-9_]*\n";
    for rule in rules {
        out += &rule;
        out.push('\n');
    }
    out
}

/// The schedule knobs as a JSON Schema object (see [`schedule_from_json`]).
pub fn json_schema(kernel: &CheckedKernel) -> Value {
    let knobs = Knobs::of(kernel);
    let mut tiles = serde_json::Map::new();
    for (axis, values) in &knobs.tiles {
        let mut options: Vec<Value> = values.iter().map(|v| json!(v)).collect();
        options.push(Value::Null);
        tiles.insert(axis.clone(), json!({ "enum": options }));
    }
    let axis_names: Vec<&String> = knobs.tiles.iter().map(|(a, _)| a).collect();
    let mut properties = json!({
        "cores": { "enum": knobs.cores },
        "tiles": {
            "type": "object",
            "properties": tiles,
            "required": axis_names,
            "additionalProperties": false,
        },
        "depth": { "enum": [1, 2] },
        "tail": { "enum": ["none", "pad", "exact"] },
    });
    let mut required = vec!["cores", "tiles", "depth", "tail"];
    if let Some((_, cores_n)) = &knobs.second_axis {
        // Optional, so that a reply without it (written before grids) still reads.
        properties["cores_n"] = json!({ "enum": cores_n });
    }
    if matches!(kernel.class, KernelClass::Matmul(_)) {
        let block = json!({ "enum": knobs.blocks });
        properties["cube"] = json!({
            "type": "object",
            "properties": { "m": block, "n": block, "k": block },
            "required": ["m", "n", "k"],
            "additionalProperties": false,
        });
        properties["l0_depth"] = json!({ "enum": [1, 2] });
        properties["l0c_depth"] = json!({ "enum": [1, 2] });
        required.extend(["cube", "l0_depth", "l0c_depth"]);
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A reply written under [`json_schema`] as a schedule block named `name`.
pub fn schedule_from_json(
    kernel: &CheckedKernel,
    reply: &str,
    name: &str,
) -> Result<String, String> {
    let value: Value = serde_json::from_str(reply.trim())
        .map_err(|error| format!("the reply is not the JSON object asked for: {error}"))?;
    let number = |v: &Value, what: &str| -> Result<u64, String> {
        v.as_u64()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("`{what}` is not a positive integer"))
    };
    let cores_n = match &value["cores_n"] {
        Value::Null => 1,
        cores_n => number(cores_n, "cores_n")?,
    };
    if cores_n > 1 && super::space::second_axis(kernel).is_none() {
        return Err("`cores_n` is for a matmul's n; this kernel has no grid of cores".into());
    }
    let mut spec = Spec {
        cores: number(&value["cores"], "cores")?,
        cores_n,
        tiles: vec![None; kernel.axes.len()],
        depth: number(&value["depth"], "depth")?,
        l0_depth: 1,
        l0c_depth: 1,
        cube: None,
        tail: match value["tail"].as_str() {
            Some("pad") => Tail::Pad,
            Some("exact") => Tail::Exact,
            Some("none") | None => Tail::None,
            Some(other) => return Err(format!("unknown tail `{other}`")),
        },
    };
    if let Some(tiles) = value["tiles"].as_object() {
        for (axis, tile) in tiles {
            let Some(index) = kernel.axes.iter().position(|a| &a.name == axis) else {
                return Err(format!("unknown axis `{axis}` in `tiles`"));
            };
            if !tile.is_null() {
                spec.tiles[index] = Some(number(tile, axis)?);
            }
        }
    }
    if let KernelClass::Matmul(_) = kernel.class {
        let cube = &value["cube"];
        spec.cube = Some([
            number(&cube["m"], "cube.m")?,
            number(&cube["n"], "cube.n")?,
            number(&cube["k"], "cube.k")?,
        ]);
        spec.l0_depth = number(&value["l0_depth"], "l0_depth")?;
        spec.l0c_depth = number(&value["l0c_depth"], "l0c_depth")?;
    }
    Ok(spec.to_dsl(kernel, name))
}

/// The values a grammar lists for each knob.
struct Knobs {
    /// The first output axis; none for a kernel of 0-d outputs.
    first_axis: Option<String>,
    cores: Vec<u64>,
    /// A matmul's n and its core counts, for a grid of cores over m and n.
    second_axis: Option<(String, Vec<u64>)>,
    /// Per axis the space tiles (every axis but the ones a matmul's cube fixes).
    tiles: Vec<(String, Vec<u64>)>,
    blocks: Vec<u64>,
}

impl Knobs {
    fn of(kernel: &CheckedKernel) -> Knobs {
        let target = &kernel.target;
        let first = kernel.output_axes().first().copied();
        let is_matmul = matches!(kernel.class, KernelClass::Matmul(_));
        let available = u64::from(if is_matmul {
            target.cores.cube
        } else {
            target.cores.vector
        });
        let extent = first.map_or(1, |first| kernel.axes[first].extent);
        let cores: Vec<u64> = (2..=available.min(extent)).collect();
        let second_axis = super::space::second_axis(kernel).map(|second| {
            let axis = &kernel.axes[second];
            let counts = (2..=available.min(axis.extent)).collect();
            (axis.name.clone(), counts)
        });
        let unit = target.cube.as_ref().map_or(16, |c| c.m);
        let tiles = kernel
            .axes
            .iter()
            .enumerate()
            .map(|(axis, a)| {
                // A batched matmul's batch tile is any count of whole matrices.
                let batch =
                    matches!(&kernel.class, KernelClass::Matmul(mm) if mm.batch == Some(axis));
                let step = if batch {
                    1
                } else if is_matmul {
                    unit
                } else {
                    align_elements(kernel, axis)
                };
                let mut values: Vec<u64> = if a.extent / step <= MAX_TILES {
                    (1..=a.extent / step).map(|k| k * step).collect()
                } else {
                    let mut powers = Vec::new();
                    let mut value = step;
                    while value <= a.extent {
                        powers.push(value);
                        value *= 2;
                    }
                    powers
                };
                if !values.contains(&a.extent) {
                    values.push(a.extent);
                }
                (a.name.clone(), values)
            })
            .collect();
        let blocks = (1..=16).map(|k| k * unit).collect();
        Knobs {
            first_axis: first.map(|first| kernel.axes[first].name.clone()),
            cores,
            second_axis,
            tiles,
            blocks,
        }
    }
}

fn alternatives(values: &[u64]) -> String {
    if values.is_empty() {
        // No choice at all: a rule that matches nothing would make the item unusable,
        // which is what the grammar should say.
        return "\"1\"".into();
    }
    values
        .iter()
        .map(|v| format!("\"{v}\""))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The GBNF rule name of the `position`th name of a kind: `rule_name("load-t", 0)` is
/// `load-t0`. Both grammars name rules so, never after a name the user wrote:
/// llama.cpp's parser takes only ASCII letters, digits and `-` in a rule name (its
/// `is_word_char`), and answers a grammar with `in_buffer` or `r#in` in one with HTTP
/// 400. A character of `kind` outside those becomes `-`.
pub(crate) fn rule_name(kind: &str, position: usize) -> String {
    let kind: String = kind
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c,
            false => '-',
        })
        .collect();
    format!("{kind}{position}")
}

/// A GBNF string literal.
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            '\n' => out += "\\n",
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
