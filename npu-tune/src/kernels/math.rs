//! Unary math: one function of each element.

use npu_macros::npu_kernel;

npu_kernel! {
    kernel exp(x: [f32; 64, 217]) -> y: [f32; 64, 217] {
        y[i, j] = exp(x[i, j]);
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
    kernel log(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = log(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel sqrt(x: [f32; 100000]) -> y: [f32; 100000] {
        y[i] = sqrt(x[i]);
    }
    target ascend310p;
    schedule hand {
        parallel i over 4 cores;
        split i by 2048;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel rsqrt(x: [f16; 262144]) -> y: [f16; 262144] {
        y[i] = rsqrt(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel reciprocal(x: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = recip(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel abs(x: [i16; 65536]) -> y: [i16; 65536] {
        y[i] = abs(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel neg(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = -x[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// -1, 0 or 1 by the sign of x
    kernel sign(x: [f32; 65536]) -> y: [f32; 65536] {
        y[i] = select(x[i] > 0, 1, select(x[i] < 0, -1, 0));
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel exp_aie(x: [bf16; 4096]) -> y: [bf16; 4096] {
        y[i] = exp(x[i]);
    }
    target aie2_tile;
    schedule hand {
        split i by 512;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel rsqrt_aie(x: [bf16; 1000]) -> y: [bf16; 1000] {
        y[i] = rsqrt(x[i]);
    }
    target aie2_tile;
    schedule hand {
        split i by 256;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel log2(x: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = log2(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel log10(x: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = log10(x[i]);
    }
    target ascend310p;
    schedule hand {
        parallel i over 4 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel floor(x: [f32; 100000]) -> y: [f32; 100000] {
        y[i] = floor(x[i] * 10);
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
    kernel ceil(x: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = ceil(x[i] * 10);
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// Rounds halves to even.
    kernel round(x: [f32; 65536]) -> y: [f32; 65536] {
        y[i] = round(x[i] * 4);
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel sin(x: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = sin(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel cos(x: [f16; 262144]) -> y: [f16; 262144] {
        y[i] = cos(x[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel tan(x: [f32; 65536]) -> y: [f32; 65536] {
        y[i] = tan(x[i]);
    }
    target ascend310p;
    schedule hand {
        parallel i over 4 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel cube(x: [f32; 65536]) -> y: [f32; 65536] {
        y[i] = pow(x[i], 3.0);
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

bundled!(UnaryMath: exp, log, sqrt, rsqrt, reciprocal, abs, neg, sign, exp_aie, rsqrt_aie, log2, log10, floor, ceil, round, sin, cos, tan, cube);
