use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = x[i] * 2.0;
    }
    target ascend910b;

    schedule hand {
        tile i by 1024;
        stage x, y in l0 depth 2;
        tail padded;
    }
}

fn main() {}
