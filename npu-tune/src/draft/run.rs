//! The drafting loop: rounds of candidate bodies from a [`BodySource`], each evaluated
//! ([`Task::try_body`]), the failures fed back, until a body checks and matches every
//! example.

use std::sync::{Arc, Mutex};

use npu_core::Target;

pub use super::attempt::extract_body;
use super::attempt::{Attempt, Verdict, same_body};
use super::examples::{Example, Tolerance};
pub use super::resample::RESAMPLE_TEMPERATURE;
use super::resample::{repeated, replaced_at};
use super::{Outcome, Task, prompt};
use crate::grammar::{ConstrainMode, Constraint};
use crate::llm::{ChatMessage, Completion, LlmClient, Sampling};
use crate::replay::{Replayer, Transcript};

/// What a round asks of a source.
#[derive(Debug)]
pub struct BodyRequest<'a> {
    /// The kernel to draft a body for.
    pub task: &'a Task,
    /// What recordings file the round under: the kernel's name, or
    /// `VARIANT/NAME` in an evaluation of several prompt variants.
    pub key: String,
    /// The 0-based round.
    pub round: u32,
    /// How many replies (candidate bodies) the round asks for.
    pub count: usize,
    /// The prompt: the task, examples and the earlier attempts' feedback
    /// ([`prompt::messages`]).
    pub messages: Vec<ChatMessage>,
    /// The body grammar (GBNF) of the task's signature on its target.
    pub grammar: String,
    /// The same as a JSON Schema of the syntax tree ([`super::schema`]).
    pub schema: serde_json::Value,
    /// The bodies tried in earlier rounds, each as [`same_body`] writes it.
    pub tried: Vec<String>,
}

/// Where candidate bodies come from.
pub trait BodySource {
    /// The source's name for reports (`llm`, `replay`).
    fn name(&self) -> &str;
    /// The replies of one round (each a body, perhaps in fences or with the kernel
    /// around it), or why there are none.
    fn propose(&mut self, request: &BodyRequest) -> Result<Vec<Reply>, String>;
}

/// One reply of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The reply's text.
    pub text: String,
    /// The model's sample this reply was asked for in place of, because its body
    /// repeated one tried before or earlier in the round.
    pub replaced: Option<String>,
    /// Whether the reply stopped at the token budget, before the model ended it.
    pub cut: bool,
}

/// A chat-completions server, decoding under the body grammar (GBNF), the syntax
/// tree's JSON Schema or nothing; `Auto` probes the server once.
#[derive(Debug)]
pub struct LlmBodies {
    /// The chat-completions client.
    pub client: LlmClient,
    /// How replies are constrained; `Auto` becomes the probed mode on the first round.
    pub constrain: ConstrainMode,
    /// Where each round's prompt, constraint and replies are recorded, when recording.
    pub recording: Option<Arc<Mutex<Transcript>>>,
}

impl LlmBodies {
    /// Records a round's prompt, constraint and replies, the replies `replaced` (by
    /// position) and which replies were cut, when recording.
    fn record(
        &self,
        request: &BodyRequest,
        constraint: Option<Constraint>,
        completion: &Completion,
        replaced: &[Option<String>],
    ) {
        let Some(Ok(mut transcript)) = self.recording.as_ref().map(|r| r.lock()) else {
            return;
        };
        let prompt = crate::prompt::text(&request.messages);
        let constraints = match constraint {
            Some(Constraint::Gbnf(grammar)) => vec![grammar],
            Some(Constraint::JsonSchema(schema)) => vec![schema.to_string()],
            None => Vec::new(),
        };
        let choices = completion.choices.clone();
        transcript.record_full(&request.key, request.round, &prompt, constraints, choices);
        if let Some(exchange) = transcript.exchanges.last_mut() {
            exchange.resampled = replaced.iter().flatten().cloned().collect();
            exchange.resampled_at = positions(replaced.iter().map(Option::is_some));
            exchange.cut_at = positions(completion.cut.iter().copied());
        }
    }

    /// The constraint of `request` in the mode in force, resolving `Auto` by a probe.
    fn constraint(&mut self, request: &BodyRequest) -> Option<Constraint> {
        if self.constrain == ConstrainMode::Auto {
            self.constrain = self.client.probe_constraints().unwrap_or_else(|reason| {
                eprintln!("llm: warning: replies are not constrained: {reason}");
                ConstrainMode::None
            });
        }
        match self.constrain {
            ConstrainMode::Gbnf => Some(Constraint::Gbnf(request.grammar.clone())),
            ConstrainMode::JsonSchema => Some(Constraint::JsonSchema(request.schema.clone())),
            ConstrainMode::Auto | ConstrainMode::None => None,
        }
    }
}

