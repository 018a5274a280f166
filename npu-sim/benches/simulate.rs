//! How fast the tuner's inner loop is: `cargo bench -p npu-sim`.
//!
//! - `evaluate/timing`: lower + timing-only simulation of vmla (N = 65536, f16) on
//!   npueval_demo, as the tuner calls it for every candidate; the figure to read is
//!   evaluations per second (criterion's `thrpt` in elements/s, one element per
//!   evaluation).
//! - `evaluate/functional`: lower + functional simulation on real data, with the
//!   elements of the output as the throughput unit.
//! - `evaluate/timing/910b_40_cores`: vmla split over 40 cores of ascend910b.
//! - `collapse/vmla_16m/{on,off}`: lower + timing-only simulation of vmla over
//!   16,777,216 f16 elements in tiles of 512 on npueval_demo (32,768 tiles on one
//!   core, a compact program of 188 instructions), with the steady-state collapse and
//!   without it, side by side; evaluations per second as above.
//! - `collapse/matmul_4096/{on,off}`: lower + timing-only simulation of a
//!   4096×4096×4096 f16→f32 matmul on ascend910b in 16×16×16 cube blocks (about 196
//!   million instructions over 16 cores, one class of 12 million simulated; the
//!   compact program holds 1.5 million, the rest being copies of alike output tiles,
//!   which lowering still walks to check them).
//! - `functional/vmla_16m`: functional simulation (the program lowered once, outside
//!   the timing, compact as `evaluate` lowers it) of vmla over 16,777,216 f16
//!   elements in tiles of 512; throughput in elements per second (goal: at least
//!   200 M elements/s).
//! - `functional/matmul_512_blocks{128,16}`: functional simulation of a 512×512×512
//!   f16→f32 matmul on ascend910b in 128×128×64 and 16×16×16 cube blocks; throughput
//!   in multiply-adds per second (criterion's elements/s; goal: at least 5 G/s).
//! - After the groups, `goals` runs each functional case a few times more, and prints
//!   its best rate next to its goal, and the simulator's peak memory for vmla_16m
//!   (the rise of the process's peak resident set over what it held before
//!   [`simulate`], so the caller's inputs are not counted) against the tensors' own
//!   bytes (goal: at most 2×), and the whole process's peak, inputs included. It then
//!   prints the timing-only evaluation rate of
//!   vmla_16m (goal: at least 20,000 evaluations/s), on one thread and on one thread
//!   per core as the tuner runs them, with where one evaluation's time
//!   goes (lowering, validation, the rest of [`simulate`]), and whether the
//!   4096×4096×4096 matmul in 16×16×16 blocks is simulated under the default budget
//!   and under none, how long each took and its peak memory.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use npu_core::host::HostTensor;
use npu_core::ir::CheckedKernel;
use npu_core::lower::lower_compact;
use npu_core::program::Program;
use npu_core::{Dtype, Target, check_source};
use npu_sim::{SimOptions, evaluate, simulate};

const VMLA: &str = "
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;
    schedule tile2048 { split i by 2048; stage a, b, c, y in ub depth 2; }
    schedule tile4096 { split i by 4096; stage a, b, c, y in ub depth 2; }
    schedule tile512 { split i by 512; stage a, b, c, y in ub depth 2; }
";

const VMLA_CORES: &str = "
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target ascend910b;
    schedule cores { parallel i over 40 cores; split i by 1024; stage a, b, c, y in ub depth 2; tail pad; }
";

const VMLA_16M: &str = "
    kernel vmla(a: [f16; 16777216], b: [f16; 16777216], c: [f16; 16777216]) -> y: [f16; 16777216] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;
    schedule tile512 { split i by 512; stage a, b, c, y in ub depth 2; }
";

const MATMUL_4096: &str = "
    kernel matmul(a: [f16; 4096, 4096], b: [f16; 4096, 4096]) -> c: [f32; 4096, 4096] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;
    schedule blocks16 {
        parallel m over 20 cores; split m by 128; split n by 128; split k by 256;
        cube m by 16, n by 16, k by 16;
        stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 2;
    }
