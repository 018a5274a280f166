//! Emission time per bundled Ascend kernel (hand schedule, compact program): the
//! issue asks for under 10 ms per kernel. `cargo bench -p npu-emit`.

use criterion::{Criterion, criterion_group, criterion_main};
use npu_emit::{Backend, emit};

fn emission(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit");
    for bundled in npu_tune::kernels::all() {
        let kernel = (bundled.kernel)();
        let program = npu_core::lower::lower_compact(kernel, 0);
        if emit(&program, &kernel.target, kernel, Backend::AscendC).is_err() {
            continue;
        }
        group.bench_function(bundled.name, |b| {
            b.iter(|| emit(&program, &kernel.target, kernel, Backend::AscendC))
        });
    }
    group.finish();
}

criterion_group!(benches, emission);
criterion_main!(benches);
