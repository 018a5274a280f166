use npu::npu_kernel;

npu_kernel! {
    kernel total(x: [f32; 4096]) -> y: f32 {
        y[i] = x[i];
    }
    target npueval_demo;

    schedule hand {
        stage x in ub;
    }
}

fn main() {}
