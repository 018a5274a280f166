//! Drafting kernel bodies: every body sampled under a signature's grammar parses,
//! names only the signature's tensors, and writes every output once.

use npu_tune::draft::Task;
use npu_tune::draft::grammar::body_gbnf;

use crate::support::gbnf;

const TASKS: [&str; 4] = [
    "/// Softmax over rows.\nkernel softmax(x: [f32; 8, 64]) -> y: [f32; 8, 64] {}\ntarget ascend910b;\n",
    "kernel mix(a: [i16; 256], b: [i16; 256], s: i16) -> (y: [i16; 256], z: [i32; 256]) {}\ntarget ascend910b;\n",
    "kernel total(x: [bf16; 1024]) -> y: f32 {}\ntarget aie2_tile;\n",
    "kernel conv(x: [f16; 4, 34, 34], w: [f16; 8, 4, 3, 3]) -> y: [f16; 8, 32, 32] {}\ntarget ascend310p;\n",
];

#[test]
fn bodies_sampled_under_the_grammar_parse_and_name_only_the_signature() {
    for text in TASKS {
        let task = Task::parse(text).unwrap();
        let target_name = text
            .rsplit("target ")
            .next()
            .unwrap()
            .trim()
            .trim_end_matches(';');
        let target = npu_core::Target::preset(target_name).unwrap();
        let grammar = body_gbnf(&task, &target);
        for seed in 0..40 {
            let reply = gbnf::sample(&grammar, seed).unwrap();
            let kernel = task.with_body(&npu_tune::draft::run::extract_body(&reply));
            let parsed = npu_core::internal::parse_str(&kernel)
                .map(|_| ())
                .map_err(|diagnostics| diagnostics.render(&kernel));
            proc_macro2::extra::invalidate_current_thread_spans();
            if let Err(rendered) = parsed {
                panic!("{rendered}\n{grammar}");
            }
            for port in task.ports.iter().filter(|p| p.output) {
                let written = format!("\n    {}", port.name);
                assert_eq!(kernel.matches(&written).count(), 1, "{kernel}");
            }
        }
    }
}

/// No rule of a body grammar has two alternatives that begin with the same rule: a
/// server decoding under `expr ::= term | term " + " expr` keeps a parse stack per
/// live alternative at every level of nesting, and with the 1.5B model one token of a
/// nested expression took minutes.
#[test]
fn body_grammars_are_left_factored() {
    for text in TASKS {
        let task = Task::parse(text).unwrap();
        for target in ["ascend910b", "ascend310p", "aie2_tile"] {
            let grammar = body_gbnf(&task, &npu_core::Target::preset(target).unwrap());
            let shared = gbnf::shared_prefixes(&grammar).unwrap();
            assert!(shared.is_empty(), "{shared:?}\n{grammar}");
        }
    }
}

#[test]
fn the_grammar_offers_only_what_the_target_computes() {
    let task = Task::parse(TASKS[2]).unwrap();
    let aie = body_gbnf(&task, &npu_core::Target::preset("aie2_tile").unwrap());
    let ascend = body_gbnf(&task, &npu_core::Target::preset("ascend910b").unwrap());
    assert!(ascend.contains("\"cumprod\""), "{ascend}");
    assert!(
        !aie.contains("\"cumprod\""),
        "AIE2 has no running product: {aie}"
    );
    assert!(
        !aie.contains("bits ::="),
        "no integer tensor: no bit operations"
    );
    let integers = Task::parse(TASKS[1]).unwrap();
    let grammar = body_gbnf(&integers, &npu_core::Target::preset("ascend910b").unwrap());
    assert!(grammar.contains("| bits expr"), "{grammar}");
    assert!(
        grammar.contains("\"s\""),
        "the scalar parameter by bare name: {grammar}"
    );
}

const ROWS: &str =
    "/// Row sums of x.\nkernel rows(x: [f32; 4, 3]) -> y: [f32; 4] {}\ntarget ascend910b;\n";
const ROWS_EXAMPLES: &str = r#"{"examples": [{"inputs": {"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 1]}, "outputs": {"y": [6, 15, 24, 1]}}]}"#;

/// A directory holding `rows.npu` ([`ROWS`]) and `rows.json` ([`ROWS_EXAMPLES`]), which
/// the loopback tests draft.
struct Rows {
    dir: tempfile::TempDir,
    kernel: std::path::PathBuf,
    examples: std::path::PathBuf,
}

