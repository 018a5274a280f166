//! The grammar a model writes a kernel body under: the algorithm language of
//! docs/dsl.md restricted to one signature and one target. Loads name the signature's
//! tensors with their ranks, scalar parameters appear by bare name, every output is
//! written once and in order after any `let`s, over the axes the prompt's skeleton
//! shows, scanning only along them, and only the functions and reductions
//! the target's vector unit computes are offered; bit operations only when the
//! signature has an integer tensor. Axes take the usual names (`i`, `j`, `k`, ...)
//! and those the description's subscripts use ([`axes::pool`]); a reduction may state a window's
//! extent (`max[k < 3](..)`) and its accumulator (`sum[k: f32](..)`), and a load's
//! subscripts are affine (`x[2 * i + k - 1]`) or read one position through an integer
//! index tensor, a gather (`loads.rs`). Operations and dtypes are those the target's
//! vector unit computes (`dtypes.rs`), and a window's extent is at most the longest
//! dimension of the signature's input tensors.
//!
//! The grammar is GBNF (llama.cpp's server decodes under it). It is context-free, so
//! it admits bodies the checker refuses (an axis reduced twice, a `let` read before it
//! is written); the checker's diagnostics go back to the model as for schedules. Each
//! alternative list puts its non-recursive choice first.

mod dtypes;
mod loads;
mod numbers;
mod text;

use std::collections::BTreeSet;

pub(super) use dtypes::{computed, dtype_names};
use npu_core::Target;

use super::{Port, Task, axes};
use loads::load_rule;
use text::{choice, choice_of, literal};

/// The rules of an expression, which a family of statements copies under its own
/// names ([`without_output_axes`], [`over_axes`]).
const EXPRESSION: [&str; 7] = [
    "expr", "exprmore", "term", "termmore", "unary", "atom", "argsmore",
];
/// The scans: unlike a reduction, a scan runs along an axis the statement writes.
const SCANS: [&str; 2] = ["cumsum", "cumprod"];
/// The `atom` alternative of a scan, over any axis; an output's own rules take it over
/// the output's axes only ([`over_axes`]).
const SCAN: &str = "scan \"[\" raxes \"](\" expr \")\"";
/// The `atom` alternative that reads an intermediate.
const INTERMEDIATE: &str = "letname letindex?";
/// Names a `let` intermediate may take.
pub(super) const LET_NAMES: [&str; 6] = ["t0", "t1", "t2", "t3", "t4", "t5"];
/// Unary functions, each issuing the vector operation of the same name.
pub(super) const UNARY: [&str; 23] = [
    "exp", "log", "sqrt", "rsqrt", "tanh", "recip", "sigmoid", "abs", "neg", "relu", "sin", "cos",
    "tan", "floor", "ceil", "round", "trunc", "exp2", "log2", "log10", "erf", "sign", "popcount",
];

/// The GBNF of a body for `ports` on `target`. A statement may be indented as in the
/// kernel the prompt shows, the body may be fenced, and an intermediate takes any
/// lower-case name: a model refused the indentation, fence or name it means to write
/// turns to other statements (with the 1.5B model, `let t0 = x[0];` six times).
pub fn body_gbnf(task: &Task, target: &Target) -> String {
    let ports = &task.ports;
    let ops = target_ops(target);
    let has = |name: &str| ops.contains(name);
    let integers = ports.iter().any(|p| p.dtype.is_some_and(|d| !d.is_float()));
    let uncomputed = dtypes::uncomputed(ports, target);
    let mut rules = statements(task);
    rules.extend(dtypes::dtype_rules(target));
    rules.extend(numbers::numbers());
    rules.extend(expressions(integers, &uncomputed, &has));
    rules.extend(lets());
    rules.push(format!(
        "atom ::= {}",
        atoms(ports, target, &has).join(" | ")
    ));
    rules.extend(loads::loads(ports, has("gather")));
    let zero_d = without_output_axes(&rules);
    let written = output_rules(task, target, &rules);
    rules.extend(zero_d);
    rules.extend(written);
    rules.extend(dtypes::widen_rules(ports, target));
    rules.extend(operators(integers, &has));
    rules.join("\n") + "\n"
}

