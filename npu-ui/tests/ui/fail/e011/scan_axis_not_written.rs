use npu::npu_kernel;

npu_kernel! {
    kernel running(x: [f32; 64, 256]) -> y: [f32; 64] {
        y[i] = cumsum[k](x[i, k]);
    }
    target ascend910b;

    schedule s {
        stage x, y in ub;
    }
}

fn main() {}
