//! Window kernels (affine subscripts, window reductions, padded views) written with
//! `npu_kernel!`: every schedule simulated on seeded random data and on edge values,
//! and the macro's generated reference, the simulator's reference interpreter and the
//! simulated outputs all agree.

use npu::HostTensor;
use npu::npu_kernel;
use npu::sim::{Correctness, SimOptions, evaluate, reference};

npu_kernel! {
    /// 1-d max pooling, window 3, stride 2.
    kernel max_pool1d(x: [f16; 4097]) -> y: [f16; 2048] {
        y[i] = max[k < 3](x[2*i + k]);
    }
    target ascend910b;
    schedule whole { stage x, y in ub depth 1; tail pad; }
    schedule tiles { parallel i over 4 cores; split i by 128; stage x, y in ub depth 2; tail pad; }
}

npu_kernel! {
    /// 1-d average pooling, window 2, stride 1, in f32.
    kernel avg_pool1d(x: [f32; 1025]) -> y: [f32; 1024] {
        y[i] = sum[k < 2](x[i + k]) * 0.5;
    }
    target ascend910b;
    schedule tiles { split i by 256; stage x, y in ub depth 2; tail pad; }
}

npu_kernel! {
    /// A "same" 1-d convolution: zeros past both ends of x.
    kernel conv1d_same(x: [f32; 1024], w: [f32; 4, 5]) -> y: [f32; 4, 1024] {
        y[o, t] = sum[k](pad(x, 0)[t + k - 2] * w[o, k]);
    }
    target ascend910b;
    schedule cores { parallel t over 4 cores; split t by 64; stage x, w, y in ub depth 2; tail pad; }
}

npu_kernel! {
    /// A 2-d border of -1.5.
    kernel pad2d(m: [f32; 30, 30]) -> z: [f32; 32, 32] {
        z[i, j] = pad(m, -1.5)[i - 1, j - 1];
    }
    target ascend910b;
    schedule rows { parallel i over 4 cores; split i by 4; stage m, z in ub depth 2; tail pad; }
}

npu_kernel! {
    /// A 2-d border of a value given at run time.
    kernel pad2d_with(m: [f16; 30, 30], border: f16) -> z: [f16; 32, 32] {
        z[i, j] = pad(m, border)[i - 1, j - 1];
    }
    target ascend910b;
    schedule rows { parallel i over 4 cores; split i by 4; stage m, z in ub depth 2; tail pad; }
    schedule whole { stage m, z in ub depth 1; tail pad; }
}

/// Values at the edges of f16 (largest, smallest normal and subnormal, signed zeros,
/// -inf for the max) and of the window arithmetic, repeated along the input.
fn edge_inputs(kernel: &npu::CheckedKernel) -> Vec<HostTensor> {
    const EDGES: [f64; 9] = [
        65504.0,
        -65504.0,
        6.103515625e-5,
        5.960464477539063e-8,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::NEG_INFINITY,
    ];
    kernel
        .tensors
        .iter()
        .filter(|t| t.role == npu::ir::Role::Input)
        .map(|t| {
            let count: u64 = t.shape.iter().product();
            let data: Vec<f64> = (0..count)
                .map(|i| {
                    // Sums stay finite: -inf only where a max reads it.
                    let edge = EDGES[(i % EDGES.len() as u64) as usize];
                    if edge.is_infinite() && kernel.name != "max_pool1d" {
                        0.5
                    } else {
                        edge
                    }
                })
                .collect();
            HostTensor::from_values(t.dtype, &t.shape, &data)
        })
        .collect()
}

fn random_inputs(kernel: &npu::CheckedKernel, seed: u64) -> Vec<HostTensor> {
    kernel
        .tensors
        .iter()
        .filter(|t| t.role == npu::ir::Role::Input)
        .enumerate()
        .map(|(index, t)| HostTensor::random(t.dtype, &t.shape, seed * 31 + index as u64))
        .collect()
}

