// A row of weights broadcast over every row of a matrix.
use npu::{HostTensor, f16, npu_kernel};

npu_kernel! {
    kernel scale_columns(x: [f16; 64, 256], w: [f16; 256]) -> y: [f16; 64, 256] {
        y[r, c] = x[r, c] * w[c];
    }
    target npueval_demo;

    schedule rows {
        split r by 16;
        stage x, w, y in ub depth 2;
    }
}

fn main() {
    let x: Vec<f16> = (0..64 * 256)
        .map(|i| f16::from_f32((i / 256) as f32))
        .collect();
    let w: Vec<f16> = (0..256).map(|c| f16::from_f32(c as f32 * 0.5)).collect();
    let outputs = scale_columns::reference(&x, &w).unwrap();
    // Row 3, column 10: 3 * 5.
    assert_eq!(outputs.y[3 * 256 + 10], f16::from_f32(15.0));

    let host = scale_columns::reference_host(&[
        HostTensor::from_slice(&[64, 256], &x),
        HostTensor::from_slice(&[256], &w),
    ])
    .unwrap();
    assert_eq!(host[0].shape(), [64, 256]);
    assert_eq!(host[0].to_vec::<f16>(), Some(outputs.y));
    assert_eq!(
        scale_columns::reference_host(&[]).unwrap_err().to_string(),
        "`inputs` has 0 elements but the kernel expects 2"
    );
}
