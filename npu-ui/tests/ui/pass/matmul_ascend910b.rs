// A matmul on the cube: f16 operands through L1 and L0A/L0B, f32 results in L0C.
use npu::{f16, npu_kernel};

npu_kernel! {
    kernel matmul(a: [f16; 128, 256], b: [f16; 256, 64]) -> c: [f32; 128, 64] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;

    schedule cube_64 {
        split m by 64;
        split k by 128;
        stage a, b in l1 depth 2;
        stage a in l0a depth 2;
        stage b in l0b depth 2;
        stage c in l0c depth 1;
        cube m by 64, n by 64, k by 64;
    }

    // A 2 x 2 core grid over m and n; the b panel (both k tiles) stays in L1 while
    // each core walks its m tiles.
    schedule grid {
        parallel m, n over 2 x 2 cores;
        split m by 32;
        split k by 128;
        order n, m;
        cube m by 32, n by 32, k by 64;
        stage a in l1 depth 2;
        stage b in l1 depth 2;
        stage a in l0a depth 2;
        stage b in l0b depth 2;
        stage c in l0c depth 2;
    }
}

fn main() {
    let a: Vec<f16> = (0..128 * 256)
        .map(|i| f16::from_f32((i % 5) as f32))
        .collect();
    let b: Vec<f16> = (0..256 * 64)
        .map(|i| f16::from_f32((i % 3) as f32 - 1.0))
        .collect();
    let outputs = matmul::reference(&a, &b).unwrap();
    let (m, n) = (7, 9);
    let expected: f32 = (0..256)
        .map(|k| a[m * 256 + k].to_f32() * b[k * 64 + n].to_f32())
        .sum();
    assert_eq!(outputs.c[m * 64 + n], expected);
    assert_eq!(matmul::kernel().schedules[0].cube, Some([64, 64, 64]));
    assert_eq!(matmul::kernel().schedules[1].cores(), 4);
}
