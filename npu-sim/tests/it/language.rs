//! Issue 23's language items on data: kernels the checker now accepts (a `let` axis
//! whose extent the output gives, selects of float literals in bf16) run on the
//! simulator and agree with the reference interpreter and with values worked out by
//! hand.

use npu_core::host::HostTensor;
use npu_core::{Dtype, Target};
use npu_sim::{Correctness, SimOptions, evaluate, reference};

fn check(source: &str) -> npu_core::CheckedKernel {
    let target = Target::preset("aie2_tile").unwrap();
    npu_core::check_source(source, &target).unwrap_or_else(|d| panic!("{}", d.render(source)))
}

/// Runs every schedule of `kernel` on `inputs` and returns the reference's outputs,
/// after checking that the simulator computes them bit for bit.
fn run(kernel: &npu_core::CheckedKernel, inputs: &[HostTensor]) -> Vec<f64> {
    let expected = reference(kernel, inputs).unwrap();
    for schedule in 0..kernel.schedules.len() {
        let evaluation = evaluate(
            kernel,
            schedule,
            inputs,
            Some(&expected),
            &SimOptions::default(),
        )
        .unwrap_or_else(|error| panic!("schedule {schedule}: {error}"));
        assert_eq!(
            evaluation.correctness,
            Correctness::Passed { max_abs_error: 0.0 },
            "schedule {schedule}"
        );
    }
    expected[0].values().to_vec()
}

fn bf16s(values: impl Iterator<Item = f64>) -> HostTensor {
    let values: Vec<f64> = values.map(|v| Dtype::Bf16.round(v)).collect();
    HostTensor::from_values(Dtype::Bf16, &[values.len() as u64], &values)
}

// Item 6: `m[i]` takes the extent of `y[i]`; every element is z[i] - max(x).
#[test]
fn item6_let_over_the_output_axis_on_data() {
    let kernel = check(
        "kernel l(x: [bf16; 64], z: [bf16; 64]) -> y: [bf16; 64] { let m[i] = max[k](x[k]); y[i] = z[i] - m[i]; }\n\
         target aie2_tile;\nschedule s { stage x, z, y in ub depth 1; }\n",
    );
    let x = bf16s((0..64).map(|i| f64::from((i * 37) % 64) - 20.0));
    let z = bf16s((0..64).map(f64::from));
    let values = run(&kernel, &[x, z]);
    // max(x) is 63 - 20 = 43: 37 is odd, so i * 37 mod 64 takes every value 0..64.
    let by_hand: Vec<f64> = (0..64).map(|i| f64::from(i) - 43.0).collect();
    assert_eq!(values, by_hand);
}

// Item 8b: nested selects of float literals in bf16 on aie2_tile (no f32 unit).
#[test]
fn item8b_select_of_float_literals_in_bf16_on_data() {
    let kernel = check(
        "kernel sg(x: [bf16; 64]) -> y: [bf16; 64] { y[i] = select(x[i] > 0.0, 1.0, select(x[i] < 0.0, 2.0, 0.0)); }\n\
         target aie2_tile;\nschedule s { stage x, y in ub depth 1; }\n",
    );
    let x = bf16s((0..64).map(|i| f64::from(i % 3) - 1.0));
    let values = run(&kernel, &[x]);
    let by_hand: Vec<f64> = (0..64).map(|i| [2.0, 0.0, 1.0][i % 3]).collect();
    assert_eq!(values, by_hand);
}

