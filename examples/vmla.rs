//! The kernel of the design notes: y = a * b + c over 65536 f16 values on the NPUEval
//! demo core, with a hand schedule and a double-buffered one.
//!
//! Run with `cargo run --example vmla`. It computes the host reference on random inputs
//! and lists each schedule's plan.

use npu::{HostTensor, Level, f16, npu_kernel};

npu_kernel! {
    /// y = a * b + c
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule hand {
        split i by 2048;
        stage a, b, c, y in ub depth 1;
    }
    schedule pipelined {
        split i by 4096;
        stage a, b, c, y in ub depth 2; // double buffering
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let kernel = vmla::kernel();
    println!("kernel `{}` on `{}`", vmla::NAME, kernel.target.name);

    // Deterministic random inputs, one seed per input tensor.
    let inputs: Vec<HostTensor> = kernel
        .tensors
        .iter()
        .filter(|tensor| tensor.role == npu::ir::Role::Input)
        .zip(1..)
        .map(|(tensor, seed)| HostTensor::random(tensor.dtype, &tensor.shape, seed))
        .collect();
    let expected = vmla::reference_host(&inputs)?;
    println!("reference: y checksum {:.4}", expected[0].checksum());

    // The typed API computes the same values.
    let typed: Vec<Vec<f16>> = inputs
        .iter()
        .map(|input| input.to_vec().unwrap_or_default())
        .collect();
    let outputs = vmla::reference(&typed[0], &typed[1], &typed[2])?;
    assert_eq!(Some(outputs.y), expected[0].to_vec::<f16>());

    for schedule in &kernel.schedules {
        println!(
            "schedule {:<10} tile {:>5}, ub {:>6} of {} B",
            schedule.name,
            schedule.tiles[0],
            schedule.used(Level::Ub),
            kernel.target.memory.ub
        );
    }
    Ok(())
}
