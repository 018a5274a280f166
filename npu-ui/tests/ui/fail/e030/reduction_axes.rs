use npu::npu_kernel;

npu_kernel! {
    kernel plane(x: [f32; 16, 12, 40]) -> (y: [f32; 16], z: [f32; 16]) {
        y[c] = sum[h, h](x[c, h, h]);
        z[c] = sum[h, w](x[c, h, w]) + max[h](x[c, h, 0]);
    }
    target ascend910b;

    schedule s {
        stage x, y, z in ub;
        tail pad;
    }
}

fn main() {}
