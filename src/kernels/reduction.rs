//! Reductions and statistics along an axis.

use crate::npu_kernel;

npu_kernel! {
    kernel row_max(x: [f16; 256, 1024]) -> y: [f16; 256] {
        y[i] = max[k](x[i, k]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 8;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel row_min(x: [f32; 1000, 100]) -> y: [f32; 1000] {
        y[i] = min[k](x[i, k]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 8;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel row_mean(x: [f32; 128, 4096]) -> y: [f32; 128] {
        y[i] = sum[k](x[i, k]) / 4096;
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 1;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// The sum of absolute values of each row.
    kernel l1_norm(x: [f32; 64, 2048]) -> y: [f32; 64] {
        y[i] = sum[k](abs(x[i, k]));
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 1;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// The euclidean length of each row.
    kernel l2_norm(x: [f32; 64, 2048]) -> y: [f32; 64] {
        y[i] = sqrt(sum[k](x[i, k] * x[i, k]));
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 1;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel dot(a: [f32; 1, 65536], b: [f32; 1, 65536]) -> y: [f32; 1] {
        y[i] = sum[k](a[i, k] * b[i, k]);
    }
    target ascend910b;
    schedule hand {
        split k by 4096;
        stage a, b, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// The distance between matching rows of a and b.
    kernel euclidean(a: [f32; 256, 512], b: [f32; 256, 512]) -> y: [f32; 256] {
        y[i] = sqrt(sum[k]((a[i, k] - b[i, k]) * (a[i, k] - b[i, k])));
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4;
        stage a, b, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// The mean squared error of each row of predictions.
    kernel mse_loss(p: [f32; 128, 1024], t: [f32; 128, 1024]) -> y: [f32; 128] {
        y[i] = sum[k]((p[i, k] - t[i, k]) * (p[i, k] - t[i, k])) / 1024;
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2;
        stage p, t, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// The variance of each row: E[x^2] - E[x]^2.
    kernel variance(x: [f32; 64, 1024]) -> y: [f32; 64] {
        y[i] = sum[k](x[i, k] * x[i, k]) / 1024 - sum[k](x[i, k]) / 1024 * (sum[k](x[i, k]) / 1024);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel sum_aie(x: [bf16; 16, 256]) -> y: [bf16; 16] {
        y[i] = sum[k](x[i, k]);
    }
    target aie2_tile;
    schedule hand {
        split i by 4;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel max_aie(x: [i16; 32, 64]) -> y: [i16; 32] {
        y[i] = max[k](x[i, k]);
    }
    target aie2_tile;
    schedule hand {
        split i by 16;
        stage x, y in ub depth 1;
    }
}

bundled!(Reduction: row_max, row_min, row_mean, l1_norm, l2_norm, dot, euclidean, mse_loss,
    variance, sum_aie, max_aie);
