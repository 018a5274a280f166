use npu::npu_kernel;

npu_kernel! {
    kernel softplus(x: [f32; 4096]) -> y: [f32; 4096] {
        y[i] = logf(1.0 + expf(x[i]));
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

fn main() {}
