//! Repeated replies: which of a round's replies repeat a body already tried, and,
//! replaying a recording, which replies were asked for in place of such a repeat.

use super::attempt::extract_body;
use super::attempt::same_body;
use crate::replay::Exchange;

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

/// By position in the exchange's replies, the recorded sample each reply replaced:
/// where the recording keeps the positions (`resampled_at`), those; else the positions
/// where putting the samples back makes exactly those replies repeats ([`repeated`]),
/// the first such set when several fit (which can count one sample of a round for
/// another), and none when no set fits (a recording edited by hand).
pub(super) fn replaced_at(exchange: &Exchange, tried: &[String]) -> Vec<Option<String>> {
    let (replies, resampled) = (&exchange.replies, &exchange.resampled);
    let mut replaced = vec![None; replies.len()];
    let recorded = exchange.resampled_at.len() == resampled.len()
        && exchange.resampled_at.iter().all(|&at| at < replies.len());
    let fits = |positions: &[usize]| {
        let mut samples = replies.to_vec();
        for (&at, sample) in positions.iter().zip(resampled) {
            samples[at].clone_from(sample);
        }
        repeated(&samples, tried) == positions
    };
    let positions = match recorded {
        true => Some(exchange.resampled_at.clone()),
        false => choices(replies.len(), resampled.len()).find(|p| fits(p)),
    };
    for (at, sample) in positions.into_iter().flatten().zip(resampled) {
        replaced[at] = Some(sample.clone());
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

    fn exchange(replies: &[&str], resampled: &[&str], at: &[usize]) -> Exchange {
        Exchange {
            kernel: "full/k".into(),
            round: 0,
            prompt_sha: String::new(),
            replies: texts(replies),
            prompt: None,
            constraints: Vec::new(),
            resampled: texts(resampled),
            resampled_at: at.to_vec(),
            cut_at: Vec::new(),
        }
    }

    #[test]
    fn a_replaced_sample_goes_back_where_it_repeats() {
        // The model wrote a, a, b; the second `a` was asked for again and gave c.
        let got = replaced_at(
            &exchange(&["y = a;", "y = c;", "y = b;"], &["y = a;"], &[]),
            &[],
        );
        assert_eq!(got, [None, Some("y = a;".to_string()), None]);
        // A body tried in an earlier round is a repeat wherever it stands.
        let tried = vec![same_body("y = b;")];
        let replies = ["y = c;", "y = a;", "y = d;"];
        let got = replaced_at(&exchange(&replies, &["y = b;"], &[]), &tried);
        assert_eq!(got, [Some("y = b;".to_string()), None, None]);
        // Samples that repeat nothing were not replaced: no positions fit.
        let got = replaced_at(&exchange(&replies, &["y = d;"], &[]), &[]);
        assert_eq!(got, [None, None, None]);
    }

    /// The model wrote a, b, a, a; the last two were asked for again and gave c and
    /// d. Without positions, a, b, c, d fits as well with the repeats at 1 and 2 (a,
    /// a, a, d): the recorded positions settle it.
    #[test]
    fn recorded_positions_settle_which_samples_were_replaced() {
        let replies = ["y = a;", "y = b;", "y = c;", "y = d;"];
        let inferred = replaced_at(&exchange(&replies, &["y = a;", "y = a;"], &[]), &[]);
        let a = Some("y = a;".to_string());
        assert_eq!(inferred, [None, a.clone(), a.clone(), None]);
        let recorded = replaced_at(&exchange(&replies, &["y = a;", "y = a;"], &[2, 3]), &[]);
        assert_eq!(recorded, [None, None, a.clone(), a]);
    }
}
