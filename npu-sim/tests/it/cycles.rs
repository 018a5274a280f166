//! Cycle counts computed by hand, on the round-number target of
//! [`support::hand_target`]: 32 B/cycle, 100 cycles of DMA latency, `mul` at 40 cycles
//! per 256-byte repeat with no issue cost, 1 cycle per loop iteration. The arithmetic
//! is next to each expected number.

use crate::support;

use npu_core::program::{CoreCode, Op, Pipe, Program};
use npu_sim::{SimOptions, Simulation, simulate};
use support::{check_on, hand_target};

/// `y = x * 2` over `n` f16 elements with a schedule body.
fn scale(n: u64, schedule: &str) -> npu_core::ir::CheckedKernel {
    let source = format!(
        "kernel scale(x: [f16; {n}]) -> y: [f16; {n}] {{ y[i] = x[i] * 2.0; }}
        target npueval_demo;
        schedule s {{ {schedule} }}"
    );
    check_on(&source, &hand_target())
}

fn run(kernel: &npu_core::ir::CheckedKernel, program: &Program) -> Simulation {
    let options = SimOptions {
        functional: false,
        trace: true,
        ..SimOptions::default()
    };
    simulate(kernel, program, &[], &options).expect("simulates")
}

/// The lowered program with its streams replaced: to time a few instructions alone.
fn only(program: &Program, streams: &[(Pipe, Vec<Op>)]) -> Program {
    let mut code = CoreCode {
        tiles: 1,
        summary: "by hand".into(),
        ..CoreCode::default()
    };
    for (pipe, ops) in streams {
        for op in ops {
            code.push(*pipe, 0, *op);
        }
    }
    Program {
        classes: vec![code],
        cores: program.cores[..1].to_vec(),
        ..program.clone()
    }
}

fn first(program: &Program, pipe: Pipe, wanted: fn(&Op) -> bool) -> Op {
    program.classes[0]
        .stream(pipe)
        .iter()
        .map(|i| i.op)
        .find(wanted)
        .expect("the instruction")
}

/// Start and duration of every traced instruction whose text starts with `prefix`.
fn events(simulation: &Simulation, prefix: &str) -> Vec<(f64, f64)> {
    let trace = simulation.trace.as_ref().expect("traced");
    trace
        .events
        .iter()
        .filter(|e| e.name.starts_with(prefix))
        .map(|e| (e.start, e.duration))
        .collect()
}

#[test]
fn one_copy() {
    let kernel = scale(2048, "stage x, y in ub depth 1;");
    let lowered = npu_core::lower(&kernel, 0);
    let copy = first(&lowered, Pipe::Mte2, |op| matches!(op, Op::CopyIn { .. }));
    let program = only(
        &lowered,
        &[(Pipe::S, vec![Op::Loop]), (Pipe::Mte2, vec![copy])],
    );
    let simulation = run(&kernel, &program);
    // S issues the loop in 1 cycle; the copy starts at 1 and holds the port for
    // 4096 B / 32 B per cycle = 128 cycles, to 129; it lands 100 cycles later.
    assert_eq!(events(&simulation, "copy_in"), [(1.0, 128.0)]);
    assert_eq!(simulation.report.total_cycles, 1 + 128 + 100);
}

#[test]
fn copy_then_compute() {
    let kernel = scale(2048, "stage x, y in ub depth 1;");
    let lowered = npu_core::lower(&kernel, 0);
    let copy = first(&lowered, Pipe::Mte2, |op| matches!(op, Op::CopyIn { .. }));
    let multiply = first(&lowered, Pipe::V, |op| matches!(op, Op::Vector(_)));
    let flag = (Pipe::Mte2, Pipe::V, 0);
    let program = only(
        &lowered,
        &[
            (Pipe::S, vec![Op::Loop]),
            (
                Pipe::Mte2,
                vec![
                    copy,
                    Op::SetFlag {
                        from: flag.0,
                        to: flag.1,
                        event: flag.2,
                    },
                ],
            ),
            (
                Pipe::V,
                vec![
                    Op::WaitFlag {
                        from: flag.0,
                        to: flag.1,
                        event: flag.2,
                    },
                    multiply,
                ],
            ),
        ],
    );
    let simulation = run(&kernel, &program);
    // The flag goes up when the copy lands at 1 + 128 + 100 = 229. The multiply covers
    // 2048 f16 = 4096 B = 16 repeats of 256 B at 40 cycles: 640 cycles, to 869.
    assert_eq!(events(&simulation, "vmul"), [(229.0, 640.0)]);
    assert_eq!(simulation.report.total_cycles, 229 + 640);
    let v = simulation
        .report
        .pipes
        .iter()
        .find(|p| p.pipe == Pipe::V)
        .expect("V");
    assert_eq!((v.busy, v.stall), (640, 229));
}

