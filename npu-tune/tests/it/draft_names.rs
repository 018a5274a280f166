//! Drafting grammars for any names the language accepts: a signature's tensors may be
//! named as users name buffers (`in_buffer`), as keywords of the DSL (`kernel`), or
//! raw (`r#in`), and the grammar built for it must still be one llama.cpp's parser
//! takes, and still admit the body the user means.

use npu_tune::draft::Task;
use npu_tune::draft::grammar::body_gbnf;

use crate::support::gbnf;

/// Names the issue saw fail or that a user writes, tried before random ones.
const NAMED: [&str; 16] = [
    "in_buffer",
    "input_vector",
    "out_buffer",
    "kernel",
    "input",
    "out",
    "r#in",
    "r#type",
    "target",
    "schedule",
    "sum",
    "_scratch",
    "x_1",
    "W2",
    "weights__t",
    "idx",
];

/// Kernels with names to fill (`{k}` the kernel, `{a}`, `{b}` inputs, `{s}` a scalar
/// parameter, `{o}`, `{p}` outputs) and a body in the grammar's spelling.
const TEMPLATES: [(&str, &str); 4] = [
    (
        "kernel {k}({a}: [f32; 16, 8], {b}: [f32; 8], {s}: f32) -> {o}: [f32; 16, 8] {}",
        "{o}[i, j] = {a}[i, j] * {b}[j] + {s};\n",
    ),
    (
        "kernel {k}({a}: [f32; 4, 64], {b}: [f32; 64]) -> {o}: [f32; 4] {}",
        "let t0[i] = max[k]({a}[i, k]);\n{o}[i] = sum[k](exp({a}[i, k] - t0[i]) * {b}[k]);\n",
    ),
    (
        "kernel {k}({a}: [i32; 32], {s}: i32) -> ({o}: [i32; 32], {p}: [i32; 32]) {}",
        "{o}[i] = {a}[i] & {s};\n{p}[i] = pad({a}, {s})[i + 1];\n",
    ),
    (
        "kernel {k}({a}: [f32; 64], {b}: [f32; 64]) -> {o}: f32 {}",
        "{o} = sum[k]({a}[k] * {b}[k]);\n",
    ),
];

/// One signature with its names filled in, and its body.
pub(crate) struct Case {
    pub(crate) task: Task,
    pub(crate) target: npu_core::Target,
    pub(crate) body: String,
}

/// The cases of `trials` draws whose kernel the language accepts (it parses and its
/// body checks): first each of [`NAMED`] for every tensor of every template, then
/// random identifiers, from a fixed seed.
pub(crate) fn cases(trials: usize) -> Vec<Case> {
    let mut rng = fastrand::Rng::with_seed(40);
    let mut cases = Vec::new();
    for trial in 0..trials {
        let (signature, body) = TEMPLATES[trial % TEMPLATES.len()];
        let mut names: Vec<String> = (0..6).map(|_| identifier(&mut rng)).collect();
        if let Some(named) = NAMED.get(trial / TEMPLATES.len()) {
            names[1] = named.to_string();
            names[4] = format!("{named}_out");
        }
        let fill = |text: &str| {
            ["k", "a", "b", "s", "o", "p"]
                .iter()
                .zip(&names)
                .fold(text.to_string(), |text, (slot, name)| {
                    text.replace(&format!("{{{slot}}}"), name)
                })
        };
        let text = format!("/// A kernel.\n{}\ntarget ascend910b;\n", fill(signature));
        if let Some(case) = accepted(&text, &fill(body)) {
            cases.push(case);
        }
    }
    cases
}

/// The case of `text` and `body` when the language accepts the kernel.
fn accepted(text: &str, body: &str) -> Option<Case> {
    let task = Task::parse(text).ok()?;
    let target = npu_core::Target::preset("ascend910b")?;
    let outcome = task.try_body(body, &target, &[], None);
    matches!(outcome, npu_tune::draft::Outcome::Matches { .. }).then(|| Case {
        task,
        target,
        body: body.to_string(),
    })
}

/// An identifier: a letter or `_` and up to 11 letters, digits and `_`, raw (`r#`)
/// one time in six.
fn identifier(rng: &mut fastrand::Rng) -> String {
    const FIRST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
    const REST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
    let mut name = String::from(FIRST[rng.usize(..FIRST.len())] as char);
    for _ in 0..rng.usize(..12) {
        name.push(REST[rng.usize(..REST.len())] as char);
    }
    match rng.usize(..6) {
        0 => format!("r#{name}"),
        _ => name,
    }
}

/// Every accepted signature's grammar is one llama.cpp's parser takes, and it admits
/// the body written for it; the names the issue saw fail are among those accepted.
#[test]
fn the_grammar_of_any_accepted_signature_parses_and_admits_its_body() {
    let cases = cases(400);
    assert!(cases.len() >= 200, "only {} of 400 accepted", cases.len());
    for name in [
        "in_buffer",
        "input_vector",
        "out_buffer",
        "kernel",
        "input",
        "r#in",
    ] {
        assert!(
            cases
                .iter()
                .any(|c| c.task.ports.iter().any(|p| p.name == name)),
            "no accepted signature names a tensor `{name}`"
        );
    }
    for case in &cases {
        let grammar = body_gbnf(&case.task, &case.target);
        if let Err(error) = gbnf::check(&grammar) {
            panic!("{}: {error}\n{grammar}", case.task.text);
        }
        assert!(
            gbnf::admits(&grammar, &case.body).unwrap(),
            "{}\n{}\n{grammar}",
            case.task.text,
            case.body
        );
    }
}