// Item 7: 0-d `let`s, a softmax over a whole vector and a max scaled by a scalar
// parameter, computed on chip as one-element intermediates and broadcast where read.
#[test]
fn item7_zero_d_lets_on_data() {
    let target = Target::preset("ascend910b").unwrap();
    let softmax = npu_core::check_source(
        "kernel sm(x: [f32; 64]) -> y: [f32; 64] { let m = max[i](x[i]); let e[i] = exp(x[i] - m); let s = sum[i](e[i]); y[i] = e[i] / s; }\n\
         target ascend910b;\nschedule s { stage x, y in ub depth 1; }\nschedule t { stage x, y in ub depth 2; }\n",
        &target,
    )
    .unwrap();
    let x: Vec<f64> = (0..64).map(|i| f64::from((i * 13) % 64) / 8.0).collect();
    let values = run(&softmax, &[HostTensor::from_values(Dtype::F32, &[64], &x)]);
    // The greatest input (63 / 8, at i = 59 since 59 * 13 = 767 = 11 * 64 + 63) has
    // the greatest output, and the outputs sum to 1.
    let largest = (0..64)
        .max_by(|a, b| values[*a].total_cmp(&values[*b]))
        .unwrap();
    assert_eq!(largest, 59);
    assert!((values.iter().sum::<f64>() - 1.0).abs() < 1e-5);

    let scaled = npu_core::check_source(
        "kernel z(x: [f32; 16, 64], o: f32) -> y: [f32; 16, 64] { let a = max[i, j](x[i, j]); let b = a * o + 1.0; y[i, j] = x[i, j] - b; }\n\
         target ascend910b;\nschedule s { stage x, y in ub depth 2; }\n",
        &target,
    )
    .unwrap();
    let x: Vec<f64> = (0..1024).map(|i| f64::from(i % 100)).collect();
    let inputs = [
        HostTensor::from_values(Dtype::F32, &[16, 64], &x),
        HostTensor::from_values(Dtype::F32, &[], &[0.5]),
    ];
    let values = run(&scaled, &inputs);
    // max is 99, so b = 99 * 0.5 + 1 = 50.5.
    let by_hand: Vec<f64> = x.iter().map(|v| v - 50.5).collect();
    assert_eq!(values, by_hand);
}

// Item 7: 0-d outputs, a whole-tensor sum split into tiles and a kernel of three 0-d
// outputs (a max over two axes, an argmax and a constant), on every schedule.
#[test]
fn item7_zero_d_outputs_on_data() {
    let target = Target::preset("ascend910b").unwrap();
    let total = npu_core::check_source(
        "kernel total(x: [f32; 4096]) -> y: f32 { y = sum[k](x[k]); }\n\
         target ascend910b;\nschedule whole { stage x, y in ub; tail pad; }\n\
         schedule tiles { split k by 960; stage x, y in ub depth 2; tail pad; }\n",
        &target,
    )
    .unwrap();
    let x: Vec<f64> = (0..4096).map(|i| f64::from(i % 7)).collect();
    let values = run(&total, &[HostTensor::from_values(Dtype::F32, &[4096], &x)]);
    // 4096 = 585 * 7 + 1: 585 whole cycles summing to 21, then one 0.
    assert_eq!(values, [585.0 * 21.0]);

    let stats = npu_core::check_source(
        "kernel stats(x: [f32; 8, 64], w: [f16; 100]) -> (m: f32, a: i32, c: f16) {\n\
         m = max[i, k](x[i, k]);\n a = argmax[j](w[j]);\n c = 1.5;\n}\n\
         target ascend910b;\nschedule s { stage x, w, m, a, c in ub; tail pad; }\n",
        &target,
    )
    .unwrap();
    let x: Vec<f64> = (0..512).map(|i| f64::from((i * 5) % 512)).collect();
    let w: Vec<f64> = (0..100).map(|j| f64::from((j * 3) % 100)).collect();
    let inputs = [
        HostTensor::from_values(Dtype::F32, &[8, 64], &x),
        HostTensor::from_values(Dtype::F16, &[100], &w),
    ];
    let outputs = reference(&stats, &inputs).unwrap();
    run(&stats, &inputs);
    assert!(outputs.iter().all(|output| output.shape().is_empty()));
    let values: Vec<f64> = outputs.iter().map(|o| o.values()[0]).collect();
    // max is 511; w's 99 is at j = 33 (33 * 3 = 99).
    assert_eq!(values, [511.0, 33.0, 1.5]);
}
