//! The kernel of the design notes: y = a * b + c over 65536 f16 values on the NPUEval
//! demo core, with a hand schedule and a double-buffered one.
//!
//! Run with `cargo run --example vmla`. It computes the host reference on random inputs,
//! simulates each schedule on them, prints each report, and writes a Perfetto trace of
//! each schedule to `target/vmla.SCHEDULE.trace.json` (open it at ui.perfetto.dev).

use npu::{HostTensor, Level, f16, npu_kernel};

npu_kernel! {
    /// y = a * b + c
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage a, b, c, y in ub depth 1;
    }
    schedule pipelined {
        split i by 1024;
        stage a, b, c, y in ub depth 2; // double buffering
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let kernel = vmla::kernel();
    println!("kernel `{}` on `{}`", vmla::NAME, kernel.target.name);

    // Deterministic random inputs, one seed per input tensor (input `i` from `1 + i`).
    let inputs: Vec<HostTensor> = kernel.random_inputs(1);
    let expected = vmla::reference_host(&inputs)?;
    println!("reference: y checksum {:.4}", expected[0].checksum());

    // The typed API computes the same values.
    let typed: Vec<Vec<f16>> = inputs
        .iter()
        .map(|input| input.to_vec().unwrap_or_default())
        .collect();
    let outputs = vmla::reference(&typed[0], &typed[1], &typed[2])?;
    assert_eq!(Some(outputs.y), expected[0].to_vec::<f16>());

    let options = npu::sim::SimOptions {
        trace: true,
        ..npu::sim::SimOptions::default()
    };
    let mut cycles = Vec::new();
    for (index, schedule) in kernel.schedules.iter().enumerate() {
        println!(
            "\n== schedule {}: tile {}, ub {} of {} B",
            schedule.name,
            schedule.tiles[0],
            schedule.used(Level::Ub),
            kernel.target.memory.ub
        );
        let evaluation = npu::sim::evaluate(kernel, index, &inputs, Some(&expected), &options)?;
        println!("{}", evaluation.report);
        println!("outputs: {:?}", evaluation.correctness);
        if let Some(trace) = &evaluation.trace {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target")
                .join(format!("vmla.{}.trace.json", schedule.name));
            trace.write(&path)?;
            println!("trace: {}", path.display());
        }
        cycles.push((schedule.name.clone(), evaluation.report.total_cycles));
    }
    if let [(hand, hand_cycles), (pipelined, pipelined_cycles)] = cycles.as_slice() {
        println!(
            "\n{pipelined} takes {pipelined_cycles} cycles against {hand_cycles} for {hand}: {:.2}x",
            *hand_cycles as f64 / *pipelined_cycles as f64
        );
    }
    Ok(())
}
