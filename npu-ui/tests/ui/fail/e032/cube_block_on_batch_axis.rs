use npu::npu_kernel;

npu_kernel! {
    /// Eight products of 64 x 128 by 128 x 64: the cube multiplies one matrix at a
    /// time, so its block never covers the batch axis `t`.
    kernel bmm(a: [f16; 8, 64, 128], b: [f16; 8, 128, 64]) -> c: [f32; 8, 64, 64] {
        c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32);
    }
    target ascend910b;

    schedule blocked_batch {
        parallel t over 4 cores;
        cube t by 2, m by 64, n by 64, k by 64;
        stage a, b in l1 depth 2;
        stage a in l0a depth 2;
        stage b in l0b depth 2;
        stage c in l0c depth 1;
    }
}

fn main() {}
