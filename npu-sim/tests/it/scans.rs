//! argmax/argmin and scans (cumsum/cumprod) on hand-picked values: ties, NaN and
//! infinities, reduced and scanned axes split into tiles that carry from one to the
//! next. Every schedule's simulated outputs equal the reference interpreter's and the
//! values worked out by hand.

use crate::support;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use npu_core::lower::lower;
use npu_sim::{SimOptions, reference, simulate};

/// Every schedule's simulated outputs, each checked equal to the reference's.
fn simulated(source: &str, inputs: &[HostTensor]) -> Vec<Vec<HostTensor>> {
    let kernel = support::check(source);
    let expected = reference(&kernel, inputs).expect("indices in range");
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

fn tensor(dtype: Dtype, shape: &[u64], data: Vec<f64>) -> HostTensor {
    HostTensor::from_values(dtype, shape, &data)
}

#[test]
fn argmax_keeps_the_first_of_ties_and_nan_wins() {
    let source = "kernel k(x: [f16; 4, 40]) -> (hi: [i32; 4], lo: [i16; 4]) {
            hi[i] = argmax[k](x[i, k]);
            lo[i] = argmin[k](x[i, k]);
        }
        target ascend910b;
        schedule whole { stage x, hi, lo in ub; tail pad; }
        schedule split { split k by 16; stage x in ub depth 2; stage hi, lo in ub; tail pad; }
        schedule rows { parallel i over 2 cores; split i by 1; split k by 16; stage x in ub depth 2; stage hi, lo in ub; tail pad; }";
    let mut data = vec![0.0; 160];
    // Row 0: 7 at 5 and at 30 (a later tile): the first wins; -3 at 33 is the least.
    data[5] = 7.0;
    data[30] = 7.0;
    data[33] = -3.0;
    // Row 1: a NaN at 20 beats the infinity at 3 for both, and the NaN at 39 is later.
    data[43] = f64::INFINITY;
    data[60] = f64::NAN;
    data[79] = f64::NAN;
    // Row 2: every element -inf: index 0 for both.
    for value in &mut data[80..120] {
        *value = f64::NEG_INFINITY;
    }
    // Row 3: increasing, so the last is the greatest and the first the least.
    for (k, value) in data[120..160].iter_mut().enumerate() {
        *value = k as f64;
    }
    let x = tensor(Dtype::F16, &[4, 40], data);
    for outputs in simulated(source, &[x]) {
        assert_eq!(outputs[0].values(), [5.0, 20.0, 0.0, 39.0]);
        assert_eq!(outputs[1].values(), [33.0, 20.0, 0.0, 0.0]);
    }
}

#[test]
fn cumsum_carries_from_tile_to_tile() {
    let source = "kernel k(x: [f32; 3, 50]) -> y: [f32; 3, 50] {
            y[i, k] = cumsum[k](x[i, k]);
        }
        target ascend910b;
        schedule whole { stage x, y in ub; tail pad; }
        schedule split { split k by 16; stage x, y in ub depth 2; tail pad; }
        schedule rows { parallel i over 3 cores; split k by 8; stage x, y in ub depth 2; tail pad; }";
    let data: Vec<f64> = (0..150).map(|n| (n % 50) as f64).collect();
    let x = tensor(Dtype::F32, &[3, 50], data);
    for outputs in simulated(source, &[x]) {
        for row in outputs[0].values().chunks(50) {
            // 0 + 1 + ... + k = k (k + 1) / 2.
            let want: Vec<f64> = (0..50).map(|k| (k * (k + 1) / 2) as f64).collect();
            assert_eq!(row, want.as_slice());
        }
    }
}

#[test]
fn cumprod_along_the_outer_axis() {
    let source = "kernel k(x: [f32; 6, 10]) -> y: [f32; 6, 10] {
            y[k, j] = cumprod[k](x[k, j]);
        }
        target ascend910b;
        schedule whole { stage x, y in ub; tail pad; }
        schedule split { split k by 4; split j by 8; stage x, y in ub depth 2; tail pad; }";
    let x = tensor(Dtype::F32, &[6, 10], vec![2.0; 60]);
    for outputs in simulated(source, &[x]) {
        for (k, row) in outputs[0].values().chunks(10).enumerate() {
            assert_eq!(row, [f64::from(2u32.pow(k as u32 + 1)); 10]);
        }
    }
}

#[test]
fn scans_and_argmax_inside_expressions_and_fused_kernels() {
    let source = "kernel k(x: [f16; 4, 24]) -> y: [f16; 4, 24] {
            let c[i, k] = cumsum[k: f16](x[i, k]) * 2.0;
            let at[i] = argmax[k](c[i, k]);
            y[i, k] = c[i, k] + cumsum[k](x[i, k]) - (at[i] as f16);
        }
        target ascend910b;
        schedule whole { stage x, y in ub; tail pad; }
        schedule rows { split i by 1; stage x, y in ub depth 2; tail pad; }";
    let data: Vec<f64> = (0..96).map(|n| [1.0, -2.0, 0.5][n % 3]).collect();
    let x = tensor(Dtype::F16, &[4, 24], data);
    simulated(source, &[x]);
}
