use npu::npu_kernel;

npu_kernel! {
    kernel pick(a: [f16; 4096, 8], b: [f16; 2048]) -> y: [f16; 4096] {
        y[i] = a[i, 8] + b[i];
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage a, b, y in ub depth 2;
    }
}

fn main() {}
