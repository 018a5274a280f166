// Reductions over two axes, and a sum accumulated in f16: the generated host reference
// folds in index order and rounds every step to the accumulator, as the hardware does.
use npu::{HostTensor, f16, npu_kernel};

npu_kernel! {
    kernel plane(x: [f16; 4, 64, 64]) -> (narrow: [f16; 4], wide: [f16; 4], top: [f16; 4]) {
        narrow[c] = sum[h, w: f16](x[c, h, w]);
        wide[c] = sum[h, w](x[c, h, w]);
        top[c] = max[h, w](x[c, h, w]);
    }
    target ascend910b;

    schedule s {
        split h by 8;
        stage x in ub depth 2;
        stage narrow, wide, top in ub;
        tail pad;
    }
}

fn main() {
    let mut x = vec![f16::ONE; 4 * 64 * 64];
    // Channel 3 holds its largest value at (h, w) = (63, 62).
    x[3 * 4096 + 63 * 64 + 62] = f16::from_f32(9.0);
    let outputs = plane::reference(&x).unwrap();
    // 2048 + 1 rounds back to 2048 in f16 (ties to even), so an f16 sum of 4096 ones
    // stops at 2048; in f32 it reaches 4096, which f16 holds exactly.
    assert_eq!(outputs.narrow[0], f16::from_f32(2048.0));
    assert_eq!(outputs.wide[0], f16::from_f32(4096.0));
    assert_eq!(outputs.top[3], f16::from_f32(9.0));
    assert_eq!(outputs.top[2], f16::ONE);

    let host = plane::reference_host(&[HostTensor::from_slice(&[4, 64, 64], &x)]).unwrap();
    assert_eq!(host[0].to_vec::<f16>(), Some(outputs.narrow));
}
