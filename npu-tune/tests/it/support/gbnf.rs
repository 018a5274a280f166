//! A sampler and a recogniser for the GBNF subset the tuner's grammars use, so that the
//! loopback chat server can decode under a grammar as llama.cpp's server does, and a
//! test can ask whether a grammar admits a text: rules of alternatives (`|`) of
//! sequences of string literals, rule names (optionally `?`) and character classes
//! (optionally `*`). Choices come from a seeded generator, so a test replays.

use std::collections::{BTreeMap, BTreeSet};

/// One element of a sequence.
#[derive(Clone, Debug)]
enum Element {
    Literal(String),
    Rule {
        name: String,
        optional: bool,
    },
    Class {
        ranges: Vec<(char, char)>,
        repeated: bool,
    },
}

type Rules = BTreeMap<String, Vec<Vec<Element>>>;

/// A string the grammar admits, its choices drawn from `seed`.
pub(crate) fn sample(grammar: &str, seed: u64) -> Result<String, String> {
    let rules = parse(grammar)?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut next = move |bound: usize| rng.usize(..bound.max(1));
    let mut out = String::new();
    expand(&rules, "root", &mut next, &mut out, 0)?;
    Ok(out)
}

/// The depth past which [`expand`] stops choosing.
const DEEP: usize = 24;

/// The rules of `grammar` with two alternatives that begin with the same rule, each
/// as `rule: name`. A server that keeps a parse stack per live alternative (llama.cpp)
/// doubles its stacks at every nesting of such a rule.
pub(crate) fn shared_prefixes(grammar: &str) -> Result<Vec<String>, String> {
    let mut shared = Vec::new();
    for (name, alternatives) in parse(grammar)? {
        let mut firsts: Vec<&str> = alternatives
            .iter()
            .filter_map(|alternative| match alternative.first() {
                Some(Element::Rule { name, .. }) => Some(name.as_str()),
                _ => None,
            })
            .collect();
        firsts.sort_unstable();
        for pair in firsts.windows(2).filter(|pair| pair[0] == pair[1]) {
            shared.push(format!("{name}: {}", pair[0]));
        }
    }
    Ok(shared)
}

/// Whether `grammar` admits the whole of `text` from `root`.
pub(crate) fn admits(grammar: &str, text: &str) -> Result<bool, String> {
    let rules = parse(grammar)?;
    let text: Vec<char> = text.chars().collect();
    let mut memo = BTreeMap::new();
    let ends = rule_ends(&rules, "root", &text, 0, &mut memo)?;
    Ok(ends.contains(&text.len()))
}

/// Every position where a match of rule `name` from `start` can end. The grammars are
/// left-factored and not left-recursive, so each (rule, start) is computed once.
fn rule_ends(
    rules: &Rules,
    name: &str,
    text: &[char],
    start: usize,
    memo: &mut BTreeMap<(String, usize), BTreeSet<usize>>,
) -> Result<BTreeSet<usize>, String> {
    if let Some(ends) = memo.get(&(name.to_string(), start)) {
        return Ok(ends.clone());
    }
    let alternatives = rules.get(name).ok_or(format!("no rule `{name}`"))?;
    let mut ends = BTreeSet::new();
    for alternative in alternatives {
        let mut at = BTreeSet::from([start]);
        for element in alternative {
            let mut next = BTreeSet::new();
            for &pos in &at {
                next.extend(element_ends(rules, element, text, pos, memo)?);
            }
            at = next;
        }
        ends.extend(at);
    }
    memo.insert((name.to_string(), start), ends.clone());
    Ok(ends)
}

