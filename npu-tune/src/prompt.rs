//! The LLM prompt: role, target summary, the kernel, the schedule contract from
//! docs/dsl.md, worked examples that fit the kernel, and the previous rounds' feedback.
//!
//! It is kept under 3,000 tokens so a small local model (Qwen2.5-Coder-1.5B) can use
//! it, and the model is asked for one schedule block only, never a whole kernel.

use std::fmt::Write as _;

use npu_core::{Dtype, Target};

use super::evaluate::Problem;
use super::knowledge::{KnowledgeBase, Query};
use super::llm::ChatMessage;
use super::record::{CandidateRecord, Verdict};

/// The schedule part of docs/dsl.md, between its contract markers.
pub fn contract() -> &'static str {
    const DOC: &str = include_str!("../../docs/dsl.md");
    let start = DOC
        .find("<!-- contract:start -->")
        .map_or(0, |i| i + "<!-- contract:start -->".len());
    let end = DOC.find("<!-- contract:end -->").unwrap_or(DOC.len());
    DOC[start..end].trim()
}

/// Worked examples: an elementwise, a reduction, a matmul, a fused kernel (with `let`
/// intermediates), a windowed one (a pooling window read through an affine
/// subscript) and a batched matmul, each with a good schedule. A test checks that each
/// one passes the checker.
pub const EXAMPLES: [&str; 6] = [
    "kernel scale(x: [f16; 131072]) -> y: [f16; 131072] {\n    y[i] = x[i] * 0.5;\n}\ntarget ascend910b;\nschedule fast {\n    parallel i over 32 cores;\n    split i by 4096;\n    stage x, y in ub depth 2;\n}\n",
    "kernel rowmax(x: [f32; 512, 1024]) -> y: [f32; 512] {\n    y[i] = max[k](x[i, k]);\n}\ntarget ascend910b;\nschedule fast {\n    parallel i over 32 cores;\n    split i by 16;\n    split k by 512;\n    stage x, y in ub depth 2;\n}\n",
    "kernel mm(a: [f16; 512, 512], b: [f16; 512, 512]) -> c: [f32; 512, 512] {\n    c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);\n}\ntarget ascend910b;\nschedule fast {\n    parallel m over 8 cores;\n    split n by 256;\n    split k by 256;\n    cube m by 64, n by 128, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c depth 1;\n}\n",
    "kernel softmax(x: [f32; 256, 1024]) -> y: [f32; 256, 1024] {\n    let m[i] = max[k](x[i, k]);\n    let e[i, k] = exp(x[i, k] - m[i]);\n    let s[i] = sum[k](e[i, k]);\n    y[i, k] = e[i, k] / s[i];\n}\ntarget ascend910b;\nschedule fast {\n    parallel i over 32 cores;\n    split i by 4;\n    stage x, y in ub depth 2;\n}\n",
    "kernel pool(x: [f16; 64, 4097]) -> y: [f16; 64, 2048] {\n    y[c, i] = max[k < 3](x[c, 2*i + k]);\n}\ntarget ascend910b;\nschedule fast {\n    parallel c over 32 cores;\n    split c by 1;\n    split i by 512;\n    stage x, y in ub depth 2;\n    tail pad;\n}\n",
    "kernel bmm(a: [f16; 16, 256, 256], b: [f16; 16, 256, 256]) -> c: [f32; 16, 256, 256] {\n    c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32);\n}\ntarget ascend910b;\nschedule fast {\n    parallel t over 16 cores;\n    split t by 1;\n    split k by 128;\n    cube m by 128, n by 128, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c depth 1;\n}\n",
];

