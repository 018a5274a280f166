//! The axis names a body is written with. The language lets a body name its axes
//! freely, and the one-view rule makes the choice matter: a row normalisation reads
//! `x[i, k]` in its reduction, so its output must be written `y[i, k]`, not `y[i, j]`.
//! A description that writes the output with subscripts (`y[c, t] = ...`) names the
//! axes the skeleton shows; the grammar offers those names beside the usual ones.

use super::Port;

/// Output axes by position when the description names none.
pub const OUTPUT_AXES: [&str; 6] = ["i", "j", "p", "q", "r", "s"];
/// Axes a reduction or a window usually introduces.
pub const REDUCTION_AXES: [&str; 4] = ["k", "l", "kh", "kw"];
/// The longest name a description's subscript contributes.
const LONGEST_NAME: usize = 2;

/// Every name an axis may take, defaults first, then the description's in order of
/// appearance.
pub fn pool(doc: &str) -> Vec<String> {
    let mut names: Vec<String> = OUTPUT_AXES
        .iter()
        .chain(&REDUCTION_AXES)
        .map(|a| a.to_string())
        .collect();
    for (_, subscripts) in subscripted(doc) {
        for word in subscripts.iter().flat_map(|s| words(s)) {
            if word.len() <= LONGEST_NAME && !names.contains(&word) {
                names.push(word);
            }
        }
    }
    names
}

/// The axes `port` (an output) is written over: as the description writes it when it
/// does, with as many plain, distinct names as `port` has dimensions, else
/// [`OUTPUT_AXES`] by position.
pub fn output_axes(doc: &str, port: &Port) -> Vec<String> {
    let written = subscripted(doc)
        .into_iter()
        .filter(|(name, _)| *name == port.name)
        .map(|(_, subscripts)| subscripts)
        .find(|subscripts| {
            subscripts.len() == port.rank
                && subscripts.iter().all(|s| is_name(s))
                && (1..subscripts.len()).all(|n| !subscripts[..n].contains(&subscripts[n]))
        });
    let written = written.map(|subscripts| subscripts.iter().map(|s| s.to_string()).collect());
    written.unwrap_or_else(|| {
        OUTPUT_AXES[..port.rank.min(OUTPUT_AXES.len())]
            .iter()
            .map(|a| a.to_string())
            .collect()
    })
}

/// Each `name[a, b]` of `doc`: the name and its trimmed, comma-separated subscripts.
fn subscripted(doc: &str) -> Vec<(&str, Vec<&str>)> {
    let mut found = Vec::new();
    let mut rest = doc;
    while let Some(open) = rest.find('[') {
        let before = &rest[..open];
        let name_start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |n| n + 1);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let name = &before[name_start..];
        if !name.is_empty() {
            found.push((name, after[..close].split(',').map(str::trim).collect()));
        }
        rest = &after[close + 1..];
    }
    found
}

/// The identifiers of a subscript expression (`2 * t + k` has `t` and `k`).
fn words(subscript: &str) -> Vec<String> {
    subscript
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| is_name(w))
        .map(str::to_string)
        .collect()
}

/// A lower-case identifier short enough to be an axis.
fn is_name(word: &str) -> bool {
    word.len() <= LONGEST_NAME
        && word.starts_with(|c: char| c.is_ascii_lowercase())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(name: &str, rank: usize) -> Port {
        Port {
            name: name.into(),
            dtype: None,
            shape: vec![4; rank],
            rank,
            output: true,
        }
    }

    #[test]
    fn the_description_names_the_output_axes() {
        let doc = "Centers each row: y[i, k] = x[i, k] - mean_k x[i, k].";
        assert_eq!(output_axes(doc, &output("y", 2)), ["i", "k"]);
        let doc = "Pools: y[c, h, w] = max of x[c, 2h + kh, 2w + kw].";
        assert_eq!(output_axes(doc, &output("y", 3)), ["c", "h", "w"]);
        assert!(pool(doc).ends_with(&["c".to_string(), "h".into(), "w".into()]));
    }

    #[test]
    fn without_a_fitting_subscript_the_axes_go_by_position() {
        for doc in [
            "y = 2x",
            "y[i] = x[i]",
            "y[i, i] = x[i]",
            "y[2 * i, j] = x",
            "y[",
        ] {
            assert_eq!(output_axes(doc, &output("y", 2)), ["i", "j"], "{doc}");
        }
        assert_eq!(pool("y[row] = x[row]"), pool(""));
    }
}
