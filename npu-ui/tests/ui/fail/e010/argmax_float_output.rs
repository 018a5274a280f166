use npu::npu_kernel;

npu_kernel! {
    kernel low(x: [f16; 8, 300]) -> y: [f16; 8] {
        y[i] = argmin[k](x[i, k]);
    }
    target ascend910b;

    schedule s {
        stage x, y in ub;
        tail pad;
    }
}

fn main() {}
