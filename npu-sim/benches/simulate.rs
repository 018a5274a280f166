//! How fast the tuner's inner loop is: `cargo bench -p npu-sim`.
//!
//! - `evaluate/timing`: lower + timing-only simulation of vmla (N = 65536, f16) on
//!   npueval_demo, as the tuner calls it for every candidate; the figure to read is
//!   evaluations per second (criterion's `thrpt` in elements/s, one element per
//!   evaluation).
//! - `evaluate/functional`: lower + functional simulation on real data, with the
//!   elements of the output as the throughput unit.
//! - `evaluate/timing/910b_40_cores`: vmla split over 40 cores of ascend910b.
//! - `collapse/vmla_16m/{on,off}`: lower + timing-only simulation of vmla over
//!   16,777,216 f16 elements in tiles of 512 on npueval_demo (32,768 tiles on one
//!   core), with the steady-state collapse and without it, side by side; evaluations
//!   per second as above.
//! - `collapse/matmul_4096/{on,off}`: lower + timing-only simulation of a
//!   4096×4096×4096 f16→f32 matmul on ascend910b in 16×16×16 cube blocks (about 196
//!   million instructions over 16 cores, one class simulated). Its 16 cores share
//!   888 B/cycle as 55.5 B/cycle each, so its copy costs are not whole multiples of the
//!   collapse's grain and both rows simulate every instruction: the pair shows the
//!   collapse's bookkeeping costs nothing when it cannot apply.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use npu_core::scalar::HostTensor;
use npu_core::{Dtype, Target, check_source};
use npu_sim::{SimOptions, evaluate};

const VMLA: &str = "
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;
    schedule tile2048 { split i by 2048; stage a, b, c, y in ub depth 2; }
    schedule tile4096 { split i by 4096; stage a, b, c, y in ub depth 2; }
    schedule tile512 { split i by 512; stage a, b, c, y in ub depth 2; }
";

const VMLA_CORES: &str = "
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target ascend910b;
    schedule cores { parallel i over 40 cores; split i by 1024; stage a, b, c, y in ub depth 2; tail pad; }
";

const VMLA_16M: &str = "
    kernel vmla(a: [f16; 16777216], b: [f16; 16777216], c: [f16; 16777216]) -> y: [f16; 16777216] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;
    schedule tile512 { split i by 512; stage a, b, c, y in ub depth 2; }
";

const MATMUL_4096: &str = "
    kernel matmul(a: [f16; 4096, 4096], b: [f16; 4096, 4096]) -> c: [f32; 4096, 4096] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;
    schedule blocks16 {
        parallel m over 20 cores; split m by 128; split n by 128; split k by 256;
        cube m by 16, n by 16, k by 16;
        stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 2;
    }
";

fn collapse(c: &mut Criterion) {
    let mut group = c.benchmark_group("collapse");
    group
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1))
        .throughput(Throughput::Elements(1));
    let cases = [
        ("vmla_16m", VMLA_16M, "npueval_demo", 20),
        ("matmul_4096", MATMUL_4096, "ascend910b", 10),
    ];
    for (name, source, target, samples) in cases {
        let kernel =
            check_source(source, &Target::preset(target).expect("preset")).expect("checks");
        group.sample_size(samples);
        for (label, collapse) in [("on", true), ("off", false)] {
            let options = SimOptions {
                functional: false,
                collapse,
                // The matmul's 196 million instructions are over the default budget.
                max_instructions: u64::MAX,
                ..SimOptions::default()
            };
            group.bench_function(format!("{name}/{label}"), |b| {
                b.iter(|| evaluate(black_box(&kernel), 0, &[], None, &options).expect("simulates"))
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let target = Target::preset("npueval_demo").expect("preset");
    let kernel = check_source(VMLA, &target).expect("vmla checks");
    let inputs: Vec<HostTensor> = (0..3)
        .map(|seed| HostTensor::random(Dtype::F16, &[65536], seed))
        .collect();
    let timing = SimOptions {
        functional: false,
        ..SimOptions::default()
    };

    let mut group = c.benchmark_group("evaluate");
    group
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(1));
    for (index, schedule) in kernel.schedules.iter().enumerate() {
        group.bench_function(format!("timing/{}", schedule.name), |b| {
            b.iter(|| evaluate(black_box(&kernel), index, &[], None, &timing).expect("simulates"))
        });
    }
    // Forty cores: identical cores are simulated once per class.
    let cores =
        check_source(VMLA_CORES, &Target::preset("ascend910b").expect("preset")).expect("checks");
    group.bench_function("timing/910b_40_cores", |b| {
        b.iter(|| evaluate(black_box(&cores), 0, &[], None, &timing).expect("simulates"))
    });
    group.throughput(Throughput::Elements(65536));
    group.sample_size(20);
    let expected = npu_sim::reference(&kernel, &inputs).expect("no gathers");
    group.bench_function("functional/tile2048", |b| {
        b.iter(|| {
            evaluate(
                black_box(&kernel),
                0,
                &inputs,
                Some(&expected),
                &SimOptions::default(),
            )
            .expect("simulates")
        })
    });
    group.finish();
}

criterion_group!(simulate, benches, collapse);
criterion_main!(simulate);
