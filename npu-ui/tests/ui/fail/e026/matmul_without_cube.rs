use npu::npu_kernel;

npu_kernel! {
    kernel matmul(a: [f16; 64, 64], b: [f16; 64, 64]) -> c: [f32; 64, 64] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target npueval_demo;

    schedule hand {
        stage a, b, c in ub depth 1;
    }
}

fn main() {}
