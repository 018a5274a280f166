//! Reductions and statistics along an axis.

use npu_macros::npu_kernel;

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
    kernel dot(a: [f32; 65536], b: [f32; 65536]) -> y: f32 {
        y = sum[k](a[k] * b[k]);
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

npu_kernel! {
    /// The position of each row's greatest element (the first of ties; a NaN wins),
    /// over rows of 1000 that no aligned tile divides: 1M elements.
    kernel argmax_rows(x: [f16; 1024, 1000]) -> y: [i32; 1024] {
        y[i] = argmax[k](x[i, k]);
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
    /// The position of each row's least element, the rows split into tiles that carry
    /// the value and index so far from one to the next.
    kernel argmin_split(x: [f32; 64, 5000]) -> y: [i32; 64] {
        y[i] = argmin[k](x[i, k]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 1;
        split k by 1024;
        stage x in ub depth 2;
        stage y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// argmax into an i16 index, as on one AIE tile.
    kernel argmax_aie(x: [bf16; 16, 100]) -> y: [i16; 16] {
        y[i] = argmax[k](x[i, k]);
    }
    target aie2_tile;
    schedule hand {
        split i by 4;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel argmin_aie(x: [i16; 32, 64]) -> y: [i32; 32] {
        y[i] = argmin[k](x[i, k]);
    }
    target aie2_tile;
    schedule hand {
        split i by 16;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// The running sum along each row: 1M elements.
    kernel cumsum_rows(x: [f32; 1024, 1024]) -> y: [f32; 1024, 1024] {
        y[i, k] = cumsum[k](x[i, k]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// A running sum of f16 in f32, each row split into tiles that carry the sum so
    /// far from one to the next.
    kernel cumsum_split(x: [f16; 8, 3000]) -> y: [f16; 8, 3000] {
        y[i, k] = cumsum[k](x[i, k]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split k by 512;
        stage x, y in ub depth 2;
        tail pad;
    }
}

npu_kernel! {
    kernel cumprod_rows(x: [f32; 256, 100]) -> y: [f32; 256, 100] {
        y[i, k] = cumprod[k](x[i, k]);
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
    /// A running sum of bf16 in the tile's f32 accumulators.
    kernel cumsum_aie(x: [bf16; 16, 64]) -> y: [bf16; 16, 64] {
        y[i, k] = cumsum[k](x[i, k]);
    }
    target aie2_tile;
    schedule hand {
        split i by 4;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// A running product on the demo target (the AIE tile has no running product).
    kernel cumprod_demo(x: [f16; 64, 50]) -> y: [f16; 64, 50] {
        y[i, k] = cumprod[k](x[i, k]);
    }
    target npueval_demo;
    schedule hand {
        split i by 16;
        stage x, y in ub depth 1;
        tail pad;
    }
}

bundled!(Reduction: row_max, row_min, row_mean, l1_norm, l2_norm, dot, euclidean, mse_loss,
    variance, sum_aie, max_aie, argmax_rows, argmin_split, argmax_aie, argmin_aie, cumsum_rows,
    cumsum_split, cumprod_rows, cumsum_aie, cumprod_demo);
