use npu::npu_kernel;

npu_kernel! {
    kernel top(x: [f16; 8, 300]) -> y: [i8; 8] {
        y[i] = argmax[k](x[i, k]);
    }
    target ascend910b;

    schedule s {
        stage x, y in ub;
        tail pad;
    }
}

fn main() {}
