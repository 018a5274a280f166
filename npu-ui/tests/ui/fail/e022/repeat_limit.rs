use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f32; 65536]) -> y: [f32; 65536] {
        y[i] = x[i] * 2.0;
    }
    target ascend910b;

    schedule long_tiles {
        split i by 16384;
        stage x, y in ub depth 1;
    }
}

fn main() {}
