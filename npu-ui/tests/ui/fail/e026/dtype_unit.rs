use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f32; 4096]) -> y: [f32; 4096] {
        y[i] = x[i] * 2.0;
    }
    target aie2_tile;

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

fn main() {}