fn element_ends(
    rules: &Rules,
    element: &Element,
    text: &[char],
    pos: usize,
    memo: &mut BTreeMap<(String, usize), BTreeSet<usize>>,
) -> Result<BTreeSet<usize>, String> {
    Ok(match element {
        Element::Literal(literal) => {
            let literal: Vec<char> = literal.chars().collect();
            let matched = text.get(pos..pos + literal.len()) == Some(&literal[..]);
            matched.then_some(pos + literal.len()).into_iter().collect()
        }
        Element::Rule { name, optional } => {
            let mut ends = rule_ends(rules, name, text, pos, memo)?;
            if *optional {
                ends.insert(pos);
            }
            ends
        }
        Element::Class { ranges, repeated } => {
            let within = |c: &char| ranges.iter().any(|(lo, hi)| lo <= c && c <= hi);
            let run = text[pos..].iter().take_while(|c| within(c)).count();
            match repeated {
                true => (pos..=pos + run).collect(),
                false => (run > 0).then_some(pos + 1).into_iter().collect(),
            }
        }
    })
}

fn expand(
    rules: &Rules,
    name: &str,
    next: &mut impl FnMut(usize) -> usize,
    out: &mut String,
    depth: usize,
) -> Result<(), String> {
    if depth > 10_000 {
        return Err("the grammar nests too deep".into());
    }
    let alternatives = rules.get(name).ok_or(format!("no rule `{name}`"))?;
    // Deep in a recursive grammar, the first alternative (by convention the one that
    // does not recurse) and no optional rule, so that a sample ends.
    let shallow = depth < DEEP;
    let chosen = &alternatives[if shallow { next(alternatives.len()) } else { 0 }];
    for element in chosen {
        match element {
            Element::Literal(text) => out.push_str(text),
            Element::Rule { name, optional } => {
                if !*optional || (shallow && next(2) == 0) {
                    expand(rules, name, next, out, depth + 1)?;
                }
            }
            Element::Class { ranges, repeated } => {
                if !*repeated {
                    out.push(ranges[0].0);
                }
            }
        }
    }
    Ok(())
}

fn parse(grammar: &str) -> Result<Rules, String> {
    let mut rules = BTreeMap::new();
    for line in grammar.lines().filter(|l| !l.trim().is_empty()) {
        let (name, body) = line
            .split_once(" ::= ")
            .ok_or(format!("not a rule: `{line}`"))?;
        let chars: Vec<char> = body.chars().collect();
        let mut alternatives = vec![Vec::new()];
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                ' ' => i += 1,
                '|' => {
                    alternatives.push(Vec::new());
                    i += 1;
                }
                '"' => {
                    let mut text = String::new();
                    i += 1;
                    while i < chars.len() && chars[i] != '"' {
                        if chars[i] == '\\' {
                            i += 1;
                            text.push(match chars.get(i) {
                                Some('n') => '\n',
                                Some(c) => *c,
                                None => return Err(format!("a cut escape in `{line}`")),
                            });
                        } else {
                            text.push(chars[i]);
                        }
                        i += 1;
                    }
                    i += 1;
                    push(&mut alternatives, Element::Literal(text));
                }
                '[' => {
                    let mut ranges = Vec::new();
                    i += 1;
                    while i < chars.len() && chars[i] != ']' {
                        let last = match chars.get(i + 1..i + 3) {
                            Some(['-', last]) if *last != ']' => *last,
                            _ => chars[i],
                        };
                        ranges.push((chars[i], last));
                        i += if last == chars[i] { 1 } else { 3 };
                    }
                    if ranges.is_empty() {
                        return Err(format!("an empty class in `{line}`"));
                    }
                    i += 1;
                    let repeated = chars.get(i) == Some(&'*');
                    if repeated {
                        i += 1;
                    }
                    push(&mut alternatives, Element::Class { ranges, repeated });
                }
                _ => {
                    let start = i;
                    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '-') {
                        i += 1;
                    }
                    if i == start {
                        return Err(format!("unexpected `{}` in `{line}`", chars[i]));
                    }
                    let name: String = chars[start..i].iter().collect();
                    let optional = chars.get(i) == Some(&'?');
                    if optional {
                        i += 1;
                    }
                    push(&mut alternatives, Element::Rule { name, optional });
                }
            }
        }
        rules.insert(name.to_string(), alternatives);
    }
    Ok(rules)
}

fn push(alternatives: &mut [Vec<Element>], element: Element) {
    if let Some(last) = alternatives.last_mut() {
        last.push(element);
    }
}