";

fn matmul_512(block_mn: u64, block_k: u64) -> String {
    format!(
        "
    kernel matmul(a: [f16; 512, 512], b: [f16; 512, 512]) -> c: [f32; 512, 512] {{
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }}
    target ascend910b;
    schedule blocks {{
        split m by 128; split n by 128; split k by 256;
        cube m by {block_mn}, n by {block_mn}, k by {block_k};
        stage a, b in l1 depth 1; stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 1;
    }}
"
    )
}

/// A functional case: the kernel, its lowered program, its inputs, the work one run
/// does (elements or multiply-adds) and the goal for that rate.
struct Functional {
    name: &'static str,
    kernel: CheckedKernel,
    program: Program,
    inputs: Vec<HostTensor>,
    work: u64,
    unit: &'static str,
    goal: f64,
}

fn functional_cases() -> Vec<Functional> {
    let case = |name, source: &str, target, work, unit, goal| {
        let kernel =
            check_source(source, &Target::preset(target).expect("preset")).expect("checks");
        // As `evaluate` lowers it: the vector kernel's compact program.
        let program = lower_compact(&kernel, 0);
        let inputs = kernel
            .tensors
            .iter()
            .filter(|t| t.role == npu_core::ir::Role::Input)
            .enumerate()
            .map(|(seed, t)| HostTensor::random(t.dtype, &t.shape, seed as u64))
            .collect();
        Functional {
            name,
            kernel,
            program,
            inputs,
            work,
            unit,
            goal,
        }
    };
    vec![
        case(
            "vmla_16m",
            VMLA_16M,
            "npueval_demo",
            16_777_216,
            "M elements/s",
            200e6,
        ),
        case(
            "matmul_512_blocks128",
            &matmul_512(128, 64),
            "ascend910b",
            512 * 512 * 512,
            "G multiply-adds/s",
            5e9,
        ),
        case(
            "matmul_512_blocks16",
            &matmul_512(16, 16),
            "ascend910b",
            512 * 512 * 512,
            "G multiply-adds/s",
            5e9,
        ),
    ]
}

fn run_functional(case: &Functional) {
    let options = SimOptions {
        max_instructions: u64::MAX,
        ..SimOptions::default()
    };
    let simulation =
        simulate(&case.kernel, &case.program, &case.inputs, &options).expect("simulates");
    black_box(simulation);
}

fn functional(c: &mut Criterion) {
    let mut group = c.benchmark_group("functional");
    group
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(10);
    for case in functional_cases() {
        group.throughput(Throughput::Elements(case.work));
        group.bench_function(case.name, |b| b.iter(|| run_functional(&case)));
    }
    group.finish();
}

/// A field of /proc/self/status in kB (Linux); `None` elsewhere.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Nanoseconds this thread has run on a CPU (Linux's schedstat); `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    schedstat.split_whitespace().next()?.parse().ok()
}

