//! A parser of GBNF that follows llama.cpp's own, `llama_grammar_parser` in
//! `src/llama-grammar.cpp` (ggml-org/llama.cpp, read at commit 04332939), rule for rule:
//!
//! - a rule is `name ::= alternates`, ended by a newline or the end of the text
//!   (`parse_rule`: "expecting newline or end at ..."); space is spaces, tabs and `#`
//!   comments, and newlines too after `::=`, after `|`, and inside parentheses
//!   (`parse_space` with `newline_ok`);
//! - a name is a run of ASCII letters, digits and `-` (`is_word_char`), so that
//!   `load-in_buffer1 ::= ...` stops at `_` and is refused, as the server refuses it
//!   with HTTP 400;
//! - a sequence holds string literals, character classes (`[a-z]`, `[^"]`), `.`, rule
//!   names, parenthesised alternates, each optionally followed by `*`, `+`, `?` or
//!   `{m}`, `{m,}`, `{m,n}` (`parse_sequence`); a literal or class reads the escapes
//!   `\x`, `\u`, `\U`, `\t`, `\r`, `\n`, `\\`, `\"`, `\[`, `\]`, `\-` (`parse_char`);
//! - a later definition of a rule replaces an earlier one (`add_rule`), and a rule
//!   referenced but never defined is an error ("undefined rule identifier").
//!
//! Token references (`<[id]>`, `<token>`) need a vocabulary and are refused.

use std::collections::BTreeMap;

/// The most repetitions llama.cpp takes in `{m}` (`MAX_REPETITION_THRESHOLD`).
const MAX_REPETITIONS: usize = 2000;

/// What one element of a sequence matches once.
#[derive(Clone, Debug)]
pub(crate) enum Atom {
    Literal(Vec<char>),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Any,
    Rule(String),
    Group(Vec<Sequence>),
}

/// An atom repeated between `min` and `max` (unbounded when `None`) times.
#[derive(Clone, Debug)]
pub(crate) struct Element {
    pub(crate) atom: Atom,
    pub(crate) min: usize,
    pub(crate) max: Option<usize>,
}

pub(crate) type Sequence = Vec<Element>;
pub(crate) type Rules = BTreeMap<String, Vec<Sequence>>;

/// The rules of `grammar`, or the error llama.cpp's parser gives (lower-case).
pub(crate) fn parse(grammar: &str) -> Result<Rules, String> {
    let mut parser = Parser {
        text: grammar.chars().collect(),
        pos: 0,
        rules: BTreeMap::new(),
    };
    parser.space(true);
    while parser.pos < parser.text.len() {
        parser.rule()?;
    }
    check_defined(&parser.rules)?;
    Ok(parser.rules)
}

/// An error when a rule names one that no rule defines.
fn check_defined(rules: &Rules) -> Result<(), String> {
    fn walk(rules: &Rules, sequences: &[Sequence]) -> Result<(), String> {
        for element in sequences.iter().flatten() {
            match &element.atom {
                Atom::Rule(name) if !rules.contains_key(name) => {
                    return Err(format!("undefined rule identifier '{name}'"));
                }
                Atom::Group(inner) => walk(rules, inner)?,
                _ => {}
            }
        }
        Ok(())
    }
    rules
        .values()
        .try_for_each(|sequences| walk(rules, sequences))
}

/// llama.cpp's `is_word_char`: the characters of a rule name.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

