use npu::npu_kernel;

npu_kernel! {
    kernel total(x: [f32; 8, 64]) -> y: [f32; 8] {
        y[i] = sum[k](cumsum[k](x[i, k]));
    }
    target ascend910b;

    schedule s {
        stage x, y in ub;
    }
}

fn main() {}
