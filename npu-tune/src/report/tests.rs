use super::svg::{grouped, nice_step, shorten, tick_label};
use super::*;
use crate::record::{BaselineResult, Baselines, Best, CandidateRecord, Convergence, Verdict};
use npu_core::{Code, DiagnosticRecord};

fn candidate(round: u32, index: u32, verdict: Verdict, cycles: Option<u64>) -> CandidateRecord {
    let diagnostics = if verdict == Verdict::Rejected {
        vec![DiagnosticRecord {
            code: Code::E020,
            line: 2,
            column: 5,
            message: "ub holds 196608 B; a, b, y at depth 2 need 262144 B".into(),
            help: Some("split i by 2048 or less fits".into()),
            labels: Vec::new(),
            notes: Vec::new(),
        }]
    } else {
        Vec::new()
    };
    CandidateRecord {
        kernel: "vmla".into(),
        generator: "heuristic".into(),
        round,
        index,
        source: format!("split i by {};\nbuffer ub depth 2;", 512 << index),
        verdict,
        cycles,
        diagnostics,
        feedback: String::new(),
        report: None,
        knowledge: Vec::new(),
        verified: true,
        constraint: None,
    }
}

fn sample() -> KernelResult {
    let baseline = |cycles, evaluations| BaselineResult {
        cycles: Some(cycles),
        evaluations,
        source: Some("split i by 1024;".into()),
    };
    KernelResult {
        kernel: "vmla".into(),
        target: "ascend910b".into(),
        generator: "heuristic".into(),
        evaluations: 12,
        roofline_cycles: 1000,
        attainable_cycles: 1050,
        best: Some(Best {
            cycles: 1087,
            source: "split i by 4096;\nbuffer ub depth 2;\ncores 8;".into(),
            efficiency: 1000.0 / 1087.0,
            speedup_over_hand: Some(2000.0 / 1087.0),
            speedup_over_first_correct: Some(1600.0 / 1087.0),
            evaluations_to_best: 9,
            vector_score: 0.71,
            symptom: "vector busy 71%, MTE2 busy 64%: balanced".into(),
        }),
        baselines: Baselines {
            hand: baseline(2000, 1),
            random: baseline(1700, 12),
            grid: baseline(1500, 12),
        },
        comp_at_1: 0.75,
        pass_at_1: 0.5,
        duplicate_share: 0.0,
        constraints: Vec::new(),
        fast_1: 0.4,
        fast_1_5: 0.2,
        failures_per_round: vec![2, 1, 0],
        mean_round_seconds: 0.4125,
        convergence: vec![
            Convergence {
                generator: "random".into(),
                points: vec![(1, 5200), (2, 2600), (4, 2100), (7, 1900), (11, 1700)],
            },
            Convergence {
                generator: "grid".into(),
                points: vec![(1, 3100), (3, 2400), (5, 1800), (8, 1500), (12, 1500)],
            },
            Convergence {
                generator: "heuristic".into(),
                points: vec![
                    (1, 1600),
                    (2, 1600),
                    (5, 1300),
                    (6, 1210),
                    (9, 1087),
                    (12, 1087),
                ],
            },
        ],
        candidates: vec![
            candidate(0, 0, Verdict::Correct, Some(1600)),
            candidate(0, 1, Verdict::Rejected, None),
            candidate(0, 2, Verdict::Wrong, Some(1400)),
            candidate(0, 3, Verdict::Correct, Some(1650)),
        ],
    }
}

#[test]
fn markdown() {
    insta::assert_snapshot!(render_markdown(&sample()));
}

#[test]
fn table() {
    let mut second = sample();
    second.kernel = "softmax_rows".into();
    second.generator = "llm".into();
    second.best = None;
    second.baselines.random.cycles = None;
    second.failures_per_round = vec![4, 4, 3, 2, 1];
    let table = render_table_with(&[sample(), second], TableOptions { show_times: false });
    insta::assert_snapshot!(table);
}

#[test]
fn table_with_times() {
    let table = render_table(&[sample()]);
    assert!(table.contains("mean round 0.41 s"), "{table}");
}

