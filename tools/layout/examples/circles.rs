//! Prints the import circles of each `src/` directory given, and exits with status 1
//! when any has one or cannot be read:
//! `cargo run -p npu-layout --example circles -- npu-core/src src`.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut clean = true;
    for src in std::env::args().skip(1) {
        let analysis = npu_layout::analyze(Path::new(&src));
        println!("== {src}: {} files", analysis.files.len());
        print!("{analysis}");
        clean &= analysis.is_clean();
    }
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
