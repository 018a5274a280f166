//! GBNF text the drafting grammar's rules share: string literals and choices.

/// A choice between the string literals `names`.
pub(super) fn choice(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| literal(n)).collect();
    quoted.join(" | ")
}

/// A choice between the string literals `names`.
pub(super) fn choice_of(names: &[String]) -> String {
    choice(&names.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A GBNF string literal.
pub(super) fn literal(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}
