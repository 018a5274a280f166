use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f16; 4096], factor: f16) -> y: [f16; 4096] {
        y[i] = x[i] * factor;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, factor, y in ub depth 2;
    }
}

fn main() {}