/// The rules of the body's statements, axes and subscripts. A window's extent is at
/// most the longest dimension of an input tensor: a context-free grammar does not know
/// which tensors the window's axis indexes, so `argmax[k < 64](x[k])` over 64 elements
/// of `x` and 4096 of another input is admitted up to 4096, and the checker's E012
/// help says to state `k < 64`, the extent `x` has.
fn statements(task: &Task) -> Vec<String> {
    let pool = axes::pool(&task.doc);
    let pool: Vec<&str> = pool.iter().map(String::as_str).collect();
    let longest = loads::tensor_inputs(&task.ports)
        .flat_map(|(_, port)| port.shape.iter().copied())
        .max();
    let extent = match longest {
        Some(most) if most > 0 => numbers::up_to(most),
        _ => "positive".to_string(),
    };
    vec![
        "root ::= body | \"```\\n\" body \"```\"".to_string(),
        "body ::= lets outs | outsalone".to_string(),
        "let ::= indent? \"let \" letname letrest".to_string(),
        "indent ::= \"    \"".to_string(),
        "letrest ::= \" = \" expr0 \";\\n\" | \"[\" axes \"] = \" expr \";\\n\"".to_string(),
        "letname ::= [a-z] [a-z0-9_]*".to_string(),
        format!("axis ::= {}", choice(&pool)),
        format!("raxis ::= {}", choice_of(&reduction_pool(task, &pool))),
        "raxes ::= axis extent? raxesmore?".to_string(),
        format!("extent ::= \" < \" ( {extent} )"),
        "raxesmore ::= \", \" raxes | \": \" accdtype".to_string(),
        "index ::= iterm indexmore?".to_string(),
        "iterm ::= axis | \"0\" | positive scaled?".to_string(),
        "scaled ::= \" * \" axis".to_string(),
        "indexmore ::= \" + \" iterm indexmore? | \" - \" positive indexmore?".to_string(),
        "number ::= \"0\" | positive".to_string(),
    ]
}

/// The reductions, scans, functions, comparisons and bit operators the target has.
fn operators(integers: bool, has: &impl Fn(&str) -> bool) -> Vec<String> {
    let mut rules = Vec::new();
    let (scans, folds): (Vec<&str>, Vec<&str>) = reductions(has)
        .into_iter()
        .partition(|name| SCANS.contains(name));
    rules.push(format!("reduce ::= {}", choice(&folds)));
    if !scans.is_empty() {
        rules.push(format!("scan ::= {}", choice(&scans)));
        rules.push("sacc ::= \": \" accdtype".into());
    }
    let unary: Vec<&str> = UNARY.iter().copied().filter(|f| has(f)).collect();
    if !unary.is_empty() {
        rules.push(format!("fn1 ::= {}", choice(&unary)));
    }
    rules.push("cmp ::= \" < \" | \" <= \" | \" > \" | \" >= \" | \" == \" | \" != \"".into());
    if integers {
        rules.push("bits ::= \" & \" | \" | \" | \" ^ \" | \" << \" | \" >> \"".into());
    }
    rules
}

/// `expr`, `term` and `unary`, by binding power: bit operations for integers,
/// division and remainder where the target computes them. Each is an operand and an
/// optional rest, so that no two alternatives begin with the same rule: llama.cpp's
/// server keeps a parse stack per live alternative, and alternatives that share a
/// nested prefix (`term | term " + " expr`) multiply the stacks at every level of
/// nesting, until one token takes minutes. An input of a dtype the target does not
/// compute in is an operand only cast to one it does (`q[i] as f32`), as `uncomputed`
/// lists them ([`dtypes`]).
fn expressions(
    integers: bool,
    uncomputed: &[(String, npu_core::Dtype)],
    has: &impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut more = String::from("exprmore ::= \" + \" expr | \" - \" expr");
    if integers {
        more += " | bits expr";
    }
    let mut term_more = String::from("termmore ::= \" * \" term");
    for (op, name) in [("/", "div"), ("%", "rem")] {
        if has(name) {
            term_more += &format!(" | \" {op} \" term");
        }
    }
    let not = if integers { " | \"!\" atom" } else { "" };
    let casts: String = uncomputed
        .iter()
        .map(|(read, _)| format!(" | {read} cast"))
        .collect();
    vec![
        "expr ::= term exprmore?".to_string(),
        more,
        "term ::= unary termmore?".to_string(),
        term_more,
        format!("unary ::= atom cast? | \"-\" atom{not}{casts}"),
        "cast ::= \" as \" dtype | \" as sat \" dtype".to_string(),
        "argsmore ::= \", \" expr argsmore?".to_string(),
    ]
}

/// `lets`: up to [`LET_NAMES`]`.len()` statements, as a chain of rules so that the
/// count of statements is never ambiguous.
fn lets() -> Vec<String> {
    let mut rules = vec!["lets ::= let lets1?".to_string()];
    for n in 1..LET_NAMES.len() - 1 {
        rules.push(format!("lets{n} ::= let lets{}?", n + 1));
    }
    rules.push(format!("lets{} ::= let", LET_NAMES.len() - 1));
    rules
}

