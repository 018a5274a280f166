use npu::npu_kernel;

npu_kernel! {
    kernel bits(a: [f16; 4096], b: [f16; 4096]) -> (y: [f16; 4096], z: [f16; 4096]) {
        y[i] = a[i] & b[i];
        z[i] = popcount(!b[i]);
    }
    target ascend910b;

    schedule hand {
        split i by 1024;
        stage a, b, y, z in ub depth 1;
    }
}

fn main() {}
