// A kernel the parser gives up on: the stub still has the kernel's functions, typed
// from the signature, so calls elsewhere raise no errors of their own.
use npu::{f16, npu_kernel};

npu_kernel! {
    kernel vmla(a: [f16; 4096], b: [f16; 4096], c: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = a[i] * b[i] +;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage a, b, c, y in ub depth 2;
    }
}

fn main() {
    let a = vec![f16::ONE; 4096];
    let outputs = vmla::reference(&a, &a, &a).unwrap();
    println!("{} {:?}", outputs.y[0].to_f32(), vmla::SCHEDULES);
}
