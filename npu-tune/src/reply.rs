//! Schedule candidates from an LLM's reply text.
//!
//! The model is asked for `schedule` blocks only, but replies come wrapped in code
//! fences (```` ```rust ````, ```` ``` ````, `~~~`) or none, with prose around them,
//! several blocks at once, the whole `kernel` echoed back, or cut off mid-block. The
//! extraction is lenient where that is safe and strict where it is not:
//!
//! - Blocks are found by scanning the raw text for the word `schedule`, an identifier
//!   and a brace-balanced `{ ... }`, so fences, prose and an echoed kernel around them
//!   do not matter. Braces inside `//` and `/* */` comments are not counted.
//! - Each block is then parsed by the one DSL parser,
//!   [`npu_core::internal::parse_schedules_str`]; a block that does not parse is rejected
//!   with the parser's rendered diagnostics, which go back to the model as feedback.
//!   Nothing is repaired silently.
//! - A block still open when the next `schedule NAME {` begins, or when the reply
//!   ends, is rejected; the blocks after it are still extracted.
//! - A block repeated word for word is kept once; a second, different block with the
//!   same name is rejected, since names identify candidates.

use npu_core::internal::parse_schedules_str;

/// One candidate found in a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extracted {
    /// A block that parses: its name and its exact text, `schedule` to `}`.
    Schedule {
        /// The block's name (`schedule NAME`).
        name: String,
        /// The block's text.
        text: String,
    },
    /// A block that does not parse, or a reply without one. `reason` is what the
    /// model is told; `excerpt` is the start of the offending text.
    Rejected {
        /// Why, in words for the model.
        reason: String,
        /// The start of the offending text.
        excerpt: String,
    },
}

/// Every `schedule` block in `reply`, in order, each parsed or rejected. Never empty:
/// a reply without a block yields one [`Extracted::Rejected`] saying so.
pub fn extract_schedules(reply: &str) -> Vec<Extracted> {
    let unquoted = unquote_headers(reply);
    let reply = unquoted.as_str();
    let mut extracted = Vec::new();
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut from = 0;
    while let Some(header) = find_header(reply, from) {
        match block_end(reply, &header) {
            BlockEnd::Closed(end) => {
                let text = &reply[header.start..end];
                if let Some(candidate) = validate(text, &mut kept) {
                    extracted.push(candidate);
                }
                from = end;
            }
            BlockEnd::Interrupted(next) => {
                extracted.push(Extracted::Rejected {
                    reason: format!(
                        "schedule `{}` is not closed before schedule `{}` begins (unbalanced braces)",
                        header.name, next.name
                    ),
                    excerpt: excerpt(reply[header.start..next.start].trim_end()),
                });
                from = next.start;
            }
            BlockEnd::Unterminated => {
                extracted.push(Extracted::Rejected {
                    reason: format!(
                        "reply ends inside schedule `{}` (unbalanced braces)",
                        header.name
                    ),
                    excerpt: excerpt(&reply[header.start..]),
                });
                break;
            }
        }
    }
    if extracted.is_empty() && kept.is_empty() {
        let reason = if reply.trim().is_empty() {
            "the reply is empty"
        } else {
            "no `schedule` block in the reply"
        };
        extracted.push(Extracted::Rejected {
            reason: reason.to_string(),
            excerpt: excerpt(reply.trim()),
        });
    }
    extracted
}

/// The longest excerpt kept in a rejection, in characters.
const EXCERPT_CHARS: usize = 300;

/// `schedule NAME {`: where it starts, the name, and the index of the `{`.
struct Header<'a> {
    start: usize,
    name: &'a str,
    open: usize,
}

enum BlockEnd<'a> {
    /// The index just past the matching `}`.
    Closed(usize),
    /// Another block begins before this one is closed.
    Interrupted(Header<'a>),
    /// The text ends first.
    Unterminated,
}

