//! How long pathological input takes to reject: `cargo bench -p npu-core --bench
//! pathological`. Each case is one call as the macro, `check_source` or the LLM reply
//! extractor makes it, rendering included where that is what a user or a model sees.
//!
//! - `duplicate_items/8000` and `/15000`: `tail pad;` repeated in one schedule.
//! - `inputs/6000`: a kernel with 6,000 inputs, one of them read.
//! - `unknown_items_one_line/8000`: `frobnicate i;` 8,000 times on one line of a
//!   schedule block, parsed and rendered as the reply extractor does.
//! - `lets/500`, `/2000`, `/8000`: that many chained intermediates, `let t0[i] = x[i];
//!   let t1[i] = t0[i] + 1.0; ...`, too many for UB (so the fix search runs too):
//!   checking is linear in them (four times the lets, about four times the time).
//! - `nesting/parens_40000`, `/abs_6000`, `/minus_20000`: refused by the depth limit;
//!   `/chain_100000`: refused by the chain limit (4,096 operands).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use npu_core::internal::parse_schedules_str;
use npu_core::{Target, check_source};

fn duplicate_items(count: usize) -> String {
    format!(
        "kernel vmla(a: [f16; 4096], b: [f16; 4096]) -> y: [f16; 4096] {{ y[i] = a[i] * b[i]; }}\n\
         target npueval_demo;\n\
         schedule s {{\n    split i by 1000;\n    stage a, b, y in ub;\n{}}}\n",
        "    tail pad;\n".repeat(count)
    )
}

fn inputs(count: usize) -> String {
    let params: Vec<String> = (0..count).map(|n| format!("x{n}: [f32; 64]")).collect();
    format!(
        "kernel wide({}) -> y: [f32; 64] {{ y[i] = x0[i]; }}\ntarget npueval_demo;\nschedule s {{ stage x0, y in ub; }}\n",
        params.join(", ")
    )
}

fn nested(open: &str, close: &str, count: usize) -> String {
    format!(
        "kernel k(a: [f32; 64]) -> y: [f32; 64] {{ y[i] = {}a[i]{}; }}\ntarget npueval_demo;\nschedule s {{ stage a, y in ub; }}\n",
        open.repeat(count),
        close.repeat(count)
    )
}

fn chained_lets(count: usize) -> String {
    let mut body = String::from("let t0[i] = x[i];\n");
    for k in 1..count {
        body.push_str(&format!("let t{k}[i] = t{}[i] + 1.0;\n", k - 1));
    }
    format!(
        "kernel lets(x: [f32; 1024]) -> y: [f32; 1024] {{\n{body}y[i] = t{}[i];\n}}\n\
         target npueval_demo;\nschedule s {{ stage x, y in ub; }}\n",
        count - 1
    )
}

/// Checks `source` and renders what it is told, as the tuner does for a candidate.
fn check_and_render(source: &str, target: &Target) -> usize {
    match check_source(source, target) {
        Ok(kernel) => kernel.schedules.len(),
        Err(diagnostics) => diagnostics.render(source).len(),
    }
}

fn benches(c: &mut Criterion) {
    let target = Target::preset("npueval_demo").expect("preset");
    let mut group = c.benchmark_group("pathological");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for count in [8_000, 15_000] {
        let source = duplicate_items(count);
        group.bench_function(format!("duplicate_items/{count}"), |b| {
            b.iter(|| check_and_render(black_box(&source), &target))
        });
    }
    for count in [500, 2_000, 8_000] {
        let source = chained_lets(count);
        group.bench_function(format!("lets/{count}"), |b| {
            b.iter(|| check_and_render(black_box(&source), &target))
        });
    }
    let source = inputs(6_000);
    group.bench_function("inputs/6000", |b| {
        b.iter(|| check_and_render(black_box(&source), &target))
    });
    let text = format!("schedule s {{ {}}}", "frobnicate i;".repeat(8_000));
    group.bench_function("unknown_items_one_line/8000", |b| {
        b.iter(|| match parse_schedules_str(black_box(&text)) {
            Ok(schedules) => schedules.len(),
            Err(diagnostics) => diagnostics.render(&text).len(),
        })
    });
    let cases = [
        ("parens_40000", nested("(", ")", 40_000)),
        ("abs_6000", nested("abs(", ")", 6_000)),
        ("minus_20000", nested("- ", "", 20_000)),
        // `a[i] + a[i] + ...`: the operand itself as the "opening" of each level.
        ("chain_100000", nested("a[i] + ", "", 99_999)),
    ];
    for (name, source) in &cases {
        group.bench_function(format!("nesting/{name}"), |b| {
            b.iter(|| check_and_render(black_box(source), &target))
        });
    }
    group.finish();
}

criterion_group!(pathological, benches);
criterion_main!(pathological);
