use npu::npu_kernel;

npu_kernel! {
    kernel count(x: [i32; 16, 64]) -> y: [i32; 16] {
        y[c] = sum[k: f32](x[c, k]);
    }
    target ascend910b;

    schedule s {
        stage x, y in ub;
        tail pad;
    }
}

fn main() {}
