use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [fp16; 4096]) -> y: [float32; 4096] {
        y[i] = x[i] * 2.0;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

fn main() {}
