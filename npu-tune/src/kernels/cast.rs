//! Casts between dtypes.

use npu_macros::npu_kernel;

npu_kernel! {
    kernel cast_f16_f32(x: [f16; 1048576]) -> y: [f32; 1048576] {
        y[i] = x[i] as f32;
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel cast_f32_f16(x: [f32; 1048576]) -> y: [f16; 1048576] {
        y[i] = x[i] as f16;
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel cast_bf16_f32(x: [bf16; 65536]) -> y: [f32; 65536] {
        y[i] = x[i] as f32;
    }
    target npueval_demo;
    schedule hand {
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel cast_f32_bf16(x: [f32; 65536]) -> y: [bf16; 65536] {
        y[i] = x[i] as bf16;
    }
    target npueval_demo;
    schedule hand {
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel cast_i8_i32(x: [i8; 8192]) -> y: [i32; 8192] {
        y[i] = x[i] as i32;
    }
    target aie2_tile;
    schedule hand {
        split i by 1024;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// Quantise: f32 to i8, saturating.
    kernel cast_f32_i8_sat(x: [f32; 65536]) -> y: [i8; 65536] {
        y[i] = (x[i] * 100) as sat i8;
    }
    target npueval_demo;
    schedule hand {
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

bundled!(Cast: cast_f16_f32, cast_f32_f16, cast_bf16_f32, cast_f32_bf16, cast_i8_i32, cast_f32_i8_sat);
