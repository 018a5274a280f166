// Tensor and axis names that are also names in the generated code, upper-case kernel
// and matrix names, and a kernel without inputs: all compile without a warning and
// compute the right values.
#![deny(warnings)]

use npu::npu_kernel;

npu_kernel! {
    kernel clash(inputs: [f32; 64, 16], t0: [f32; 16], evaluate: [f32; 64, 16])
        -> (Outputs: [f32; 64], result0: [f32; 64])
    {
        Outputs[a0] = sum[acc](inputs[a0, acc] * t0[acc]);
        result0[a0] = max[acc](inputs[a0, acc] - evaluate[a0, acc]);
    }
    target npueval_demo;

    schedule KERNEL {
        stage inputs, t0, evaluate, Outputs, result0 in ub depth 1;
    }
}

npu_kernel! {
    /// The dot product of each row of A with the same row of B.
    kernel RowDot(A: [f32; 16, 16], B: [f32; 16, 16]) -> C: [f32; 16] {
        C[i] = sum[k](A[i, k] * B[i, k]);
    }
    target npueval_demo;

    schedule whole {
        stage A, B, C in ub depth 1;
    }
}

npu_kernel! {
    kernel ones() -> y: [f16; 64] {
        y[i] = 1.0;
    }
    target npueval_demo;

    schedule whole {
        stage y in ub depth 1;
    }
}

fn main() {
    let inputs: Vec<f32> = (0..64 * 16).map(|n| (n % 16) as f32).collect();
    let t0 = vec![2.0f32; 16];
    let outputs = clash::reference(&inputs, &t0, &[1.0; 64 * 16]).unwrap();
    assert_eq!(outputs.Outputs[5], 2.0 * (0..16).sum::<i32>() as f32);
    assert_eq!(outputs.result0[5], 14.0);
    assert_eq!(clash::SCHEDULES, ["KERNEL"]);

    let a: Vec<f32> = (0..256).map(|n| (n % 16) as f32).collect();
    let b = vec![0.5f32; 256];
    // Every row of A is 0, 1, ..., 15.
    assert_eq!(RowDot::reference(&a, &b).unwrap().C[1], 60.0);

    assert_eq!(ones::reference().unwrap().y, vec![npu::f16::ONE; 64]);
    assert_eq!(ones::reference_host(&[]).unwrap()[0].values(), vec![1.0; 64]);
}