/// The first block header at or after byte `from`.
/// Small models write a header in inline code, `` `schedule fast` { ... } ``; the
/// backticks around `schedule NAME` are dropped so the block is found as written.
fn unquote_headers(reply: &str) -> String {
    let mut out = String::with_capacity(reply.len());
    let mut rest = reply;
    while let Some(at) = rest.find("`schedule ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let header_len = "schedule ".len()
            + after["schedule ".len()..]
                .chars()
                .take_while(|&c| is_ident_char(c))
                .map(char::len_utf8)
                .sum::<usize>();
        if after[header_len..].starts_with('`') && header_len > "schedule ".len() {
            out.push_str(&after[..header_len]);
            rest = &after[header_len + 1..];
        } else {
            out.push('`');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn find_header(text: &str, from: usize) -> Option<Header<'_>> {
    let mut at = from;
    while let Some(offset) = text.get(at..)?.find("schedule") {
        let start = at + offset;
        if let Some(header) = header_at(text, start) {
            return Some(header);
        }
        at = start + "schedule".len();
    }
    None
}

/// The header starting exactly at `start`, if one does: the word `schedule` (not part
/// of a longer word), whitespace, an identifier, optional whitespace and `{`.
fn header_at(text: &str, start: usize) -> Option<Header<'_>> {
    let before = text.get(..start)?.chars().next_back();
    if before.is_some_and(is_ident_char) {
        return None;
    }
    let rest = text.get(start..)?.strip_prefix("schedule")?;
    let after_keyword = rest.trim_start();
    if after_keyword.len() == rest.len() {
        return None;
    }
    let name_len: usize = after_keyword
        .chars()
        .take_while(|&c| is_ident_char(c))
        .map(char::len_utf8)
        .sum();
    // A name the parser will refuse (`2fast`) still marks a block, so that the model
    // hears why it was refused.
    let name = &after_keyword[..name_len];
    if name.is_empty() {
        return None;
    }
    let after_name = after_keyword[name_len..].trim_start();
    if !after_name.starts_with('{') {
        return None;
    }
    let open = text.len() - after_name.len();
    Some(Header { start, name, open })
}

/// Letters, digits and `_`, as in Rust identifiers (which the parser checks exactly).
fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where the block opened by `header` ends, counting braces outside comments and
/// string literals.
fn block_end<'a>(text: &'a str, header: &Header<'a>) -> BlockEnd<'a> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = header.open;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return BlockEnd::Closed(i + 1);
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..]
                    .find('\n')
                    .map_or(bytes.len(), |offset| i + offset);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |offset| i + 2 + offset + 2);
                continue;
            }
            b'"' => {
                i = string_end(bytes, i + 1);
                continue;
            }
            b's' if i > header.open => {
                if let Some(next) = header_at(text, i) {
                    return BlockEnd::Interrupted(next);
                }
            }
            _ => {}
        }
        i += 1;
    }
    BlockEnd::Unterminated
}

/// The index just past the `"` closing a string whose body starts at `i`.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Parses one block. `None` for a word-for-word repeat of a block already kept.
fn validate(text: &str, kept: &mut Vec<(String, String)>) -> Option<Extracted> {
    let schedules = match parse_schedules_str(text) {
        Ok(schedules) => schedules,
        Err(diagnostics) => {
            return Some(Extracted::Rejected {
                reason: diagnostics.render(text).trim_end().to_string(),
                excerpt: excerpt(text),
            });
        }
    };
    // The scanner hands over exactly one brace-balanced block, so the parser returns
    // exactly one schedule; anything else is rejected rather than trusted.
    let [schedule] = schedules.as_slice() else {
        return Some(Extracted::Rejected {
            reason: format!(
                "expected one schedule block, the parser found {}",
                schedules.len()
            ),
            excerpt: excerpt(text),
        });
    };
    let name = schedule.name.to_string();
    if let Some((_, first)) = kept.iter().find(|(kept_name, _)| *kept_name == name) {
        if first == text {
            return None;
        }
        return Some(Extracted::Rejected {
            reason: format!("a second schedule named `{name}`; give each schedule its own name"),
            excerpt: excerpt(text),
        });
    }
    kept.push((name.clone(), text.to_string()));
    Some(Extracted::Schedule {
        name,
        text: text.to_string(),
    })
}

