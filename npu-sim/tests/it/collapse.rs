//! The steady-state collapse of timing-only runs changes nothing but the speed: for
//! random legal schedules of every test kernel on every preset target, the report of a
//! run with the collapse equals the report of the full simulation, number for number.
//! Exactness rests on integer arithmetic (see `src/engine/collapse.rs`), so the test
//! also checks that the collapse really ran on many of them, not only that it stayed
//! out of the way. The compact program of each schedule (runs of alike tiles held
//! once) expands to exactly the full program, times exactly as it does, and computes
//! the same outputs bit for bit.

use crate::support;

use npu_core::lower::lower_compact;
use npu_core::program::{Cursor, StreamView};
use npu_core::{Target, check_source, lower};
use npu_sim::{SimError, SimOptions, simulate};
use support::schedules::{KERNELS, Random, schedule};

const PRESETS: &[&str] = &["aie2_tile", "ascend310p", "ascend910b", "npueval_demo"];

fn options(collapse: bool) -> SimOptions {
    SimOptions {
        functional: false,
        collapse,
        ..SimOptions::default()
    }
}

#[test]
fn collapsed_and_full_timing_reports_are_identical() {
    let mut random = Random::new(0xc011_a95e);
    let (mut compared, mut instructions, mut advanced) = (0, 0, 0);
    let (mut long_runs, mut long_collapsed) = (0, 0);
    let mut compacted = 0;
    for preset in PRESETS {
        let target = Target::preset(preset).expect("preset");
        for (_, kernel_text, probe_items) in KERNELS {
            let base = format!("{kernel_text}\ntarget {preset};\n");
            // A kernel the preset cannot run at all (no cube, too small) is skipped.
            let Ok(probe) = check_source(
                &format!("{base}schedule probe {{ {probe_items} }}"),
                &target,
            ) else {
                continue;
            };
            for attempt in 0..60 {
                let text = format!(
                    "{base}{}",
                    schedule(&probe, &target, &format!("r{attempt}"), &mut random)
                );
                let Ok(kernel) = check_source(&text, &target) else {
                    continue;
                };
                let what = format!(
                    "{preset} {}: {}",
                    probe.name,
                    text.lines().last().unwrap_or_default()
                );
                let program = lower(&kernel, 0);
                let compact = lower_compact(&kernel, 0);
                compacted += usize::from(compact.is_compact());
                let full = simulate(&kernel, &program, &[], &options(false));
                let fast = simulate(&kernel, &program, &[], &options(true));
                let held = simulate(&kernel, &compact, &[], &options(true));
                // On data too: the engine reads the runs copy by copy.
                if compact.is_compact() && program.instruction_count() < 20_000 {
                    let inputs = support::inputs(&kernel, attempt);
                    let on_data = SimOptions::default();
                    let full = simulate(&kernel, &program, &inputs, &on_data);
                    let held = simulate(&kernel, &compact, &inputs, &on_data);
                    match (full, held) {
                        (Ok(full), Ok(held)) => {
                            assert_eq!(held.report, full.report, "{what}: on data");
                            assert_eq!(held.outputs, full.outputs, "{what}: on data");
                        }
                        (full, held) => assert_eq!(held.err(), full.err(), "{what}: on data"),
                    }
                }
                // A cursor walks each stream as indexing reads it.
                for code in &compact.classes {
                    for pipe in 0..7 {
                        let view = StreamView::new(code, pipe);
                        let mut cursor = Cursor::default();
                        for index in 0..=view.len() {
                            assert_eq!(cursor.index, index, "{what}");
                            assert_eq!(view.at(&cursor), view.get(index), "{what}: {index}");
                            view.advance(&mut cursor);
                        }
                    }
                }
                assert_eq!(compact.into_expanded(), program, "{what}");
                match (full, fast) {
                    (Ok(full), Ok(fast)) => {
                        assert_eq!(full.collapsed, 0, "{what}");
                        assert_eq!(fast.report, full.report, "{what}");
                        let held = held.unwrap_or_else(|e| panic!("{what}: compact: {e}"));
                        assert_eq!(held.report, full.report, "{what}: compact");
                        compared += 1;
                        instructions += program.instruction_count();
                        advanced += fast.collapsed;
                        if program.instruction_count() >= LONG_RUN {
                            long_runs += 1;
                            long_collapsed += usize::from(fast.collapsed > 0);
                        }
                    }
                    (Err(full), Err(fast)) => assert_eq!(fast, full, "{what}"),
                    (full, fast) => panic!("{what}: full {full:?}, collapsed {fast:?}"),
                }
            }
        }
    }
    assert!(compared >= 500, "{compared} schedules compared");
    // Measured: 130 of 1089 lowered compactly.
    eprintln!("{compacted} of {compared} compact");
    assert!(compacted >= 1, "{compacted} compact programs");
    // Most random schedules here are short (half have under 100 instructions) and end
    // before their tiles settle into a period, so how many runs collapse says more
    // about the sample than about the collapse (ascend910b's calibrated burst cost
    // alone moved it from 152 to 147 of 902). What the collapse is for: it advances
    // over a large share of all the instructions, and runs on most long runs.
    // Measured: 46% of the instructions, 46 of 62 runs of 2000 or more.
    assert!(
        advanced * 5 >= instructions * 2,
        "the collapse advanced over only {advanced} of {instructions} instructions"
    );
    assert!(long_runs >= 40, "{long_runs} long runs compared");
    assert!(
        long_collapsed * 3 >= long_runs * 2,
        "the collapse ran on only {long_collapsed} of {long_runs} runs of {LONG_RUN} or more instructions"
    );
}

