use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = x[i] * 2.0;
    }
    target ascend910b;

    schedule wide {
        parallel i over 64 cores;
        split i by 4096;
        stage x, y in ub depth 2;
    }
}

fn main() {}
