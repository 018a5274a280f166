//! Convolutions on the vector unit: 1-d and 2-d, valid and padded, strided, with bias
//! and fused relu, in f16 and int8 accumulating in int32.

use npu_macros::npu_kernel;

npu_kernel! {
    /// "Same" padding, bias and relu: 8 filters of width 3 over one channel.
    kernel conv1d_bias_relu(x: [f32; 1024], w: [f32; 8, 3], bias: [f32; 8]) -> y: [f32; 8, 1024] {
        y[o, t] = relu(sum[k](pad(x, 0)[t + k - 1] * w[o, k]) + bias[o]);
    }
    target ascend910b;
    schedule hand {
        parallel t over 4 cores;
        split t by 256;
        stage x, w, bias, y in ub depth 1;
    }
}

npu_kernel! {
    /// 3 x 3 filters, valid, 4 in and 8 out channels.
    kernel conv2d(x: [f16; 4, 34, 34], wt: [f16; 8, 4, 3, 3]) -> y: [f16; 8, 32, 32] {
        y[o, h, w] = sum[c, kh, kw](x[c, h + kh, w + kw] * wt[o, c, kh, kw]);
    }
    target ascend910b;
    schedule hand {
        parallel o over 8 cores;
        split o by 1;
        split c by 1;
        stage x, wt, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// 2 x 2 filters, stride 2, bias and relu.
    kernel conv2d_s2_bias_relu(x: [f32; 3, 64, 64], wt: [f32; 8, 3, 2, 2], bias: [f32; 8]) -> y: [f32; 8, 32, 32] {
        y[o, h, w] = relu(sum[c, kh, kw](x[c, 2*h + kh, 2*w + kw] * wt[o, c, kh, kw]) + bias[o]);
    }
    target ascend910b;
    schedule hand {
        parallel o over 8 cores;
        split o by 1;
        split h by 8;
        stage x, wt, bias, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// int8 activations and weights accumulating in int32.
    kernel conv2d_i8(x: [i8; 4, 18, 18], wt: [i8; 8, 4, 3, 3]) -> y: [i32; 8, 16, 16] {
        y[o, h, w] = sum[c, kh, kw](x[c, h + kh, w + kw] as i32 * wt[o, c, kh, kw] as i32);
    }
    target aie2_tile;
    schedule hand {
        split o by 1;
        split c by 1;
        stage x, wt, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel conv1d_aie(x: [bf16; 4, 130], w: [bf16; 4, 4, 3]) -> y: [bf16; 4, 128] {
        y[o, t] = sum[c, k](x[c, t + k] * w[o, c, k]);
    }
    target aie2_tile;
    schedule hand {
        split o by 1;
        stage x, w, y in ub depth 1;
        tail pad;
    }
}

bundled!(Convolution: conv1d_bias_relu, conv2d, conv2d_s2_bias_relu, conv2d_i8,
    conv1d_aie);