/// Instructions from which a run counts as long.
const LONG_RUN: u64 = 2000;

#[test]
fn every_schedule_of_the_example_kernels_times_the_same_collapsed() {
    let (mut collapsed, mut by_formula) = (0, 0);
    for (stem, source) in support::kernel_files() {
        let kernel = support::check(&source);
        let inputs = support::inputs(&kernel, 1);
        for index in 0..kernel.schedules.len() {
            let what = format!("{stem}.{}", kernel.schedules[index].name);
            let program = lower(&kernel, index);
            let full = simulate(&kernel, &program, &[], &options(false));
            let fast = simulate(&kernel, &program, &[], &options(true));
            match (full, fast) {
                (Ok(full), Ok(fast)) => {
                    assert_eq!(fast.report, full.report, "{what}");
                    collapsed += usize::from(fast.collapsed > 0);
                }
                (full, fast) => assert_eq!(fast.err(), full.err(), "{what}"),
            }
            // On data, S's loops issued by formula: the same report and outputs.
            let on_data = |collapse| SimOptions {
                collapse,
                ..SimOptions::default()
            };
            let full = simulate(&kernel, &program, &inputs, &on_data(false));
            let fast = simulate(&kernel, &program, &inputs, &on_data(true));
            match (full, fast) {
                (Ok(full), Ok(fast)) => {
                    assert_eq!(fast.report, full.report, "{what} on data");
                    assert_eq!(fast.outputs, full.outputs, "{what} on data");
                    by_formula += usize::from(fast.collapsed > 0);
                }
                (full, fast) => assert_eq!(fast.err(), full.err(), "{what} on data"),
            }
        }
    }
    assert!(
        collapsed >= 3,
        "the collapse ran on {collapsed} example schedules"
    );
    assert!(
        by_formula >= 3,
        "S issued by formula on data in {by_formula} example schedules"
    );
}

