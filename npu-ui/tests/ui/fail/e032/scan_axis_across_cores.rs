use npu::npu_kernel;

npu_kernel! {
    kernel running(x: [f32; 8, 4096]) -> y: [f32; 8, 4096] {
        y[i, k] = cumsum[k](x[i, k]);
    }
    target ascend910b;

    schedule s {
        parallel k over 4 cores;
        stage x, y in ub;
    }
}

fn main() {}
