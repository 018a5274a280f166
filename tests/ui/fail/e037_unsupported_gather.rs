use npu::npu_kernel;

npu_kernel! {
    kernel scatter(x: [f32; 64], idx: [i32; 64]) -> y: [f32; 64] {
        y[idx[i]] = x[i];
    }
    target ascend910b;

    schedule hand {
        stage x, idx, y in ub depth 1;
    }
}

npu_kernel! {
    kernel twice(x: [f32; 64, 64], idx: [i32; 8]) -> y: [f32; 8] {
        y[i] = x[idx[i], idx[i]];
    }
    target ascend910b;

    schedule hand {
        stage x, idx, y in ub depth 1;
    }
}

npu_kernel! {
    kernel float_index(x: [f32; 64], idx: [f32; 8]) -> y: [f32; 8] {
        y[i] = x[idx[i]];
    }
    target ascend910b;

    schedule hand {
        stage x, idx, y in ub depth 1;
    }
}

fn main() {
    // The stub keeps the typed signature of the reference.
    let _ = twice::reference(&[0.0; 64 * 64], &[0; 8]);
}
