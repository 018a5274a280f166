use npu::npu_kernel;

npu_kernel! {
    kernel matmul(a: [f16; 1024, 1024], b: [f16; 1024, 1024]) -> c: [f32; 1024, 1024] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;

    schedule big_blocks {
        split m by 256;
        split n by 256;
        split k by 256;
        stage a, b in l1 depth 1;
        stage a in l0a depth 2;
        stage b in l0b depth 2;
        stage c in l0c depth 2;
        cube m by 256, n by 128, k by 128;
    }
}

fn main() {}
