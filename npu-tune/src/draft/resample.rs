//! Repeated replies: which of a round's replies repeat a body already tried, and,
//! replaying a recording, which replies were asked for in place of such a repeat.

use super::attempt::same_body;
use super::run::extract_body;

/// The temperature a repeated reply is asked for again at: above the default 0.8, so
/// that the sample leaves the body the model keeps returning to.
pub const RESAMPLE_TEMPERATURE: f32 = 1.2;

/// The indices of `choices` whose body is in `tried` or is an earlier choice's.
pub(super) fn repeated(choices: &[String], tried: &[String]) -> Vec<usize> {
    let mut seen: Vec<String> = tried.to_vec();
    let mut repeated = Vec::new();
    for (index, choice) in choices.iter().enumerate() {
        let body = same_body(&extract_body(choice));
        if seen.contains(&body) {
            repeated.push(index);
        } else {
            seen.push(body);
        }
    }
    repeated
}

/// By position in `replies`, the recorded sample each reply replaced: a recording
/// keeps the replaced samples in order (`resampled`) but not their positions, which
/// are those where putting the samples back makes exactly those replies repeats
/// ([`repeated`]); the first such set of positions is taken, and none when no set
/// fits (a recording edited by hand).
pub(super) fn replaced_at(
    replies: &[String],
    resampled: &[String],
    tried: &[String],
) -> Vec<Option<String>> {
    let mut replaced = vec![None; replies.len()];
    let fits = |positions: &[usize]| {
        let mut samples = replies.to_vec();
        for (&at, sample) in positions.iter().zip(resampled) {
            samples[at].clone_from(sample);
        }
        repeated(&samples, tried) == positions
    };
    if let Some(positions) = choices(replies.len(), resampled.len()).find(|p| fits(p)) {
        for (at, sample) in positions.into_iter().zip(resampled) {
            replaced[at] = Some(sample.clone());
        }
    }
    replaced
}

/// Every increasing choice of `k` positions out of `n`, in lexicographic order.
fn choices(n: usize, k: usize) -> impl Iterator<Item = Vec<usize>> {
    let mut next = (k <= n).then(|| (0..k).collect::<Vec<usize>>());
    std::iter::from_fn(move || {
        let current = next.take()?;
        let mut advanced = current.clone();
        if let Some(i) = (0..k).rev().find(|&i| advanced[i] < n - k + i) {
            advanced[i] += 1;
            for j in i + 1..k {
                advanced[j] = advanced[j - 1] + 1;
            }
            next = Some(advanced);
        }
        Some(current)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn positions_are_chosen_in_order() {
        let all: Vec<Vec<usize>> = choices(4, 2).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], [0, 1]);
        assert_eq!(all[5], [2, 3]);
        assert_eq!(choices(3, 0).collect::<Vec<_>>(), [Vec::<usize>::new()]);
        assert_eq!(choices(1, 2).count(), 0);
    }

    #[test]
    fn a_replaced_sample_goes_back_where_it_repeats() {
        // The model wrote a, a, b; the second `a` was asked for again and gave c.
        let replies = texts(&["y = a;", "y = c;", "y = b;"]);
        let got = replaced_at(&replies, &texts(&["y = a;"]), &[]);
        assert_eq!(got, [None, Some("y = a;".to_string()), None]);
        // A body tried in an earlier round is a repeat wherever it stands.
        let tried = vec![same_body("y = b;")];
        let replies = texts(&["y = c;", "y = a;", "y = d;"]);
        let got = replaced_at(&replies, &texts(&["y = b;"]), &tried);
        assert_eq!(got, [Some("y = b;".to_string()), None, None]);
        // Samples that repeat nothing were not replaced: no positions fit.
        let got = replaced_at(&replies, &texts(&["y = d;"]), &[]);
        assert_eq!(got, [None, None, None]);
    }
}
