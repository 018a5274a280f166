use npu::npu_kernel;

npu_kernel! {
    kernel gathers(x: [f32; 64, 64], idx: [i32; 8], fidx: [f32; 8]) -> (y: [f32; 8], z: [f32; 8], w: [f32; 8]) {
        y[i] = x[idx[i], idx[i]];
        z[i] = x[fidx[i], 0];
        w[idx[i]] = x[0, 0];
    }
    target ascend910b;

    schedule hand {
        stage x, idx, fidx, y, z, w in ub depth 1;
    }
}

fn main() {
    // The stub keeps the typed signature of the reference.
    let _ = gathers::reference(&[0.0; 64 * 64], &[0; 8], &[0.0; 8]);
}
