use npu::npu_kernel;

npu_kernel! {
    kernel split_sum(x: [f16; 4096]) -> y: [f16; 4096], z: [f16; 4096] {
        y[i] = x[i] + 1.0;
        z[i] = x[i] - 1.0;
    }
    target npueval_demo;
    schedule hand { stage x, y, z in ub; }
}

fn main() {}
