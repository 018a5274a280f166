//! Generators backed by a model: [`Llm`] over any chat-completions endpoint, optionally
//! decoding under a grammar or JSON Schema from [`crate::grammar`], and
//! [`Replay`] of recorded replies.

#[cfg(feature = "llm")]
use std::collections::BTreeMap;
#[cfg(feature = "llm")]
use std::sync::{Arc, Mutex};

use super::{GenerateError, Generator, Proposed, Request};
#[cfg(feature = "llm")]
use crate::grammar::{self, ConstrainMode, Constraint};
#[cfg(feature = "llm")]
use crate::knowledge::KnowledgeBase;
#[cfg(feature = "llm")]
use crate::llm::{LlmClient, LlmError};
#[cfg(feature = "llm")]
use crate::prompt;
use crate::replay::{Replayer, Transcript};
use crate::reply::{Extracted, extract_schedules};

/// Turns model replies into proposals: every schedule block found, or the reason none was.
pub fn proposals_from_replies(replies: &[String], count: usize) -> Vec<Proposed> {
    let mut out = Vec::new();
    for reply in replies {
        for extracted in extract_schedules(reply) {
            out.push(match extracted {
                Extracted::Schedule { text, .. } => Proposed::Schedule(text),
                Extracted::Rejected { reason, excerpt } => Proposed::Unparsable { reason, excerpt },
            });
        }
    }
    out.truncate(count);
    out
}

/// What the generator knows of one kernel's grammars, built once per kernel.
#[cfg(feature = "llm")]
#[derive(Debug)]
struct Grammars {
    syntax: String,
    /// Every legal point of the space, when it is small enough to enumerate.
    exact: Option<String>,
    schema: serde_json::Value,
}

/// An LLM over the chat-completions API. Each choice is asked for one schedule block.
///
/// Under a constraint, a share of each round's candidates ([`Llm::explore`]) is asked
/// under the syntax grammar only, so that the loop can leave the enumerated space;
/// the rest under the exact legal set (or a legal subset of a space too large to
/// enumerate). The first round asks every candidate under it, so Comp@1 and Pass@1
/// measure the constrained mode itself; exploration starts with round 2, unless the
/// share is 1 (the syntax grammar alone, every round).
#[cfg(feature = "llm")]
#[derive(Debug)]
pub struct Llm {
    client: LlmClient,
    /// Where replies are recorded for replay, when `--record` is given.
    pub recording: Option<Arc<Mutex<Transcript>>>,
    mode: ConstrainMode,
    /// The share of each round's candidates, from the second round on, asked without
    /// the exact-set grammar.
    pub explore: f64,
    grammars: BTreeMap<String, Grammars>,
    /// What the probe found, once: the mode in force and, for a fallback, why.
    pub probe_note: Option<String>,
    /// The hardware knowledge the prompts draw on; `None` leaves it out.
    pub knowledge: Option<KnowledgeBase>,
    /// The entries the last round's prompt showed.
    used: Vec<String>,
    /// How each of the last round's candidates was constrained.
    constrained: Vec<String>,
    /// Candidates the last round asked for.
    asked: usize,
}

#[cfg(feature = "llm")]
impl Llm {
    /// An unconstrained LLM generator (no grammar, no exploration) with the built-in
    /// knowledge base.
    pub fn new(client: LlmClient, recording: Option<Arc<Mutex<Transcript>>>) -> Llm {
        Llm::constrained(client, recording, ConstrainMode::None, 0.0)
    }

    /// An LLM generator that constrains replies as `mode` says.
    pub fn constrained(
        client: LlmClient,
        recording: Option<Arc<Mutex<Transcript>>>,
        mode: ConstrainMode,
        explore: f64,
    ) -> Llm {
        Llm {
            client,
            recording,
            mode,
            explore: explore.clamp(0.0, 1.0),
            grammars: BTreeMap::new(),
            probe_note: None,
            knowledge: Some(KnowledgeBase::builtin()),
            used: Vec::new(),
            constrained: Vec::new(),
            asked: 0,
        }
    }

    /// The mode in force: `Auto` is resolved by one probe of the server.
    fn resolve_mode(&mut self) -> ConstrainMode {
        if self.mode == ConstrainMode::Auto {
            let (mode, note) = match self.client.probe_constraints() {
                Ok(mode) => (mode, format!("the server honours {}", mode.name())),
                Err(reason) => (
                    ConstrainMode::None,
                    format!("warning: replies are not constrained: {reason}"),
                ),
            };
            eprintln!("llm: {note}");
            self.mode = mode;
            self.probe_note = Some(note);
        }
        self.mode
    }

