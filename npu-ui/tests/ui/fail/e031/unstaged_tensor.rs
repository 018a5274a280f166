use npu::npu_kernel;

npu_kernel! {
    kernel vmla(a: [f16; 4096], b: [f16; 4096], c: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage a, b, c in ub depth 2;
    }
}

fn main() {}
