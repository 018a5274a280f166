use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f32; 217]) -> y: [f32; 217] {
        y[i] = x[i] * 2.0;
    }
    target ascend910b;

    schedule hand {
        split i by 64;
        stage x, y in ub depth 2;
    }
}

fn main() {}
