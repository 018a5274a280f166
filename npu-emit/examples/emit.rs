//! Writes the device source of every schedule of a kernel file, with the backend of
//! its target (AIE C++ for aie2_tile, Ascend C otherwise):
//! `cargo run -p npu-emit --example emit -- kernel.npu OUT_DIR`. Each schedule gets
//! `OUT_DIR/SCHEDULE/` with the emitted files (for Ascend C the kernel, `main.cpp` and
//! `CMakeLists.txt`); a schedule the backend cannot write gets one line saying why.

use std::path::Path;

use npu_emit::{Backend, emit};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, out] = args.as_slice() else {
        eprintln!("usage: emit <kernel file> <output directory>");
        std::process::exit(2);
    };
    let source = npu_core::file::read(npu_core::file::Kind::Kernel, Path::new(path))
        .unwrap_or_else(|error| exit(&error.to_string()));
    let kernel =
        npu_core::check_source_with(&source, |p| npu_core::target::read_file(Path::new(p)))
            .unwrap_or_else(|diagnostics| exit(&diagnostics.render(&source)));
    let Some(backend) = Backend::of(&kernel.target) else {
        exit(&format!(
            "target `{}` is of no vendor (family \"generic\"); no backend writes for it",
            kernel.target.name
        ));
    };
    for (index, schedule) in kernel.schedules.iter().enumerate() {
        let program = npu_core::lower::lower_compact(&kernel, index);
        match emit(&program, &kernel.target, &kernel, backend) {
            Ok(emitted) => {
                let dir = Path::new(out).join(&schedule.name);
                for file in &emitted.files {
                    let written = std::fs::create_dir_all(&dir)
                        .and_then(|()| std::fs::write(dir.join(&file.path), &file.text));
                    if let Err(error) = written {
                        exit(&format!("{}: {error}", dir.join(&file.path).display()));
                    }
                }
                println!("{}: wrote {}", schedule.name, dir.display());
            }
            Err(unsupported) => println!("{}: {unsupported}", schedule.name),
        }
    }
}

fn exit(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(1);
}