    /// The constraints for this round's candidates, one per candidate, each with the
    /// name the report gives it.
    fn constraints(&mut self, request: &Request) -> Vec<(Option<Constraint>, &'static str)> {
        let mode = self.resolve_mode();
        if mode == ConstrainMode::None {
            return vec![(None, "none"); request.count];
        }
        let problem = request.problem;
        let grammars = self
            .grammars
            .entry(problem.name.clone())
            .or_insert_with(|| Grammars {
                syntax: grammar::syntax_gbnf(&problem.kernel),
                exact: grammar::exact_set(problem, grammar::EXACT_SET_LIMIT).map(|set| set.gbnf),
                schema: grammar::json_schema(&problem.kernel),
            });
        // A space too large to enumerate gets a legal subset around the best schedules
        // so far, built anew each round.
        let (legal, label) = match &grammars.exact {
            Some(exact) => (Some(exact.clone()), "exact set"),
            None => (
                grammar::legal_set(problem, &starting_points(request), grammar::SUBSET_CHECKS)
                    .map(|set| set.gbnf),
                "legal subset",
            ),
        };
        // The first round is held to the exact set: Comp@1 and Pass@1 measure what the
        // constrained mode delivers on the first try, and exploring pays off only once
        // there is a best schedule to leave the space from. A share of 1 asks for the
        // syntax grammar alone, from the first round on.
        let exploring = if request.round == 0 && self.explore < 1.0 {
            0
        } else {
            (request.count as f64 * self.explore).ceil() as usize
        };
        (0..request.count)
            .map(|index| match mode {
                ConstrainMode::JsonSchema => (
                    Some(Constraint::JsonSchema(grammars.schema.clone())),
                    "json schema",
                ),
                _ => match &legal {
                    Some(legal) if index >= exploring => {
                        (Some(Constraint::Gbnf(legal.clone())), label)
                    }
                    _ => (Some(Constraint::Gbnf(grammars.syntax.clone())), "syntax"),
                },
            })
            .collect()
    }
}

/// The schedules a legal subset is built around: the three fastest results so far
/// (the hand schedules among them), fastest first.
#[cfg(feature = "llm")]
fn starting_points(request: &Request) -> Vec<crate::space::Spec> {
    let mut known: Vec<&crate::record::CandidateRecord> = request
        .hand
        .iter()
        .chain(request.history)
        .filter(super::is_result)
        .collect();
    known.sort_by_key(|record| record.cycles);
    let mut specs = Vec::new();
    for record in known {
        if let Some(draft) = super::draft::Draft::parse(request.problem, &record.source)
            && specs.len() < 3
            && !specs.contains(&draft.spec)
        {
            specs.push(draft.spec);
        }
    }
    specs
}

#[cfg(feature = "llm")]
impl Generator for Llm {
    fn name(&self) -> &'static str {
        "llm"
    }

    fn knowledge_used(&self) -> Vec<Vec<String>> {
        vec![self.used.clone(); self.constrained.len().max(self.asked)]
    }

    fn constraints_used(&self) -> Vec<String> {
        self.constrained.clone()
    }

    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError> {
        let (messages, used) = prompt::messages_with(
            request.problem,
            request.round,
            request.history,
            self.knowledge.as_ref(),
        );
        self.used = used;
        self.asked = request.count;
        let constraints = self.constraints(request);
        // Candidates that share a constraint are asked together.
        let mut groups: Vec<(Option<Constraint>, &str, u32)> = Vec::new();
        for (constraint, kind) in constraints {
            match groups.last_mut() {
                Some((last, _, count)) if *last == constraint => *count += 1,
                _ => groups.push((constraint, kind, 1)),
            }
        }
        let mut replies = Vec::new();
        self.constrained.clear();
        for (constraint, kind, count) in &groups {
            let asked = self
                .client
                .complete_constrained(&messages, *count, constraint.as_ref());
            match asked {
                Ok(completion) => {
                    for reply in completion.choices {
                        self.constrained.push(kind.to_string());
                        replies.push(match constraint {
                            Some(Constraint::JsonSchema(_)) => {
                                let name = format!("llm_r{}_{}", request.round, replies.len());
                                grammar::schedule_from_json(&request.problem.kernel, &reply, &name)
                                    .unwrap_or(reply)
                            }
                            _ => reply,
                        });
                    }
                }
                // The server is not there or refuses the key: no later round will do better.
                Err(
                    error @ (LlmError::Unreachable { .. }
                    | LlmError::Unauthorized { .. }
                    | LlmError::InvalidRequest { .. }),
                ) => {
                    return Err(GenerateError::Llm(error));
                }
                Err(error) if replies.is_empty() && groups.len() == 1 => {
                    let reason = format!("no usable reply: {error}");
                    return Ok(vec![
                        Proposed::Unparsable {
                            reason,
                            excerpt: String::new()
                        };
                        request.count
                    ]);
                }
                Err(_) => {}
            }
        }
        if let Some(recording) = &self.recording
            && let Ok(mut transcript) = recording.lock()
        {
            let constraints = groups
                .iter()
                .filter_map(|(constraint, _, _)| match constraint {
                    Some(Constraint::Gbnf(grammar)) => Some(grammar.clone()),
                    Some(Constraint::JsonSchema(schema)) => Some(schema.to_string()),
                    None => None,
                })
                .collect();
            transcript.record_full(
                &request.problem.name,
                request.round,
                &prompt::text(&messages),
                constraints,
                replies.clone(),
            );
        }
        let mut out = proposals_from_replies(&replies, request.count);
        while out.len() < request.count && replies.len() < request.count {
            out.push(Proposed::Unparsable {
                reason: "the server returned fewer replies than asked".into(),
                excerpt: String::new(),
            });
        }
        Ok(out)
    }
}