/// The expression rules again for a statement without output axes (a 0-d `let` or
/// output), suffixed `0`: its loads index with `raxis`, the names no output is written
/// over, and it reads intermediates by bare name, as the checker requires.
fn without_output_axes(rules: &[String]) -> Vec<String> {
    // Beside the expression's rules, its loads' (which index with `raxis` here).
    const LOADS: [&str; 7] = [
        "gather",
        "index",
        "iterm",
        "indexmore",
        "scaled",
        "raxes",
        "raxesmore",
    ];
    let in_family = |word: &str| EXPRESSION.contains(&word) || LOADS.contains(&word);
    let renamed = |word: &str| -> Option<String> {
        if in_family(word) {
            Some(format!("{word}0"))
        } else if let Some(tensor) = word.strip_prefix("load-") {
            Some(format!("load0-{tensor}"))
        } else if let Some(rank) = word.strip_prefix("gsubs-") {
            Some(format!("gsubs0-{rank}"))
        } else if word == "axis" {
            Some("raxis".to_string())
        } else {
            None
        }
    };
    rules
        .iter()
        .flat_map(|rule| rule.lines())
        .filter_map(|line| {
            let (name, body) = line.split_once(" ::= ")?;
            let name = renamed(name).filter(|n| n != "raxis")?;
            let body = rename_outside_quotes(body, &renamed);
            let body = body.replace(INTERMEDIATE, "letname");
            Some(format!("{name} ::= {body}"))
        })
        .collect()
}

/// The axis names a 0-d statement may reduce over: the pool without the names outputs
/// are written over, by position or as the description writes them, so that a 0-d
/// `let` meant to be written over an output axis is refused by the grammar.
fn reduction_pool(task: &Task, pool: &[&str]) -> Vec<String> {
    let outputs: Vec<String> = task
        .ports
        .iter()
        .filter(|p| p.output)
        .flat_map(|p| axes::output_axes(&task.doc, p))
        .collect();
    pool.iter()
        .filter(|a| !axes::OUTPUT_AXES.contains(a) && !outputs.iter().any(|o| o == *a))
        .map(|a| a.to_string())
        .collect()
}

