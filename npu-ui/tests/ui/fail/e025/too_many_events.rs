use npu::npu_kernel;

npu_kernel! {
    kernel sum5(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536], d: [f16; 65536], e: [f16; 65536])
        -> y: [f16; 65536]
    {
        y[i] = a[i] + b[i] + c[i] + d[i] + e[i];
    }
    target ascend910b;

    schedule pipelined {
        split i by 1024;
        stage a, b, c, d, e in ub depth 2;
        stage y in ub depth 2;
    }
}

fn main() {}
