use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = x[i] * 2.0;
    }
    target npueval_demo;

    schedule empty_tiles {
        split i by 0;
        stage x, y in ub depth 2;
    }
    schedule oversized {
        split i by 8192;
        stage x, y in ub depth 2;
    }
}

fn main() {}
