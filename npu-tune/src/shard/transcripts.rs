//! Joining the shards' recordings of the model's replies into the whole run's.

use super::Unit;
use crate::replay::Transcript;

/// The file name a shard records the model's replies to, in its own directory: a
/// kernel's name is an identifier, so no report is ever named so.
pub const RECORDING: &str = "llm-recording.json";

/// The recording of the whole campaign: for each of `units` in run order, the exchanges
/// of the shard that ran it (`owners[i]` indexes `transcripts`), in recorded order.
/// The model is the first shard's.
pub fn join_transcripts(
    units: &[Unit],
    owners: &[usize],
    transcripts: &[Transcript],
) -> Transcript {
    let mut joined = Transcript::new(transcripts.first().map_or("", |t| t.model.as_str()));
    for (unit, &owner) in units.iter().zip(owners) {
        let Some(transcript) = transcripts.get(owner) else {
            continue;
        };
        joined.exchanges.extend(
            transcript
                .exchanges
                .iter()
                .filter(|exchange| exchange.kernel == unit.id)
                .cloned(),
        );
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchanges_follow_the_units_order() {
        let unit = |id: &str| Unit {
            id: id.into(),
            content: String::new(),
        };
        let units = [unit("a"), unit("b"), unit("c")];
        let mut first = Transcript::new("m");
        first.record("c", 0, "pc", vec!["c0".into()]);
        first.record("a", 0, "pa", vec!["a0".into()]);
        first.record("a", 1, "pa1", vec!["a1".into()]);
        let mut second = Transcript::new("m");
        second.record("b", 0, "pb", vec!["b0".into()]);
        let joined = join_transcripts(&units, &[0, 1, 0], &[first, second]);
        let order: Vec<(&str, u32)> = joined
            .exchanges
            .iter()
            .map(|e| (e.kernel.as_str(), e.round))
            .collect();
        assert_eq!(order, [("a", 0), ("a", 1), ("b", 0), ("c", 0)]);
        assert_eq!(joined.model, "m");
    }
}
