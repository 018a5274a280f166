//! Tests of the grammars: each admits only what the checker accepts.

use super::*;
use crate::kernels;

#[test]
fn syntax_grammar_names_only_this_kernels_axes_and_tensors() {
    let problem = kernels::Bundled::find("rowsum")
        .expect("a bundled kernel")
        .problem(1, None)
        .expect("a problem");
    let grammar = syntax_gbnf(&problem.kernel);
    assert!(grammar.contains("\"    stage x, y in ub depth \" depth"));
    assert!(grammar.contains("split-a1 ::= \"    split k by \" tile-a1"));
    assert!(
        !grammar.contains("l0a"),
        "a vector kernel stages in ub only"
    );
    // ascend910b has 40 vector cores: no more are offered.
    assert!(grammar.contains("\"40\"") && !grammar.contains("\"41\""));
}

#[test]
fn exact_set_admits_only_checked_schedules() {
    let problem = kernels::Bundled::find("vmla")
        .expect("a bundled kernel")
        .problem(1, None)
        .expect("a problem");
    let set = exact_set(&problem, EXACT_SET_LIMIT).expect("the vmla space is small");
    assert!(set.points > 0 && (set.points as u64) <= set.checked);
    // Every body of the trie is a legal schedule: walk each path of the rules.
    let bodies = trie_paths(&set.gbnf);
    assert_eq!(bodies.len(), set.points);
    for body in bodies {
        let text = format!("schedule s {{\n{body}");
        assert!(
            problem.check(&text).is_ok(),
            "illegal in the exact set:\n{text}"
        );
    }
}

#[test]
fn a_space_too_large_to_enumerate_gets_a_legal_subset_around_its_start() {
    let problem = kernels::Bundled::find("matmul")
        .expect("a bundled kernel")
        .problem(1, None)
        .expect("a problem");
    let kernel = &problem.kernel;
    let space = Space::of(kernel);
    assert!(space.size() > EXACT_SET_LIMIT, "no exact set for a matmul");
    assert!(exact_set(&problem, EXACT_SET_LIMIT).is_none());
    let schedules = npu_core::internal::parse_schedules_str(
        // The kernel's hand schedule.
        "schedule s {\n    split k by 64;\n    cube m by 32, n by 32, k by 32;\n    stage a, b in l1 depth 1;\n    stage a in l0a depth 1;\n    stage b in l0b depth 1;\n    stage c in l0c depth 1;\n}",
    )
    .expect("a schedule");
    let start = Spec::from_schedule(kernel, &schedules[0]);
    // The start, its edits (about 150) and a sample.
    let set = legal_set(&problem, std::slice::from_ref(&start), 200).expect("legal points");
    assert!(
        !set.complete && set.checked == 200,
        "{} checked",
        set.checked
    );
    let bodies = trie_paths(&set.gbnf);
    assert_eq!(bodies.len(), set.points);
    for body in &bodies {
        let text = format!("schedule s {{\n{body}");
        assert!(problem.check(&text).is_ok(), "illegal:\n{text}");
    }
    // The start and its legal one-knob edits are in: here, more cores (32-row
    // blocks of m's 128 rows go to up to 4 cores).
    let with_cores = |cores: u64| {
        let mut spec = start.clone();
        spec.cores = cores;
        format!("{}}}", block_body(&spec.to_dsl(kernel, "s")))
    };
    assert!(bodies.contains(&with_cores(1)) && bodies.contains(&with_cores(4)));
    assert!(
        !bodies.contains(&with_cores(8)),
        "E023: a block past a core's share"
    );
}

#[test]
fn json_replies_print_as_schedules() {
    let problem = kernels::Bundled::find("rowsum")
        .expect("a bundled kernel")
        .problem(1, None)
        .expect("a problem");
    let kernel = &problem.kernel;
    let schema = json_schema(kernel);
    assert_eq!(
        schema["required"],
        json!(["cores", "tiles", "depth", "tail"])
    );
    let text = schedule_from_json(
        kernel,
        r#"{"cores": 8, "tiles": {"i": 8, "k": null}, "depth": 2, "tail": "none"}"#,
        "j",
    )
    .expect("a well-formed reply");
    assert!(text.contains("parallel i over 8 cores;") && text.contains("split i by 8;"));
    assert!(problem.check(&text).is_ok(), "{text}");
    for bad in [
        "not json",
        r#"{"cores": 0}"#,
        r#"{"cores": 2, "depth": 1, "tiles": {"q": 1}}"#,
    ] {
        assert!(schedule_from_json(kernel, bad, "j").is_err(), "{bad}");
    }
}

npu_macros::npu_kernel! {
    kernel axpb(x: [f32; 64, 96], a: f32, b: f32) -> y: [f32; 64, 96] {
        y[i, j] = x[i, j] * a + b;
    }
    target ascend910b;

    schedule hand {
        stage x, y in ub depth 1;
    }
}

#[test]
fn grammars_leave_scalar_parameters_unstaged() {
    let bundled = kernels::Bundled {
        name: axpb::NAME,
        category: kernels::Category::Elementwise,
        kernel: axpb::kernel,
        reference: axpb::reference_host,
    };
    // Seeded inputs draw each scalar parameter as a tensor of shape [].
    let problem = bundled.problem(1, None).expect("a problem");
    assert_eq!(problem.inputs[1].shape(), Vec::<u64>::new());
    assert_eq!(problem.inputs[1].len(), 1);
    // The macro's plain loops, the simulator's interpreter and the simulated hand
    // schedule agree on them.
    assert_eq!(
        problem.expected,
        npu_sim::reference(&problem.kernel, &problem.inputs).expect("no gathers")
    );
    let table = npu_sim::testing::bench_variants(&problem.kernel);
    assert!(table.rows.iter().all(|row| row.correct), "{table}");
    let grammar = syntax_gbnf(&problem.kernel);
    assert!(grammar.contains("\"    stage x, y in ub depth \" depth"));
    let set = exact_set(&problem, EXACT_SET_LIMIT).expect("a small space");
    for body in trie_paths(&set.gbnf) {
        let text = format!("schedule s {{\n{body}");
        assert!(problem.check(&text).is_ok(), "illegal:\n{text}");
    }
    let text = schedule_from_json(
        &problem.kernel,
        r#"{"cores": 4, "tiles": {"i": 16, "j": null}, "depth": 2, "tail": "none"}"#,
        "j",
    )
    .expect("a well-formed reply");
    assert!(problem.check(&text).is_ok(), "{text}");
}

/// Every text a trie grammar of [`trie_gbnf`] admits after the header.
fn trie_paths(gbnf: &str) -> Vec<String> {
    let rules: BTreeMap<&str, &str> = gbnf
        .lines()
        .filter_map(|line| line.split_once(" ::= "))
        .collect();
    fn walk(rules: &BTreeMap<&str, &str>, rule: &str, prefix: String, out: &mut Vec<String>) {
        for alternative in rules[rule].split(" | ") {
            if alternative == "\"}\"" {
                out.push(format!("{prefix}}}"));
                continue;
            }
            let (line, next) = alternative.rsplit_once(' ').expect("line then rule");
            let line = line.trim_matches('"').replace("\\n", "\n");
            walk(rules, next, format!("{prefix}{line}"), out);
        }
    }
    let mut out = Vec::new();
    let first = rules["root"].rsplit(' ').next().expect("the first node");
    walk(&rules, first, String::new(), &mut out);
    out
}
