// 0-d outputs (issue 23 item 7): written by bare name, each a value in `Outputs` and a
// tensor of shape `[]` from `reference_host`.
use npu::npu_kernel;
use npu::{Dtype, HostTensor};

npu_kernel! {
    kernel stats(x: [f32; 64]) -> (total: f32, at: i32) {
        total = sum[k](x[k]);
        at = argmax[k](x[k]);
    }
    target ascend910b;

    schedule hand {
        stage x, total, at in ub depth 1;
        tail pad;
    }
}

fn main() {
    let x: Vec<f32> = (0..64).map(|i| ((i * 13) % 64) as f32).collect();
    let outputs = stats::reference(&x).unwrap();
    let total: f32 = outputs.total;
    assert_eq!(total, (0..64).sum::<i32>() as f32);
    // 63 = 13 * 59 mod 64.
    assert_eq!(outputs.at, 59);
    let host = stats::reference_host(&[HostTensor::from_values(
        Dtype::F32,
        &[64],
        &x.iter().map(|v| f64::from(*v)).collect::<Vec<f64>>(),
    )])
    .unwrap();
    assert!(host[0].shape().is_empty());
    assert_eq!(host[0].values(), [f64::from(total)]);
    assert_eq!(host[1].values(), [59.0]);
}
