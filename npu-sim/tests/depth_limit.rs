//! Expressions exactly as deep as the parser allows go through every recursive pass:
//! check, print, lower, the functional simulation and the host reference, all on a
//! 2 MiB thread (a test thread's size) in whatever profile the tests are built in.
//! One level more is refused by the parser (npu-core's `tests/limits.rs`).

mod support;

use npu_core::parse::MAX_EXPR_DEPTH;
use npu_core::{Target, check_source};
use npu_sim::{Correctness, SimOptions, evaluate};

/// Runs `f` on a thread with a 2 MiB stack.
fn on_small_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(scope, f)
            .expect("a thread starts")
            .join()
            .expect("no panic and no stack overflow")
    })
}

/// Checks, lowers and simulates `y[i] = expr`, and compares with the reference.
fn run(expr: &str) -> Correctness {
    let source = format!(
        "kernel k(a: [f32; 64]) -> y: [f32; 64] {{ y[i] = {expr}; }}\n\
         target npueval_demo;\n\
         schedule s {{ stage a, y in ub; }}\n"
    );
    let target = Target::preset("npueval_demo").unwrap();
    on_small_stack(move || {
        let kernel = check_source(&source, &target)
            .unwrap_or_else(|diagnostics| panic!("{}", diagnostics.render(&source)));
        let inputs = support::inputs(&kernel, 1);
        evaluate(&kernel, 0, &inputs, None, &SimOptions::default())
            .expect("simulates")
            .correctness
    })
}

#[test]
fn every_kind_of_nesting_at_the_limit_runs_end_to_end() {
    // A leaf is one level; each call, `-`, operator or cast adds one.
    let below = MAX_EXPR_DEPTH - 1;
    let cases = [
        format!(
            "{}a[i]{}",
            "(".repeat(MAX_EXPR_DEPTH),
            ")".repeat(MAX_EXPR_DEPTH)
        ),
        format!("{}a[i]{}", "abs(".repeat(below), ")".repeat(below)),
        format!("{}a[i]", "- ".repeat(below)),
        vec!["a[i]"; below + 1].join(" + "),
        format!("a[i]{}", " as f32".repeat(below)),
    ];
    for expr in cases {
        let correctness = run(&expr);
        assert!(
            matches!(correctness, Correctness::Passed { .. }),
            "{correctness:?} for {:.60}",
            expr
        );
    }
}
