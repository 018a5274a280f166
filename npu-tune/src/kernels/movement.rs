//! Data movement: copies, transposes, slices, broadcasts, padding and gathers.

use npu_macros::npu_kernel;

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

npu_kernel! {
    /// Two zeros before and after a vector.
    kernel pad1d(x: [f32; 1020]) -> y: [f32; 1024] {
        y[i] = pad(x, 0)[i - 2];
    }
    target ascend910b;
    schedule hand {
        split i by 256;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// A border of -1 around each 30 x 30 plane.
    kernel pad2d(x: [f16; 8, 30, 30]) -> y: [f16; 8, 32, 32] {
        y[c, i, j] = pad(x, -1)[c, i - 1, j - 1];
    }
    target ascend910b;
    schedule hand {
        parallel c over 8 cores;
        split c by 1;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// Three fill values before and three after a vector of i8, the fill given at run
    /// time, on one AIE tile.
    kernel pad1d_fill(x: [i8; 250], fill: i8) -> y: [i8; 256] {
        y[i] = pad(x, fill)[i - 3];
    }
    target aie2_tile;
    schedule hand {
        split i by 64;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// A border of a run-time value around each 62 x 62 plane.
    kernel pad2d_fill(x: [f16; 4, 62, 62], fill: f16) -> y: [f16; 4, 64, 64] {
        y[c, i, j] = pad(x, fill)[c, i - 1, j - 1];
    }
    target ascend910b;
    schedule hand {
        parallel c over 4 cores;
        split c by 1;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// Every second element.
    kernel downsample(x: [f32; 8192]) -> y: [f32; 4096] {
        y[i] = x[2*i];
    }
    target ascend910b;
    schedule hand {
        split i by 1024;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// A lookup of 1,000,000 positions in a 4096-entry table: the table is staged whole
    /// in UB on every core, the indices stream through in tiles no count divides.
    kernel gather(x: [f32; 4096], idx: [i32; 1000000]) -> y: [f32; 1000000] {
        y[i] = x[idx[i]];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 4096;
        stage x, idx, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// A 1-d gather on one AIE tile: 200 positions in a 48-entry table.
    kernel gather_tile(x: [bf16; 48], idx: [i16; 200]) -> y: [bf16; 200] {
        y[i] = x[idx[i]];
    }
    target aie2_tile;
    schedule hand {
        split i by 64;
        stage x, idx, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// An embedding lookup: row `idx[i]` of a 1000 x 64 table for each of 3000 tokens.
    kernel embedding(table: [f16; 1000, 64], idx: [i32; 3000]) -> y: [f16; 3000, 64] {
        y[i, d] = table[idx[i], d];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 128;
        stage table, idx, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// An embedding lookup on one AIE tile: 200 rows of a 100 x 32 table.
    kernel embedding_tile(table: [bf16; 100, 32], idx: [i16; 200]) -> y: [bf16; 200, 32] {
        y[i, d] = table[idx[i], d];
    }
    target aie2_tile;
    schedule hand {
        split i by 16;
        stage table, idx, y in ub depth 1;
        tail pad;
    }
}

bundled!(
    Movement: copy,
    transpose,
    broadcast_rows,
    pad1d,
    pad2d,
    pad1d_fill,
    pad2d_fill,
    downsample,
    gather,
    gather_tile,
    embedding,
    embedding_tile
);
