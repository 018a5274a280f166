//! Binary and scalar-operand elementwise kernels, comparisons and selects.

use npu_macros::npu_kernel;

npu_kernel! {
    kernel add(a: [f16; 1048576], b: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = a[i] + b[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel sub(a: [f32; 512, 300], b: [f32; 512, 300]) -> y: [f32; 512, 300] {
        y[i, j] = a[i, j] - b[i, j];
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
    kernel mul(a: [i32; 262144], b: [i32; 262144]) -> y: [i32; 262144] {
        y[i] = a[i] * b[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel div(a: [f32; 262144], b: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = a[i] / b[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel minimum(a: [f16; 131072], b: [f16; 131072]) -> y: [f16; 131072] {
        y[i] = min(a[i], b[i]);
    }
    target ascend310p;
    schedule hand {
        parallel i over 4 cores;
        split i by 4096;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel maximum(a: [bf16; 4096], b: [bf16; 4096]) -> y: [bf16; 4096] {
        y[i] = max(a[i], b[i]);
    }
    target aie2_tile;
    schedule hand {
        split i by 512;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel add_const(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = x[i] + 3.0;
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel mul_const(x: [i16; 8192]) -> y: [i16; 8192] {
        y[i] = x[i] * 3;
    }
    target aie2_tile;
    schedule hand {
        split i by 1024;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// 1 where a < b, else 0
    kernel less(a: [f32; 262144], b: [f32; 262144]) -> y: [f32; 262144] {
        y[i] = select(a[i] < b[i], 1, 0);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    /// where(c > 0, a, b)
    kernel where_select(c: [f16; 524288], a: [f16; 524288], b: [f16; 524288]) -> y: [f16; 524288] {
        y[i] = select(c[i] > 0, a[i], b[i]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage c, a, b, y in ub depth 1;
    }
}

npu_kernel! {
    /// a * x + y with a fixed a
    kernel axpy(x: [bf16; 2048], y: [bf16; 2048]) -> z: [bf16; 2048] {
        z[i] = x[i] * 2.5 + y[i];
    }
    target aie2_tile;
    schedule hand {
        split i by 256;
        stage x, y, z in ub depth 1;
    }
}

npu_kernel! {
    kernel add_scalar(x: [i16; 4096], offset: i16) -> y: [i16; 4096] {
        y[i] = x[i] + offset;
    }
    target aie2_tile;
    schedule hand {
        split i by 512;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel mul_scalar(x: [f32; 1048576], s: f32) -> y: [f32; 1048576] {
        y[i] = x[i] * s;
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// a + b on i8, saturating at -128 and 127.
    kernel sat_add_i8(a: [i8; 8192], b: [i8; 8192]) -> y: [i8; 8192] {
        y[i] = (a[i] as i16 + b[i] as i16) as sat i8;
    }
    target aie2_tile;
    schedule hand {
        split i by 1024;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    /// a + b on u8, saturating at 255.
    kernel sat_add_u8(a: [u8; 65536], b: [u8; 65536]) -> y: [u8; 65536] {
        y[i] = (a[i] as i16 + b[i] as i16) as sat u8;
    }
    target npueval_demo;
    schedule hand {
        split i by 4096;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    /// A bias added to every row: the bias is broadcast along i.
    kernel bias_add(x: [f16; 256, 1024], bias: [f16; 1024]) -> y: [f16; 256, 1024] {
        y[i, j] = x[i, j] + bias[j];
    }
    target ascend910b;

    schedule hand {
        parallel i over 8 cores;
        split i by 4;
        stage x, bias, y in ub depth 1;
    }
}

npu_kernel! {
    /// The remainder of integer division, with the dividend's sign (Rust's `%`).
    kernel remainder(a: [i32; 16384], b: [i32; 16384]) -> y: [i32; 16384] {
        y[i] = a[i] % b[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 1024;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    /// A phase wrapped into (-2 pi, 2 pi): a float remainder by a constant.
    kernel wrap_phase(x: [bf16; 4096]) -> y: [bf16; 4096] {
        y[i] = x[i] % 6.2831855;
    }
    target aie2_tile;
    schedule hand {
        split i by 512;
        stage x, y in ub depth 1;
    }
}

bundled!(Elementwise: bias_add, add, sub, mul, div, minimum, maximum, add_const, mul_const, less,
    where_select, axpy, add_scalar, mul_scalar, sat_add_i8, sat_add_u8, remainder, wrap_phase);
