use npu::npu_kernel;

npu_kernel! {
    /// A batch axis in the middle of `c` and `a` is not the cube's batched form.
    kernel bmm(a: [f16; 64, 4, 128], b: [f16; 4, 128, 64]) -> c: [f32; 64, 4, 64] {
        c[m, t, n] = sum[k](a[m, t, k] as f32 * b[t, k, n] as f32);
    }
    target ascend910b;

    schedule hand {
        cube m by 64, n by 64, k by 64;
        stage a, b in l1 depth 2;
        stage a in l0a depth 2;
        stage b in l0b depth 2;
        stage c in l0c depth 1;
    }
}

fn main() {}