/// The examples that fit the kernel's class and target: the cube example only for a
/// matmul (the batched one only for a batched matmul, the plain one otherwise), the
/// vector ones otherwise (the fused one only for a kernel with `let`
/// intermediates, where its whole reduced axis matters; the windowed one only for a
/// kernel that reads windows, where halos matter), on the kernel's target, with
/// no more cores than it has (no `parallel` line at all on a one-core target). A test
/// checks each.
pub fn examples(problem: &Problem) -> Vec<String> {
    let kernel = &problem.kernel;
    let is_matmul = matches!(kernel.class, npu_core::ir::KernelClass::Matmul(_));
    let is_batched =
        matches!(&kernel.class, npu_core::ir::KernelClass::Matmul(mm) if mm.batch.is_some());
    let cores = if is_matmul {
        kernel.target.cores.cube
    } else {
        kernel.target.cores.vector
    };
    EXAMPLES
        .iter()
        .filter(|example| example.contains("cube ") == is_matmul)
        .filter(|example| !is_matmul || example.contains("c[t, m, n]") == is_batched)
        .filter(|example| !example.contains("    let ") || kernel.is_fused())
        .filter(|example| !example.contains("2*i + k") || reads_windows(kernel))
        .map(|example| {
            let mut out = String::new();
            for line in example.lines() {
                let fitted = match line.trim_start().strip_prefix("parallel ") {
                    Some(_) if cores <= 1 => continue,
                    Some(rest) => {
                        let words: Vec<&str> = rest.split_whitespace().collect();
                        match words.as_slice() {
                            [axis, "over", count, "cores;"] => {
                                let count: u32 = count.parse().unwrap_or(cores).min(cores);
                                format!("    parallel {axis} over {count} cores;")
                            }
                            _ => line.to_string(),
                        }
                    }
                    None if line.starts_with("target ") => {
                        format!("target {};", kernel.target.name)
                    }
                    None => line.to_string(),
                };
                out += &fitted;
                out.push('\n');
            }
            // A float dtype the target's vector unit lacks (f16 and f32 on AIE2) becomes
            // one it computes.
            if !is_matmul
                && let Some(float) = kernel.target.vector.dtypes.iter().find(|d| d.is_float())
            {
                for dtype in [Dtype::F16, Dtype::F32] {
                    if !kernel.target.vector.dtypes.contains(&dtype) {
                        out = out.replace(&format!("{dtype};"), &format!("{float};"));
                    }
                }
            }
            out
        })
        // An example is shown only if it is legal on this target: the model copies it.
        .filter(|example| npu_core::check_source(example, &kernel.target).is_ok())
        .collect()
}

/// Whether the kernel reads a tensor through an affine subscript (a window).
fn reads_windows(kernel: &npu_core::CheckedKernel) -> bool {
    let mut windowed = false;
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let npu_core::ir::Expr::Load { subscripts, .. } = node {
                windowed |= subscripts
                    .iter()
                    .any(|s| matches!(s, npu_core::ir::Subscript::Affine { .. }));
            }
        });
    }
    windowed
}

/// How many earlier candidates the feedback shows at most.
const FEEDBACK_ITEMS: usize = 6;

/// A few lines on the target, generated from its data.
pub fn target_summary(target: &Target) -> String {
    let kib = |bytes: u64| bytes / 1024;
    let mut text = format!("Target `{}`: {}.\n", target.name, target.description);
    let _ = writeln!(
        text,
        "- {} vector cores, {} cube cores; UB {} KiB per core (copies aligned to {} B)",
        target.cores.vector,
        target.cores.cube,
        kib(target.memory.ub),
        target.align.ub
    );
    if target.memory.l1 > 0 && target.cube.is_some() {
        let _ = writeln!(
            text,
            "- L1 {} KiB, L0A {} KiB, L0B {} KiB, L0C {} KiB",
            kib(target.memory.l1),
            kib(target.memory.l0a),
            kib(target.memory.l0b),
            kib(target.memory.l0c)
        );
    }
    let dtypes: Vec<&str> = target.vector.dtypes.iter().map(|d| d.name()).collect();
    let _ = writeln!(
        text,
        "- vector unit: {} B per repeat, at most {} repeats per instruction; computes {}",
        target.vector.repeat_bytes,
        target.vector.max_repeat,
        dtypes.join(", ")
    );
    if let Some(cube) = &target.cube {
        let _ = writeln!(text, "- cube: {}x{}x{} fractal", cube.m, cube.n, cube.k);
    }
    let _ = writeln!(
        text,
        "- global memory: {} B/cycle shared, {} B/cycle per core, {} cycles latency per copy; {} event ids per pipe pair",
        target.dma.gm_bytes_per_cycle,
        target.dma.core_bytes_per_cycle,
        target.dma.latency_cycles,
        target.events
    );
    text
}

/// How many knowledge entries a prompt shows at most.
pub const KNOWLEDGE_ITEMS: usize = 3;

/// The chat for one round, with the built-in knowledge base.
pub fn messages(problem: &Problem, round: u32, history: &[CandidateRecord]) -> Vec<ChatMessage> {
    messages_with(problem, round, history, Some(&KnowledgeBase::builtin())).0
}

