use npu::npu_kernel;

npu_kernel! {
    kernel top(x: [f16; 4, 16, 16]) -> y: [i32; 4] {
        y[c] = argmax[h, w](x[c, h, w]);
    }
    target ascend910b;

    schedule s {
        stage x, y in ub;
    }
}

fn main() {}
