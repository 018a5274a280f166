use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [f16; 4096], factor: half) -> y: [f16; 4096] {
        y[i] = x[i] * factor;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

fn main() {
    // The stub reads `half` as `f16`, its likely intent.
    let _ = scale::reference(&[npu::f16::ZERO; 4096], npu::f16::ONE);
}