impl BodySource for LlmBodies {
    fn name(&self) -> &str {
        "llm"
    }

    fn propose(&mut self, request: &BodyRequest) -> Result<Vec<Reply>, String> {
        let constraint = self.constraint(request);
        let count = u32::try_from(request.count).unwrap_or(u32::MAX);
        let sampling = Sampling {
            constraint: constraint.as_ref(),
            temperature: self.client.config().temperature,
            max_tokens: Some(reply_budget(request.task)),
        };
        let mut completion = self
            .client
            .complete_sampled(&request.messages, count, sampling)
            .map_err(|e| e.to_string())?;
        let replaced = self.resample(request, constraint.as_ref(), &mut completion);
        self.record(request, constraint, &completion, &replaced);
        let cut = completion.cut.into_iter().chain(std::iter::repeat(false));
        Ok(completion
            .choices
            .into_iter()
            .zip(replaced)
            .zip(cut)
            .map(|((text, replaced), cut)| Reply {
                text,
                replaced,
                cut,
            })
            .collect())
    }
}

impl LlmBodies {
    /// Asks once more, at [`RESAMPLE_TEMPERATURE`], for each reply whose body was
    /// tried before or repeats an earlier reply of the round, and puts the new replies
    /// in their places; returns, by position, the replies replaced. A small model
    /// sampled at the configured temperature often writes the round's body twice, and
    /// writes a body the feedback has just refused again: its verdict is known, so the
    /// candidate is spent on another sample instead.
    fn resample(
        &self,
        request: &BodyRequest,
        constraint: Option<&Constraint>,
        completion: &mut Completion,
    ) -> Vec<Option<String>> {
        let choices = &mut completion.choices;
        let mut replaced = vec![None; choices.len()];
        let repeated = repeated(choices, &request.tried);
        if repeated.is_empty() {
            return replaced;
        }
        let sampling = Sampling {
            constraint,
            temperature: RESAMPLE_TEMPERATURE,
            max_tokens: Some(reply_budget(request.task)),
        };
        let count = u32::try_from(repeated.len()).unwrap_or(u32::MAX);
        let Ok(again) = self
            .client
            .complete_sampled(&request.messages, count, sampling)
        else {
            return replaced;
        };
        let again_cut = again.cut.into_iter().chain(std::iter::repeat(false));
        for ((index, reply), cut) in repeated.into_iter().zip(again.choices).zip(again_cut) {
            replaced[index] = Some(std::mem::replace(&mut choices[index], reply));
            if let Some(slot) = completion.cut.get_mut(index) {
                *slot = cut;
            }
        }
        replaced
    }
}

/// The positions of the `true`s of `flags`.
fn positions(flags: impl Iterator<Item = bool>) -> Vec<usize> {
    flags
        .enumerate()
        .filter(|(_, flag)| *flag)
        .map(|(at, _)| at)
        .collect()
}

/// The tokens one reply may take for `task`: room for a `let` or two and a statement
/// per output, each reading the inputs, with a fence around them; a reply that runs
/// past it is cut, and the feedback says so. A 16 x 16 matmul's replies ran on to
/// ~800 tokens each (225 s for a round of 4 on 2 cores) where its body is ~30.
fn reply_budget(task: &Task) -> u32 {
    let ports = u32::try_from(task.ports.len()).unwrap_or(u32::MAX);
    let outputs = task.ports.iter().filter(|p| p.output).count();
    let outputs = u32::try_from(outputs).unwrap_or(u32::MAX);
    192u32
        .saturating_add(ports.saturating_mul(48))
        .saturating_add(outputs.saturating_mul(64))
}

/// Replies recorded from an earlier run, by kernel and round.
#[derive(Debug)]
pub struct ReplayBodies {
    /// The recording.
    pub replayer: Replayer,
    /// Whether a round whose prompt differs from the one recorded is an error rather
    /// than answered with the recorded replies: a recording replayed by code that
    /// prompts otherwise (other feedback, another rewrite of an earlier reply) no
    /// longer says what the model would have replied.
    pub strict: bool,
}

