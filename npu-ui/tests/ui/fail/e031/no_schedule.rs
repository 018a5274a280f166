use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = x[i] * 2.0;
    }
    target npueval_demo;
}

fn main() {}
