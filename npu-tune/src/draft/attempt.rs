//! One candidate body of a drafting run: the statements taken from a reply, and how
//! they fared.

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

/// The statements of a reply: a syntax tree written under the JSON Schema printed as
/// text; else the text inside its code fence if it has one, and inside the kernel's
/// braces if the reply echoes the kernel.
pub fn extract_body(reply: &str) -> String {
    if reply.trim_start().starts_with('{')
        && let Ok(body) = super::schema::body_from_json(reply)
    {
        return body.trim().to_string();
    }
    let fenced = reply
        .split("```")
        .nth(1)
        .map(|inside| {
            inside.split_once('\n').map_or(inside, |(first, rest)| {
                if first.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
                    rest
                } else {
                    inside
                }
            })
        })
        .unwrap_or(reply);
    let unwrapped = match (fenced.find("kernel "), fenced.rfind('}')) {
        (Some(kernel), Some(close)) => fenced[kernel..close]
            .split_once('{')
            .map_or(fenced, |(_, body)| body),
        _ => fenced,
    };
    unwrapped.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_come_out_of_fences_and_echoed_kernels() {
        let body = "y[i] = x[i] * 2.0;";
        for reply in [
            body.to_string(),
            format!("```\n{body}\n```"),
            format!("Here it is:\n```rust\n{body}\n```\nDone."),
            format!("kernel k(x: [f32; 4]) -> y: [f32; 4] {{\n    {body}\n}}\ntarget ascend910b;"),
            format!("```\nkernel k(x: [f32; 4]) -> y: [f32; 4] {{ {body} }}\n```"),
        ] {
            assert_eq!(extract_body(&reply), body, "{reply}");
        }
    }
}
