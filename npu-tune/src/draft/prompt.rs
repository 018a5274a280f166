//! The prompt for a kernel body: the algorithm part of the language reference (its
//! table of forms and a worked example), the kernel with its doc comment, signature
//! and target, an example's values, and what the previous attempts got wrong.

use std::fmt::Write as _;

use npu_core::host::HostTensor;

use super::Task;
use super::attempt::Attempt;
use super::examples::Example;
use super::idioms::Idiom;
use crate::llm::ChatMessage;

/// How many values of a tensor an example shows.
const SHOWN_VALUES: usize = 8;
/// How many idioms the prompt shows.
const IDIOMS: usize = 2;
/// How many bundled kernels the prompt shows as worked examples.
const WORKED_EXAMPLES: usize = 3;
/// How many failed attempts of the last round the feedback repeats.
const SHOWN_ATTEMPTS: usize = 3;
/// The most characters of a failed body the feedback repeats: a small model sometimes
/// runs on (`x[i] * x[i] * ...` until its token limit), and three such bodies pushed a
/// prompt past an 8192-token context.
const SHOWN_BODY_CHARS: usize = 600;
/// The most characters of what was wrong with a body the feedback repeats: the checker
/// reports every problem at once, each under the whole line, and a line of sixty terms
/// with a problem in each is a diagnostic of tens of thousands of characters.
const SHOWN_SUMMARY_CHARS: usize = 2000;

/// The algorithm contract: the table of forms of docs/dsl.md's "Algorithm" section and
/// its softmax example.
pub fn contract() -> String {
    const DOC: &str = include_str!("../../../docs/dsl.md");
    let section = DOC
        .split("\n## ")
        .find(|s| s.starts_with("Algorithm"))
        .unwrap_or_default();
    let table: Vec<&str> = section.lines().filter(|l| l.starts_with('|')).collect();
    let example = section
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .and_then(|code| code.split("\nschedule").next())
        .unwrap_or_default();
    format!(
        "One statement per output, `y[i, j] = EXPR;`, after any `let` intermediates \
         (`let m[i] = max[k](x[i, k]);`). The output's subscripts name the axes.\n\n{}\n\nExample:\n{}\n",
        table.join("\n"),
        example.trim_end()
    )
}

/// What a drafting prompt carries beside the language contract, the task, an example
/// and the feedback: what the evaluation's variants switch off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    /// Bundled kernels like the task, as worked examples (`retrieve`).
    pub worked_examples: bool,
    /// The idioms the description calls for (of the run's idioms: by default
    /// idioms/idioms.toml).
    pub idioms: bool,
}

impl Default for Parts {
    fn default() -> Self {
        Parts {
            worked_examples: true,
            idioms: true,
        }
    }
}

/// The chat for one round: the system message, then the task with the feedback of
/// `history`, with the `parts` asked for (the idioms of `idioms` the task calls for).
pub fn messages(
    task: &Task,
    examples: &[Example],
    history: &[Attempt],
    parts: Parts,
    idioms: &[Idiom],
) -> Vec<ChatMessage> {
    let system = "You write the body of a kernel in the npu kernel language: its statements, \
                  nothing else (no signature, no braces, no schedule, no prose).";
    let mut user = format!("The language:\n{}\n", contract());
    if parts.idioms {
        user += &idioms_called_for(task, idioms);
    }
    if parts.worked_examples {
        user += &worked_examples(task);
    }
    let _ = writeln!(
        user,
        "Write the statements of this kernel's body, in place of each `...`; index \
         inputs by the output's axes (`x[i]`), not by numbers:\n```\n{}```",
        task.kernel_with_body(&skeleton(task))
    );
    if let Some(example) = examples.first() {
        user += &example_text(task, example);
    }
    user += &feedback(history);
    vec![ChatMessage::system(system), ChatMessage::user(user)]
}

