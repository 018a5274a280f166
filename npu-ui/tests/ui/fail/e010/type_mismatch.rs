use npu::npu_kernel;

npu_kernel! {
    kernel mixed(h: [f16; 4096], x: [f32; 4096], n: [i32; 4096])
        -> (sum: [f16; 4096], e: [i32; 4096], narrow: [f16; 4096])
    {
        sum[i] = h[i] + x[i];
        e[i] = exp(n[i]);
        narrow[i] = x[i] * 2.0;
    }
    target npueval_demo;

    schedule hand {
        split i by 512;
        stage h, x, n, sum, e, narrow in ub depth 1;
    }
}

fn main() {}
