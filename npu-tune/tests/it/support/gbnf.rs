//! A sampler and a recogniser for GBNF, so that the loopback chat server can decode
//! under a grammar as llama.cpp's server does, and a test can ask whether a grammar
//! admits a text. Grammars are read as llama.cpp reads them ([`parse`]): a grammar the
//! server would refuse with HTTP 400 is an error here too. Choices come from a seeded
//! generator, so a test replays.

mod parse;

use std::collections::{BTreeMap, BTreeSet};

use parse::{Atom, Element, Rules, Sequence};

/// A string the grammar admits, its choices drawn from `seed`. Each element is taken
/// the fewest times it may be, but an optional one (`x?`) is drawn.
pub(crate) fn sample(grammar: &str, seed: u64) -> Result<String, String> {
    let rules = rooted(grammar)?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut sampler = Sampler {
        rules: &rules,
        next: move |bound: usize| rng.usize(..bound.max(1)),
        out: String::new(),
    };
    sampler.rule("root", 0)?;
    Ok(sampler.out)
}

/// The depth past which the sampler stops choosing.
const DEEP: usize = 24;

/// Whether llama.cpp's parser takes `grammar`; the error it gives when not.
pub(crate) fn check(grammar: &str) -> Result<(), String> {
    rooted(grammar).map(|_| ())
}

/// The rules of `grammar` with two alternatives that begin with the same rule, each
/// as `rule: name`. A server that keeps a parse stack per live alternative (llama.cpp)
/// doubles its stacks at every nesting of such a rule.
pub(crate) fn shared_prefixes(grammar: &str) -> Result<Vec<String>, String> {
    let mut shared = Vec::new();
    for (name, alternatives) in parse::parse(grammar)? {
        let mut firsts: Vec<&str> = alternatives
            .iter()
            .filter_map(|alternative| match alternative.first().map(|e| &e.atom) {
                Some(Atom::Rule(name)) => Some(name.as_str()),
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
    let rules = rooted(grammar)?;
    let mut recogniser = Recogniser {
        rules: &rules,
        text: text.chars().collect(),
        memo: BTreeMap::new(),
    };
    let ends = recogniser.rule_ends("root", 0)?;
    Ok(ends.contains(&recogniser.text.len()))
}

/// The rules of `grammar`, which must define `root` (llama.cpp: "grammar does not
/// contain a 'root' symbol").
fn rooted(grammar: &str) -> Result<Rules, String> {
    let rules = parse::parse(grammar)?;
    match rules.contains_key("root") {
        true => Ok(rules),
        false => Err("grammar does not contain a 'root' symbol".into()),
    }
}

/// Where matches can end. The grammars are not left-recursive (llama.cpp refuses
/// those), so each (rule, start) is computed once; one that calls itself at its own
/// start is an error.
struct Recogniser<'a> {
    rules: &'a Rules,
    text: Vec<char>,
    /// The ends of each (rule, start) computed, `None` while it is being computed.
    memo: BTreeMap<(String, usize), Option<BTreeSet<usize>>>,
}

impl Recogniser<'_> {
    fn rule_ends(&mut self, name: &str, start: usize) -> Result<BTreeSet<usize>, String> {
        let key = (name.to_string(), start);
        match self.memo.get(&key) {
            Some(Some(ends)) => return Ok(ends.clone()),
            Some(None) => return Err(format!("left recursion in rule `{name}`")),
            None => {}
        }
        self.memo.insert(key.clone(), None);
        let alternatives = self.rules.get(name).ok_or(format!("no rule `{name}`"))?;
        let ends = self.alternatives_ends(alternatives, start)?;
        self.memo.insert(key, Some(ends.clone()));
        Ok(ends)
    }

    fn alternatives_ends(
        &mut self,
        alternatives: &[Sequence],
        start: usize,
    ) -> Result<BTreeSet<usize>, String> {
        let mut ends = BTreeSet::new();
        for alternative in alternatives {
            let mut at = BTreeSet::from([start]);
            for element in alternative {
                let mut next = BTreeSet::new();
                for &pos in &at {
                    next.extend(self.element_ends(element, pos)?);
                }
                at = next;
            }
            ends.extend(at);
        }
        Ok(ends)
    }

    /// The ends of `element`'s atom taken between its `min` and `max` times from `pos`.
    fn element_ends(&mut self, element: &Element, pos: usize) -> Result<BTreeSet<usize>, String> {
        let mut ends = BTreeSet::new();
        if element.min == 0 {
            ends.insert(pos);
        }
        let mut at = BTreeSet::from([pos]);
        let mut count = 0;
        while !at.is_empty() && element.max.is_none_or(|max| count < max) {
            count += 1;
            let mut next = BTreeSet::new();
            for &from in &at {
                next.extend(self.atom_ends(&element.atom, from)?);
            }
            if count >= element.min {
                // Unbounded, a position reached before adds nothing: the loop ends.
                if element.max.is_none() {
                    next.retain(|end| !ends.contains(end));
                }
                ends.extend(next.iter().copied());
            }
            at = next;
        }
        Ok(ends)
    }

    fn atom_ends(&mut self, atom: &Atom, pos: usize) -> Result<BTreeSet<usize>, String> {
        let one =
            |matched: bool| -> BTreeSet<usize> { matched.then_some(pos + 1).into_iter().collect() };
        Ok(match atom {
            Atom::Literal(literal) => {
                let matched = self.text.get(pos..pos + literal.len()) == Some(&literal[..]);
                matched.then_some(pos + literal.len()).into_iter().collect()
            }
            Atom::Class { negated, ranges } => one(self
                .text
                .get(pos)
                .is_some_and(|c| ranges.iter().any(|(lo, hi)| lo <= c && c <= hi) != *negated)),
            Atom::Any => one(pos < self.text.len()),
            Atom::Rule(name) => self.rule_ends(name, pos)?,
            Atom::Group(alternatives) => self.alternatives_ends(alternatives, pos)?,
        })
    }
}

/// Writes a string a grammar admits, choosing with `next(bound)`.
struct Sampler<'a, F> {
    rules: &'a Rules,
    next: F,
    out: String,
}

