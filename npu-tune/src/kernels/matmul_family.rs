//! Matrix products: on the cube (plain and batched), and matrix-vector products on the
//! vector unit.

use npu_macros::npu_kernel;

npu_kernel! {
    /// int8 x int8 accumulating in int32 on the cube.
    kernel matmul_i8(a: [i8; 256, 512], b: [i8; 512, 256]) -> c: [i32; 256, 256] {
        c[m, n] = sum[k](a[m, k] as i32 * b[k, n] as i32);
    }
    target ascend910b;
    schedule hand {
        split k by 128;
        cube m by 64, n by 64, k by 64;
        stage a, b in l1 depth 1;
        stage a in l0a depth 1;
        stage b in l0b depth 1;
        stage c in l0c depth 1;
    }
}

npu_kernel! {
    /// A larger f16 matmul on the 310P.
    kernel matmul_310p(a: [f16; 512, 512], b: [f16; 512, 512]) -> c: [f32; 512, 512] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend310p;
    schedule hand {
        parallel m over 4 cores;
        split k by 128;
        cube m by 64, n by 64, k by 64;
        stage a, b in l1 depth 1;
        stage a in l0a depth 1;
        stage b in l0b depth 1;
        stage c in l0c depth 1;
    }
}

npu_kernel! {
    /// y = A x
    kernel matvec(a: [f32; 1024, 512], x: [f32; 512]) -> y: [f32; 1024] {
        y[i] = sum[k](a[i, k] * x[k]);
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 8;
        stage a, x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// y = x A, a row vector times a matrix
    kernel vecmat(x: [f32; 256], a: [f32; 256, 512]) -> y: [f32; 512] {
        y[j] = sum[k](x[k] * a[k, j]);
    }
    target ascend910b;
    schedule hand {
        parallel j over 4 cores;
        split j by 64;
        split k by 64;
        stage x, a, y in ub depth 1;
    }
}

npu_kernel! {
    kernel matvec_aie(a: [bf16; 64, 128], x: [bf16; 128]) -> y: [bf16; 64] {
        y[i] = sum[k](a[i, k] * x[k]);
    }
    target aie2_tile;
    schedule hand {
        split i by 16;
        stage a, x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// Sixteen f16 products of 128 x 256 by 256 x 128, accumulating in f32: a batch
    /// (attention's scores, one head each) on the cube.
    kernel batched_matmul(a: [f16; 16, 128, 256], b: [f16; 16, 256, 128]) -> c: [f32; 16, 128, 128] {
        c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32);
    }
    target ascend910b;
    schedule hand {
        parallel t over 8 cores;
        split t by 1;
        split k by 128;
        cube m by 64, n by 64, k by 64;
        stage a, b in l1 depth 1;
        stage a in l0a depth 1;
        stage b in l0b depth 1;
        stage c in l0c depth 1;
    }
}

npu_kernel! {
    /// A batch of twelve 64 x 128 activations times one 128 x 128 weight the batch
    /// shares, with an f16 result, on the 310P: twelve matrices over eight cores.
    kernel shared_weight_matmul(x: [f16; 12, 64, 128], w: [f16; 128, 128]) -> y: [f16; 12, 64, 128] {
        y[t, m, n] = sum[k](x[t, m, k] as f32 * w[k, n] as f32) as f16;
    }
    target ascend310p;
    schedule hand {
        parallel t over 8 cores;
        split t by 1;
        cube m by 64, n by 64, k by 64;
        stage x, w in l1 depth 1;
        stage x in l0a depth 1;
        stage w in l0b depth 1;
        stage y in l0c depth 1;
    }
}

bundled!(Matmul: matmul_i8, matmul_310p, batched_matmul, shared_weight_matmul, matvec, vecmat, matvec_aie);
