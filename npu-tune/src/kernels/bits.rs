//! Bit operations on integer tensors.

use npu_macros::npu_kernel;

npu_kernel! {
    kernel bit_and(a: [i16; 65536], b: [i16; 65536]) -> y: [i16; 65536] {
        y[i] = a[i] & b[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 4096;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel bit_or(a: [i32; 65536], b: [i32; 65536]) -> y: [i32; 65536] {
        y[i] = a[i] | b[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 2048;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel bit_xor(a: [i16; 4096], b: [i16; 4096]) -> y: [i16; 4096] {
        y[i] = a[i] ^ b[i];
    }
    target aie2_tile;
    schedule hand {
        split i by 512;
        stage a, b, y in ub depth 1;
    }
}

npu_kernel! {
    kernel bit_not(x: [i8; 8192]) -> y: [i8; 8192] {
        y[i] = !x[i];
    }
    target aie2_tile;
    schedule hand {
        split i by 1024;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel shift_left(x: [i32; 262144]) -> y: [i32; 262144] {
        y[i] = x[i] << 3;
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel shift_right(x: [i16; 65536]) -> y: [i16; 65536] {
        y[i] = x[i] >> 2;
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 4096;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel popcount_u8(x: [u8; 4096]) -> y: [u8; 4096] {
        y[i] = popcount(x[i]);
    }
    target aie2_tile;
    schedule hand {
        split i by 1024;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    kernel popcount_u16(x: [u16; 65536]) -> y: [u16; 65536] {
        y[i] = popcount(x[i]);
    }
    target npueval_demo;
    schedule hand {
        split i by 2048;
        stage x, y in ub depth 1;
    }
}

bundled!(Bits: bit_and, bit_or, bit_xor, bit_not, shift_left, shift_right, popcount_u8,
    popcount_u16);
