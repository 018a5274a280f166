//! The cube against its peak: `cargo bench -p npu-sim --bench cube`.
//!
//! Prints, for f16 → f32 matmuls on ascend910b, the cycles of a library-style schedule
//! (a core grid over `m` and `n`, L1 and L0 double buffering, the base block as large as
//! L0C allows) next to the cube peak (every multiply-add on every cube core at one
//! fractal per cycle), the fraction reached, the goal from issue 11 and the attainable
//! bound (what no schedule avoids: the copy latency in and out, an uneven share).
//! Below each case, where its slowest core's cycles go (from a trace): waiting for the
//! first tiles before the first `mmad`, the cube busy (and how much of that is the
//! per-instruction issue cost), the cube waiting between its first and last `mmad`, and
//! the write-back after the last one; docs/targets.md reads these numbers.
//! Then times the timing-only evaluation of the 1024³ schedule, as the tuner calls it.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use npu_core::program::Pipe;
use npu_core::{Target, check_source};
use npu_sim::{SimOptions, attainable, evaluate, machine_roofline};

/// (shape, goal as a fraction of cube peak, kernel text with one schedule)
const CASES: [(&str, f64, &str); 3] = [
    (
        "256x512x256",
        0.5,
        "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;
        schedule grid {
            parallel m, n over 4 x 4 cores; split k by 128;
            cube m by 64, n by 64, k by 64;
            stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2;
            stage c in l0c depth 1;
        }",
    ),
    (
        "1024^3",
        0.8,
        "kernel mm(a: [f16; 1024, 1024], b: [f16; 1024, 1024]) -> c: [f32; 1024, 1024] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;
        schedule grid {
            parallel m, n over 4 x 5 cores; split m by 64; split n by 208; split k by 256;
            order n, m; cube m by 64, n by 208, k by 64;
            stage a in l1 depth 2; stage b in l1 depth 4;
            stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 2;
            tail exact;
        }",
    ),
    (
        "4096^3",
        0.8,
        "kernel mm(a: [f16; 4096, 4096], b: [f16; 4096, 4096]) -> c: [f32; 4096, 4096] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;
        schedule grid {
            parallel m, n over 5 x 4 cores; split m by 128; split n by 256; split k by 256;
            cube m by 128, n by 256, k by 64;
            stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2;
            stage c in l0c depth 1;
        }",
    ),
];

fn timing() -> SimOptions {
    SimOptions {
        functional: false,
        max_instructions: u64::MAX,
        ..SimOptions::default()
    }
}

/// Where the slowest core's cycles go, from a trace of `kernel`'s only schedule.
fn breakdown(kernel: &npu_core::ir::CheckedKernel) -> String {
    let options = SimOptions {
        trace: true,
        ..timing()
    };
    let evaluation = evaluate(kernel, 0, &[], None, &options).expect("simulates");
    let report = &evaluation.report;
    let trace = evaluation.trace.expect("a trace was asked for");
    let mmads: Vec<(f64, f64)> = trace
        .events
        .iter()
        .filter(|e| e.core == report.critical_core && e.pipe == Pipe::M && e.duration > 0.0)
        .map(|e| (e.start, e.start + e.duration))
        .collect();
    let first = mmads.iter().map(|m| m.0).fold(f64::INFINITY, f64::min);
    let last = mmads.iter().map(|m| m.1).fold(0.0, f64::max);
    let busy: f64 = mmads.iter().map(|m| m.1 - m.0).sum();
    let issue = mmads.len() as f64
        * kernel
            .target
            .cube
            .as_ref()
            .map_or(0, |cube| cube.issue_cycles) as f64;
    format!(
        "{:<12} core {}: {:.0} before the first mmad, M busy {:.0} ({:.0} of it issue), \
         M waits {:.0} between mmads, {:.0} after the last",
        "",
        report.critical_core,
        first,
        busy,
        issue,
        last - first - busy,
        report.total_cycles as f64 - last
    )
}

fn peak(c: &mut Criterion) {
    let target = Target::preset("ascend910b").expect("preset");
    println!(
        "\n{:<12} {:>10} {:>10} {:>8} {:>6} {:>11}  bottleneck",
        "matmul", "cycles", "peak", "reached", "goal", "attainable"
    );
    for (shape, goal, source) in CASES {
        let kernel = check_source(source, &target).expect("checks");
        let report = evaluate(&kernel, 0, &[], None, &timing())
            .expect("simulates")
            .report;
        let peak = machine_roofline(&kernel).cube_cycles;
        let bound = attainable(&kernel).cycles as f64;
        let reached = peak / report.total_cycles as f64;
        println!(
            "{shape:<12} {:>10} {:>10.0} {:>7.1}% {:>5.0}% {:>10.1}%  {}{}",
            report.total_cycles,
            peak,
            100.0 * reached,
            100.0 * goal,
            100.0 * peak / bound,
            report.bottleneck,
            if reached >= goal {
                ""
            } else {
                " (goal not reached)"
            }
        );
        println!("{}", breakdown(&kernel));
    }
    let (_, _, source) = CASES[1];
    let kernel = check_source(source, &target).expect("checks");
    let mut group = c.benchmark_group("cube");
    group
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    group.bench_function("evaluate/1024", |b| {
        b.iter(|| evaluate(black_box(&kernel), 0, &[], None, &timing()).expect("simulates"))
    });
    group.finish();
}

criterion_group!(cube, peak);
criterion_main!(cube);
