//! Expressions exactly as deep as the parser allows go through every recursive pass:
//! check, print, lower, the functional simulation and the host reference, all on a
//! 2 MiB thread (a test thread's size) in whatever profile the tests are built in.
//! One level more is refused by the parser (npu-core's `tests/it/limits.rs`). Flat chains
//! of operators as long as the parser allows (one node, walked in a loop) do the same,
//! simulated and interpreted to the same bits.

use crate::support;

use npu_core::lower::lower;
use npu_core::{MAX_CHAIN_TERMS, MAX_EXPR_DEPTH};
use npu_core::{Target, check_source};
use npu_sim::{Correctness, SimOptions, evaluate, reference, simulate};

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

/// The outputs of `y[i] = expr` over `a` and `b`, simulated and from the reference
/// interpreter, compared bit for bit (any NaN equal to any NaN), on a 2 MiB thread.
fn simulated_equals_reference(expr: &str) {
    let source = format!(
        "kernel k(a: [f32; 64], b: [f32; 64]) -> y: [f32; 64] {{ y[i] = {expr}; }}\n\
         target npueval_demo;\n\
         schedule s {{ stage a, b, y in ub; }}\n"
    );
    let target = Target::preset("npueval_demo").unwrap();
    on_small_stack(move || {
        let kernel = check_source(&source, &target)
            .unwrap_or_else(|diagnostics| panic!("{}", diagnostics.render(&source)));
        let inputs = support::inputs(&kernel, 7);
        let expected = reference(&kernel, &inputs).expect("indices in range");
        let program = lower(&kernel, 0);
        let outputs = simulate(&kernel, &program, &inputs, &SimOptions::default())
            .expect("simulates")
            .outputs;
        for (got, want) in outputs.iter().zip(&expected) {
            let same = got
                .values()
                .iter()
                .zip(&want.values())
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
            assert!(same, "{:.60}: {got:?}\n!= {want:?}", source);
        }
    });
}

/// `count` operands cycling through `terms`, joined by operators cycling through `ops`.
fn chain(count: usize, terms: &[&str], ops: &[&str]) -> String {
    let mut text = terms[0].to_string();
    for n in 1..count {
        text.push_str(&format!(
            " {} {}",
            ops[n % ops.len()],
            terms[n % terms.len()]
        ));
    }
    text
}

#[test]
fn flat_chains_at_the_chain_limit_agree_bit_for_bit() {
    let n = MAX_CHAIN_TERMS;
    let cases = [
        // Mixed `+` and `-` over loads, constants and operations.
        chain(
            n,
            &["a[i]", "b[i]", "0.5", "exp(b[i])", "a[i] * b[i]"],
            &["+", "-", "+"],
        ),
        // Products and quotients, rounding at every step.
        chain(n, &["a[i]", "b[i]", "1.0009765625"], &["*", "/", "*"]),
        // A leading run of constants folds to one scalar operand.
        format!(
            "1.0 + 2.0 - 0.5 + {}",
            chain(n - 3, &["a[i]", "b[i]"], &["-", "+"])
        ),
    ];
    for expr in &cases {
        simulated_equals_reference(expr);
    }
}
