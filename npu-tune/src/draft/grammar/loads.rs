//! The reads of a body: loads of the signature's input tensors, their padded views, and
//! gathers, whose position along one dimension is read from an integer index tensor
//! (`out[i] = data[idx[i]];`, `table[idx[i], d]`, docs/dsl.md). The rules are named by
//! position, never after the names a user gave the tensors.

use super::text::literal;
use crate::draft::Port;
use crate::grammar::rule_name;

/// `load-t0 ::= "x[" index ", " index "]" | "pad(x, " fill-t0 ")[" index ", " index "]"`,
/// per input tensor; the pad value is a literal or a scalar parameter of the tensor's
/// dtype. When `gathers` (the target gathers) and the signature has an integer input
/// tensor, one subscript of a load outside `pad(..)` may be a `gather`, a load of an
/// index tensor with affine subscripts: the forms the checker takes (E037 refuses a
/// nested gather, two gathered dimensions, or one through `pad(..)`).
pub(super) fn loads(ports: &[Port], gathers: bool) -> Vec<String> {
    let mut rules = vec![
        "axes ::= axis axesmore?".to_string(),
        "axesmore ::= \", \" axes".to_string(),
        "letindex ::= \"[\" axes \"]\"".to_string(),
    ];
    let indexes: Vec<&Port> = match gathers {
        true => tensor_inputs(ports)
            .map(|(_, port)| port)
            .filter(|port| port.dtype.is_some_and(|d| !d.is_float()))
            .collect(),
        false => Vec::new(),
    };
    let mut ranks = Vec::new();
    for (position, port) in tensor_inputs(ports) {
        let indices = plain(port.rank);
        let subscripts = match indexes.is_empty() {
            true => indices.clone(),
            false => {
                ranks.push(port.rank);
                gathered(port.rank)
            }
        };
        let fills: Vec<String> = std::iter::once("literal".to_string())
            .chain(
                ports
                    .iter()
                    .filter(|s| !s.output && s.rank == 0 && s.dtype == port.dtype)
                    .map(|s| literal(&s.name)),
            )
            .collect();
        let (open, pad) = (
            literal(&format!("{}[", port.name)),
            literal(&format!("pad({}, ", port.name)),
        );
        let fill = rule_name("fill-t", position);
        rules.push(format!(
            "{} ::= {open} {subscripts} \"]\" | {pad} {fill} \")[\" {indices} \"]\"",
            load_rule(position),
        ));
        rules.push(format!("{fill} ::= {}", fills.join(" | ")));
    }
    if !indexes.is_empty() {
        rules.extend(gather_rules(&indexes, ranks));
    }
    rules
}

/// The input tensors of `ports` (not scalar parameters), with their positions among
/// them: their rules are named by position, never by the names a user gave them.
pub(super) fn tensor_inputs(ports: &[Port]) -> impl Iterator<Item = (usize, &Port)> {
    ports.iter().filter(|p| !p.output && p.rank > 0).enumerate()
}

/// The rule of the loads of the `position`th input tensor: `load-t0`.
pub(super) fn load_rule(position: usize) -> String {
    rule_name("load-t", position)
}

/// The rule of `rank` subscripts of which at most one is a gather: `gsubs-r2`.
pub(super) fn gathered(rank: usize) -> String {
    rule_name("gsubs-r", rank)
}

/// `rank` affine subscripts: `index ", " index`.
fn plain(rank: usize) -> String {
    vec!["index"; rank].join(" \", \" ")
}

/// `gather`, a read of one of `indexes`, and the `gsubs-rN` rules of the `ranks`
/// loaded, each of whose alternatives begins with another rule: `gsubs-r2 ::= index
/// ", " gsubs-r1 | gather ", " index`.
fn gather_rules(indexes: &[&Port], mut ranks: Vec<usize>) -> Vec<String> {
    let reads: Vec<String> = indexes
        .iter()
        .map(|port| {
            format!(
                "{} {} \"]\"",
                literal(&format!("{}[", port.name)),
                plain(port.rank)
            )
        })
        .collect();
    let mut rules = vec![format!("gather ::= {}", reads.join(" | "))];
    ranks.sort_unstable();
    ranks.dedup();
    let most = ranks.last().copied().unwrap_or(0);
    for rank in 1..=most {
        rules.push(match rank {
            1 => format!("{} ::= index | gather", gathered(1)),
            _ => format!(
                "{} ::= index \", \" {} | gather \", \" {}",
                gathered(rank),
                gathered(rank - 1),
                plain(rank - 1)
            ),
        });
    }
    rules
}