impl Rows {
    fn new() -> Rows {
        let dir = tempfile::tempdir().unwrap();
        let (kernel, examples) = (dir.path().join("rows.npu"), dir.path().join("rows.json"));
        std::fs::write(&kernel, ROWS).unwrap();
        std::fs::write(&examples, ROWS_EXAMPLES).unwrap();
        Rows {
            dir,
            kernel,
            examples,
        }
    }

    /// `autotune draft rows.npu --examples rows.json ARGS`, with no `NPU_LLM_URL` from
    /// the environment.
    fn draft(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_autotune"))
            .arg("draft")
            .arg(&self.kernel)
            .arg("--examples")
            .arg(&self.examples)
            .args(args)
            .env_remove("NPU_LLM_URL")
            .output()
            .unwrap()
    }

    /// One round of one candidate from the server at `url`, not tuned, with `extra`.
    fn draft_once(&self, url: &str, extra: &[&str]) -> std::process::Output {
        let once = [
            "--rounds",
            "1",
            "--candidates",
            "1",
            "--no-tune",
            "--llm-url",
            url,
        ];
        self.draft(&[&once[..], extra].concat())
    }

    /// The kernel file as it is now.
    fn kernel_text(&self) -> String {
        std::fs::read_to_string(&self.kernel).unwrap()
    }
}

