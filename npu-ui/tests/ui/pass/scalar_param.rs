// Scalar parameters: passed by value to `reference`, as rank-0 tensors to
// `reference_host`, and held in scalar registers by the schedule.
use npu::npu_kernel;
use npu::{Dtype, HostTensor};

npu_kernel! {
    kernel add_offset(x: [i8; 4096], offset: i8) -> y: [i8; 4096] {
        y[i] = x[i] + offset;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    kernel axpb(x: [f32; 64, 32], a: f32, b: f32) -> y: [f32; 64, 32] {
        y[i, j] = x[i, j] * a + b;
    }
    target ascend910b;

    schedule hand {
        parallel i over 4 cores;
        stage x, y in ub depth 2;
    }
}

fn main() {
    let x: Vec<i8> = (0..4096).map(|i| (i % 256 - 128) as i8).collect();
    let outputs = add_offset::reference(&x, 5).unwrap();
    assert_eq!(outputs.y[0], -123);
    // 127 + 5 wraps, as the vector unit's integer add does.
    assert_eq!(outputs.y[255], -124);

    let host = add_offset::reference_host(&[
        HostTensor::from_slice(&[4096], &x),
        HostTensor::from_values(Dtype::I8, &[], &[5.0]),
    ])
    .unwrap();
    assert_eq!(host[0].to_vec::<i8>().unwrap(), outputs.y);

    let x: Vec<f32> = (0..2048).map(|i| i as f32).collect();
    let outputs = axpb::reference(&x, 0.5, -1.0).unwrap();
    assert_eq!((outputs.y[0], outputs.y[2047]), (-1.0, 1022.5));
}