#[test]
fn a_bandwidth_share_off_the_grain_still_collapses() {
    // Forty cores share ascend910b's 888 B/cycle as 22.2 B/cycle each: a copy of
    // 2048 B takes 92.25... cycles, rounded up to a whole number of 2^-16 cycles, so
    // the skip stays exact and the collapse runs here too.
    let source = "
        kernel vmla(a: [f16; 1048576], b: [f16; 1048576], c: [f16; 1048576]) -> y: [f16; 1048576] {
            y[i] = a[i] * b[i] + c[i];
        }
        target ascend910b;
        schedule cores { parallel i over 40 cores; split i by 1024; stage a, b, c, y in ub depth 2; }
    ";
    let kernel = support::check(source);
    let program = lower(&kernel, 0);
    let full = simulate(&kernel, &program, &[], &options(false)).expect("simulates");
    let fast = simulate(&kernel, &program, &[], &options(true)).expect("simulates");
    assert!(fast.collapsed > 0);
    assert_eq!(fast.report, full.report);
}

#[test]
fn a_long_steady_state_is_advanced_over_almost_entirely() {
    // 4096 tiles on one core: S has issued every loop after 4096 x 4 cycles, about
    // 170 tiles in; from then on each tile repeats the one before it.
    let source = "
        kernel vmla(a: [f16; 2097152], b: [f16; 2097152], c: [f16; 2097152]) -> y: [f16; 2097152] {
            y[i] = a[i] * b[i] + c[i];
        }
        target npueval_demo;
        schedule tiles { split i by 512; stage a, b, c, y in ub depth 2; }
    ";
    let kernel = support::check(source);
    let program = lower(&kernel, 0);
    let full = simulate(&kernel, &program, &[], &options(false)).expect("simulates");
    let fast = simulate(&kernel, &program, &[], &options(true)).expect("simulates");
    assert_eq!(fast.report, full.report);
    assert!(
        fast.collapsed * 10 >= program.instruction_count() * 9,
        "{} of {} instructions advanced over",
        fast.collapsed,
        program.instruction_count()
    );
}

#[test]
fn a_budget_hit_inside_a_collapsed_stretch_is_the_same_error() {
    let source = "
        kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
            y[i] = a[i] * b[i] + c[i];
        }
        target npueval_demo;
        schedule tiles { split i by 256; stage a, b, c, y in ub depth 2; }
    ";
    let kernel = support::check(source);
    let program = lower(&kernel, 0);
    let needed = program.instruction_count();
    // The program is within the budget; the engine's own count per core stops a run
    // that somehow goes past it. Both runs must stop at the same instruction, or
    // neither.
    for budget in [needed / 2, needed - 1, needed] {
        let with = |collapse| SimOptions {
            max_instructions: budget,
            ..options(collapse)
        };
        let full = simulate(&kernel, &program, &[], &with(false));
        let fast = simulate(&kernel, &program, &[], &with(true));
        match (&full, &fast) {
            (Ok(full), Ok(fast)) => assert_eq!(fast.report, full.report),
            _ => assert_eq!(
                fast.as_ref().map(|s| &s.report),
                full.as_ref().map(|s| &s.report)
            ),
        }
        if budget < needed {
            assert!(matches!(fast, Err(SimError::InstructionBudget { .. })));
        }
    }
}