/// Replays recorded replies: deterministic, offline.
#[derive(Debug)]
pub struct Replay {
    replayer: Replayer,
}

impl Replay {
    /// A generator that serves `transcript`'s replies by kernel and round.
    pub fn new(transcript: Transcript) -> Replay {
        Replay {
            replayer: Replayer::new(transcript),
        }
    }
}

impl Generator for Replay {
    fn name(&self) -> &'static str {
        "replay"
    }

    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError> {
        let replies = self
            .replayer
            .next(&request.problem.name, request.round)
            .ok_or_else(|| {
                GenerateError::Replay(format!(
                    "the transcript has no replies for kernel `{}`",
                    request.problem.name
                ))
            })?;
        Ok(proposals_from_replies(&replies, request.count))
    }
}

/// A model seeding the heuristic where the heuristic has run out of steam. The
/// heuristic proposes every candidate of a round while its search improves; after a
/// round that did not beat the best before it (a stall), a share of the next round
/// ([`Hybrid::model_share`], at least one candidate) goes to the model instead, and the
/// model also fills any slot the heuristic leaves empty. The heuristic's edits start
/// from the best schedules so far, the model's legal proposals among them. The same
/// budget as either alone; until the first stall, the same candidates as the heuristic.
#[derive(Debug)]
pub struct Hybrid<G> {
    /// The generator asked after a stall: the LLM generator, or a [`Replay`] of its
    /// recordings.
    pub model: G,
    /// The share of each round after a stall that goes to the model (rounded up, at
    /// least one candidate).
    pub model_share: f64,
    /// The heuristic that edits the best schedules, with its knowledge base.
    pub heuristic: super::Heuristic,
    /// Candidates the model proposed in the last round (they come first).
    from_model: usize,
}

impl<G> Hybrid<G> {
    /// `model` proposes `model_share` of each round after a stall; the heuristic (with
    /// the built-in knowledge base) the rest.
    pub fn new(model: G, model_share: f64) -> Hybrid<G> {
        Hybrid {
            model,
            model_share,
            heuristic: super::Heuristic::default(),
            from_model: 0,
        }
    }
}

/// Whether the last round brought nothing faster than what was known before it (the
/// hand schedules and the earlier rounds). The first round never stalls.
fn stalled(request: &Request) -> bool {
    let Some(last) = request.round.checked_sub(1) else {
        return false;
    };
    let fastest = |records: &mut dyn Iterator<Item = &crate::record::CandidateRecord>| {
        records
            .filter(super::is_result)
            .filter_map(|r| r.cycles)
            .min()
    };
    let before = fastest(
        &mut request
            .history
            .iter()
            .filter(|r| r.round < last)
            .chain(request.hand),
    );
    let latest = fastest(&mut request.history.iter().filter(|r| r.round == last));
    match (latest, before) {
        (Some(latest), Some(before)) => latest >= before,
        (latest, _) => latest.is_none(),
    }
}

impl<G: Generator> Generator for Hybrid<G> {
    fn name(&self) -> &'static str {
        "llm+heuristic"
    }

    fn knowledge_used(&self) -> Vec<Vec<String>> {
        let mut used = self.model.knowledge_used();
        used.resize(self.from_model, Vec::new());
        used.extend(self.heuristic.knowledge_used());
        used
    }

    fn constraints_used(&self) -> Vec<String> {
        let mut used = self.model.constraints_used();
        used.truncate(self.from_model);
        used
    }

    fn propose(&mut self, request: &Request) -> Result<Vec<Proposed>, GenerateError> {
        let count = request.count;
        let share = if stalled(request) {
            ((count as f64 * self.model_share).ceil() as usize)
                .max(1)
                .min(count)
        } else {
            0
        };
        let mut ours = self.heuristic.propose(&Request {
            count: count - share,
            ..*request
        })?;
        // Even asked for nothing, the heuristic repeats the hand schedule in the last
        // round when nothing beat it; that guarantee keeps its slot.
        ours.truncate(count);
        let wanted = count - ours.len();
        let mut out = if wanted > 0 {
            let mut theirs = self.model.propose(&Request {
                count: wanted,
                ..*request
            })?;
            theirs.truncate(wanted);
            theirs
        } else {
            Vec::new()
        };
        self.from_model = out.len();
        out.extend(ours);
        Ok(out)
    }
}
