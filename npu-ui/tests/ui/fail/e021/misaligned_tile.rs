use npu::npu_kernel;

npu_kernel! {
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule odd {
        split i by 1000;
        stage a, b, c, y in ub depth 2;
        tail exact;
    }
}

fn main() {}
