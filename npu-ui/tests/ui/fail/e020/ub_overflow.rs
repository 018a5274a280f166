use npu::npu_kernel;

npu_kernel! {
    /// y = a * b + c
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule pipelined {
        split i by 8192;
        stage a, b, c, y in ub depth 2;
    }
}

fn main() {}