fn agree(kernel: &npu::CheckedKernel, generated: impl Fn(&[HostTensor]) -> Vec<HostTensor>) {
    for inputs in [random_inputs(kernel, 7), edge_inputs(kernel)] {
        let host = generated(&inputs);
        let interpreted = reference(kernel, &inputs).expect("no gathers");
        for (a, b) in host.iter().zip(&interpreted) {
            let same = a
                .values()
                .iter()
                .zip(&b.values())
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
            assert!(same, "{}: the two references differ", kernel.name);
        }
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let evaluation = evaluate(kernel, index, &inputs, Some(&host), &SimOptions::default())
                .unwrap_or_else(|error| panic!("{}.{}: {error}", kernel.name, schedule.name));
            assert!(
                matches!(
                    evaluation.correctness,
                    Correctness::Passed { max_abs_error } if max_abs_error == 0.0
                ),
                "{}.{}: {:?}",
                kernel.name,
                schedule.name,
                evaluation.correctness
            );
        }
    }
}

#[test]
fn window_kernels_match_both_references_on_random_and_edge_values() {
    agree(max_pool1d::kernel(), |inputs| {
        max_pool1d::reference_host(inputs).expect("shapes fit")
    });
    agree(avg_pool1d::kernel(), |inputs| {
        avg_pool1d::reference_host(inputs).expect("shapes fit")
    });
    agree(conv1d_same::kernel(), |inputs| {
        conv1d_same::reference_host(inputs).expect("shapes fit")
    });
    agree(pad2d::kernel(), |inputs| {
        pad2d::reference_host(inputs).expect("shapes fit")
    });
    agree(pad2d_with::kernel(), |inputs| {
        pad2d_with::reference_host(inputs).expect("shapes fit")
    });
}

#[test]
fn padded_reads_take_the_pad_value() {
    let m = HostTensor::from_values(
        npu::Dtype::F32,
        &[30, 30],
        &(0..900).map(f64::from).collect::<Vec<f64>>(),
    );
    let z = pad2d::reference_host(&[m]).expect("shapes fit");
    // Row 0 and column 0 are the border; z[1, 1] is m[0, 0] and z[2, 3] is m[1, 2].
    assert_eq!(z[0].values()[0], -1.5);
    assert_eq!(z[0].values()[5], -1.5);
    assert_eq!(z[0].values()[32], -1.5);
    assert_eq!(z[0].values()[33], 0.0);
    assert_eq!(z[0].values()[2 * 32 + 3], 32.0);
    assert_eq!(z[0].values()[31 * 32 + 31], -1.5);
}

#[test]
fn a_scalar_parameter_pads_with_its_run_time_value() {
    let kernel = pad2d_with::kernel();
    let m = HostTensor::from_values(npu::Dtype::F16, &[30, 30], &[1.0; 900]);
    for border in [7.0, -0.5] {
        let scalar = HostTensor::from_values(npu::Dtype::F16, &[], &[border]);
        let inputs = [m.clone(), scalar];
        // 1 inside, the border value on the frame of the 32 x 32 output.
        let expected = vec![HostTensor::from_values(
            npu::Dtype::F16,
            &[32, 32],
            &(0..32 * 32)
                .map(|e| {
                    let (i, j) = (e / 32, e % 32);
                    let frame = i == 0 || j == 0 || i == 31 || j == 31;
                    if frame { border } else { 1.0 }
                })
                .collect::<Vec<f64>>(),
        )];
        assert_eq!(
            pad2d_with::reference_host(&inputs).expect("shapes fit"),
            expected
        );
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let evaluation = evaluate(
                kernel,
                index,
                &inputs,
                Some(&expected),
                &SimOptions::default(),
            )
            .expect("simulates");
            assert!(
                matches!(evaluation.correctness, Correctness::Passed { .. }),
                "{}: {:?}",
                schedule.name,
                evaluation.correctness
            );
        }
    }
}
