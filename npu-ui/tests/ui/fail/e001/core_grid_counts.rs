use npu::npu_kernel;

npu_kernel! {
    /// A core grid names two axes but gives three core counts.
    kernel matmul(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;

    schedule hand {
        parallel m, n over 4 x 5 x 2 cores;
        cube m by 64, n by 64, k by 64;
        stage a, b in l1;
        stage a in l0a;
        stage b in l0b;
        stage c in l0c;
    }
}

fn main() {}
