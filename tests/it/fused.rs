//! Fused kernels with `let` intermediates through the macro: the host loops the macro
//! generates (`reference_host`), the simulator's interpreter (`npu::sim::reference`)
//! and every schedule, simulated, agree on seeded random data and on edge values.

use npu::sim::{Correctness, SimOptions, evaluate, reference};
use npu::{CheckedKernel, HostTensor, npu_kernel};

npu_kernel! {
    /// Softmax over rows: the row max and the row sum stay on chip
    kernel softmax(x: [f32; 12, 96]) -> y: [f32; 12, 96] {
        let m[i] = max[k](x[i, k]);
        let e[i, k] = exp(x[i, k] - m[i]);
        let s[i] = sum[k](e[i, k]);
        y[i, k] = e[i, k] / s[i];
    }
    target ascend910b;

    schedule rows {
        split i by 4;
        stage x, y in ub depth 2;
    }
    schedule cores {
        parallel i over 3 cores;
        split i by 2;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// Layer normalisation of f16 rows with f32 statistics, a gain and a bias
    kernel layernorm(x: [f16; 10, 128], g: [f16; 128], b: [f16; 128]) -> y: [f16; 10, 128] {
        let xf[i, k] = x[i, k] as f32;
        let mu[i] = sum[k](xf[i, k]) / 128.0;
        let d[i, k] = xf[i, k] - mu[i];
        let r[i] = rsqrt(sum[k](d[i, k] * d[i, k]) / 128.0 + 0.00001);
        y[i, k] = (d[i, k] * r[i]) as f16 * g[k] + b[k];
    }
    target ascend910b;

    schedule rows {
        split i by 3;
        stage x, g, b, y in ub depth 2;
        tail pad;
    }
}

npu_kernel! {
    /// Mean squared error per row, the difference an intermediate over a reduction axis
    kernel mse(a: [f32; 20, 72], t: [f32; 20, 72]) -> y: [f32; 20] {
        let d[i, k] = a[i, k] - t[i, k];
        y[i] = sum[k](d[i, k] * d[i, k]) / 72.0;
    }
    target ascend910b;

    schedule rows {
        parallel i over 2 cores;
        split i by 8;
        stage a, t, y in ub depth 2;
        tail pad;
    }
}

/// Every schedule of `kernel` on `inputs` matches both host references, which agree.
fn agree(kernel: &CheckedKernel, inputs: &[HostTensor], from_macro: &[HostTensor]) {
    let interpreted = reference(kernel, inputs).expect("no gathers");
    assert_eq!(
        interpreted, from_macro,
        "{}: the two host references",
        kernel.name
    );
    // Intermediates are not outputs.
    assert_eq!(interpreted.len(), 1);
    for (index, schedule) in kernel.schedules.iter().enumerate() {
        let evaluation = evaluate(
            kernel,
            index,
            inputs,
            Some(from_macro),
            &SimOptions::default(),
        )
        .unwrap_or_else(|error| panic!("{}.{}: {error}", kernel.name, schedule.name));
        assert!(
            matches!(evaluation.correctness, Correctness::Passed { .. }),
            "{}.{}: {:?}",
            kernel.name,
            schedule.name,
            evaluation.correctness
        );
    }
}

/// A tensor of `kernel`'s input `index` whose rows cycle through `rows`.
fn rows_of(kernel: &CheckedKernel, index: usize, rows: &[&[f64]]) -> HostTensor {
    let tensor = &kernel.tensors[index];
    let width = *tensor.shape.last().unwrap_or(&1) as usize;
    let data: Vec<f64> = (0..tensor.elements() as usize)
        .map(|at| {
            let row = rows[(at / width) % rows.len()];
            tensor.dtype.round(row[at % width % row.len()])
        })
        .collect();
    HostTensor::from_values(tensor.dtype, &tensor.shape, &data)
}

#[test]
fn softmax_on_random_and_edge_rows() {
    let kernel = softmax::kernel();
    for seed in [1, 2] {
        let x = HostTensor::random(kernel.tensors[0].dtype, &kernel.tensors[0].shape, seed);
        let from_macro = softmax::reference_host(std::slice::from_ref(&x)).unwrap();
        agree(kernel, &[x], &from_macro);
    }
    // Equal values, values that overflow exp without the max subtracted, very negative
    // values whose exp underflows, zeros, and one large value among small ones.
    let edges: &[&[f64]] = &[
        &[3.0],
        &[100.0, 88.5, 90.0],
        &[-1e4, -1e4 + 1.0, -20000.0],
        &[0.0, -0.0],
        &[1e3, 0.0, 0.0, 0.0, -1e3],
    ];
    let x = rows_of(kernel, 0, edges);
    let from_macro = softmax::reference_host(std::slice::from_ref(&x)).unwrap();
    // A row of equal values is uniform.
    assert_eq!(from_macro[0].values()[0], f64::from(1.0_f32 / 96.0));
    agree(kernel, &[x], &from_macro);
}

#[test]
fn layernorm_on_random_and_edge_rows() {
    let kernel = layernorm::kernel();
    let random = |t: usize, seed| {
        HostTensor::random(kernel.tensors[t].dtype, &kernel.tensors[t].shape, seed)
    };
    let inputs = [random(0, 3), random(1, 4), random(2, 5)];
    let from_macro = layernorm::reference_host(&inputs).unwrap();
    agree(kernel, &inputs, &from_macro);
    // A constant row (variance 0, so rsqrt of the epsilon), the f16 extremes, and
    // alternating signs.
    let edges: &[&[f64]] = &[&[7.0], &[65504.0, -65504.0], &[1.0, -1.0, 0.5], &[0.0]];
    let inputs = [
        rows_of(kernel, 0, edges),
        rows_of(kernel, 1, &[&[1.0, -2.0, 0.5]]),
        rows_of(kernel, 2, &[&[0.0, 0.25]]),
    ];
    let from_macro = layernorm::reference_host(&inputs).unwrap();
    agree(kernel, &inputs, &from_macro);
}

#[test]
fn mse_on_random_and_edge_rows() {
    let kernel = mse::kernel();
    let random = |t: usize, seed| {
        HostTensor::random(kernel.tensors[t].dtype, &kernel.tensors[t].shape, seed)
    };
    let inputs = [random(0, 6), random(1, 7)];
    let from_macro = mse::reference_host(&inputs).unwrap();
    agree(kernel, &inputs, &from_macro);
    let edges: &[&[f64]] = &[&[0.0], &[1e18, -1e18], &[1e-30, 3.0]];
    let inputs = [
        rows_of(kernel, 0, edges),
        rows_of(kernel, 1, &[&[0.0], &[1e18]]),
    ];
    let from_macro = mse::reference_host(&inputs).unwrap();
    agree(kernel, &inputs, &from_macro);
}

/// The tuner's worked fused example is shown to fused kernels and passes the checker.
#[cfg(feature = "tune")]
#[test]
fn the_prompt_has_a_fused_example_that_checks() {
    let fused: Vec<&str> = npu::tuner::prompt::EXAMPLES
        .iter()
        .copied()
        .filter(|example| example.contains("    let "))
        .collect();
    assert_eq!(fused.len(), 1);
    let target = npu::Target::preset("ascend910b").unwrap();
    if let Err(diagnostics) = npu::check_source(fused[0], &target) {
        panic!("{}", diagnostics.render(fused[0]));
    }
}
