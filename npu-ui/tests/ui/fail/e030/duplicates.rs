use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = x[i] * 2.0;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        split i by 2048;
        stage x, y in ub depth 2;
    }
    schedule hand {
        split i by 512;
        stage x, y in ub depth 2;
    }
}

fn main() {}
