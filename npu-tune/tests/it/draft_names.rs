//! Drafting grammars for any names the language accepts: a signature's tensors may be
//! named as users name buffers (`in_buffer`), as keywords of the DSL (`kernel`), or
//! raw (`r#in`), and the grammar built for it must still be one llama.cpp's parser
//! takes, and still admit the body the user means.

use npu_tune::draft::Task;
use npu_tune::draft::grammar::body_gbnf;

use crate::support::{gbnf, json_schema};

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
/// parameter, `{o}`, `{p}` outputs), a body in the grammar's spelling, and the same
/// body as the JSON syntax tree of `draft::schema`.
const TEMPLATES: [(&str, &str, &str); 4] = [
    (
        "kernel {k}({a}: [f32; 16, 8], {b}: [f32; 8], {s}: f32) -> {o}: [f32; 16, 8] {}",
        "{o}[i, j] = {a}[i, j] * {b}[j] + {s};\n",
        r#"[{"name": "{o}", "axes": ["i", "j"], "value": {"op": "+", "lhs": {"op": "*", "lhs": {"load": "{a}", "index": ["i", "j"]}, "rhs": {"load": "{b}", "index": ["j"]}}, "rhs": {"scalar": "{s}"}}}]"#,
    ),
    (
        "kernel {k}({a}: [f32; 4, 64], {b}: [f32; 64]) -> {o}: [f32; 4] {}",
        "let t0[i] = max[k]({a}[i, k]);\n{o}[i] = sum[k](exp({a}[i, k] - t0[i]) * {b}[k]);\n",
        r#"[{"let": "t0", "axes": ["i"], "value": {"reduce": "max", "axes": [{"axis": "k"}], "body": {"load": "{a}", "index": ["i", "k"]}}},
            {"name": "{o}", "axes": ["i"], "value": {"reduce": "sum", "axes": [{"axis": "k"}], "body": {"op": "*", "lhs": {"call": "exp", "arg": {"op": "-", "lhs": {"load": "{a}", "index": ["i", "k"]}, "rhs": {"load": "t0", "index": ["i"]}}}, "rhs": {"load": "{b}", "index": ["k"]}}}}]"#,
    ),
    (
        "kernel {k}({a}: [i32; 32], {s}: i32) -> ({o}: [i32; 32], {p}: [i32; 32]) {}",
        "{o}[i] = {a}[i] & {s};\n{p}[i] = pad({a}, {s})[i + 1];\n",
        r#"[{"name": "{o}", "axes": ["i"], "value": {"op": "&", "lhs": {"load": "{a}", "index": ["i"]}, "rhs": {"scalar": "{s}"}}},
            {"name": "{p}", "axes": ["i"], "value": {"pad": "{a}", "fill": {"scalar": "{s}"}, "index": ["i + 1"]}}]"#,
    ),
    (
        "kernel {k}({a}: [f32; 64], {b}: [f32; 64]) -> {o}: f32 {}",
        "{o} = sum[k]({a}[k] * {b}[k]);\n",
        r#"[{"name": "{o}", "axes": [], "value": {"reduce": "sum", "axes": [{"axis": "k"}], "body": {"op": "*", "lhs": {"load": "{a}", "index": ["k"]}, "rhs": {"load": "{b}", "index": ["k"]}}}}]"#,
    ),
];

/// More templates, drawn after [`TEMPLATES`]' (whose draws stay as they were): a
/// gather, and i8, which the 910B's vector unit reads only to cast.
const READS: [(&str, &str, &str); 2] = [
    (
        "kernel {k}({a}: [f32; 16, 8], {b}: [i32; 4], {s}: f32) -> {o}: [f32; 4, 8] {}",
        "{o}[i, j] = {a}[{b}[i], j] * {s};\n",
        r#"[{"name": "{o}", "axes": ["i", "j"], "value": {"op": "*", "lhs": {"load": "{a}", "index": [{"gather": "{b}", "index": ["i"]}, "j"]}, "rhs": {"scalar": "{s}"}}}]"#,
    ),
    (
        "kernel {k}({a}: [i8; 32], {s}: f32) -> {o}: [i8; 32] {}",
        "{o}[i] = ({a}[i] as f32 * {s}) as sat i8;\n",
        r#"[{"name": "{o}", "axes": ["i"], "value": {"cast": "i8", "saturate": true, "value": {"op": "*", "lhs": {"cast": "f32", "saturate": false, "value": {"load": "{a}", "index": ["i"]}}, "rhs": {"scalar": "{s}"}}}}]"#,
    ),
];

/// One signature with its names filled in, and its body.
pub(crate) struct Case {
    pub(crate) task: Task,
    pub(crate) target: npu_core::Target,
    pub(crate) body: String,
    /// The body as the JSON syntax tree a server decoding under the schema writes.
    pub(crate) tree: serde_json::Value,
}

