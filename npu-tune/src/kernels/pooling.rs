//! Pooling: max and average over 1-d and 2-d windows, with stride, padding and fused
//! activations.

use npu_macros::npu_kernel;

npu_kernel! {
    /// Window 3, stride 2, along the last axis.
    kernel max_pool1d(x: [f16; 64, 513]) -> y: [f16; 64, 256] {
        y[c, i] = max[k < 3](x[c, 2*i + k]);
    }
    target ascend910b;
    schedule hand {
        parallel c over 8 cores;
        split c by 1;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// Window 2, stride 2.
    kernel avg_pool1d(x: [f32; 32, 1024]) -> y: [f32; 32, 512] {
        y[c, i] = sum[k < 2](x[c, 2*i + k]) * 0.5;
    }
    target ascend910b;
    schedule hand {
        parallel c over 8 cores;
        split c by 1;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// 2 x 2 windows, stride 2.
    kernel max_pool2d(x: [f16; 16, 64, 64]) -> y: [f16; 16, 32, 32] {
        y[c, h, w] = max[kh < 2, kw < 2](x[c, 2*h + kh, 2*w + kw]);
    }
    target ascend910b;
    schedule hand {
        parallel c over 8 cores;
        split c by 1;
        split h by 8;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// 3 x 3 windows, stride 1, zero padding 1 (the output keeps the input's size).
    kernel avg_pool2d(x: [f16; 8, 46, 46]) -> y: [f16; 8, 46, 46] {
        y[c, h, w] = sum[kh < 3, kw < 3](pad(x, 0)[c, h + kh - 1, w + kw - 1]) / 9;
    }
    target ascend910b;
    schedule hand {
        parallel c over 8 cores;
        split c by 1;
        split kh by 1;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// relu(max pooling), 2 x 2 windows, stride 2.
    kernel max_pool2d_relu(x: [f16; 32, 32, 32]) -> y: [f16; 32, 16, 16] {
        y[c, h, w] = relu(max[kh < 2, kw < 2](x[c, 2*h + kh, 2*w + kw]));
    }
    target ascend910b;
    schedule hand {
        parallel c over 8 cores;
        split c by 2;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// Global average pooling: each channel's mean over its 14 x 14 plane.
    kernel global_avg_pool(x: [f32; 256, 14, 14]) -> y: [f32; 256] {
        y[c] = sum[h, w](x[c, h, w]) / 196;
    }
    target ascend910b;
    schedule hand {
        parallel c over 8 cores;
        split c by 8;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel max_pool1d_aie(x: [bf16; 8, 128]) -> y: [bf16; 8, 64] {
        y[c, i] = max[k < 2](x[c, 2*i + k]);
    }
    target aie2_tile;
    schedule hand {
        split c by 1;
        stage x, y in ub depth 1;
    }
}

bundled!(Pooling: max_pool1d, avg_pool1d, max_pool2d, avg_pool2d, max_pool2d_relu,
    global_avg_pool, max_pool1d_aie);