struct Parser {
    text: Vec<char>,
    pos: usize,
    rules: Rules,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.text.get(self.pos).copied()
    }

    fn rest(&self) -> String {
        self.text[self.pos.min(self.text.len())..].iter().collect()
    }

    /// Skips spaces, tabs and `#` comments, and line ends when `newline_ok`.
    fn space(&mut self, newline_ok: bool) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' => self.pos += 1,
                '\r' | '\n' if newline_ok => self.pos += 1,
                '#' => {
                    while self.peek().is_some_and(|c| c != '\r' && c != '\n') {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let start = self.pos;
        while self.peek().is_some_and(is_word_char) {
            self.pos += 1;
        }
        match self.pos > start {
            true => Ok(self.text[start..self.pos].iter().collect()),
            false => Err(format!("expecting name at {}", self.rest())),
        }
    }

    fn rule(&mut self) -> Result<(), String> {
        let name = self.name()?;
        self.space(false);
        if self.text.get(self.pos..self.pos + 3) != Some(&[':', ':', '='][..]) {
            return Err(format!("expecting ::= at {}", self.rest()));
        }
        self.pos += 3;
        self.space(true);
        let alternates = self.alternates(false)?;
        self.rules.insert(name, alternates);
        match self.peek() {
            Some('\r') => self.pos += 1 + usize::from(self.text.get(self.pos + 1) == Some(&'\n')),
            Some('\n') => self.pos += 1,
            Some(_) => return Err(format!("expecting newline or end at {}", self.rest())),
            None => {}
        }
        self.space(true);
        Ok(())
    }

    fn alternates(&mut self, nested: bool) -> Result<Vec<Sequence>, String> {
        let mut alternates = vec![self.sequence(nested)?];
        while self.peek() == Some('|') {
            self.pos += 1;
            self.space(true);
            alternates.push(self.sequence(nested)?);
        }
        Ok(alternates)
    }

    fn sequence(&mut self, nested: bool) -> Result<Sequence, String> {
        let mut sequence: Sequence = Vec::new();
        while let Some(c) = self.peek() {
            let atom = match c {
                '"' => self.literal()?,
                '[' => self.class()?,
                '.' => {
                    self.pos += 1;
                    Atom::Any
                }
                '(' => self.group()?,
                '*' | '+' | '?' | '{' => {
                    self.repetition(&mut sequence, nested)?;
                    continue;
                }
                '<' | '!' => {
                    return Err(format!(
                        "token references need a vocabulary at {}",
                        self.rest()
                    ));
                }
                c if is_word_char(c) => Atom::Rule(self.name()?),
                _ => break,
            };
            self.space(nested);
            sequence.push(Element {
                atom,
                min: 1,
                max: Some(1),
            });
        }
        Ok(sequence)
    }

    fn literal(&mut self) -> Result<Atom, String> {
        self.pos += 1;
        let mut chars = Vec::new();
        while self.peek() != Some('"') {
            chars.push(self.char()?);
        }
        self.pos += 1;
        Ok(Atom::Literal(chars))
    }

    fn class(&mut self) -> Result<Atom, String> {
        self.pos += 1;
        let negated = self.peek() == Some('^');
        self.pos += usize::from(negated);
        let mut ranges = Vec::new();
        while self.peek() != Some(']') {
            let first = self.char()?;
            let last = match (self.peek(), self.text.get(self.pos + 1)) {
                (Some('-'), Some(&next)) if next != ']' => {
                    self.pos += 1;
                    self.char()?
                }
                (Some('-'), None) => return Err("unexpected end of input".into()),
                _ => first,
            };
            ranges.push((first, last));
        }
        self.pos += 1;
        Ok(Atom::Class { negated, ranges })
    }

    fn group(&mut self) -> Result<Atom, String> {
        self.pos += 1;
        self.space(true);
        let alternates = self.alternates(true)?;
        if self.peek() != Some(')') {
            return Err(format!("expecting ')' at {}", self.rest()));
        }
        self.pos += 1;
        Ok(Atom::Group(alternates))
    }

    /// `*`, `+`, `?` or `{m}`, `{m,}`, `{m,n}` on the sequence's last element.
    fn repetition(&mut self, sequence: &mut Sequence, nested: bool) -> Result<(), String> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            _ => return self.braces(sequence, nested),
        };
        self.pos += 1;
        self.space(nested);
        self.repeat_last(sequence, min, max)
    }

    fn braces(&mut self, sequence: &mut Sequence, nested: bool) -> Result<(), String> {
        self.pos += 1;
        self.space(nested);
        let min = self.int()?;
        self.space(nested);
        let max = match self.peek() {
            Some('}') => Some(min),
            Some(',') => {
                self.pos += 1;
                self.space(nested);
                let max = match self.peek() {
                    Some(c) if c.is_ascii_digit() => Some(self.int()?),
                    _ => None,
                };
                if self.peek() != Some('}') {
                    return Err(format!("expecting '}}' at {}", self.rest()));
                }
                max.filter(|&max| max <= MAX_REPETITIONS)
            }
            _ => return Err(format!("expecting ',' at {}", self.rest())),
        };
        self.pos += 1;
        self.space(nested);
        if min > MAX_REPETITIONS {
            return Err("number of repetitions exceeds sane defaults".into());
        }
        self.repeat_last(sequence, min, max)
    }

    fn repeat_last(
        &self,
        sequence: &mut Sequence,
        min: usize,
        max: Option<usize>,
    ) -> Result<(), String> {
        let Some(last) = sequence.pop() else {
            return Err(format!(
                "expecting preceding item to */+/?/{{ at {}",
                self.rest()
            ));
        };
        // A repeated element is a group of one, so that `x?*` repeats the optional `x`.
        let atom = match (last.min, last.max) {
            (1, Some(1)) => last.atom,
            _ => Atom::Group(vec![vec![last]]),
        };
        sequence.push(Element { atom, min, max });
        Ok(())
    }

    fn int(&mut self) -> Result<usize, String> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits: String = self.text[start..self.pos].iter().collect();
        digits
            .parse()
            .map_err(|_| format!("expecting an int at {}", self.rest()))
    }

    /// One character of a literal or class, escapes read (llama.cpp's `parse_char`).
    fn char(&mut self) -> Result<char, String> {
        let Some(c) = self.peek() else {
            return Err("unexpected end of input".into());
        };
        self.pos += 1;
        if c != '\\' {
            return Ok(c);
        }
        let escaped = self.peek().ok_or("unexpected end of input")?;
        self.pos += 1;
        match escaped {
            'x' => self.hex(2),
            'u' => self.hex(4),
            'U' => self.hex(8),
            't' => Ok('\t'),
            'r' => Ok('\r'),
            'n' => Ok('\n'),
            '\\' | '"' | '[' | ']' | '-' => Ok(escaped),
            _ => Err(format!("unknown escape at \\{escaped}{}", self.rest())),
        }
    }

    fn hex(&mut self, size: usize) -> Result<char, String> {
        let digits: String = self.text.iter().skip(self.pos).take(size).collect();
        let value = (digits.len() == size && digits.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(&digits, 16).ok())
            .flatten()
            .ok_or(format!("expecting {size} hex chars at {}", self.rest()))?;
        self.pos += size;
        char::from_u32(value).ok_or(format!("not a character: {value:#x}"))
    }
}