/// At most [`EXCERPT_CHARS`] characters of `text`, with `…` when cut.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One line per candidate: `ok NAME: TEXT` or `rejected: REASON` then the excerpt,
    /// with line breaks shown as `⏎` so that each candidate stays on one line.
    fn check(reply: &str) -> String {
        let one_line = |text: &str| text.replace('\n', "⏎");
        extract_schedules(reply)
            .iter()
            .map(|candidate| match candidate {
                Extracted::Schedule { name, text } => format!("ok {name}: {}", one_line(text)),
                Extracted::Rejected { reason, excerpt } => {
                    format!("rejected: {reason}\n  excerpt: {}", one_line(excerpt))
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn bare_blocks() {
        insta::assert_snapshot!(check("schedule a { split i by 64; }"), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("schedule a{split i by 64;}"), @"ok a: schedule a{split i by 64;}");
        insta::assert_snapshot!(check("schedule a { }"), @"ok a: schedule a { }");
        insta::assert_snapshot!(check("schedule a {\n    split i by 2048;\n    stage a, b in ub depth 2;\n    parallel i over 8 cores;\n}"), @"ok a: schedule a {⏎    split i by 2048;⏎    stage a, b in ub depth 2;⏎    parallel i over 8 cores;⏎}");
        insta::assert_snapshot!(check("schedule mm { cube m by 64, n by 64, k by 32; tail pad; order j, i; }"), @"ok mm: schedule mm { cube m by 64, n by 64, k by 32; tail pad; order j, i; }");
        insta::assert_snapshot!(check("schedule a { split i by 64; }\r\nschedule b { split i by 32; }\r\n"), @"
        ok a: schedule a { split i by 64; }
        ok b: schedule b { split i by 32; }
        ");
        insta::assert_snapshot!(check("\tschedule   a\n{ split i by 64; }"), @"ok a: schedule   a⏎{ split i by 64; }");
    }

    #[test]
    fn fences_and_prose() {
        insta::assert_snapshot!(check("```rust\nschedule a { split i by 64; }\n```"), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("```text\nschedule a { split i by 64; }\n```"), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("```\nschedule a { split i by 64; }\n```"), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("~~~\nschedule a { split i by 64; }\n~~~"), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("```schedule\nschedule a { split i by 64; }\n```"), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("Here is a schedule that tiles i:\n\n```rust\nschedule a { split i by 64; }\n```\n\nThis schedule should be memory-bound."), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("Two ideas.\n```\nschedule a { split i by 64; }\n```\nand\n```\nschedule b { split i by 128; stage x in ub depth 2; }\n```"), @"
        ok a: schedule a { split i by 64; }
        ok b: schedule b { split i by 128; stage x in ub depth 2; }
        ");
        insta::assert_snapshot!(check("schedule a { split i by 64; // tile } of 64\n}"), @"ok a: schedule a { split i by 64; // tile } of 64⏎}");
        insta::assert_snapshot!(check("schedule a { /* { */ split i by 64; }"), @"ok a: schedule a { /* { */ split i by 64; }");
        insta::assert_snapshot!(check("schedule ünïcode { split i by 64; } schedule b { split i by 8; } — done ✓"), @"
        ok ünïcode: schedule ünïcode { split i by 64; }
        ok b: schedule b { split i by 8; }
        ");
    }

    #[test]
    fn header_in_inline_code() {
        insta::assert_snapshot!(check("`schedule fast` {\n    split i by 64;\n}"), @"ok fast: schedule fast {⏎    split i by 64;⏎}");
        insta::assert_snapshot!(check("Use `schedule` blocks: `schedule a` { split i by 8; }"), @"ok a: schedule a { split i by 8; }");
    }

    #[test]
    fn echoed_kernel() {
        insta::assert_snapshot!(check("```rust\nkernel add(a: [f32; 1024], b: [f32; 1024]) -> y: [f32; 1024] {\n    y[i] = a[i] + b[i];\n}\nschedule tiled { split i by 256; stage a, b in ub depth 2; }\n```"), @"ok tiled: schedule tiled { split i by 256; stage a, b in ub depth 2; }");
        insta::assert_snapshot!(check("npu_kernel! { kernel k(a: [f32; 8]) -> y: [f32; 8] { y[i] = a[i]; } target ascend910b; schedule s { split i by 8; } }"), @"ok s: schedule s { split i by 8; }");
    }

    #[test]
    fn cut_and_unbalanced() {
        insta::assert_snapshot!(check("```rust\nschedule a { split i by 64;\n    stage a in ub"), @"
        rejected: reply ends inside schedule `a` (unbalanced braces)
          excerpt: schedule a { split i by 64;⏎    stage a in ub
        ");
        insta::assert_snapshot!(check("schedule a { split i by 64; }\nschedule b { split i by"), @"
        ok a: schedule a { split i by 64; }
        rejected: reply ends inside schedule `b` (unbalanced braces)
          excerpt: schedule b { split i by
        ");
        insta::assert_snapshot!(check("schedule a { split i by 64;\nschedule b { split i by 32; }"), @"
        rejected: schedule `a` is not closed before schedule `b` begins (unbalanced braces)
          excerpt: schedule a { split i by 64;
        ok b: schedule b { split i by 32; }
        ");
        insta::assert_snapshot!(check("schedule a { split i by 64; /* never closed }"), @"
        rejected: reply ends inside schedule `a` (unbalanced braces)
          excerpt: schedule a { split i by 64; /* never closed }
        ");
        insta::assert_snapshot!(check("schedule a { cube { m by 64 }"), @"
        rejected: reply ends inside schedule `a` (unbalanced braces)
          excerpt: schedule a { cube { m by 64 }
        ");
    }

    #[test]
    fn no_block() {
        insta::assert_snapshot!(check(""), @"
        rejected: the reply is empty
          excerpt:
        ");
        insta::assert_snapshot!(check("  \n\t "), @"
        rejected: the reply is empty
          excerpt:
        ");
        insta::assert_snapshot!(check("I would split i by 64 and stage a in ub."), @"
        rejected: no `schedule` block in the reply
          excerpt: I would split i by 64 and stage a in ub.
        ");
        insta::assert_snapshot!(check("A good schedule for this kernel tiles i."), @"
        rejected: no `schedule` block in the reply
          excerpt: A good schedule for this kernel tiles i.
        ");
        insta::assert_snapshot!(check("schedule a: split i by 64;"), @"
        rejected: no `schedule` block in the reply
          excerpt: schedule a: split i by 64;
        ");
        insta::assert_snapshot!(check("my_schedule a { split i by 64; }"), @"
        rejected: no `schedule` block in the reply
          excerpt: my_schedule a { split i by 64; }
        ");
        insta::assert_snapshot!(check("}}}{{{ schedule"), @"
        rejected: no `schedule` block in the reply
          excerpt: }}}{{{ schedule
        ");
    }

    #[test]
    fn blocks_that_do_not_parse() {
        insta::assert_snapshot!(check("schedule a { split i by 64 }"), @"
        rejected: error[E001]: expected `;`
         --> line 1, column 28
          |
        1 | schedule a { split i by 64 }
          |                            ^
          excerpt: schedule a { split i by 64 }
        ");
        insta::assert_snapshot!(check("schedule a { spilt i by 64; }"), @"
        rejected: error[E006]: unknown schedule item `spilt`
         --> line 1, column 14
          |
        1 | schedule a { spilt i by 64; }
          |              ^^^^^
          = help: did you mean `split`?
          excerpt: schedule a { spilt i by 64; }
        ");
        insta::assert_snapshot!(check("schedule a { split i by -64; }"), @"
        rejected: error[E001]: expected a non-negative integer, found `-64`
         --> line 1, column 25
          |
        1 | schedule a { split i by -64; }
          |                         ^^^
          excerpt: schedule a { split i by -64; }
        ");
        insta::assert_snapshot!(check("schedule a { split i by 64; }\nschedule b { stage in ub; }\nschedule c { tail pad; }"), @"
        ok a: schedule a { split i by 64; }
        rejected: error[E001]: expected identifier, found keyword `in`
         --> line 1, column 20
          |
        1 | schedule b { stage in ub; }
          |                    ^^
          excerpt: schedule b { stage in ub; }
        ok c: schedule c { tail pad; }
        ");
        insta::assert_snapshot!(check("schedule a { split i by 99999999999999999999999; }"), @"
        rejected: error[E001]: integer `99999999999999999999999` does not fit in 64 bits
         --> line 1, column 25
          |
        1 | schedule a { split i by 99999999999999999999999; }
          |                         ^^^^^^^^^^^^^^^^^^^^^^^
          excerpt: schedule a { split i by 99999999999999999999999; }
        ");
        insta::assert_snapshot!(check("schedule a { \"}\" }"), @r#"
        rejected: error[E001]: expected a schedule item: `parallel`, `split`, `stage`, `cube`, `tail`, `order`
         --> line 1, column 14
          |
        1 | schedule a { "}" }
          |              ^^^
          excerpt: schedule a { "}" }
        "#);
        insta::assert_snapshot!(check("schedule 2fast { split i by 64; }"), @"
        rejected: error[E001]: expected identifier
         --> line 1, column 10
          |
        1 | schedule 2fast { split i by 64; }
          |          ^^^^^
          excerpt: schedule 2fast { split i by 64; }
        ");
    }

    #[test]
    fn duplicate_names() {
        insta::assert_snapshot!(check("schedule a { split i by 64; }\n```\nschedule a { split i by 64; }"), @"ok a: schedule a { split i by 64; }");
        insta::assert_snapshot!(check("schedule a { split i by 64; }\nschedule a { split i by 32; }"), @"
        ok a: schedule a { split i by 64; }
        rejected: a second schedule named `a`; give each schedule its own name
          excerpt: schedule a { split i by 32; }
        ");
    }

    /// Replies stitched from the fragments the scanner cares about, by a fixed
    /// pseudo-random sequence: extraction must not panic and must return something.
    #[test]
    fn never_panics_on_stitched_fragments() {
        const FRAGMENTS: &[&str] = &[
            "schedule",
            " ",
            "a",
            "{",
            "}",
            "/*",
            "*/",
            "//",
            "\n",
            "\"",
            "\\",
            "é",
            "```",
            "split i by 64;",
            "kernel k(a: [f32; 8]) -> y: [f32; 8]",
            "(",
            "[",
            ";",
            "schedule_",
            "2",
            "\t",
            "~~~",
            "*",
        ];
        let mut rng = fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d);
        for _ in 0..3000 {
            let mut reply = String::new();
            for _ in 0..rng.usize(..24) {
                reply.push_str(FRAGMENTS[rng.usize(..FRAGMENTS.len())]);
            }
            assert!(!extract_schedules(&reply).is_empty(), "{reply:?}");
        }
    }

    /// 8,000 unknown items on one line once took 2.65 GB to reject: every diagnostic
    /// rendered the whole line. Now twenty are shown, then a count, each with a window
    /// of the line.
    #[test]
    fn thousands_of_unknown_items_are_a_bounded_rejection() {
        let reply = format!("schedule s {{ {}}}", "frobnicate i; ".repeat(8_000));
        let extracted = extract_schedules(&reply);
        let [Extracted::Rejected { reason, .. }] = extracted.as_slice() else {
            panic!("expected one rejection, got {} candidates", extracted.len());
        };
        assert_eq!(reason.matches("error[E006]").count(), 21);
        assert!(reason.contains("and 7980 more unknown schedule word errors not shown"));
        assert!(reason.len() < 16 * 1024, "{} bytes", reason.len());
    }

    #[test]
    fn long_rejections_are_cut() {
        let reply = format!("schedule a {{ {}", "split i by 64; ".repeat(100));
        let extracted = extract_schedules(&reply);
        let [Extracted::Rejected { excerpt, .. }] = extracted.as_slice() else {
            panic!("expected one rejection, got {extracted:?}");
        };
        assert_eq!(excerpt.chars().count(), EXCERPT_CHARS + 1);
        assert!(excerpt.ends_with('…'));
    }
}
