//! Reading a journal's bytes back into its header and records, and what a crash or a
//! stray edit can leave at its end.

use serde::{Deserialize, Serialize};

use crate::record::CandidateRecord;

/// The settings of a run that decide which candidates it evaluates. A journal can only
/// be resumed by a run with the same settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalHeader {
    /// The problems' names, in run order.
    pub kernels: Vec<String>,
    /// The problems' target names, joined with `,` (a run of one target names it once).
    pub target: String,
    /// The main generator (heuristic, llm or replay).
    pub generator: String,
    /// The run's seed.
    pub seed: u64,
    /// Rounds per search.
    pub rounds: u32,
    /// Candidates per round.
    pub candidates: u32,
    /// Per kernel, in `kernels`' order: [`content_hash`](super::content_hash) of its canonical text, hand
    /// schedules included, so an edited kernel of the same name is told apart.
    #[serde(default)]
    pub kernel_hashes: Vec<String>,
    /// Per kernel: [`content_hash`](super::content_hash) of its target's every figure (canonical JSON), so
    /// an edited target file of the same name is told apart.
    #[serde(default)]
    pub target_hashes: Vec<String>,
    /// `npu_sim::MODEL_VERSION` of the npu that wrote the journal: another version's
    /// cycles are not this one's. `None` in journals of an npu that did not record it.
    #[serde(default)]
    pub model_version: Option<u32>,
}

/// One line of the journal, as read.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Line {
    Header(JournalHeader),
    Candidate(Box<CandidateRecord>),
}

/// What [`parse`] found in a journal's bytes.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) header: Option<JournalHeader>,
    pub(super) records: Vec<CandidateRecord>,
    /// Bytes up to the end of the last whole line (newline included, if it has one).
    pub(super) good_len: u64,
    /// The last kept line is whole JSON but lacks its newline.
    pub(super) needs_newline: bool,
    /// Cut lines dropped at the end (0 or 1).
    pub(super) dropped_lines: usize,
}

/// A line that ends in a newline and is not a journal line.
#[derive(Debug)]
pub(super) struct BadLine {
    pub(super) line: usize,
    pub(super) column: usize,
    pub(super) message: String,
}

/// Reads a journal's lines: a header, then candidates. A last line without its newline
/// that does not parse is dropped; any other line that does not parse is an error.
pub(super) fn parse(bytes: &[u8]) -> Result<Parsed, BadLine> {
    let mut parsed = Parsed::default();
    let mut offset = 0;
    let mut line_number = 0;
    while offset < bytes.len() {
        line_number += 1;
        let rest = &bytes[offset..];
        let (line, terminated, next) = match rest.iter().position(|&byte| byte == b'\n') {
            Some(end) => (&rest[..end], true, offset + end + 1),
            None => (rest, false, bytes.len()),
        };
        offset = next;
        if line.trim_ascii().is_empty() {
            if terminated {
                parsed.good_len = next as u64;
            }
            continue;
        }
        let bad = |column, message: String| BadLine {
            line: line_number,
            column,
            message,
        };
        match serde_json::from_slice::<Line>(line) {
            Ok(Line::Header(header)) if parsed.header.is_none() && parsed.records.is_empty() => {
                parsed.header = Some(header);
            }
            Ok(Line::Header(_)) => {
                return Err(bad(0, "a second run header".to_string()));
            }
            Ok(Line::Candidate(_)) if parsed.header.is_none() => {
                return Err(bad(
                    0,
                    "the first line must be the run header, found a candidate".to_string(),
                ));
            }
            Ok(Line::Candidate(record)) => parsed.records.push(*record),
            Err(_) if !terminated => {
                parsed.dropped_lines += 1;
                break;
            }
            Err(error) => {
                let column = error.column();
                let full = error.to_string();
                // serde_json ends its message with the position, kept in its own field.
                let message = full
                    .strip_suffix(&format!(" at line {} column {column}", error.line()))
                    .unwrap_or(&full)
                    .to_string();
                return Err(bad(column, message));
            }
        }
        parsed.good_len = next as u64;
        parsed.needs_newline = !terminated;
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_line() -> String {
        r#"{"header":{"kernels":["vmla"],"target":"ascend910b","generator":"heuristic","seed":7,"rounds":3,"candidates":4}}"#.to_string()
    }

    fn candidate_line(index: u32) -> String {
        format!(
            r#"{{"candidate":{{"kernel":"vmla","generator":"heuristic","round":0,"index":{index},"source":"tile i 512;","verdict":"correct","cycles":1200,"diagnostics":[],"feedback":"","report":null}}}}"#
        )
    }

    /// Parses `text` and describes the outcome in one line.
    fn check(text: &str, expected: &str) {
        let outcome = match parse(text.as_bytes()) {
            Ok(parsed) => format!(
                "header={} records={:?} good_len={} needs_newline={} dropped={}",
                parsed.header.is_some(),
                parsed.records.iter().map(|r| r.index).collect::<Vec<_>>(),
                parsed.good_len,
                parsed.needs_newline,
                parsed.dropped_lines,
            ),
            Err(bad) => format!("error {}:{}: {}", bad.line, bad.column, bad.message),
        };
        assert_eq!(outcome, expected, "input:\n{text}");
    }

    #[test]
    fn parse_cases() {
        let header = header_line();
        let (one, two) = (candidate_line(1), candidate_line(2));
        let h = header.len() + 1;
        let c = one.len() + 1;
        check(
            "",
            "header=false records=[] good_len=0 needs_newline=false dropped=0",
        );
        check(
            &format!("{header}\n{one}\n{two}\n"),
            &format!(
                "header=true records=[1, 2] good_len={} needs_newline=false dropped=0",
                h + 2 * c
            ),
        );
        // A crash mid-write: the cut line is dropped, the file is good up to it.
        check(
            &format!("{header}\n{one}\n{}", &two[..40]),
            &format!(
                "header=true records=[1] good_len={} needs_newline=false dropped=1",
                h + c
            ),
        );
        // Whole JSON whose newline did not make it to disk is kept.
        check(
            &format!("{header}\n{one}"),
            &format!(
                "header=true records=[1] good_len={} needs_newline=true dropped=0",
                h + c - 1
            ),
        );
        // Only a cut header: nothing to keep.
        check(
            &header[..20],
            "header=false records=[] good_len=0 needs_newline=false dropped=1",
        );
        check(
            &format!("{header}\n\n{one}\n"),
            &format!(
                "header=true records=[1] good_len={} needs_newline=false dropped=0",
                h + 1 + c
            ),
        );
        check(
            &format!("{header}\n{}\n{two}\n", &one[..40]),
            "error 2:40: EOF while parsing a string",
        );
        check(
            &format!("{header}\n{{\"candidate\":{{\"kernel\":\"vmla\"}}}}\n"),
            "error 2:30: missing field `generator`",
        );
        check(
            &format!("{one}\n"),
            "error 1:0: the first line must be the run header, found a candidate",
        );
        check(
            &format!("{header}\n{header}\n"),
            "error 2:0: a second run header",
        );
    }
}