/// `body` with every rule name (a word outside string literals) that `rename` maps
/// replaced.
fn rename_outside_quotes(body: &str, rename: &impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut escaped = false;
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(&rename(word).unwrap_or_else(|| word.clone()));
        word.clear();
    };
    for c in body.chars() {
        if quoted {
            out.push(c);
            quoted = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c.is_ascii_alphanumeric() || c == '-' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
            quoted = c == '"';
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The names of the vector operations `target` has a cost for.
pub(super) fn target_ops(target: &Target) -> BTreeSet<String> {
    target
        .vector
        .cycles
        .keys()
        .filter_map(|op| serde_json::to_value(op).ok())
        .filter_map(|value| value.as_str().map(str::to_string))
        .collect()
}

/// The output statements' rules: `outs`, written after `let`s, and `outsalone`,
/// written with none, whose expressions read no intermediate (with no `let` there is
/// none to read, and the 1.5B model, refused `sum[k](..)` over an output axis, wrote
/// `sum[k]` as the read of an intermediate instead).
fn output_rules(task: &Task, target: &Target, rules: &[String]) -> Vec<String> {
    let mut families = Vec::new();
    let mut written = Vec::new();
    let after_lets = outputs(task, target, rules, false, (&mut families, &mut written));
    let alone = outputs(task, target, rules, true, (&mut families, &mut written));
    written.push(format!("outs ::= {after_lets}"));
    written.push(format!("outsalone ::= {alone}"));
    written
}

/// Every output's statement, in signature order, each on its own line; the rules
/// they are written under are added to `written`. An output of rank 1 to
/// [`axes::OUTPUT_AXES`]`.len()` is written over the axes the prompt's skeleton shows
/// ([`axes::output_axes`]), its expression under rules of its own ([`over_axes`]).
/// Its reductions take any axis: `y[i, k] = x[i, k] - sum[k](x[i, k]) / 128.0;`, the
/// way the 1.5B model writes a row's mean, is refused by the checker (E030) and
/// accepted with the sum hoisted into an intermediate ([`npu_core::rewrite::hoist`]), which the
/// drafting loop tries; when the grammar refused `sum[k` there, the model wrote
/// `sum[kh, kw]` and made-up windows. Statements over the same axes share their rules
/// (`families` lists those written, with whether they read intermediates). An output
/// of a dtype the target does not compute in may end its value with a cast to it
/// ([`dtypes::value`]).
fn outputs(
    task: &Task,
    target: &Target,
    rules: &[String],
    alone: bool,
    (families, written): (&mut Vec<(Vec<String>, bool)>, &mut Vec<String>),
) -> String {
    let uncomputed = dtypes::uncomputed(&task.ports, target);
    let mut lines = Vec::new();
    for port in task.ports.iter().filter(|p| p.output) {
        let head = literal(&format!("{}[", port.name));
        let over = axes::output_axes(&task.doc, port);
        let value = |rules: (&str, &str)| dtypes::value(port, target, rules, &uncomputed);
        lines.push(match port.rank {
            0 => {
                let reads: Vec<_> = uncomputed
                    .iter()
                    .map(|(read, dtype)| (read.replacen("load-", "load0-", 1), *dtype))
                    .collect();
                format!(
                    "indent? {} {} \";\\n\"",
                    literal(&format!("{} = ", port.name)),
                    dtypes::value(port, target, ("expr0", "atom0"), &reads)
                )
            }
            rank if over.len() != rank => format!(
                "indent? {head} {} \"] = \" {} \";\\n\"",
                vec!["axis"; rank].join(" \", \" "),
                value(("expr", "atom"))
            ),
            _ => {
                let key = (over.clone(), alone);
                let family = families.iter().position(|f| *f == key).unwrap_or_else(|| {
                    written.extend(over_axes(rules, &over, alone, families.len()));
                    families.push(key);
                    families.len() - 1
                });
                let (expr, atom) = (format!("expr-o{family}"), format!("atom-o{family}"));
                format!(
                    "indent? {head} {} \"] = \" {} \";\\n\"",
                    literal(&over.join(", ")),
                    value((&expr, &atom))
                )
            }
        });
    }
    lines.join(" ")
}

/// The expression rules again for a statement written over `over`, suffixed
/// `-oN`: the same loads and reductions, but scans along `over` only (a scan runs
/// along an axis the statement writes, E011), and no read of an intermediate when
/// `alone`.
fn over_axes(rules: &[String], over: &[String], alone: bool, family: usize) -> Vec<String> {
    let in_family = |word: &str| EXPRESSION.contains(&word);
    let renamed = |word: &str| -> Option<String> {
        if in_family(word) {
            Some(format!("{word}-o{family}"))
        } else if word == "saxis" {
            Some(format!("saxis-o{family}"))
        } else {
            None
        }
    };
    let mut copied: Vec<String> = rules
        .iter()
        .flat_map(|rule| rule.lines())
        .filter_map(|line| {
            let (name, body) = line.split_once(" ::= ")?;
            in_family(name).then(|| {
                let body = match alone {
                    true => body.replace(&format!(" | {INTERMEDIATE}"), ""),
                    false => body.to_string(),
                };
                let body = body.replace(SCAN, "scan \"[\" saxis sacc? \"](\" expr \")\"");
                let name = renamed(name).unwrap_or_else(|| name.to_string());
                format!("{name} ::= {}", rename_outside_quotes(&body, &renamed))
            })
        })
        .collect();
    let over: Vec<&str> = over.iter().map(String::as_str).collect();
    copied.push(format!("saxis-o{family} ::= {}", choice(&over)));
    copied
}

/// The alternatives of `atom`: literals, parameters, loads, intermediates,
/// parentheses, then what the target computes. A parameter or tensor of a dtype the
/// target does not compute in is no atom: it is read cast ([`expressions`]).
fn atoms(ports: &[Port], target: &Target, has: &impl Fn(&str) -> bool) -> Vec<String> {
    let mut atoms = vec!["literal".to_string()];
    // Scalar parameters by name, tensors through their loads, numbered in the order
    // of [`loads::tensor_inputs`].
    let mut tensors = 0;
    for port in ports.iter().filter(|p| !p.output) {
        let read = match port.rank {
            0 => literal(&port.name),
            _ => {
                tensors += 1;
                load_rule(tensors - 1)
            }
        };
        if dtypes::computed(port, target) {
            atoms.push(read);
        }
    }
    atoms.push(INTERMEDIATE.into());
    atoms.push("\"(\" expr \")\"".into());
    if has("min") && has("max") {
        // `min(a, b, c)` as a description writes it: two arguments or more.
        atoms.push(
            "\"max(\" expr \", \" expr argsmore? \")\" | \"min(\" expr \", \" expr argsmore? \")\""
                .into(),
        );
    }
    if has("pow") {
        atoms.push("\"pow(\" expr \", \" literal \")\"".into());
    }
    if has("select") && has("cmp") {
        atoms.push("\"select(\" expr cmp expr \", \" expr \", \" expr \")\"".into());
    }
    if UNARY.iter().any(|f| has(f)) {
        atoms.push("fn1 \"(\" expr \")\"".into());
    }
    atoms.push("reduce \"[\" raxes \"](\" expr \")\"".into());
    if SCANS.iter().any(|s| has(s)) {
        atoms.push(SCAN.into());
    }
    atoms
}

/// The reductions and scans the target folds.
pub(super) fn reductions(has: &impl Fn(&str) -> bool) -> Vec<&'static str> {
    let mut names = vec!["sum", "max", "min"];
    for name in ["argmax", "argmin", "cumsum", "cumprod"] {
        if has(name) {
            names.push(name);
        }
    }
    names
}
