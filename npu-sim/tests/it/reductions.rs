//! Reductions over several axes and in a named accumulator, on edge values: the
//! simulated outputs equal values worked out by hand, and the reference interpreter's.

use crate::support;

use npu_core::host::HostTensor;
use npu_core::lower::lower;
use npu_sim::{Correctness, SimOptions, evaluate, reference, simulate};

/// Every schedule's simulated outputs, each checked equal to the reference's.
fn simulated(source: &str, inputs: &[HostTensor]) -> Vec<Vec<HostTensor>> {
    let kernel = support::check(source);
    let expected = reference(&kernel, inputs).unwrap();
    (0..kernel.schedules.len())
        .map(|index| {
            let program = lower(&kernel, index);
            let outputs = simulate(&kernel, &program, inputs, &SimOptions::default())
                .unwrap_or_else(|error| panic!("{}: {error}", kernel.schedules[index].name))
                .outputs;
            for (got, want) in outputs.iter().zip(&expected) {
                let same = got
                    .values()
                    .iter()
                    .zip(&want.values())
                    .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
                assert!(
                    same,
                    "{}: {got:?}\n!= {want:?}",
                    kernel.schedules[index].name
                );
            }
            outputs
        })
        .collect()
}

#[test]
fn f16_accumulator_stops_where_f16_does() {
    let source = "kernel k(x: [f16; 4, 64, 64]) -> (narrow: [f16; 4], wide: [f16; 4]) {
            narrow[c] = sum[h, w: f16](x[c, h, w]);
            wide[c] = sum[h, w](x[c, h, w]);
        }
        target ascend910b;
        schedule per_channel { split c by 1; stage x, narrow, wide in ub; tail pad; }
        schedule split { split h by 8; stage x in ub depth 2; stage narrow, wide in ub; tail pad; }";
    let mut data = vec![1.0; 4 * 4096];
    // Channel 1: two of the largest f16 overflow an f16 accumulator to infinity; in f32
    // they sum to 131008 (and the 4094 ones after), which rounds to infinity in f16 too.
    data[4096] = 65504.0;
    data[4097] = 65504.0;
    // Channel 2: one negative infinity, which every later step keeps.
    data[2 * 4096 + 100] = f64::NEG_INFINITY;
    let x = HostTensor::from_values(npu_core::Dtype::F16, &[4, 64, 64], &data);
    for outputs in simulated(source, &[x]) {
        // 2048 + 1 rounds back to 2048 (ties to even): an f16 sum of ones stops there.
        assert_eq!(
            outputs[0].values(),
            [2048.0, f64::INFINITY, f64::NEG_INFINITY, 2048.0]
        );
        assert_eq!(
            outputs[1].values(),
            [4096.0, f64::INFINITY, f64::NEG_INFINITY, 4096.0]
        );
    }
}

#[test]
fn i16_accumulator_wraps() {
    let source = "kernel k(x: [i16; 8, 300]) -> (narrow: [i16; 8], wide: [i32; 8]) {
            narrow[i] = sum[k: i16](x[i, k]);
            wide[i] = sum[k](x[i, k] as i32);
        }
        target ascend910b;
        schedule whole { stage x, narrow, wide in ub; tail pad; }
        schedule split { split k by 64; stage x in ub depth 2; stage narrow, wide in ub; tail pad; }";
    let x = HostTensor::from_values(npu_core::Dtype::I16, &[8, 300], &[200.0; 2400]);
    for outputs in simulated(source, &[x]) {
        // 300 × 200 = 60000 wraps to 60000 − 65536 = −5536 in i16.
        assert_eq!(outputs[0].values(), [-5536.0; 8]);
        assert_eq!(outputs[1].values(), [60000.0; 8]);
    }
}

#[test]
fn max_and_min_over_two_axes_find_the_extremes() {
    let source = "kernel k(x: [f32; 3, 12, 40]) -> (top: [f32; 3], bottom: [f32; 3]) {
            top[c] = max[h, w](x[c, h, w]);
            bottom[c] = min[h, w](x[c, h, w]);
        }
        target ascend910b;
        schedule whole { stage x, top, bottom in ub; tail pad; }
        schedule split { split h by 5; split w by 16; stage x in ub depth 2; stage top, bottom in ub; tail pad; }";
    let mut data: Vec<f64> = (0..3 * 480).map(|n| f64::from(n % 7) - 3.0).collect();
    // Channel 0: the extremes in the last tile of both split axes (a tail of each).
    data[11 * 40 + 39] = 1e30;
    data[11 * 40 + 38] = -1e30;
    // Channel 1: infinities.
    data[480 + 5] = f64::INFINITY;
    data[480 + 6] = f64::NEG_INFINITY;
    // Channel 2: a NaN is skipped, as the vector unit's max and min skip it.
    data[960 + 17] = f64::NAN;
    let x = HostTensor::from_values(npu_core::Dtype::F32, &[3, 12, 40], &data);
    for outputs in simulated(source, &[x]) {
        assert_eq!(outputs[0].values(), [1e30f32 as f64, f64::INFINITY, 3.0]);
        assert_eq!(
            outputs[1].values(),
            [-1e30f32 as f64, f64::NEG_INFINITY, -3.0]
        );
    }
}

#[test]
fn seeded_random_data_matches_the_reference() {
    // Splitting `w` folds tile by tile, so sums match within the tolerance of a sum in
    // another order; the whole-plane schedule matches exactly.
    for stem in [
        "plane_stats",
        "f16_accumulate",
        "bf16_accumulate",
        "global_avg_pool",
    ] {
        let kernel = support::check(&support::kernel_file(stem));
        for seed in 0..4 {
            let inputs = support::inputs(&kernel, seed);
            for index in 0..kernel.schedules.len() {
                let evaluation = evaluate(&kernel, index, &inputs, None, &SimOptions::default())
                    .unwrap_or_else(|error| panic!("{stem}: {error}"));
                assert!(
                    matches!(evaluation.correctness, Correctness::Passed { .. }),
                    "{stem}.{} seed {seed}: {:?}",
                    kernel.schedules[index].name,
                    evaluation.correctness
                );
            }
        }
    }
}
