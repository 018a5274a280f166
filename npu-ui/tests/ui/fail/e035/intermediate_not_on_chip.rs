use npu::npu_kernel;

npu_kernel! {
    /// Softmax over rows, fused
    kernel softmax(x: [f32; 32, 1024]) -> y: [f32; 32, 1024] {
        let m[i] = max[k](x[i, k]);
        let e[i, k] = exp(x[i, k] - m[i]);
        let s[i] = sum[k](e[i, k]);
        y[i, k] = e[i, k] / s[i];
    }
    target ascend910b;

    schedule split_rows {
        split i by 4;
        split k by 256;
        stage x, y in ub depth 2;
    }
    schedule staged_intermediate {
        split i by 4;
        stage x, e, y in ub;
    }
}

fn main() {}
