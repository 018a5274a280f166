//! How fast the tuner's inner loop is: `cargo bench -p npu-sim`.
//!
//! - `evaluate/timing`: lower + timing-only simulation of vmla (N = 65536, f16) on
//!   npueval_demo, as the tuner calls it for every candidate; the figure to read is
//!   evaluations per second (criterion's `thrpt` in elements/s, one element per
//!   evaluation).
//! - `evaluate/functional`: lower + functional simulation on real data, with the
//!   elements of the output as the throughput unit.
//! - `evaluate/timing/910b_40_cores`: vmla split over 40 cores of ascend910b.

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
    let expected = npu_sim::reference(&kernel, &inputs);
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

criterion_group!(simulate, benches);
criterion_main!(simulate);
