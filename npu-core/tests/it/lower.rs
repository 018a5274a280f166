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
        schedule exact { split k by 192; stage x, y in ub depth 1; tail exact; }
        schedule cores { parallel i over 3 cores; split i by 8; split k by 512; stage x, y in ub depth 2; tail pad; }",
    ),
    (
        "ascend910b",
        "kernel plane_sum(x: [f16; 16, 12, 40]) -> (y: [f16; 16], z: [f16; 16]) {
            y[c] = sum[h, w: f16](x[c, h, w]);
            z[c] = max[h, w](x[c, h, w]);
        }
        target ascend910b;
        schedule h_tiles { split c by 8; split h by 4; stage x in ub depth 2; stage y, z in ub depth 1; tail pad; }
        schedule cores { parallel c over 4 cores; split c by 4; stage x, y, z in ub depth 2; tail pad; }",
    ),
    (
        "ascend910b",
        "kernel plane_max(x: [f32; 16, 12, 40]) -> y: [f32; 16] {
            y[c] = max[h, w](x[c, h, w] * x[c, h, w]);
        }
        target ascend910b;
        schedule both { split c by 8; split h by 5; split w by 8; stage x in ub depth 2; stage y in ub depth 1; tail pad; }",
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
fn listing_plane_sum_h_tiles() {
    assert_snapshot!(listing("plane_sum", "h_tiles"));
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

/// The first and the last copy of each pipe, as listings show them.
fn edge_copies(target: &str, source: &str) -> Vec<String> {
    let target = Target::preset(target).expect("a preset");
    let kernel = check_source(source, &target).expect("legal");
    let program = lower(&kernel, 0);
    assert_eq!(npu_core::validate(&program, &target), Ok(()));
    let mut texts = Vec::new();
    for pipe in [Pipe::Mte2, Pipe::Mte3] {
        let copies: Vec<&Op> = program.classes[0]
            .stream(pipe)
            .iter()
            .map(|i| &i.op)
            .filter(|op| matches!(op, Op::CopyIn { .. } | Op::CopyOut { .. }))
            .collect();
        for op in [copies[0], copies[copies.len() - 1]] {
            texts.push(program.instruction_text(op));
        }
    }
    texts
}

/// Under `tail pad` every copy a plain DataCopy cannot do is padded (DataCopyPad),
/// not only those whose bursts grow: it pays the pad penalty even when it moves no
/// extra byte. Each case: the target, the kernel, and the first and last copy in and
/// out of core class 0.
#[test]
fn copies_a_plain_data_copy_cannot_do_are_padded_under_tail_pad() {
    let cases: [(&str, &str, [&str; 4]); 3] = [
        // Rows of 100 f32 start every 400 B in global memory, not a multiple of 32:
        // the 32-byte bursts of a tile of 8 columns need DataCopyPad. The tail of 4
        // columns is padded too, 16 B to 32 B per row.
        (
            "ascend910b",
            "kernel strided(x: [f32; 8, 100]) -> y: [f32; 8, 100] { y[i, j] = x[i, j] * 2.0; }
             target ascend910b; schedule s { split j by 8; stage x, y in ub; tail pad; }",
            [
                "copy_in x[+0] -> ub@0x00000 [8x8] 256 B in 8 bursts padded to 256 B",
                "copy_in x[+96] -> ub@0x00000 [8x4] 128 B in 8 bursts padded to 256 B",
                "copy_out ub@0x00100 -> y[+0] [8x8] 256 B in 8 bursts padded to 256 B",
                "copy_out ub@0x00100 -> y[+96] [8x4] 128 B in 8 bursts padded to 256 B",
            ],
        ),
        // Tiles of 24 rows of 50 i8 are 1200 B, so the tail of 16 rows (800 B, an
        // aligned length) starts at byte 1200, which is not: it is padded as well.
        (
            "aie2_tile",
            "kernel rows(x: [i8; 40, 50]) -> y: [i8; 40, 50] { y[i, j] = x[i, j] + x[i, j]; }
             target aie2_tile; schedule s { split i by 24; stage x, y in ub; tail pad; }",
            [
                "copy_in x[+0] -> ub@0x00000 [24x50] 1200 B padded to 1216 B",
                "copy_in x[+1200] -> ub@0x00000 [16x50] 800 B padded to 800 B",
                "copy_out ub@0x004c0 -> y[+0] [24x50] 1200 B padded to 1216 B",
                "copy_out ub@0x004c0 -> y[+1200] [16x50] 800 B padded to 800 B",
            ],
        ),
        // Aligned rows and tiles: nothing to pad, whatever the policy says.
        (
            "ascend910b",
            "kernel aligned(x: [f32; 8, 128]) -> y: [f32; 8, 128] { y[i, j] = x[i, j] * 2.0; }
             target ascend910b; schedule s { split j by 64; stage x, y in ub; tail pad; }",
            [
                "copy_in x[+0] -> ub@0x00000 [8x64] 2048 B in 8 bursts",
                "copy_in x[+64] -> ub@0x00000 [8x64] 2048 B in 8 bursts",
                "copy_out ub@0x00800 -> y[+0] [8x64] 2048 B in 8 bursts",
                "copy_out ub@0x00800 -> y[+64] [8x64] 2048 B in 8 bursts",
            ],
        ),
    ];
    for (target, source, expected) in cases {
        assert_eq!(edge_copies(target, source), expected, "{source}");
    }
}
