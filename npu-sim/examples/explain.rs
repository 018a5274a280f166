//! Lowers and simulates every schedule of a kernel file and prints the program listing
//! and the report: `cargo run -p npu-sim --example explain -- kernel.npu [--full] [--trace out.json]`.
//! With `--timing`, each schedule is simulated for timing only and gets one line: its
//! cycles and, for a matmul, the fraction of the cube peak it reaches.

use npu_core::host::HostTensor;
use npu_sim::{SimOptions, evaluate};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args
        .iter()
        .find(|a| !a.starts_with("--") && !a.ends_with(".json"))
    else {
        eprintln!("usage: explain <kernel file> [--full] [--trace out.json]");
        std::process::exit(2);
    };
    let full = args.iter().any(|a| a == "--full");
    let timing = args.iter().any(|a| a == "--timing");
    let trace = args
        .iter()
        .position(|a| a == "--trace")
        .and_then(|i| args.get(i + 1));
    let kind = npu_core::file::Kind::Kernel;
    let source = match npu_core::file::read(kind, std::path::Path::new(path)) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1);
        }
    };
    let kernel = match npu_core::check_source_with(&source, |p| {
        npu_core::target::read_file(std::path::Path::new(p))
    }) {
        Ok(kernel) => kernel,
        Err(diagnostics) => {
            eprint!("{}", diagnostics.render(&source));
            std::process::exit(1);
        }
    };
    let inputs: Vec<HostTensor> = kernel.random_inputs(0);
    for (index, schedule) in kernel.schedules.iter().enumerate() {
        if timing {
            let options = SimOptions {
                functional: false,
                ..SimOptions::default()
            };
            match evaluate(&kernel, index, &[], None, &options) {
                Ok(evaluation) => {
                    let report = &evaluation.report;
                    if std::env::var_os("NPU_EXPLAIN_REPORT").is_some() {
                        print!("{report}");
                    }
                    let cube = npu_sim::machine_roofline(&kernel).cube_cycles;
                    println!(
                        "{}: {} cycles, cube peak {:.0} cycles ({:.1}%), {} cores, bottleneck {}",
                        schedule.name,
                        report.total_cycles,
                        cube,
                        100.0 * cube / report.total_cycles as f64,
                        report.cores,
                        report.bottleneck
                    );
                }
                Err(error) => println!("{}: {error}", schedule.name),
            }
            continue;
        }
        let program = npu_core::lower(&kernel, index);
        print!("{}", program.listing(full));
        let options = SimOptions {
            trace: trace.is_some(),
            ..SimOptions::default()
        };
        match evaluate(&kernel, index, &inputs, None, &options) {
            Ok(evaluation) => {
                print!("{}", evaluation.report);
                println!("correctness: {:?}\n", evaluation.correctness);
                if let (Some(path), Some(trace)) = (trace, evaluation.trace) {
                    let path = std::path::Path::new(path)
                        .with_extension(format!("{}.json", schedule.name));
                    if let Err(error) = trace.write(&path) {
                        eprintln!("cannot write {}: {error}", path.display());
                    }
                }
            }
            Err(error) => println!("{}: {error}\n", schedule.name),
        }
    }
}
