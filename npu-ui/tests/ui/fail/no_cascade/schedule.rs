// A kernel with an illegal schedule, used elsewhere in the file: the only errors are
// the kernel's own, not "cannot find `reference` in `vmla`" at every use.
use npu::{HostTensor, f16, npu_kernel};

npu_kernel! {
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule hand {
        split i by 65536;
        stage a, b, c, y in ub depth 1;
    }
}

fn main() {
    let a = vec![f16::ONE; 65536];
    let outputs: vmla::Outputs = vmla::reference(&a, &a, &a).unwrap();
    let first: f16 = outputs.y[0];
    let host: Vec<HostTensor> = vmla::reference_host(&[]).unwrap();
    let names: [&str; 1] = vmla::SCHEDULES;
    println!("{first} {} {names:?} {}", host.len(), vmla::NAME);
    println!(
        "{} {} {}",
        vmla::SOURCE,
        vmla::TARGET_TOML,
        vmla::kernel().name
    );
}