#[test]
fn svg() {
    insta::assert_snapshot!(render_svg(&sample()));
}

#[test]
fn svg_escapes_text() {
    let mut result = sample();
    result.kernel = "a<b&\"c'".into();
    result.convergence[0].generator = "r<&>".into();
    let svg = render_svg(&result);
    assert!(svg.contains("a&lt;b&amp;&quot;c&apos;"));
    assert!(svg.contains("r&lt;&amp;&gt;"));
    assert!(!svg.contains("a<b"));
}

#[test]
fn svg_without_points_says_so() {
    let mut result = sample();
    result.convergence.clear();
    result.baselines.hand.cycles = None;
    let svg = render_svg(&result);
    assert!(svg.contains(">no schedule ran</text>"));
    assert!(!svg.contains("<polyline points=\"\""));
}

#[test]
fn json_holds_every_field_and_reads_back() {
    let json = render_json(&sample()).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    for pointer in [
        "/kernel",
        "/target",
        "/generator",
        "/evaluations",
        "/roofline_cycles",
        "/best/cycles",
        "/best/source",
        "/baselines/hand/cycles",
        "/baselines/random/cycles",
        "/baselines/grid/cycles",
        "/comp_at_1",
        "/pass_at_1",
        "/duplicate_share",
        "/candidates/1/verdict",
        "/candidates/1/diagnostics/0/code",
        "/candidates/1/cycles",
    ] {
        assert!(value.pointer(pointer).is_some(), "{pointer} missing");
    }
    assert_eq!(value["candidates"].as_array().unwrap().len(), 4);
    let back: KernelResult = serde_json::from_str(&json).unwrap();
    assert_eq!(render_markdown(&back), render_markdown(&sample()));
}

#[test]
fn json_refuses_non_finite_rates() {
    let mut result = sample();
    result.comp_at_1 = f64::NAN;
    let error = render_json(&result).unwrap_err();
    assert_eq!(
        error.to_string(),
        "vmla report: comp_at_1 is NaN, which JSON cannot hold"
    );
}

#[test]
fn markdown_fences_outlast_backticks_in_the_source() {
    let mut result = sample();
    result.best.as_mut().unwrap().source = "```\nsplit i by 4096;".into();
    let markdown = render_markdown(&result);
    assert!(
        markdown.contains("````text\n```\nsplit i by 4096;\n````\n"),
        "{markdown}"
    );
}

#[test]
fn write_reports_writes_three_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reports");
    let paths = write_reports(&out, &sample()).unwrap();
    assert_eq!(paths.json, out.join("vmla.json"));
    assert_eq!(paths.markdown, out.join("vmla.md"));
    assert_eq!(paths.svg, out.join("vmla.svg"));
    let markdown = std::fs::read_to_string(&paths.markdown).unwrap();
    assert_eq!(markdown, render_markdown(&sample()));
    assert!(
        std::fs::read_to_string(&paths.svg)
            .unwrap()
            .starts_with("<svg")
    );
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["vmla.json", "vmla.md", "vmla.svg"]);

    let mut result = sample();
    result.kernel = "../escape".into();
    let error = write_reports(&out, &result).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn tick_steps_and_labels() {
    let steps: Vec<u64> = [0.3, 1.0, 1.4, 3.0, 7.0, 12.0, 240.0, 45_000.0]
        .map(nice_step)
        .to_vec();
    assert_eq!(steps, [1, 1, 2, 5, 10, 20, 500, 50_000]);
    let labels: Vec<String> = [
        (0, 500),
        (2500, 500),
        (4000, 1000),
        (1_500_000, 500_000),
        (3_000_000, 1_000_000),
    ]
    .map(|(value, step)| tick_label(value, step))
    .to_vec();
    assert_eq!(labels, ["0", "2500", "4k", "1.5M", "3M"]);
    let grouped: Vec<String> = [0, 999, 1000, 1_018_866].map(grouped).to_vec();
    assert_eq!(grouped, ["0", "999", "1,000", "1,018,866"]);
    assert_eq!(shorten("grid-search", 6), "grid-…");
    assert_eq!(shorten("grid", 6), "grid");
}