#[test]
fn depth_two_reaches_steady_state() {
    let kernel = scale(8192, "split i by 2048; stage x, y in ub depth 2;");
    let simulation = run(&kernel, &npu_core::lower(&kernel, 0));
    // Four tiles. Tile 0: copy in [1, 129], lands 229; multiply [229, 869]. With two
    // slots MTE2 copies tile 1 right after ([129, 257], lands 357), so the vector unit
    // never waits again: multiplies run back to back, 640 cycles each, from 229.
    let multiplies = events(&simulation, "vmul");
    let starts: Vec<f64> = multiplies.iter().map(|(start, _)| *start).collect();
    assert_eq!(starts, [229.0, 869.0, 1509.0, 2149.0]);
    // The last multiply ends at 229 + 4 × 640 = 2789; its copy out holds the port for
    // 128 cycles and lands 100 later: 2789 + 128 + 100 = 3017.
    assert_eq!(simulation.report.total_cycles, 3017);
    assert!(
        simulation
            .report
            .symptom
            .starts_with("V busy 85%: compute-bound on mul"),
        "{}",
        simulation.report.symptom
    );
}

#[test]
fn depth_one_serialises_copy_and_compute() {
    let kernel = scale(8192, "split i by 2048; stage x, y in ub depth 1;");
    let simulation = run(&kernel, &npu_core::lower(&kernel, 0));
    // One slot each: tile i + 1's multiply waits for tile i's copy out to free y. After
    // multiply i ends at e, MTE2 copies x (port [e, e + 128]) and MTE3 copies y out
    // (port [e + 128, e + 256], lands e + 356), so multiply i + 1 starts at e + 356.
    let starts: Vec<f64> = events(&simulation, "vmul")
        .iter()
        .map(|(start, _)| *start)
        .collect();
    assert_eq!(starts, [229.0, 1225.0, 2221.0, 3217.0]);
    // The last multiply ends at 3217 + 640 = 3857; copy out: 3857 + 128 + 100 = 4085.
    assert_eq!(simulation.report.total_cycles, 4085);
}

#[test]
fn two_cores_share_bandwidth() {
    let kernel = scale(4096, "parallel i over 2 cores; stage x, y in ub depth 1;");
    let simulation = run(&kernel, &npu_core::lower(&kernel, 0));
    // Each core gets min(32, 32 / 2) = 16 B/cycle. Per core: loop to 1, copy in 4096 B
    // for 256 cycles to 257, lands 357; multiply [357, 997]; copy out [997, 1253],
    // lands 1353.
    assert_eq!(simulation.report.cores, 2);
    assert_eq!(events(&simulation, "copy_in"), [(1.0, 256.0), (1.0, 256.0)]);
    assert_eq!(simulation.report.total_cycles, 1353);
    // One core alone moves the same tile in 128 cycles: 1 + 128 + 100 + 640 + 128 + 100.
    let alone = scale(2048, "stage x, y in ub depth 1;");
    assert_eq!(
        run(&alone, &npu_core::lower(&alone, 0)).report.total_cycles,
        1097
    );
}

#[test]
fn padded_tail_copy() {
    let kernel = scale(3048, "split i by 2048; stage x, y in ub depth 2; tail pad;");
    let simulation = run(&kernel, &npu_core::lower(&kernel, 0));
    // Tile 0: 4096 B in 128 cycles. The tail, 1000 f16 = 2000 B, is not a multiple of
    // 32 B: padded to 2016 B, at twice the time: 2016 / 32 × 2 = 126 cycles.
    assert_eq!(
        events(&simulation, "copy_in"),
        [(1.0, 128.0), (129.0, 126.0)]
    );
}

#[test]
fn strided_copy_pays_per_burst() {
    let source = "kernel rows(x: [f32; 16, 64]) -> y: [f32; 16, 64] { y[i, j] = x[i, j] * 2.0; }
        target npueval_demo;
        schedule s { split j by 32; stage x, y in ub depth 2; }";
    let kernel = check_on(source, &hand_target());
    let simulation = run(&kernel, &npu_core::lower(&kernel, 0));
    // A 16 x 32 tile of f32 is 16 rows of 128 B, 2048 B in 16 bursts:
    // 2048 / 32 + (16 − 1) × 4 = 64 + 60 = 124 cycles.
    let copies = events(&simulation, "copy_in");
    assert_eq!(copies[0], (1.0, 124.0));
}

