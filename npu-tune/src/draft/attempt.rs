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
    pub round: u32,
    pub reply: String,
    /// The statements taken from the reply.
    pub body: String,
    pub verdict: Verdict,
    /// What the next prompt says about it: the diagnostics or the mismatch.
    pub summary: String,
}