impl ReplayBodies {
    /// Replays `replayer`'s rounds whatever the prompts.
    pub fn new(replayer: Replayer) -> ReplayBodies {
        ReplayBodies {
            replayer,
            strict: false,
        }
    }

    /// Replays `replayer`'s rounds, refusing one asked with another prompt than the
    /// recorded one.
    pub fn strict(replayer: Replayer) -> ReplayBodies {
        ReplayBodies {
            replayer,
            strict: true,
        }
    }
}

impl BodySource for ReplayBodies {
    fn name(&self) -> &str {
        "replay"
    }

    fn propose(&mut self, request: &BodyRequest) -> Result<Vec<Reply>, String> {
        let exchange = self
            .replayer
            .exchange(&request.key, request.round)
            .ok_or_else(|| {
                format!(
                    "the recording has no round {} for `{}`",
                    request.round, request.key
                )
            })?;
        let sha = crate::replay::prompt_sha(&crate::prompt::text(&request.messages));
        if self.strict && (exchange.round != request.round || exchange.prompt_sha != sha) {
            return Err(format!(
                "round {} of `{}` asks another prompt (hash {sha}) than the recorded one ({}); record it again",
                request.round, request.key, exchange.prompt_sha
            ));
        }
        let replaced = replaced_at(exchange, &request.tried);
        Ok(exchange
            .replies
            .iter()
            .cloned()
            .zip(replaced)
            .enumerate()
            .map(|(at, (text, replaced))| Reply {
                text,
                replaced,
                cut: exchange.cut_at.contains(&at),
            })
            .collect())
    }
}

/// A drafting run's result: every attempt, and the first body that matched.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Drafted {
    /// The task's kernel name.
    pub kernel: String,
    /// Every candidate body of every round, in proposal order.
    pub attempts: Vec<Attempt>,
    /// The index in `attempts` of the body written back.
    pub chosen: Option<usize>,
    /// Whether the chosen body was checked against examples (there were some).
    pub verified: bool,
    /// Rounds spent: the round of the first match plus one, or all of them.
    pub rounds: u32,
    /// Why the rounds ended early without a match: the source failed after the first
    /// round (a server refusing a prompt too long for its context, say). The attempts
    /// so far are kept and scored; a failure in the first round is an error instead.
    pub stopped: Option<String>,
}

impl Drafted {
    /// Whether the chosen body is a reply rewritten ([`Attempt::written`]): the
    /// checker refused it as the reply wrote it.
    pub fn chosen_rewritten(&self) -> bool {
        self.chosen
            .is_some_and(|at| self.attempts[at].written.is_some())
    }

    /// Of the model's first-round samples, the share that checks (Comp@1) and the
    /// share that also matches the examples (Pass@1). A sample that repeated another of
    /// the round counts with that one's verdict; the reply asked for in its place
    /// ([`Attempt::replaced`]) counts toward Pass@(R×K) only, so that Pass@1 is the
    /// rate of the model sampled as configured.
    pub fn first_round(&self) -> (f64, f64) {
        let first: Vec<&Attempt> = self.attempts.iter().filter(|a| a.round == 0).collect();
        let sampled = |attempt: &Attempt| match &attempt.replaced {
            None => attempt.verdict,
            Some(sample) => {
                let body = same_body(&extract_body(sample));
                first
                    .iter()
                    .find(|a| a.replaced.is_none() && same_body(&extract_body(&a.reply)) == body)
                    .map_or(attempt.verdict, |a| a.verdict)
            }
        };
        let share = |pass: &dyn Fn(Verdict) -> bool| {
            let count = first.iter().filter(|a| pass(sampled(a))).count();
            count as f64 / first.len().max(1) as f64
        };
        let checks = share(&|v| v != Verdict::Rejected);
        let matches = share(&|v| v == Verdict::Matches);
        (checks, matches)
    }

    /// The body written back, if any.
    pub fn body(&self) -> Option<&str> {
        self.chosen.map(|i| self.attempts[i].body.as_str())
    }
}

/// The budget, the prompt and the comparison of a drafting run.
#[derive(Clone, Debug)]
pub struct DraftConfig {
    /// Most rounds to run; the run stops at the first round with a match.
    pub rounds: u32,
    /// Candidate bodies asked for per round.
    pub candidates: usize,
    /// How closely outputs must match the examples; `None` uses each output dtype's
    /// default ([`tolerance_for`](super::examples::tolerance_for)).
    pub tolerance: Option<Tolerance>,
    /// What the prompt carries beside the task and the feedback.
    pub parts: prompt::Parts,
    /// The idioms the prompt picks from when `parts.idioms` is set
    /// ([`idioms::builtin`](super::idioms::builtin) unless the user gives others).
    pub idioms: Vec<super::idioms::Idiom>,
    /// The evaluation variant the run belongs to, which prefixes recording keys.
    pub variant: Option<&'static str>,
}

