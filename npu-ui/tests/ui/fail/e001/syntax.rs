use npu::npu_kernel;

npu_kernel! {
    kernel vmla(a: [f16; 4096], b: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = a[i] * b[i]
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage a, b, y in ub depth 2;
    }
}

fn main() {}