/// The body's last statements with their right-hand sides left out: each output
/// written over its axes, named as the description names them (`y[i, j] = ...;`).
fn skeleton(task: &Task) -> String {
    let mut lines = String::new();
    for port in task.ports.iter().filter(|p| p.output) {
        let axes = super::axes::output_axes(&task.doc, port);
        let target = match port.rank {
            0 => port.name.clone(),
            _ => format!("{}[{}]", port.name, axes.join(", ")),
        };
        let _ = writeln!(lines, "{target} = ...;");
    }
    lines
}

/// The idioms of `idioms` the task's name and description call for.
fn idioms_called_for(task: &Task, idioms: &[Idiom]) -> String {
    let mut user = String::new();
    let description = format!("{} {}", task.name.replace('_', " "), task.doc);
    for idiom in super::idioms::relevant(idioms, &description, IDIOMS) {
        let _ = writeln!(
            user,
            "\nIdiom: {}\n```\n{}\n```",
            idiom.rationale,
            idiom.example.trim()
        );
    }
    user
}

/// The bundled kernels most like the task, as worked examples.
fn worked_examples(task: &Task) -> String {
    let worked = super::retrieve::worked_examples(task, WORKED_EXAMPLES);
    if worked.is_empty() {
        return String::new();
    }
    let mut user = String::from("\nKernels written in it:\n");
    for kernel in worked {
        let _ = writeln!(user, "```\n{}```", kernel);
    }
    user
}

/// The first values of an example's tensors.
fn example_text(task: &Task, example: &Example) -> String {
    let mut out = String::from("\nAn example (first values, row-major):\n");
    let tensors = example.inputs.iter().chain(&example.expected);
    for (port, tensor) in task.ports.iter().zip(tensors) {
        let _ = writeln!(out, "  {} = {}", port.name, first_values(tensor));
    }
    out
}

fn first_values(tensor: &HostTensor) -> String {
    let values = tensor.values();
    let shown: Vec<String> = values
        .iter()
        .take(SHOWN_VALUES)
        .map(f64::to_string)
        .collect();
    let more = if values.len() > SHOWN_VALUES {
        ", ..."
    } else {
        ""
    };
    format!("[{}{more}]", shown.join(", "))
}

/// `text`, or its first `limit` characters and how many more there were.
fn cut(text: &str, limit: usize) -> String {
    let more = text.chars().count().saturating_sub(limit);
    if more == 0 {
        return text.to_string();
    }
    let shown: String = text.chars().take(limit).collect();
    format!("{shown}\n... ({more} more characters)")
}

/// The last round's failed attempts with what was wrong, each body once.
fn feedback(history: &[Attempt]) -> String {
    let Some(last) = history.last().map(|a| a.round) else {
        return String::new();
    };
    let mut out = String::from("\nEarlier attempts and what was wrong with them:\n");
    let mut shown: Vec<String> = Vec::new();
    for attempt in history.iter().filter(|a| a.round == last) {
        let body = super::attempt::same_body(&attempt.body);
        if shown.contains(&body) || shown.len() == SHOWN_ATTEMPTS {
            continue;
        }
        shown.push(body);
        let _ = writeln!(
            out,
            "```\n{}\n```\n{}\n",
            cut(attempt.body.trim(), SHOWN_BODY_CHARS),
            cut(attempt.summary.trim(), SHOWN_SUMMARY_CHARS)
        );
    }
    out +=
        "None of these is right: do not write them again, write a body that fixes what is wrong.\n";
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_feedback_cuts_a_body_that_ran_on() {
        let body = "x[i] * ".repeat(100);
        let cut = super::cut(&body, 600);
        assert!(body.starts_with(cut.lines().next().unwrap()), "{cut}");
        assert!(cut.ends_with("\n... (100 more characters)"), "{cut}");
        assert_eq!(super::cut("y[i] = x[i];", 600), "y[i] = x[i];");
    }
}
