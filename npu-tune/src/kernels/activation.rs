//! Activations: the elementwise nonlinearities of neural networks, on large Ascend
//! tensors and on one AIE tile.

use npu_macros::npu_kernel;

npu_kernel! {
    kernel relu(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = relu(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel relu6(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = min(max(x[i], 0), 6);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// max(x, 0) + 0.01 min(x, 0)
    kernel leaky_relu(x: [f32; 300000]) -> y: [f32; 300000] {
        y[i] = select(x[i] > 0, x[i], x[i] * 0.01);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// The tanh approximation of GELU.
    kernel gelu_tanh(x: [f16; 262144]) -> y: [f16; 262144] {
        y[i] = x[i] * 0.5 * (tanh((x[i] + x[i] * x[i] * x[i] * 0.044715) * 0.7978846) + 1);
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// x * sigmoid(x)
    kernel silu(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = x[i] * sigmoid(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel sigmoid(x: [f32; 65536]) -> y: [f32; 65536] {
        y[i] = sigmoid(x[i]);
    }
    target ascend310p;
    schedule hand {
        parallel i over 2 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel tanh(x: [f16; 1000000]) -> y: [f16; 1000000] {
        y[i] = tanh(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// x * tanh(softplus(x))
    kernel mish(x: [f32; 131072]) -> y: [f32; 131072] {
        y[i] = x[i] * tanh(log(exp(x[i]) + 1));
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 1024;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// clamp(x / 6 + 1/2, 0, 1)
    kernel hardsigmoid(x: [f16; 524288]) -> y: [f16; 524288] {
        y[i] = min(max(x[i] * 0.16666667 + 0.5, 0), 1);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// x * hardsigmoid(x)
    kernel hardswish(x: [f16; 524288]) -> y: [f16; 524288] {
        y[i] = x[i] * min(max(x[i] * 0.16666667 + 0.5, 0), 1);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// x for x > 0, exp(x) - 1 otherwise
    kernel elu(x: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = select(x[i] > 0, x[i], exp(x[i]) - 1);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// log(1 + exp(x))
    kernel softplus(x: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = log(exp(x[i]) + 1);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel relu_aie(x: [bf16; 4096]) -> y: [bf16; 4096] {
        y[i] = relu(x[i]);
    }
    target aie2_tile;
    schedule hand {
        split i by 512;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel silu_aie(x: [bf16; 2048]) -> y: [bf16; 2048] {
        y[i] = x[i] * sigmoid(x[i]);
    }
    target aie2_tile;
    schedule hand {
        split i by 256;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel hardswish_aie(x: [bf16; 1024]) -> y: [bf16; 1024] {
        y[i] = x[i] * min(max(x[i] * 0.16666667 + 0.5, 0), 1);
    }
    target aie2_tile;
    schedule hand {
        split i by 256;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel gelu_aie(x: [bf16; 64]) -> y: [bf16; 64] {
        y[i] = x[i] * sigmoid(x[i] * 1.702);
    }
    target aie2_tile;
    schedule hand {
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// max(x, 0) + slope min(x, 0), the slope passed at run time.
    kernel leaky_relu_scalar(x: [f16; 262144], slope: f16) -> y: [f16; 262144] {
        y[i] = select(x[i] > 0, x[i], x[i] * slope);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// clamp(x, lo, hi) with bounds passed at run time.
    kernel clamp(x: [f16; 65536], lo: f16, hi: f16) -> y: [f16; 65536] {
        y[i] = min(max(x[i], lo), hi);
    }
    target ascend310p;
    schedule hand {
        parallel i over 4 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// The erf form of GELU.
    kernel gelu_erf(x: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = x[i] * 0.5 * (erf(x[i] * 0.70710678) + 1);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

bundled!(Activation: relu, relu6, leaky_relu, gelu_tanh, silu, sigmoid, tanh, mish,
    hardsigmoid, hardswish, elu, softplus, relu_aie, silu_aie, hardswish_aie, gelu_aie, leaky_relu_scalar, clamp, gelu_erf);