/// Each functional figure next to its goal, as the last lines of the bench's output:
/// the best of three runs by wall-clock time, and by the time the thread was on a
/// CPU (the fair figure on a shared machine, where other work takes turns with it).
fn goals(_: &mut Criterion) {
    for case in functional_cases() {
        let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..3 {
            let (start, start_cpu) = (Instant::now(), cpu_ns());
            run_functional(&case);
            wall = wall.min(start.elapsed().as_secs_f64());
            if let (Some(start), Some(end)) = (start_cpu, cpu_ns()) {
                cpu = cpu.min((end - start) as f64 / 1e9);
            }
        }
        let scale = if case.unit.starts_with('G') { 1e9 } else { 1e6 };
        let rate = |seconds: f64| case.work as f64 / seconds / scale;
        println!(
            "goal functional/{}: {:.2} {} by wall clock, {:.2} by CPU time (goal >= {:.0})",
            case.name,
            rate(wall),
            case.unit,
            rate(cpu),
            case.goal / scale
        );
    }
    // Peak memory of one vmla_16m run: writing 5 to clear_refs resets the peak resident
    // set (VmHWM) to the current one (Linux 4.0 and later).
    let case = &functional_cases()[0];
    let own_bytes: u64 = case
        .kernel
        .tensors
        .iter()
        .map(|t| t.elements() * t.dtype.size())
        .sum();
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    match (reset, status_kb("VmRSS:")) {
        (true, Some(before)) => {
            run_functional(case);
            let peak = status_kb("VmHWM:").unwrap_or(before);
            let rise = (peak.saturating_sub(before)) * 1024;
            println!(
                "goal functional/vmla_16m memory: simulator peak {:.0} MB = {:.2}x the tensors' own {:.0} MB (goal <= 2x); process peak {:.0} MB",
                rise as f64 / 1e6,
                rise as f64 / own_bytes as f64,
                own_bytes as f64 / 1e6,
                peak as f64 * 1024.0 / 1e6
            );
        }
        _ => println!("goal functional/vmla_16m memory: not measured (no /proc/self/clear_refs)"),
    }
    timing_goals();
}

/// Seconds per evaluation of `kernel` with batches of `batch` on one thread per core at
/// once, as the tuner evaluates candidates (`autotune --jobs`), best of three; and the
/// number of threads.
fn on_every_core(kernel: &CheckedKernel, timing: &SimOptions, batch: u32) -> (f64, usize) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut every_core = f64::INFINITY;
    for _ in 0..3 {
        let start = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    for _ in 0..batch {
                        black_box(evaluate(kernel, 0, &[], None, timing).expect("simulates"));
                    }
                });
            }
        });
        every_core =
            every_core.min(start.elapsed().as_secs_f64() / f64::from(batch) / threads as f64);
    }
    (every_core, threads)
}

