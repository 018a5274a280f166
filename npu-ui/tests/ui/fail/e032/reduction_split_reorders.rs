use npu::npu_kernel;

npu_kernel! {
    kernel plane(x: [f16; 16, 12, 64]) -> y: [f16; 16] {
        y[c] = sum[h, w: f16](x[c, h, w]);
    }
    target ascend910b;

    schedule s {
        split h by 4;
        split w by 16;
        stage x, y in ub;
    }
}

fn main() {}
