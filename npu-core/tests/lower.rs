//! Lowering, data-driven: for every schedule of a set of kernels, the placement agrees
//! with the checker's plan and the synchronisation is balanced; a few listings are
//! snapshots.

use std::collections::HashMap;

use insta::assert_snapshot;
use npu_core::ir::CheckedKernel;
use npu_core::lower::{lower, place};
use npu_core::program::{Op, Pipe, Program};
use npu_core::{Level, Target, check_source};

const KERNELS: &[(&str, &str)] = &[
    (
        "npueval_demo",
        "kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
            y[i] = a[i] * b[i] + c[i];
        }
        target npueval_demo;
        schedule hand { split i by 2048; stage a, b, c, y in ub depth 1; }
        schedule pipelined { split i by 4096; stage a, b, c, y in ub depth 2; }",
    ),
    (
        "npueval_demo",
        "kernel vmla_tail(a: [f16; 10000], b: [f16; 10000], c: [f16; 10000]) -> y: [f16; 10000] {
            y[i] = a[i] * b[i] + c[i];
        }
        target npueval_demo;
        schedule padded { split i by 2048; stage a, b, c, y in ub depth 2; tail pad; }",
    ),
    (
        "ascend910b",
        "kernel add_bias(x: [f32; 64, 128], bias: [f32; 128]) -> y: [f32; 64, 128] {
            y[i, j] = x[i, j] + bias[j];
        }
        target ascend910b;
        schedule rows { split i by 16; stage x, bias, y in ub depth 2; }
        schedule columns { split i by 8; split j by 32; order j, i; stage x, bias, y in ub depth 2; }
        schedule cores { parallel i over 4 cores; split i by 8; stage x, y in ub depth 2; stage bias in ub depth 1; }",
    ),
    (
        "ascend910b",
        "kernel row_sum(x: [f32; 40, 1000]) -> y: [f32; 40] {
            y[i] = sum[k](x[i, k]);
        }
        target ascend910b;
        schedule whole { split i by 8; stage x, y in ub depth 2; }
        schedule k_tiles { split i by 8; split k by 256; stage x, y in ub depth 2; tail pad; }
        schedule exact { split k by 200; stage x, y in ub depth 1; tail exact; }
        schedule cores { parallel i over 3 cores; split i by 8; split k by 512; stage x, y in ub depth 2; tail pad; }",
    ),
    (
        "ascend910b",
        "kernel softmax_like(x: [f16; 32, 256], m: [f16; 32], s: [f16; 32]) -> y: [f16; 32, 256] {
            y[i, j] = exp(x[i, j] - m[i]) / s[i];
        }
        target ascend910b;
        schedule rows { split i by 16; stage x, m, s, y in ub depth 2; }
        schedule blocks { split i by 16; split j by 128; stage x, m, s, y in ub depth 1; }",
    ),
    (
        "ascend910b",
        "kernel matmul(a: [f16; 256, 512], b: [f16; 512, 128]) -> c: [f32; 256, 128] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;
        schedule k_split { split m by 128; split k by 256; cube m by 64, n by 64, k by 64; stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 2; }
        schedule whole_k { split m by 64; cube m by 64, n by 64, k by 128; stage a, b in l1 depth 1; stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 1; order n, m; }
        schedule cores { parallel m over 4 cores; split k by 128; cube m by 32, n by 64, k by 64; stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 2; }",
    ),
];

fn kernels() -> Vec<CheckedKernel> {
    KERNELS
        .iter()
        .map(|(target, source)| {
            let target = Target::preset(target).expect("preset");
            check_source(source, &target).unwrap_or_else(|d| panic!("{}", d.render(source)))
        })
        .collect()
}

/// Every buffer of the plan placed once, inside its level, aligned, without overlaps,
/// and the peak of each level equal to the checker's total.
#[test]
fn placement_agrees_with_the_plan() {
    for kernel in kernels() {
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let what = format!("{}.{}", kernel.name, schedule.name);
            let program = lower(&kernel, index);
            assert_eq!(program.buffers, place(schedule, &kernel.target), "{what}");
            assert_eq!(program.buffers.len(), schedule.buffers.len(), "{what}");
            for (placed, planned) in program.buffers.iter().zip(&schedule.buffers) {
                assert_eq!(
                    (&placed.name, placed.level, placed.kind),
                    (&planned.name, planned.level, planned.kind),
                    "{what}"
                );
                assert_eq!(
                    (placed.slot_bytes, placed.depth),
                    (planned.bytes, planned.depth),
                    "{what}"
                );
                let align = kernel.target.alignment(placed.level);
                assert_eq!(
                    placed.address % align,
                    0,
                    "{what}: {} misaligned",
                    placed.name
                );
                assert_eq!(
                    placed.slot_bytes % align,
                    0,
                    "{what}: slots of {} misaligned",
                    placed.name
                );
                assert!(
                    placed.end() <= kernel.target.capacity(placed.level),
                    "{what}: {} past the end of {}",
                    placed.name,
                    placed.level
                );
            }
            for (i, a) in program.buffers.iter().enumerate() {
                for b in &program.buffers[i + 1..] {
                    let disjoint =
                        a.level != b.level || a.end() <= b.address || b.end() <= a.address;
                    assert!(disjoint, "{what}: {} and {} overlap", a.name, b.name);
                }
            }
            for level in Level::ALL {
                assert_eq!(
                    program.peak(level),
                    schedule.used(level),
                    "{what}: peak of {level}"
                );
            }
        }
    }
}

