// A dtype with no likely intent: the stub takes any slice, so the caller's code
// type-checks and the one error is the dtype.
use npu::npu_kernel;

npu_kernel! {
    kernel scale(x: [quux; 4096]) -> y: [f32; 4096] {
        y[i] = x[i] * 2.0;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

fn main() {
    let x = vec![1.5f64; 4096];
    let y: Vec<f32> = scale::reference(&x).unwrap().y;
    println!("{}", y[0] + 1.0);
}
