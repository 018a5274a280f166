use npu::npu_kernel;

npu_kernel! {
    kernel running(x: [f32; 64, 1024]) -> y: [f32; 64, 1024] {
        y[i, k] = cumprod[k](x[i, k]);
    }
    target ascend910b;

    schedule s {
        split i by 8;
        split k by 256;
        stage x, y in ub;
        order k, i;
    }
}

fn main() {}
