//! Three kernels whose schedules come partly from the build: each has a hand schedule
//! and asks for generated variants, which build.rs writes to `kernels/*.variants.npu`
//! and the macro compiles like hand-written schedules. `tests/table.rs` simulates and
//! ranks every schedule.

use npu::npu_kernel;

npu_kernel! {
    /// y = a * b + c, elementwise.
    kernel vmla(a: [f16; 16384], b: [f16; 16384], c: [f16; 16384]) -> y: [f16; 16384] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;
    variants 3 from "kernels/vmla.variants.npu";

    schedule hand {
        split i by 1024;
        stage a, b, c, y in ub depth 1;
    }
}

npu_kernel! {
    /// Row sums of a matrix whose rows (217 elements) no aligned tile divides.
    kernel rowsum(x: [f32; 128, 217]) -> y: [f32; 128] {
        y[i] = sum[k](x[i, k]);
    }
    target ascend910b;
    variants 3 from "kernels/rowsum.variants.npu";

    schedule hand {
        parallel i over 4 cores;
        split i by 8;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// c = a x b on the cube unit, accumulating in f32.
    kernel matmul(a: [f16; 64, 128], b: [f16; 128, 128]) -> c: [f32; 64, 128] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;
    variants 3 from "kernels/matmul.variants.npu";

    schedule hand {
        split k by 64;
        cube m by 32, n by 32, k by 32;
        stage a, b in l1 depth 1;
        stage a in l0a depth 1;
        stage b in l0b depth 1;
        stage c in l0c depth 1;
    }
}