/// The cases of `trials` draws whose kernel the language accepts (it parses and its
/// body checks): first each of [`NAMED`] for every tensor of every template, then
/// random identifiers, from a fixed seed; then half as many of [`READS`].
pub(crate) fn cases(trials: usize) -> Vec<Case> {
    let mut rng = fastrand::Rng::with_seed(40);
    let mut cases = Vec::new();
    let draws = [(&TEMPLATES[..], trials), (&READS[..], trials / 2)];
    for (trial, templates) in draws
        .into_iter()
        .flat_map(|(templates, count)| (0..count).map(move |trial| (trial, templates)))
    {
        let (signature, body, tree) = templates[trial % templates.len()];
        let mut names: Vec<String> = (0..6).map(|_| identifier(&mut rng)).collect();
        if let Some(named) = NAMED.get(trial / templates.len()) {
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
        let tree = serde_json::from_str(&format!("{{\"statements\": {}}}", fill(tree)))
            .expect("identifiers need no escape in JSON");
        if let Some(case) = accepted(&text, &fill(body), tree) {
            cases.push(case);
        }
    }
    cases
}

/// The case of `text` and `body` when the language accepts the kernel.
fn accepted(text: &str, body: &str, tree: serde_json::Value) -> Option<Case> {
    let task = Task::parse(text).ok()?;
    let target = npu_core::Target::preset("ascend910b")?;
    let outcome = task.try_body(body, &target, &[], None);
    matches!(outcome, npu_tune::draft::Outcome::Matches { .. }).then(|| Case {
        task,
        target,
        body: body.to_string(),
        tree,
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
    for (read, written) in [("a gather", "[i], j]"), ("a cast i8 read", "as sat i8")] {
        let found = cases.iter().any(|c| c.body.contains(written));
        assert!(found, "no accepted signature reads {read}");
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

/// The JSON Schema path over the same signatures: each schema admits the body's syntax
/// tree, which prints back to a body that checks and computes what the body does on
/// seeded inputs.
#[test]
fn the_schema_of_any_accepted_signature_admits_its_body_as_a_tree() {
    use npu_tune::draft::Outcome;
    use npu_tune::draft::examples::Example;
    use npu_tune::draft::schema::{body_from_json, body_schema};
    let cases = cases(400);
    assert!(cases.len() >= 200, "only {} of 400 accepted", cases.len());
    for case in &cases {
        let schema = body_schema(&case.task, &case.target);
        if let Err(error) = json_schema::validate(&schema, &case.tree) {
            panic!("{}: {error}\n{schema}", case.task.text);
        }
        let mut misnamed = case.tree.clone();
        misnamed["statements"][0]["name"] = "no_such_output".into();
        assert!(
            json_schema::validate(&schema, &misnamed).is_err(),
            "{misnamed}"
        );
        let Outcome::Matches { kernel, .. } =
            case.task.try_body(&case.body, &case.target, &[], None)
        else {
            panic!("the cases' bodies check");
        };
        let (inputs, expected) = npu_sim::testing::seeded_inputs(&kernel, 40);
        let examples = [Example { inputs, expected }];
        let printed = body_from_json(&case.tree.to_string()).unwrap();
        let outcome = case.task.try_body(&printed, &case.target, &examples, None);
        assert!(
            matches!(outcome, Outcome::Matches { verified: true, .. }),
            "{}\n{printed}\n{outcome:?}",
            case.task.text
        );
    }
}

/// `autotune draft` on a kernel whose tensors are named as C programmers name buffers
/// reaches the model: the loopback server, which refuses a grammar llama.cpp's parser
/// refuses (HTTP 400, as the server did for `load-in_buffer1`), gets one it takes, and
/// the reply is checked, verified on the examples and written.
#[test]
fn a_kernel_with_c_buffer_names_reaches_the_model() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    const KERNEL: &str = "/// This kernel adds input_vector to in_buffer.\nkernel add_buffers(in_buffer: [f32; 4], input_vector: [f32; 4]) -> out_buffer: [f32; 4] {}\ntarget ascend910b;\n";
    const EXAMPLES: &str = r#"{"examples": [{"inputs": {"in_buffer": [1, 2, 3, 4], "input_vector": [10, 20, 30, 40]}, "outputs": {"out_buffer": [11, 22, 33, 44]}}]}"#;
    let body = "out_buffer[i] = in_buffer[i] + input_vector[i];\n";
    let dir = tempfile::tempdir().unwrap();
    let (kernel, examples) = (dir.path().join("add.npu"), dir.path().join("add.json"));
    std::fs::write(&kernel, KERNEL).unwrap();
    std::fs::write(&examples, EXAMPLES).unwrap();
    let server = ChatServer::start_repeating(Behaviour::Reply(body.into()));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
        .arg("draft")
        .arg(&kernel)
        .arg("--examples")
        .arg(&examples)
        .args(["--rounds", "1", "--candidates", "1", "--no-tune"])
        .args(["--llm-url", &server.base_url()])
        .env_remove("NPU_LLM_URL")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let requests = server.requests();
    let grammar = requests[0].body["grammar"]
        .as_str()
        .expect("a GBNF grammar");
    gbnf::check(grammar).unwrap();
    assert!(gbnf::admits(grammar, body).unwrap(), "{grammar}");
    let written = std::fs::read_to_string(&kernel).unwrap();
    assert!(written.contains(body.trim_end()), "{written}");
}
