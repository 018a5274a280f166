// A 0-d `let` (issue 23 item 7): softmax over a whole vector, its max and sum one
// value each, read by bare name. The generated `reference` agrees with the host
// interpreter bit for bit.
use npu::npu_kernel;
use npu::{Dtype, HostTensor};

npu_kernel! {
    kernel vector_softmax(x: [f32; 64]) -> y: [f32; 64] {
        let m = max[i](x[i]);
        let e[i] = exp(x[i] - m);
        let s = sum[i](e[i]);
        y[i] = e[i] / s;
    }
    target ascend910b;

    schedule hand {
        stage x, y in ub depth 1;
    }
}

fn main() {
    let x: Vec<f32> = (0..64).map(|i| ((i * 13) % 64) as f32 / 8.0).collect();
    let outputs = vector_softmax::reference(&x).unwrap();
    let host = vector_softmax::reference_host(&[HostTensor::from_values(
        Dtype::F32,
        &[64],
        &x.iter().map(|v| f64::from(*v)).collect::<Vec<f64>>(),
    )])
    .unwrap();
    assert_eq!(host[0].to_vec::<f32>().unwrap(), outputs.y);
    let total: f32 = outputs.y.iter().sum();
    assert!((total - 1.0).abs() < 1e-5);
}
