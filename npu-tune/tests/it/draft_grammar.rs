//! The drafting grammar against the language and the target: it admits every
//! evaluation kernel's reference body (gathers among them), and it offers no dtype the
//! target's vector unit does not compute in and no window longer than the signature's
//! tensors.

use npu_tune::draft::Outcome;
use npu_tune::draft::Task;
use npu_tune::draft::eval::{self, EvalKernel};
use npu_tune::draft::grammar::body_gbnf;
use npu_tune::draft::run::extract_body;

use crate::support::{gbnf, json_schema};

/// Both evaluation sets: the first (subset and fresh kernels) and the users'.
fn evaluation_kernels() -> Vec<EvalKernel> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval");
    let mut kernels = eval::load_named(&dir, eval::FIRST).unwrap();
    kernels.extend(eval::load_named(&dir, eval::USERS).unwrap());
    kernels
}

/// The codes the parser or checker gives `body` for `task` on `target`, none when it
/// checks.
fn codes(task: &Task, body: &str, target: &npu_core::Target) -> Vec<npu_core::Code> {
    match task.try_body(body, target, &[], None) {
        Outcome::Rejected { diagnostics, .. } => diagnostics.codes(),
        _ => Vec::new(),
    }
}

/// Every evaluation kernel's reference body, printed as the grammar spells statements
/// and with its axes named as the grammar names them, is admitted by its signature's
/// grammar: decoding under it never rules out the function the description asks for.
/// The users' set is among them, with its gathers (`out[i] = data[idx[i]];`).
#[test]
fn each_signatures_grammar_admits_its_reference_body() {
    let mut refused = Vec::new();
    for kernel in evaluation_kernels() {
        let grammar = body_gbnf(&kernel.task, &kernel.target);
        let text = kernel.task.kernel_with_body(&kernel.reference);
        let (def, _) = npu_core::internal::parse_str_partial(&text);
        proc_macro2::extra::invalidate_current_thread_spans();
        let body = def.unwrap().body;
        let printed: String = body
            .iter()
            .map(|s| npu_core::print::statement(s) + "\n")
            .collect();
        // The printer writes a subscript's `2*h` tight, the grammar `2 * h`.
        let printed = printed.replace(" * ", "*").replace('*', " * ");
        let renamed = renamed_words(&printed, &grammar_axes(&body, &grammar));
        if !gbnf::admits(&grammar, &renamed).unwrap() {
            refused.push(format!("{}:\n{renamed}", kernel.task.name));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// The body's axes mapped to the grammar's names: each output's subscripts to the
/// axes the grammar writes it over, the other axes in order of appearance to the
/// grammar's reduction axes not taken.
fn grammar_axes(
    body: &[npu_core::ast::Stmt],
    grammar: &str,
) -> std::collections::BTreeMap<String, String> {
    use npu_core::ast::{Expr, Index};
    let mut map = std::collections::BTreeMap::new();
    let mut others: Vec<String> = Vec::new();
    for stmt in body {
        let axes: Vec<String> = stmt
            .indices
            .iter()
            .filter_map(|index| match index {
                Index::Axis(axis) => Some(axis.to_string()),
                _ => None,
            })
            .collect();
        let written = format!("\"{}[\" \"", stmt.output);
        match (stmt.let_token, grammar.split_once(&written)) {
            (None, Some((_, rest))) => {
                let named = rest.split('"').next().unwrap().split(", ");
                map.extend(axes.into_iter().zip(named.map(str::to_string)));
            }
            _ => others.extend(axes),
        }
        stmt.value.each(&mut |expr| {
            if let Expr::Call {
                reduction: Some(reduction),
                ..
            } = expr
            {
                others.extend(reduction.axes.iter().map(|a| a.to_string()));
            }
        });
    }
    let pool = grammar
        .lines()
        .find_map(|line| line.strip_prefix("raxis ::= "))
        .unwrap();
    let taken: Vec<String> = map.values().cloned().collect();
    let mut free = pool
        .split(" | ")
        .map(|a| a.trim_matches('"').to_string())
        .filter(|a| !taken.contains(a));
    for axis in others {
        map.entry(axis)
            .or_insert_with(|| free.next().expect("the grammar names enough axes"));
    }
    map
}

/// `text` with each identifier in `map` replaced by its image.
fn renamed_words(text: &str, map: &std::collections::BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        out += map.get(&word).unwrap_or(&word);
        word.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

/// f32 division on AIE2, whose vector unit computes no f32 (the checker refuses it with
/// E026), is not admitted, while the same division on the 910B is, and so is the AIE2
/// body that casts to bf16, computes there and casts the result back, which checks.
#[test]
fn the_grammar_offers_no_dtype_the_target_does_not_compute_in() {
    let text = |target: &str| {
        format!(
            "kernel divide(a: [f32; 64], b: [f32; 64]) -> y: [f32; 64] {{}}\ntarget {target};\n"
        )
    };
    let divide = "y[i] = a[i] / b[i];\n";
    let cast = "y[i] = (a[i] as bf16 / b[i] as bf16) as f32;\n";
    let aie = npu_core::Target::preset("aie2_tile").unwrap();
    let task = Task::parse(&text("aie2_tile")).unwrap();
    let grammar = body_gbnf(&task, &aie);
    assert!(codes(&task, divide, &aie).contains(&npu_core::Code::E026));
    assert!(!gbnf::admits(&grammar, divide).unwrap(), "{grammar}");
    assert!(!gbnf::admits(&grammar, "y[i] = a[i] as bf16 as f32 / 2;\n").unwrap());
    assert_eq!(codes(&task, cast, &aie), []);
    assert!(gbnf::admits(&grammar, cast).unwrap(), "{grammar}");
    assert!(
        gbnf::admits(&grammar, "y[i] = a[i];\n").unwrap(),
        "a copy computes nothing"
    );
    let ascend = npu_core::Target::preset("ascend910b").unwrap();
    let task = Task::parse(&text("ascend910b")).unwrap();
    assert!(gbnf::admits(&body_gbnf(&task, &ascend), divide).unwrap());
}

/// No body sampled under an evaluation kernel's grammar is refused for computing what
/// its target cannot (E026): a dtype outside `vector.dtypes` or an operation without a
/// cost.
#[test]
fn no_sampled_body_computes_what_its_target_cannot() {
    let mut refused = Vec::new();
    for kernel in evaluation_kernels() {
        let grammar = body_gbnf(&kernel.task, &kernel.target);
        for seed in 0..8 {
            let body = extract_body(&gbnf::sample(&grammar, seed).unwrap());
            if codes(&kernel.task, &body, &kernel.target).contains(&npu_core::Code::E026) {
                refused.push(format!("{} (seed {seed}):\n{body}", kernel.task.name));
            }
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// A window is at most as long as the longest dimension of an input tensor: over 64
/// elements, `argmax[k < 1024]` is not admitted (the issue saw a model write it), and
/// the checker, which knows which tensor `k` indexes, says to state `k < 64`; the
/// JSON Schema bounds the extent alike.
#[test]
fn a_window_is_no_longer_than_the_signatures_tensors() {
    let text = "kernel top(x: [f32; 64]) -> y: i32 {}\ntarget ascend910b;\n";
    let task = Task::parse(text).unwrap();
    let target = npu_core::Target::preset("ascend910b").unwrap();
    let grammar = body_gbnf(&task, &target);
    for (extent, admitted) in [
        (1, true),
        (9, true),
        (10, true),
        (59, true),
        (64, true),
        (65, false),
        (70, false),
        (100, false),
        (1024, false),
    ] {
        let body = format!("y = argmax[k < {extent}](x[k]);\n");
        assert_eq!(gbnf::admits(&grammar, &body).unwrap(), admitted, "{body}");
    }
    let Outcome::Rejected { rendered, .. } =
        task.try_body("y = argmax[k < 100](x[k]);\n", &target, &[], None)
    else {
        panic!("a window past `x` checks");
    };
    assert!(rendered.contains("state `k < 64`"), "{rendered}");
    let schema = npu_tune::draft::schema::body_schema(&task, &target);
    for (extent, admitted) in [(64, true), (65, false)] {
        let tree = serde_json::json!({"statements": [{"name": "y", "axes": [], "value": {"reduce": "max",
            "axes": [{"axis": "k", "extent": extent}], "body": {"load": "x", "index": ["k"]}}}]});
        let valid = json_schema::validate(&schema, &tree);
        assert_eq!(valid.is_ok(), admitted, "{extent}: {valid:?}");
    }
}