impl<F: FnMut(usize) -> usize> Sampler<'_, F> {
    fn rule(&mut self, name: &str, depth: usize) -> Result<(), String> {
        let alternatives = self.rules.get(name).ok_or(format!("no rule `{name}`"))?;
        self.alternatives(alternatives, depth)
    }

    fn alternatives(&mut self, alternatives: &[Sequence], depth: usize) -> Result<(), String> {
        if depth > 10_000 {
            return Err("the grammar nests too deep".into());
        }
        // Deep in a recursive grammar, the first alternative (by convention the one that
        // does not recurse) and no optional element, so that a sample ends.
        let shallow = depth < DEEP;
        let chosen = match shallow {
            true => (self.next)(alternatives.len()),
            false => 0,
        };
        for element in alternatives.get(chosen).into_iter().flatten() {
            let times = match (element.min, element.max) {
                (0, Some(1)) => usize::from(shallow && (self.next)(2) == 0),
                (min, _) => min,
            };
            for _ in 0..times {
                self.atom(&element.atom, depth)?;
            }
        }
        Ok(())
    }

    fn atom(&mut self, atom: &Atom, depth: usize) -> Result<(), String> {
        match atom {
            Atom::Literal(text) => self.out.extend(text),
            Atom::Class {
                negated: false,
                ranges,
            } => {
                let first = ranges.first().ok_or("an empty class admits no character")?;
                self.out.push(first.0);
            }
            Atom::Class {
                negated: true,
                ranges,
            } => {
                let outside =
                    (' '..='~').find(|c| !ranges.iter().any(|(lo, hi)| lo <= c && c <= hi));
                self.out
                    .push(outside.ok_or("a class that refuses every printable character")?);
            }
            Atom::Any => self.out.push('a'),
            Atom::Rule(name) => self.rule(name, depth + 1)?,
            Atom::Group(alternatives) => self.alternatives(alternatives, depth + 1)?,
        }
        Ok(())
    }
}