#[test]
fn a_misaligned_row_stride_pays_the_pad_penalty() {
    let source = "kernel rows(x: [f16; 8, 100]) -> y: [f16; 8, 100] { y[i, j] = x[i, j] * 2.0; }
        target npueval_demo;
        schedule s { split j by 16; stage x, y in ub depth 2; tail pad; }";
    let kernel = check_on(source, &hand_target());
    let simulation = run(&kernel, &npu_core::lower(&kernel, 0));
    // Rows of 100 f16 start every 200 B in global memory, not a multiple of 32, so
    // even a whole 8 x 16 tile (8 bursts of 32 B, nothing to pad) needs DataCopyPad:
    // 256 / 32 × 2 + (8 − 1) × 4 = 16 + 28 = 44 cycles, not the 36 of a plain copy.
    let copies = events(&simulation, "copy_in");
    assert_eq!(copies[0], (1.0, 44.0));
}

/// A scan's cost: one step per position along its axis, each over the other axes'
/// elements and issued on its own (a log-step scan would round otherwise). On the hand
/// target with `issue_cycles = 10` and `cumsum` at 3 cycles per 256-byte repeat.
#[test]
fn scan_steps_one_position_at_a_time() {
    let mut target = hand_target();
    target.vector.issue_cycles = 10;
    target
        .vector
        .cycles
        .insert(npu_core::target::VectorOp::Cumsum, 3);
    let time = |rows: u64, cols: u64| {
        let source = format!(
            "kernel k(x: [f32; {rows}, {cols}]) -> y: [f32; {rows}, {cols}] {{ y[i, k] = cumsum[k](x[i, k]); }}
            target npueval_demo;
            schedule s {{ stage x, y in ub; }}"
        );
        let kernel = check_on(&source, &target);
        let lowered = npu_core::lower(&kernel, 0);
        let scan = first(
            &lowered,
            Pipe::V,
            |op| matches!(op, Op::Vector(v) if v.kind.scan().is_some()),
        );
        let program = only(
            &lowered,
            &[(Pipe::S, vec![Op::Loop]), (Pipe::V, vec![scan])],
        );
        events(&run(&kernel, &program), "vscan")
    };
    // 8 rows of 64: 64 steps × (10 + ceil(8 × 4 B / 256 B) = 1 repeat × 3) = 832.
    assert_eq!(time(8, 64), [(1.0, 832.0)]);
    // 256 rows of 4: 4 × (10 + ceil(256 × 4 / 256) = 4 × 3) = 88.
    assert_eq!(time(256, 4), [(1.0, 88.0)]);
}

/// The kernels whose cycles fingerprint the model: vector, reduction, fused, cube,
/// window and movement kernels on every preset they name. Editing one of these files
/// changes the fingerprint as a change of the model would.
const FINGERPRINT_KERNELS: [&str; 8] = [
    "vmla",
    "softmax",
    "fused_layernorm",
    "bf16_tanh",
    "row_sum",
    "matmul",
    "conv1d",
    "transpose",
];

/// A journal records `npu_sim::MODEL_VERSION` so that `--resume` never mixes two
/// models' cycles: a change of simulated cycles must come with a new version. The
/// fingerprint hashes every schedule's cycles of [`FINGERPRINT_KERNELS`], timed only.
#[test]
fn model_version_is_bumped_when_cycles_change() {
    let mut text = String::new();
    for stem in FINGERPRINT_KERNELS {
        let kernel = support::check(&support::kernel_file(stem));
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let options = SimOptions {
                functional: false,
                ..SimOptions::default()
            };
            let evaluation = npu_sim::evaluate(&kernel, index, &[], None, &options)
                .unwrap_or_else(|error| panic!("{stem}.{}: {error}", schedule.name));
            let cycles = evaluation.report.total_cycles;
            text.push_str(&format!("{stem}.{} {cycles}\n", schedule.name));
        }
    }
    let fingerprint = npu_core::variants::fnv1a64(text.bytes());
    let history = npu_sim::MODEL_FINGERPRINTS;
    let versions: Vec<u32> = history.iter().map(|(version, _)| *version).collect();
    let expected: Vec<u32> = (1..=npu_sim::MODEL_VERSION).collect();
    assert_eq!(
        versions, expected,
        "one line of history per version, in order"
    );
    let mut fingerprints: Vec<&str> = history.iter().map(|(_, f)| *f).collect();
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!(
        fingerprints.len(),
        history.len(),
        "a new version needs new cycles"
    );
    let next = npu_sim::MODEL_VERSION + 1;
    assert_eq!(
        history.last().map(|(_, f)| *f),
        Some(fingerprint.as_str()),
        "simulated cycles changed: set MODEL_VERSION to {next} and add ({next}, \"{fingerprint}\") \
         to MODEL_FINGERPRINTS in npu-sim/src/lib.rs (never edit an existing line)\ncycles:\n{text}"
    );
}