/// The chat for one round, with the entries of `knowledge` that fit what the history
/// showed; also returns the ids of the entries shown.
pub fn messages_with(
    problem: &Problem,
    round: u32,
    history: &[CandidateRecord],
    knowledge: Option<&KnowledgeBase>,
) -> (Vec<ChatMessage>, Vec<String>) {
    let system = "You are an expert NPU kernel engineer. You write schedules in the npu \
                  schedule language for a given kernel. Answer with exactly one `schedule` \
                  block and nothing else: no kernel, no prose.";
    let mut user = String::new();
    let _ = writeln!(user, "{}", target_summary(&problem.kernel.target));
    let _ = writeln!(
        user,
        "The kernel (algorithm fixed; only the schedule is yours):\n```\n{}```\n",
        problem.kernel.header
    );
    let _ = writeln!(user, "{}\n", contract());
    if let Some(hand) = hand_schedule(problem) {
        let _ = writeln!(
            user,
            "A correct schedule for this kernel, to improve on:\n```\n{hand}```\n"
        );
    }
    let _ = writeln!(user, "Examples of good schedules for other kernels:");
    for example in examples(problem) {
        let _ = writeln!(user, "```\n{example}```");
    }
    user += &feedback(history);
    let mut used = Vec::new();
    if let Some(base) = knowledge {
        let query = Query::from_history(&problem.kernel, history);
        let entries = base.retrieve(&query, KNOWLEDGE_ITEMS);
        if !entries.is_empty() {
            let _ = writeln!(user, "\nHardware notes that fit these results:");
            for entry in entries {
                let _ = writeln!(
                    user,
                    "- {} For example, for kernel `{}`:\n```\n{}```",
                    entry.rationale, entry.kernel, entry.template
                );
                used.push(entry.id.clone());
            }
        }
    }
    let best = history
        .iter()
        .filter(|r| r.verdict == Verdict::Correct)
        .min_by_key(|r| r.cycles);
    match best {
        // Later rounds ask for an edit of the best so far: small models do better
        // changing a legal schedule than writing one from nothing.
        Some(best) => {
            let _ = writeln!(
                user,
                "\nRound {}. The best schedule so far ({}):\n```\n{}\n```\nEdit it: change one or \
                 two items (a tile, the cores, a depth, the tail) so that it is faster, keeping it \
                 legal. Answer with the whole edited schedule block for kernel `{}`.",
                round + 1,
                best.feedback,
                best.source.trim_end(),
                problem.name
            );
        }
        None => {
            let _ = writeln!(
                user,
                "\nRound {}. Write one new schedule block for kernel `{}` that is legal and faster \
                 than the ones above. Use only the axes and tensors of this kernel.",
                round + 1,
                problem.name
            );
        }
    }
    (
        vec![ChatMessage::system(system), ChatMessage::user(user)],
        used,
    )
}

/// The kernel's first own schedule: a legal starting point that names every tensor.
fn hand_schedule(problem: &Problem) -> Option<String> {
    let first = problem.kernel.schedules.first()?;
    Some(first.source.clone())
}

/// The whole chat as one text, for hashing and snapshots.
pub fn text(messages: &[ChatMessage]) -> String {
    messages
        .iter()
        .map(|m| format!("[{}]\n{}\n", m.role, m.content))
        .collect()
}

/// What earlier rounds learned: the best schedules with their cycles and symptoms,
/// then the latest failures with their reasons.
pub fn feedback(history: &[CandidateRecord]) -> String {
    if history.is_empty() {
        return String::new();
    }
    let mut text = String::from("\nResults of your earlier schedules:\n");
    let mut correct: Vec<&CandidateRecord> = history
        .iter()
        .filter(|r| r.verdict == Verdict::Correct)
        .collect();
    correct.sort_by_key(|r| r.cycles);
    let mut shown = 0;
    for record in correct.iter().take(FEEDBACK_ITEMS / 2) {
        let _ = writeln!(
            text,
            "```\n{}```\n-> {}\n",
            record.source.trim_end().to_owned() + "\n",
            record.feedback
        );
        shown += 1;
    }
    for record in history
        .iter()
        .rev()
        .filter(|r| r.verdict != Verdict::Correct)
        .take(FEEDBACK_ITEMS - shown)
    {
        let reason = if record.feedback.len() > 600 {
            format!(
                "{}...",
                &record.feedback[..floor_char(&record.feedback, 600)]
            )
        } else {
            record.feedback.clone()
        };
        let _ = writeln!(
            text,
            "```\n{}\n```\n-> {}\n",
            record.source.trim_end(),
            reason
        );
    }
    text
}

fn floor_char(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// A rough token count (about four characters per token for code and English).
pub fn estimate_tokens(messages: &[ChatMessage]) -> usize {
    messages.iter().map(|m| m.content.len().div_ceil(4)).sum()
}
