use npu::npu_kernel;

npu_kernel! {
    kernel add(a: [f16; 64, 128], b: [f16; 64, 256], w: [f16; 256]) -> y: [f16; 64, 128] {
        y[i, j] = a[i] + b[i, j] * sum[k](a[i, k] * w[k]);
    }
    target npueval_demo;

    schedule hand {
        split i by 8;
        stage a, b, w, y in ub depth 2;
    }
}

fn main() {}
