//! Data movement: copies, transposes, slices and broadcasts.

use crate::npu_kernel;

npu_kernel! {
    kernel copy(x: [f16; 1048576]) -> y: [f16; 1048576] {
        y[i] = x[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 8192;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel transpose(x: [f32; 256, 128]) -> y: [f32; 128, 256] {
        y[j, i] = x[i, j];
    }
    target ascend910b;
    schedule hand {
        parallel j over 4 cores;
        split j by 8;
        split i by 64;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// A row vector repeated down 64 rows.
    kernel broadcast_rows(v: [bf16; 256]) -> y: [bf16; 64, 256] {
        y[i, j] = v[j];
    }
    target aie2_tile;
    schedule hand {
        split i by 8;
        stage v, y in ub depth 1;
    }
}

bundled!(Movement: copy, transpose, broadcast_rows);