/// A random schedule's items for matmul `index` of the compact-matmul test (0 plain,
/// 1 batched, 2 batched with a shared weight), not always legal.
fn random_matmul_items(random: &mut Random, index: usize) -> Vec<String> {
    let batched = index > 0;
    let mut items = Vec::new();
    if random.chance(50) {
        let axis = if batched { "t" } else { "m" };
        items.push(format!(
            "parallel {axis} over {} cores;",
            1 + random.below(3)
        ));
    }
    if batched && random.chance(50) {
        items.push(format!("split t by {};", random.pick(&[1, 2])));
    }
    items.push(format!("split m by {};", random.pick(&[16, 32])));
    if random.chance(50) {
        items.push(format!("split n by {};", random.pick(&[16, 32])));
    }
    if random.chance(40) {
        items.push("split k by 16;".to_string());
    }
    let order = random.pick(&["m, n", "n, m"]);
    let order = if batched && random.chance(50) {
        format!("t, {order}")
    } else if batched {
        format!("{order}, t")
    } else {
        order.to_string()
    };
    items.push(format!("order {order};"));
    items.push(format!(
        "cube m by 16, n by {}, k by 16;",
        random.pick(&[16, 32])
    ));
    let operands = if index == 2 {
        ["x", "w", "y"]
    } else {
        ["a", "b", "c"]
    };
    let depth = |random: &mut Random| random.pick(&[1, 2, 2, 3]);
    items.push(format!(
        "stage {} in l1 depth {};",
        operands[0],
        depth(random)
    ));
    items.push(format!(
        "stage {} in l1 depth {};",
        operands[1],
        depth(random)
    ));
    items.push(format!(
        "stage {} in l0a depth {};",
        operands[0],
        depth(random)
    ));
    items.push(format!(
        "stage {} in l0b depth {};",
        operands[1],
        depth(random)
    ));
    items.push(format!(
        "stage {} in l0c depth {};",
        operands[2],
        depth(random)
    ));
    items.push(random.pick(&["", "tail exact;", "tail pad;"]).to_string());
    items
}

#[test]
fn compact_matmuls_expand_time_and_compute_as_the_full_program() {
    // Matmuls long enough along one axis for runs of alike output tiles: a plain one
    // (m), a batched one (t) and one with a shared weight, under random legal
    // schedules. Each compact program must expand to exactly the full program, time
    // exactly as it does (with the collapse and the jump through runs), and compute
    // the same outputs.
    const MATMULS: [&str; 3] = [
        "kernel mm(a: [f16; 768, 64], b: [f16; 64, 96]) -> c: [f32; 768, 96] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }",
        "kernel bmm(a: [f16; 24, 32, 48], b: [f16; 24, 48, 32]) -> c: [f32; 24, 32, 32] { c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32); }",
        "kernel shared(x: [f16; 16, 64, 32], w: [f16; 32, 48]) -> y: [f16; 16, 64, 48] { y[t, m, n] = sum[k](x[t, m, k] as f32 * w[k, n] as f32) as f16; }",
    ];
    let target = Target::preset("ascend910b").expect("preset");
    let mut random = Random::new(0x3a7_c0de);
    let (mut legal, mut compacted) = (0, 0);
    for (index, kernel_text) in MATMULS.iter().enumerate() {
        for attempt in 0..70 {
            let items = random_matmul_items(&mut random, index);
            let text = format!(
                "{kernel_text}\ntarget ascend910b;\nschedule r{attempt} {{ {} }}",
                items.join(" ")
            );
            let Ok(kernel) = check_source(&text, &target) else {
                continue;
            };
            legal += 1;
            let what = text.lines().last().unwrap_or_default().to_string();
            let program = lower(&kernel, 0);
            let compact = lower_compact(&kernel, 0);
            compacted += usize::from(compact.is_compact());
            let full = simulate(&kernel, &program, &[], &options(false)).expect("simulates");
            let held = simulate(&kernel, &compact, &[], &options(true)).expect("simulates");
            assert_eq!(held.report, full.report, "{what}");
            if compact.is_compact() && program.instruction_count() < 40_000 {
                let inputs = support::inputs(&kernel, attempt);
                let on_data = SimOptions::default();
                let full = simulate(&kernel, &program, &inputs, &on_data).expect("runs");
                let held = simulate(&kernel, &compact, &inputs, &on_data).expect("runs");
                assert_eq!(held.outputs, full.outputs, "{what}: on data");
            }
            assert_eq!(compact.into_expanded(), program, "{what}");
        }
    }
    // Measured: 60 of 160 legal schedules lowered compactly.
    eprintln!("{compacted} of {legal} compact");
    assert!(legal >= 100, "{legal} legal schedules");
    assert!(compacted * 4 >= legal, "{compacted} of {legal} compact");
}
