// Batched matmul on the cube: the batch axis first in c, a and b (or left out of b,
// one weight the batch shares), spread over cores alone or in a grid with m.
use npu::{f16, npu_kernel};

npu_kernel! {
    kernel bmm(a: [f16; 6, 32, 64], b: [f16; 6, 64, 32]) -> c: [f32; 6, 32, 32] {
        c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32);
    }
    target ascend910b;

    schedule cores {
        parallel t over 6 cores;
        cube m by 32, n by 32, k by 64;
        stage a, b in l1 depth 2;
        stage a in l0a depth 2;
        stage b in l0b depth 2;
        stage c in l0c depth 1;
    }

    // Batch tiles of two matrices, over a 3 x 2 grid of batch and m.
    schedule grid {
        parallel t, m over 3 x 2 cores;
        split t by 2;
        cube m by 16, n by 32, k by 32;
        stage a, b in l1 depth 2;
        stage a in l0a depth 2;
        stage b in l0b depth 2;
        stage c in l0c depth 2;
    }
}

npu_kernel! {
    kernel shared(x: [f16; 3, 32, 64], w: [f16; 64, 16]) -> y: [f32; 3, 32, 16] {
        y[t, m, n] = sum[k](x[t, m, k] as f32 * w[k, n] as f32);
    }
    target ascend310p;

    schedule hand {
        order n, t, m;
        cube m by 32, n by 16, k by 64;
        stage x, w in l1 depth 1;
        stage x in l0a depth 1;
        stage w in l0b depth 1;
        stage y in l0c depth 1;
    }
}

fn main() {
    let a: Vec<f16> = (0..6 * 32 * 64)
        .map(|i| f16::from_f32((i % 5) as f32))
        .collect();
    let b: Vec<f16> = (0..6 * 64 * 32)
        .map(|i| f16::from_f32((i % 3) as f32 - 1.0))
        .collect();
    let outputs = bmm::reference(&a, &b).unwrap();
    let (t, m, n) = (4, 7, 9);
    let expected: f32 = (0..64)
        .map(|k| a[(t * 32 + m) * 64 + k].to_f32() * b[(t * 64 + k) * 32 + n].to_f32())
        .sum();
    assert_eq!(outputs.c[(t * 32 + m) * 32 + n], expected);
    assert_eq!(bmm::kernel().schedules[1].cores(), 6);

    let x: Vec<f16> = (0..3 * 32 * 64)
        .map(|i| f16::from_f32((i % 7) as f32 - 3.0))
        .collect();
    let w: Vec<f16> = (0..64 * 16)
        .map(|i| f16::from_f32((i % 4) as f32))
        .collect();
    let outputs = shared::reference(&x, &w).unwrap();
    let (t, m, n) = (2, 31, 15);
    let expected: f32 = (0..64)
        .map(|k| x[(t * 32 + m) * 64 + k].to_f32() * w[k * 16 + n].to_f32())
        .sum();
    assert_eq!(outputs.y[(t * 32 + m) * 16 + n], expected);
}
