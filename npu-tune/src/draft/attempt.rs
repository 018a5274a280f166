//! One candidate body of a drafting run and how it fared.

/// How a candidate fared, for the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Rejected,
    Failed,
    Mismatch,
    Matches,
}

/// One candidate body and what it gave.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Attempt {
    /// The 0-based round that proposed it.
    pub round: u32,
    /// The model's reply as received, before the body is extracted.
    pub reply: String,
    /// The statements taken from the reply, or what the checker accepted of them: the
    /// statements rewritten (see `written`).
    pub body: String,
    /// The statements as the reply wrote them, when the checker refused them and
    /// accepted them rewritten ([`Task::rewritten`](super::Task::rewritten)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
    /// The model's sample this reply was asked for in place of (its body repeated one
    /// already tried), which Pass@1 counts instead ([`super::Drafted::first_round`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    /// What the body gave.
    pub verdict: Verdict,
    /// What the next prompt says about it: the diagnostics or the mismatch.
    pub summary: String,
}

/// `body` with its whitespace removed, so that two layouts of one body compare equal:
/// how the loop tells a repeated body (see [`super::run`]) and the feedback shows each
/// failed body once.
pub(super) fn same_body(body: &str) -> String {
    body.split_whitespace().collect()
}