/// Each `set_flag` has exactly one matching `wait_flag` (same pipes and event, in the
/// stream of the pipe it names), and event ids stay below the target's count.
#[test]
fn flags_are_balanced() {
    for kernel in kernels() {
        for index in 0..kernel.schedules.len() {
            let program = lower(&kernel, index);
            let what = format!("{}.{}", kernel.name, program.schedule);
            for code in &program.classes {
                let mut balance: HashMap<(Pipe, Pipe, u16), i64> = HashMap::new();
                for pipe in Pipe::ALL {
                    for instr in code.stream(pipe) {
                        match instr.op {
                            Op::SetFlag { from, to, event } => {
                                assert_eq!(from, pipe, "{what}: set_flag on the wrong pipe");
                                assert!(
                                    u32::from(event) < kernel.target.events,
                                    "{what}: event {event}"
                                );
                                *balance.entry((from, to, event)).or_default() += 1;
                            }
                            Op::WaitFlag { from, to, event } => {
                                assert_eq!(to, pipe, "{what}: wait_flag on the wrong pipe");
                                *balance.entry((from, to, event)).or_default() -= 1;
                            }
                            _ => {}
                        }
                        if let Some(owner) = instr.op.pipe() {
                            assert_eq!(owner, pipe, "{what}: instruction in the wrong stream");
                        }
                    }
                }
                assert!(
                    balance.values().all(|n| *n == 0),
                    "{what}: unbalanced flags {balance:?}"
                );
            }
        }
    }
}

/// The estimate a caller can check before lowering bounds the real count, and every
/// lowered program validates.
#[test]
fn estimates_bound_the_instruction_count() {
    for kernel in kernels() {
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let program = lower(&kernel, index);
            program
                .validate()
                .unwrap_or_else(|error| panic!("{}.{}: {error}", kernel.name, schedule.name));
            let estimate = npu_core::lower::estimate_instructions(&kernel, schedule);
            let actual = program.instruction_count();
            assert!(
                estimate >= actual,
                "{}.{}: estimate {estimate} < {actual}",
                kernel.name,
                schedule.name
            );
            assert!(
                estimate <= 4 * actual + 64,
                "{}.{}: estimate {estimate} far above {actual}",
                kernel.name,
                schedule.name
            );
        }
    }
}

/// Cores get contiguous tiles, `ceil(tiles / cores)` each.
#[test]
fn cores_get_contiguous_tiles() {
    let kernels = kernels();
    let row_sum = kernels
        .iter()
        .find(|k| k.name == "row_sum")
        .expect("row_sum");
    let index = row_sum
        .schedules
        .iter()
        .position(|s| s.name == "cores")
        .expect("cores");
    let program = lower(row_sum, index);
    // 40 rows are 5 tiles of 8; each core gets ceil(5 / 3) = 2: tiles 0-1, 2-3 and 4,
    // so two classes of code.
    let bases: Vec<u64> = program.cores.iter().map(|c| c.gm_base[0]).collect();
    assert_eq!(bases, [0, 16 * 1000, 32 * 1000]);
    assert_eq!(program.classes.len(), 2);
    assert_eq!(
        program.cores.iter().map(|c| c.class).collect::<Vec<_>>(),
        [0, 0, 1]
    );
}

fn listing(kernel: &str, schedule: &str) -> String {
    let kernels = kernels();
    let kernel = kernels.iter().find(|k| k.name == kernel).expect("kernel");
    let program: Program = npu_core::lower_named(kernel, schedule).expect("schedule");
    program.to_string()
}

#[test]
fn listing_vmla_hand() {
    assert_snapshot!(listing("vmla", "hand"));
}

#[test]
fn listing_vmla_tail() {
    assert_snapshot!(listing("vmla_tail", "padded"));
}

#[test]
fn listing_add_bias_columns() {
    assert_snapshot!(listing("add_bias", "columns"));
}

#[test]
fn listing_row_sum_k_tiles() {
    assert_snapshot!(listing("row_sum", "k_tiles"));
}

#[test]
fn listing_matmul_whole_k() {
    assert_snapshot!(listing("matmul", "whole_k"));
}

/// Instructions stay compact: the simulator walks hundreds of thousands of them.
#[test]
fn instructions_are_compact() {
    assert!(
        std::mem::size_of::<npu_core::program::Instr>() <= 64,
        "{}",
        std::mem::size_of::<npu_core::program::Instr>()
    );
}
