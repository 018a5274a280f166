//! The wording of help lines: "did you mean `x`?" and lists of names. The parser, the
//! checker and fixes all use them, so they depend on nothing else in the crate.

/// The closest candidate to `name` by edit distance, when one is close enough to be
/// the likely intent.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let score =
            strsim::jaro_winkler(&name.to_ascii_lowercase(), &candidate.to_ascii_lowercase());
        if score >= 0.75 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// "did you mean `x`" or a list of what is allowed, for a help line.
pub(crate) fn suggestion(name: &str, candidates: &[&str]) -> String {
    match did_you_mean(name, candidates.iter().copied()) {
        Some(best) => format!("did you mean `{best}`?"),
        None => format!("expected one of {}", list(candidates)),
    }
}

/// `a`, `b` and `c` as "`a`, `b`, `c`".
pub(crate) fn list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|s| format!("`{}`", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
