// A misspelled dtype: the stub types the tensor as the likely intent (`f16`), so the
// caller's `f16` code type-checks and the one error is the spelling.
use npu::{f16, npu_kernel};

npu_kernel! {
    kernel scale(x: [fp16; 4096]) -> y: [fp16; 4096] {
        y[i] = x[i] * 2.0;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

fn main() {
    let x = vec![f16::ONE; 4096];
    let y: Vec<f16> = scale::reference(&x).unwrap().y;
    println!("{}", y[0].to_f32());
}