/// The timing-only figures of the "speed and scale" goals, each next to its
/// goal: vmla_16m evaluations per second, as the tuner calls [`evaluate`], with the
/// phases of one evaluation, and the 4096³ matmul in 16×16×16 blocks.
fn timing_goals() {
    let timing = SimOptions {
        functional: false,
        ..SimOptions::default()
    };
    let kernel =
        check_source(VMLA_16M, &Target::preset("npueval_demo").expect("preset")).expect("checks");
    // Best of five batches of a thousand evaluations, one after another on one thread.
    const BATCH: u32 = 1000;
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..5 {
        let (start, start_cpu) = (Instant::now(), cpu_ns());
        for _ in 0..BATCH {
            black_box(evaluate(black_box(&kernel), 0, &[], None, &timing).expect("simulates"));
        }
        wall = wall.min(start.elapsed().as_secs_f64() / f64::from(BATCH));
        if let (Some(start), Some(end)) = (start_cpu, cpu_ns()) {
            cpu = cpu.min((end - start) as f64 / 1e9 / f64::from(BATCH));
        }
    }
    // The phases of one evaluation, best of a hundred each: `evaluate` lowers the
    // compact program (each run of alike tiles held once); `simulate` validates it
    // before it runs, so its figure less validation's is the engine and the report.
    let best = |phase: &mut dyn FnMut()| {
        (0..100)
            .map(|_| {
                let start = Instant::now();
                phase();
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let program = lower_compact(&kernel, 0);
    let held: usize = program
        .classes
        .iter()
        .flat_map(|c| &c.streams)
        .map(Vec::len)
        .sum();
    let lowering = best(&mut || drop(black_box(lower_compact(&kernel, 0))));
    let validation = best(&mut || {
        black_box(npu_core::validate(&program, &kernel.target)).expect("valid");
    });
    let simulation = best(&mut || {
        black_box(simulate(&kernel, &program, &[], &timing)).expect("simulates");
    });
    let (every_core, threads) = on_every_core(&kernel, &timing, BATCH);
    println!(
        "goal evaluate/timing vmla_16m tile 512: {:.0} evaluations/s by wall clock on one thread, {:.0} by CPU time, {:.0} on {threads} threads (goal >= 20000); one evaluation: lower {:.1} us, validate {:.1} us, simulate {:.1} us (validation included), {} instructions held for {}",
        1.0 / wall,
        1.0 / cpu,
        1.0 / every_core,
        lowering * 1e6,
        validation * 1e6,
        simulation * 1e6,
        held,
        program.instruction_count()
    );
    drop(program);
    let kernel =
        check_source(MATMUL_4096, &Target::preset("ascend910b").expect("preset")).expect("checks");
    for (label, budget) in [
        ("the default budget", timing.max_instructions),
        ("no budget", u64::MAX),
    ] {
        let options = SimOptions {
            max_instructions: budget,
            ..timing.clone()
        };
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        let before = status_kb("VmRSS:");
        let start = Instant::now();
        let outcome = match evaluate(&kernel, 0, &[], None, &options) {
            Ok(evaluation) => format!(
                "simulated: {} cycles, {} instructions",
                evaluation.report.total_cycles, evaluation.report.instructions
            ),
            Err(error) => format!("refused: {error}"),
        };
        let seconds = start.elapsed().as_secs_f64();
        let memory = match (reset, before, status_kb("VmHWM:")) {
            (true, Some(before), Some(peak)) => format!(
                ", peak memory {:.0} MB",
                peak.saturating_sub(before) as f64 * 1024.0 / 1e6
            ),
            _ => String::new(),
        };
        println!(
            "goal evaluate/timing matmul_4096 blocks 16 under {label}: {outcome}, in {seconds:.2} s{memory} (goal: simulated, not refused)"
        );
    }
}

fn collapse(c: &mut Criterion) {
    let mut group = c.benchmark_group("collapse");
    group
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1))
        .throughput(Throughput::Elements(1));
    let cases = [
        ("vmla_16m", VMLA_16M, "npueval_demo", 20),
        ("matmul_4096", MATMUL_4096, "ascend910b", 10),
    ];
    for (name, source, target, samples) in cases {
        let kernel =
            check_source(source, &Target::preset(target).expect("preset")).expect("checks");
        group.sample_size(samples);
        for (label, collapse) in [("on", true), ("off", false)] {
            let options = SimOptions {
                functional: false,
                collapse,
                ..SimOptions::default()
            };
            group.bench_function(format!("{name}/{label}"), |b| {
                b.iter(|| evaluate(black_box(&kernel), 0, &[], None, &options).expect("simulates"))
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let target = Target::preset("npueval_demo").expect("preset");
    let kernel = check_source(VMLA, &target).expect("vmla checks");
    let inputs: Vec<HostTensor> = (0..3)
        .map(|seed| HostTensor::random(Dtype::F16, &[65536], seed))
        .collect();
    let timing = SimOptions {
        functional: false,
        ..SimOptions::default()
    };

    let mut group = c.benchmark_group("evaluate");
    group
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(1));
    for (index, schedule) in kernel.schedules.iter().enumerate() {
        group.bench_function(format!("timing/{}", schedule.name), |b| {
            b.iter(|| evaluate(black_box(&kernel), index, &[], None, &timing).expect("simulates"))
        });
    }
    // Forty cores: identical cores are simulated once per class.
    let cores =
        check_source(VMLA_CORES, &Target::preset("ascend910b").expect("preset")).expect("checks");
    group.bench_function("timing/910b_40_cores", |b| {
        b.iter(|| evaluate(black_box(&cores), 0, &[], None, &timing).expect("simulates"))
    });
    group.throughput(Throughput::Elements(65536));
    group.sample_size(20);
    let expected = npu_sim::reference(&kernel, &inputs).expect("no gathers");
    group.bench_function("functional/tile2048", |b| {
        b.iter(|| {
            evaluate(
                black_box(&kernel),
                0,
                &inputs,
                Some(&expected),
                &SimOptions::default(),
            )
            .expect("simulates")
        })
    });
    group.finish();
}

criterion_group!(simulate_benches, benches, collapse, functional, goals);
criterion_main!(simulate_benches);