/// Drafts `task`'s body on `target`: up to `config.rounds` rounds of
/// `config.candidates` bodies from `source`, stopping at the first that checks and
/// matches every example.
pub fn draft(
    task: &Task,
    target: &Target,
    examples: &[Example],
    source: &mut dyn BodySource,
    config: &DraftConfig,
) -> Result<Drafted, String> {
    let grammar = super::grammar::body_gbnf(task, target);
    let schema = super::schema::body_schema(task, target);
    let mut drafted = Drafted {
        kernel: task.name.clone(),
        attempts: Vec::new(),
        chosen: None,
        verified: false,
        rounds: 0,
        stopped: None,
    };
    for round in 0..config.rounds {
        let request = BodyRequest {
            task,
            key: match config.variant {
                Some(variant) => format!("{variant}/{}", task.name),
                None => task.name.clone(),
            },
            round,
            count: config.candidates,
            messages: prompt::messages(
                task,
                examples,
                &drafted.attempts,
                config.parts,
                &config.idioms,
            ),
            grammar: grammar.clone(),
            schema: schema.clone(),
            tried: drafted
                .attempts
                .iter()
                .flat_map(|a| [Some(&a.body), a.written.as_ref()])
                .flatten()
                .map(|body| same_body(body))
                .collect(),
        };
        let replies = match source.propose(&request) {
            Ok(replies) => replies,
            Err(error) if round > 0 => {
                drafted.stopped = Some(error);
                break;
            }
            Err(error) => return Err(error),
        };
        drafted.rounds = round + 1;
        for Reply {
            text: reply,
            replaced,
            cut,
        } in replies
        {
            let (body, written, outcome) = try_reply(task, &reply, target, examples, config);
            let (verdict, mut summary, verified) = judge(&outcome);
            if cut && verdict != Verdict::Matches {
                summary = format!("{CUT}\n{summary}");
            }
            drafted.attempts.push(Attempt {
                round,
                reply,
                body,
                written,
                replaced,
                verdict,
                summary,
            });
            if verdict == Verdict::Matches && drafted.chosen.is_none() {
                drafted.chosen = Some(drafted.attempts.len() - 1);
                drafted.verified = verified;
            }
        }
        if drafted.chosen.is_some() {
            break;
        }
    }
    Ok(drafted)
}

/// The body of `reply`, what it wrote when that differs (rewritten), and its outcome:
/// a body the checker refuses is tried again rewritten into the forms the checker asks
/// for ([`Task::rewritten`]: casts added, windows folded, reductions hoisted), and that one counts
/// when the checker accepts it.
fn try_reply(
    task: &Task,
    reply: &str,
    target: &Target,
    examples: &[Example],
    config: &DraftConfig,
) -> (String, Option<String>, Outcome) {
    let body = extract_body(reply);
    let outcome = task.try_body(&body, target, examples, config.tolerance);
    if let Outcome::Rejected { .. } = outcome
        && let Some(rewritten) = task.rewritten(&body)
    {
        let second = task.try_body(&rewritten, target, examples, config.tolerance);
        if !matches!(second, Outcome::Rejected { .. }) {
            return (rewritten, Some(body), second);
        }
    }
    (body, None, outcome)
}

/// What the feedback says of a reply that stopped at its token budget.
const CUT: &str = "the reply ran to its token budget and was cut there: write the body alone, each statement once, and end it";

/// The verdict, the feedback and whether examples were checked.
fn judge(outcome: &Outcome) -> (Verdict, String, bool) {
    match outcome {
        Outcome::Rejected { rendered, .. } => (
            Verdict::Rejected,
            format!("rejected by the checker:\n{rendered}"),
            false,
        ),
        Outcome::Failed { example, error } => (
            Verdict::Failed,
            format!("failed on example {example}: {error}"),
            false,
        ),
        Outcome::Mismatch(mismatch) => (
            Verdict::Mismatch,
            format!("wrong values: {mismatch}"),
            false,
        ),
        Outcome::Matches { verified, .. } => (Verdict::Matches, "matches".into(), *verified),
    }
}