/// `autotune draft` against a loopback server: a round with a body that checks but
/// computes other values and one the checker refuses, then the right body; the file
/// gets it, the report counts it, and the recording replays to the same file.
#[test]
fn draft_end_to_end_with_feedback_a_recording_and_its_replay() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let server = ChatServer::start(vec![
        Behaviour::Replies(vec![
            "```\ny[i] = max[k](x[i, k]);\n```".into(),
            "y[i] = sum[k](z[i, k]);".into(),
        ]),
        Behaviour::Replies(vec![
            "y[i] = sum[k](x[i, k]);".into(),
            "y[i] = x[i, 0];".into(),
        ]),
    ]);
    let rows = Rows::new();
    let recording = rows.dir.path().join("drafts.json");
    let run =
        |extra: &[&str]| rows.draft(&[&["--rounds", "3", "--candidates", "2"], extra].concat());
    let url = server.base_url();
    let recorded = recording.to_str().unwrap();
    let reports = rows.dir.path().join("reports");
    let output = run(&[
        "--llm-url",
        &url,
        "--llm-constrain",
        "none",
        "--record",
        recorded,
        "--report-dir",
        reports.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = "rows: Comp@1 50%  Pass@1 0%  Pass@(3x2) yes  rounds used 2  attempts 4";
    assert_eq!(stdout.lines().next(), Some(summary));
    // Then tuned from the tuner's first draft: the kernel has no schedule.
    assert!(stdout.contains("rows on ascend910b"), "{stdout}");
    assert!(reports.join("rows.md").exists());
    let drafted = ROWS.replace("{}", "{\n    y[i] = sum[k](x[i, k]);\n}");
    assert_eq!(rows.kernel_text(), drafted);
    let prompts: Vec<String> = server
        .requests()
        .iter()
        .map(|r| {
            r.body["messages"][1]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert!(prompts[0].contains("Row sums of x."), "{}", prompts[0]);
    assert!(
        prompts[1].contains("wrong values: example 0: `y` differs in 3 of 4 elements"),
        "{}",
        prompts[1]
    );
    assert!(prompts[1].contains("error[E0"), "{}", prompts[1]);

    std::fs::write(&rows.kernel, ROWS).unwrap();
    let replayed = run(&["--generator", "replay", "--replay", recorded, "--no-tune"]);
    assert!(
        replayed.status.success(),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&replayed.stdout).trim(), summary);
    assert_eq!(rows.kernel_text(), drafted);
}

/// Pass@1 is the rate of the model's own first-round samples: a sample that repeated
/// another of the round counts with that one's verdict, not the reply asked for in its
/// place, live and replayed from the recording alike.
#[test]
fn pass_at_1_counts_the_samples_a_repeat_replaced() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let sum = "y[i] = sum[k](x[i, k]);";
    let server = ChatServer::start(vec![
        Behaviour::Replies(vec![
            sum.into(),
            format!("```\n{sum}\n```"),
            "y[i] = x[i, 0];".into(),
        ]),
        Behaviour::Reply("y[i] = max[k](x[i, k]);".into()),
    ]);
    let rows = Rows::new();
    let recording = rows.dir.path().join("drafts.json");
    let args = [
        "--rounds",
        "1",
        "--candidates",
        "3",
        "--no-tune",
        "--llm-constrain",
        "none",
    ];
    let live = rows.draft(
        &[
            &args[..],
            &[
                "--llm-url",
                &server.base_url(),
                "--record",
                recording.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    let summary = "rows: Comp@1 100%  Pass@1 67%  Pass@(1x3) yes  rounds used 1  attempts 3";
    let stdout = String::from_utf8_lossy(&live.stdout);
    assert_eq!(
        stdout.lines().next(),
        Some(summary),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    std::fs::write(&rows.kernel, ROWS).unwrap();
    let replayed = rows.draft(
        &[
            &args[..],
            &[
                "--generator",
                "replay",
                "--replay",
                recording.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    let stdout = String::from_utf8_lossy(&replayed.stdout);
    assert_eq!(
        stdout.lines().next(),
        Some(summary),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
}

/// A reply that repeats a body already tried (in this round or an earlier one) is
/// asked for again at a higher temperature, the new reply takes its place, and the
/// recording keeps what it replaced and where.
#[test]
fn a_repeated_body_is_sampled_again() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let max = "y[i] = max[k](x[i, k]);";
    let server = ChatServer::start(vec![
        Behaviour::Replies(vec![max.into(), format!("```\n{max}\n```")]),
        Behaviour::Reply("y[i] = x[i, 0];".into()),
        Behaviour::Replies(vec![format!("    {max}"), "y[i] = sum[k](x[i, k]);".into()]),
        Behaviour::Reply("y[i] = min[k](x[i, k]);".into()),
    ]);
    let rows = Rows::new();
    let recording = rows.dir.path().join("drafts.json");
    let output = rows.draft(&[
        "--rounds",
        "3",
        "--candidates",
        "2",
        "--no-tune",
        "--llm-constrain",
        "none",
        "--llm-url",
        &server.base_url(),
        "--record",
        recording.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = "rows: Comp@1 100%  Pass@1 0%  Pass@(3x2) yes  rounds used 2  attempts 4";
    assert_eq!(stdout.lines().next(), Some(summary));
    let temperatures: Vec<f64> = server
        .requests()
        .iter()
        .map(|r| r.body["temperature"].as_f64().unwrap())
        .collect();
    // The request carries an f32, which JSON prints shortest: 1.2, not 1.2000000476837158.
    assert_eq!(npu_tune::draft::run::RESAMPLE_TEMPERATURE, 1.2);
    assert_eq!(temperatures, [0.8, 1.2, 0.8, 1.2]);
    let transcript = npu_tune::replay::Transcript::load(&recording).unwrap();
    let resampled: Vec<&[String]> = transcript
        .exchanges
        .iter()
        .map(|e| e.resampled.as_slice())
        .collect();
    assert_eq!(
        resampled,
        [[format!("```\n{max}\n```")], [format!("    {max}")]]
    );
    assert_eq!(
        transcript.exchanges[1].replies[0],
        "y[i] = min[k](x[i, k]);"
    );
    let positions: Vec<&[usize]> = transcript
        .exchanges
        .iter()
        .map(|e| e.resampled_at.as_slice())
        .collect();
    assert_eq!(positions, [[1], [0]]);
}

/// A server that fails after the first round (here refusing the longer prompt, as a
/// server with a small context does) ends the drafting with the attempts so far and
/// says why, instead of losing the run.
#[test]
fn a_source_that_fails_after_the_first_round_stops_the_rounds() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let refusal =
        r#"{"error":{"code":400,"message":"request exceeds the available context size"}}"#;
    let server = ChatServer::start(vec![
        Behaviour::Reply("y[i] = max[k](x[i, k]);".into()),
        Behaviour::Status(400, refusal.into()),
    ]);
    let rows = Rows::new();
    let output = rows.draft(&[
        "--rounds",
        "3",
        "--candidates",
        "1",
        "--llm-constrain",
        "none",
        "--llm-url",
        &server.base_url(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    let summary = "rows: Comp@1 100%  Pass@1 0%  Pass@(3x1) no  rounds used 1  attempts 1";
    assert_eq!(stdout.lines().next(), Some(summary), "{stderr}");
    assert!(
        stderr.contains("drafting `rows` stopped after round 1"),
        "{stderr}"
    );
    assert!(stderr.contains("HTTP 400"), "{stderr}");
    assert_eq!(server.requests().len(), 2);
    assert_eq!(rows.kernel_text(), ROWS);
}

/// A reply the checker refuses only for where a reduction sits (here nested in
/// another) is tried with its reductions hoisted into intermediates; that body is the
/// one checked, matched and written, and the message says so.
#[test]
fn a_reduction_the_checker_refuses_in_place_is_hoisted() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let written = "y[i] = sum[k](x[i, k] + max[k](x[i, k]) - max[k](x[i, k]));";
    let server = ChatServer::start(vec![Behaviour::Reply(written.into())]);
    let rows = Rows::new();
    let output = rows.draft_once(&server.base_url(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("rewritten into the forms"), "{stderr}");
    let hoisted =
        "    let max0[i] = max[k](x[i, k]);\n    y[i] = sum[k](x[i, k] + max0[i] - max0[i]);\n";
    assert!(
        rows.kernel_text().contains(hoisted),
        "{}",
        rows.kernel_text()
    );
}

/// No body that matches: the file is left as it was and the error says why.
#[test]
fn a_draft_that_never_matches_leaves_the_file_alone() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let server = ChatServer::start_repeating(Behaviour::Reply("y[i] = max[k](x[i, k]);".into()));
    let rows = Rows::new();
    let output = rows.draft(&[
        "--rounds",
        "2",
        "--candidates",
        "1",
        "--llm-url",
        &server.base_url(),
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no body of `rows` checked and matched in 2 rounds"),
        "{stderr}"
    );
    assert!(stderr.contains("wrong values"), "{stderr}");
    assert_eq!(rows.kernel_text(), ROWS);
}

/// A statement without output axes (a 0-d `let` or output) is written under its own
/// rules, whose loads index with reduction axes only: a small model wrote
/// `let t1 = sum[k](x[i, k]);` under the grammar, which the checker refuses (E002).
#[test]
fn zero_d_statements_index_with_reduction_axes_only() {
    let rows = Task::parse(ROWS).unwrap();
    let grammar = body_gbnf(&rows, &npu_core::Target::preset("ascend910b").unwrap());
    let rule = |name: &str| {
        grammar
            .lines()
            .find(|line| line.starts_with(&format!("{name} ::= ")))
            .unwrap_or_else(|| panic!("no rule {name}:\n{grammar}"))
            .to_string()
    };
    assert!(rule("letrest").contains("\" = \" expr0"), "{grammar}");
    assert!(
        rule("iterm0").starts_with("iterm0 ::= raxis | \"0\""),
        "{grammar}"
    );
    assert!(
        rule("load0-t0").contains("index0 \", \" index0"),
        "{grammar}"
    );
    assert!(!rule("atom0").contains("letindex"), "{grammar}");
    assert_eq!(rule("raxis"), "raxis ::= \"k\" | \"l\" | \"kh\" | \"kw\"");
    assert!(
        rule("atom0").contains("reduce \"[\" raxes0 \"](\" expr0 \")\""),
        "{grammar}"
    );
    let total = Task::parse(TASKS[2]).unwrap();
    let grammar = body_gbnf(&total, &npu_core::Target::preset("aie2_tile").unwrap());
    assert!(
        grammar.contains("outs ::= indent? \"y = \" ( expr0 | atom0 to-f32"),
        "an f32 output on a target that computes no f32 ends in a cast: {grammar}"
    );
    for seed in 0..40 {
        let body = gbnf::sample(&grammar, seed).unwrap();
        let statement = body.lines().last().unwrap();
        assert!(!statement.contains("[i"), "{body}");
    }
}

/// An output is written over the axes the skeleton shows and scans only along them;
/// its reductions take any axis (one over a written axis is hoisted, see
/// `a_reduction_the_checker_refuses_in_place_is_hoisted`): refused `sum[k`, the 1.5B
/// model wrote `sum[kh, kw]` and made-up windows.
#[test]
fn an_outputs_scans_run_along_its_axes() {
    let text = "/// Centres rows: y[i, k] = x[i, k] - mean of row i.\n\
                kernel centre(x: [f32; 4, 8]) -> y: [f32; 4, 8] {}\ntarget ascend910b;\n";
    let task = Task::parse(text).unwrap();
    let grammar = body_gbnf(&task, &npu_core::Target::preset("ascend910b").unwrap());
    assert!(
        grammar.contains("outs ::= indent? \"y[\" \"i, k\" \"] = \" expr-o0"),
        "{grammar}"
    );
    // With no `let` before it, the statement reads no intermediate: the model wrote
    // `sum[k]`, refused as a reduction, as the read of one.
    assert!(
        grammar.contains("body ::= lets outs | outsalone\n"),
        "{grammar}"
    );
    assert!(
        grammar.contains("outsalone ::= indent? \"y[\" \"i, k\" \"] = \" expr-o1"),
        "{grammar}"
    );
    let rule = |name: &str| {
        grammar
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name} ::= ")))
            .unwrap()
    };
    assert!(rule("atom-o0").contains("letname"), "{grammar}");
    assert!(!rule("atom-o1").contains("letname"), "{grammar}");
    assert!(rule("axis").starts_with("\"i\" | \"j\""), "{grammar}");
    assert!(rule("raxes").starts_with("axis "), "{grammar}");
    // A scan runs along an axis the statement writes: `y[i, k] = cumsum[k](x[i, k]);`.
    assert_eq!(rule("saxis-o0"), "\"i\" | \"k\"");
    assert!(
        rule("atom-o0").contains("scan \"[\" saxis-o0 sacc? \"](\" expr-o0 \")\""),
        "{grammar}"
    );
    for seed in 0..40 {
        let body = gbnf::sample(&grammar, seed).unwrap();
        let statement = body.lines().last().unwrap();
        for (at, _) in statement
            .match_indices("cumsum[")
            .chain(statement.match_indices("cumprod["))
        {
            let axis = statement[at..].split(['[', ']', ':', ' ']).nth(1).unwrap();
            assert!(axis == "i" || axis == "k", "{body}");
        }
    }
}

/// Examples NumPy wrote (tests/fixtures/examples/README.md says how): an `.npz` with
/// two numbered examples, a directory of `.npy` files in other dtypes, read by value.
#[test]
fn numpy_examples_are_read_by_value_and_checked_against_the_shape() {
    use npu_tune::draft::Outcome;
    use npu_tune::draft::examples::{from_npy_dir, from_npz};

    let task = Task::parse(
        "/// Row sums.\nkernel rows(x: [f32; 4, 3]) -> y: [f32; 4] {}\ntarget ascend910b;\n",
    )
    .unwrap();
    let target = npu_core::Target::preset("ascend910b").unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/examples");
    let npz = from_npz(&std::fs::read(dir.join("rows.npz")).unwrap(), &task.ports).unwrap();
    let npy = from_npy_dir(&dir.join("rows_npy"), &task.ports).unwrap();
    assert_eq!((npz.len(), npy.len()), (2, 1));
    assert_eq!(
        npz[1], npy[0],
        "the same values, whatever dtype they were saved in"
    );
    for examples in [&npz, &npy] {
        let right = task.try_body("y[i] = sum[k](x[i, k]);", &target, examples, None);
        assert!(
            matches!(right, Outcome::Matches { verified: true, .. }),
            "{right:?}"
        );
        let wrong = task.try_body("y[i] = max[k](x[i, k]);", &target, examples, None);
        assert!(matches!(wrong, Outcome::Mismatch(_)), "{wrong:?}");
    }
    let bytes = std::fs::read(dir.join("rows_wrong_shape.npz")).unwrap();
    let error = from_npz(&bytes, &task.ports).unwrap_err();
    assert_eq!(
        error,
        "input `x` has shape [3, 4]; the signature says [4, 3]"
    );
    let error = from_npz(b"not a zip archive", &task.ports).unwrap_err();
    assert!(error.starts_with("not an .npz archive"), "{error}");
}

/// A server with structured outputs but no grammar (`WhenSchema`): under
/// `--llm-constrain json-schema` the reply is a syntax tree, printed back to the
/// language, checked and written; the request carried the schema of the signature.
#[test]
fn a_json_schema_server_gets_a_syntax_tree_printed_back_to_text() {
    use crate::support::chat_server::{Behaviour, ChatServer};
    let tree = r#"{"statements": [{"name": "y", "axes": ["i"], "value": {"reduce": "sum", "axes": [{"axis": "k"}], "body": {"load": "x", "index": ["i", "k"]}}}]}"#;
    let server = ChatServer::start_repeating(Behaviour::WhenSchema(tree.into()));
    let rows = Rows::new();
    let output = rows.draft_once(&server.base_url(), &["--llm-constrain", "json-schema"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let drafted = ROWS.replace("{}", "{\n    y[i] = sum[k](x[i, k]);\n}");
    assert_eq!(rows.kernel_text(), drafted);
    let request = &server.requests()[0].body;
    let schema = &request["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["$defs"]["statement"]["anyOf"][0]["properties"]["name"]["enum"][0],
        "y"
    );
    assert!(request.get("grammar").is_none(), "{request}");
}
