use npu::npu_kernel;

npu_kernel! {
    kernel powers(x: [f32; 4096], e: [f32; 4096], n: [i32; 4096]) -> (y: [f32; 4096], z: [i32; 4096]) {
        y[i] = pow(x[i], e[i]);
        z[i] = max(n[i], -inf);
    }
    target ascend910b;

    schedule hand {
        split i by 1024;
        stage x, e, n, y, z in ub depth 1;
    }
}

fn main() {}
