//! Normalisation: softmax's numerator, log-softmax, layernorm and rmsnorm, fused in one
//! kernel each with `let` intermediates on chip (the fused softmax is in the default set).

use npu_macros::npu_kernel;

npu_kernel! {
    kernel log_softmax(x: [f32; 128, 512]) -> y: [f32; 128, 512] {
        let m[i] = max[k](x[i, k]);
        let d[i, k] = x[i, k] - m[i];
        let s[i] = log(sum[k](exp(d[i, k])));
        y[i, k] = d[i, k] - s[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel layernorm(x: [f32; 64, 768], g: [f32; 768], b: [f32; 768]) -> y: [f32; 64, 768] {
        let mu[i] = sum[k](x[i, k]) / 768.0;
        let d[i, k] = x[i, k] - mu[i];
        let r[i] = rsqrt(sum[k](d[i, k] * d[i, k]) / 768.0 + 0.00001);
        y[i, k] = d[i, k] * r[i] * g[k] + b[k];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 1;
        stage x, g, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel rmsnorm(x: [f16; 128, 2048], g: [f16; 2048]) -> y: [f16; 128, 2048] {
        let r[i] = rsqrt(sum[k](x[i, k] as f32 * x[i, k] as f32) / 2048.0 + 0.000001);
        y[i, k] = (x[i, k] as f32 * r[i]) as f16 * g[k];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 1;
        stage x, g, y in ub depth 1;
    }
}

npu_kernel! {
    kernel softmax_aie(x: [bf16; 8, 256]) -> y: [bf16; 8, 256] {
        let m[i] = max[k](x[i, k]);
        let e[i, k] = exp(x[i, k] - m[i]);
        let s[i] = sum[k](e[i, k]);
        y[i, k] = e[i, k] / s[i];
    }
    target aie2_tile;
    schedule hand {
        split i by 1;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// The numerator of a softmax: exp of each element less its row maximum.
    kernel softmax_exp(x: [f32; 128, 1024], rowmax: [f32; 128]) -> y: [f32; 128, 1024] {
        y[i, j] = exp(x[i, j] - rowmax[i]);
    }
    target ascend910b;

    schedule hand {
        parallel i over 4 cores;
        split i by 8;
        split j by 256;
        stage x, rowmax, y in ub depth 1;
    }
}

bundled!(Normalisation: softmax_exp, log_softmax, layernorm, rmsnorm, softmax_aie);
