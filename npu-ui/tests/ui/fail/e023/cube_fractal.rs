use npu::npu_kernel;

npu_kernel! {
    kernel matmul(a: [f16; 256, 256], b: [f16; 256, 256]) -> c: [f32; 256, 256] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;

    schedule ragged {
        split m by 128;
        split n by 128;
        stage a, b in l1 depth 1;
        stage a in l0a depth 1;
        stage b in l0b depth 1;
        stage c in l0c depth 1;
        cube m by 24, n by 64, k by 64;
    }
}

fn main() {}
