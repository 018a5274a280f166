//! What the simulator says about programs and inputs it cannot run: a wait nothing
//! satisfies, a program over the instruction budget, inputs of the wrong shape, a
//! program the validator refuses for its target, and instructions outside their
//! buffers. None of them hangs or panics.

use crate::support;

use insta::assert_snapshot;
use npu_core::host::HostTensor;
use npu_core::program::{Op, Pipe, Program};
use npu_core::{Dtype, lower};
use npu_sim::{Flag, SimError, SimOptions, evaluate, simulate};

fn vmla() -> npu_core::ir::CheckedKernel {
    support::check(&support::kernel_file("vmla"))
}

fn timing() -> SimOptions {
    SimOptions {
        functional: false,
        ..SimOptions::default()
    }
}

/// Moves the `n`-th instruction of `pipe` in every class to the end of its stream,
/// just before the closing barrier: the flags stay balanced, so the validator lets the
/// program run, but the flag comes too late.
fn delayed(mut program: Program, pipe: Pipe, wanted: impl Fn(&Op) -> bool, n: usize) -> Program {
    for class in &mut program.classes {
        let stream = &mut class.streams[pipe.index()];
        let position = stream
            .iter()
            .enumerate()
            .filter(|(_, i)| wanted(&i.op))
            .nth(n)
            .map(|(p, _)| p)
            .expect("the instruction");
        let instr = stream.remove(position);
        let barrier = stream.len() - 1;
        stream.insert(barrier, instr);
    }
    program
}

#[test]
fn a_wait_with_no_set_is_a_deadlock() {
    let kernel = vmla();
    // Delay MTE2's first `set_flag` to its end: V then waits for `a` of tile 0 forever.
    let program = delayed(
        lower(&kernel, 0),
        Pipe::Mte2,
        |op| matches!(op, Op::SetFlag { .. }),
        0,
    );
    let error = simulate(&kernel, &program, &[], &timing()).expect_err("deadlocks");
    match &error {
        SimError::Deadlock {
            core, pipe, event, ..
        } => {
            assert_eq!((*core, *pipe), (0, Pipe::V));
            assert_eq!(
                *event,
                Some(Flag {
                    from: Pipe::Mte2,
                    to: Pipe::V,
                    event: 0
                })
            );
        }
        other => panic!("not a deadlock: {other}"),
    }
    assert_snapshot!(error.to_string(), @"deadlock: V on core 0 waits at `wait_flag MTE2->V #0` from cycle 0: MTE2, which would set it, is itself blocked at `wait_flag V->MTE2 #0`");
}

#[test]
fn a_missing_free_deadlocks_the_producer() {
    let kernel = vmla();
    // Delay V's first free of `a`'s slot: MTE2 cannot refill it for tile 1 (depth 1).
    let program = delayed(
        lower(&kernel, 0),
        Pipe::V,
        |op| matches!(op, Op::SetFlag { to: Pipe::Mte2, .. }),
        0,
    );
    let error = simulate(&kernel, &program, &[], &timing()).expect_err("deadlocks");
    assert_snapshot!(error.to_string(), @"deadlock: MTE2 on core 0 waits at `wait_flag V->MTE2 #0` from cycle 388: V, which would set it, is itself blocked at `wait_flag MTE2->V #0`");
}

#[test]
fn a_program_over_the_budget_stops() {
    let kernel = vmla();
    let options = SimOptions {
        max_instructions: 100,
        ..timing()
    };
    let program = lower(&kernel, 0);
    let error = simulate(&kernel, &program, &[], &options).expect_err("over the budget");
    assert_eq!(
        error,
        SimError::InstructionBudget {
            limit: 100,
            needed: program.instruction_count()
        }
    );
    assert_snapshot!(error.to_string(), @"the run needs 740 instructions, more than the budget of 100; use larger tiles");
    // `evaluate` lowers a program near the budget and refuses it on its real count,
    // not on the estimate (which is larger). (Traced, so the full program: timing
    // alone runs the compact program, below.)
    let options = SimOptions {
        max_instructions: 700,
        trace: true,
        ..timing()
    };
    let error = evaluate(&kernel, 0, &[], None, &options).expect_err("over the budget");
    assert_eq!(
        error,
        SimError::InstructionBudget {
            limit: 700,
            needed: 740
        }
    );
    let estimate = npu_core::lower::estimate_instructions(&kernel, &kernel.schedules[0]);
    assert!(estimate > 740, "the estimate {estimate} overshoots");
    // A budget the real count fits is not refused, however far the estimate is over it.
    let options = SimOptions {
        max_instructions: 740,
        ..timing()
    };
    evaluate(&kernel, 0, &[], None, &options).expect("740 instructions fit a budget of 740");
}

#[test]
fn a_compact_program_is_held_to_the_instructions_it_runs_one_at_a_time() {
    // Timing alone runs the compact program: the collapse advances over most of its
    // 740 instructions (S's loops, issued by formula, among them), so the smallest
    // budget it fits is a fraction of them; one less stops it, and the refusal
    // states the real count.
    let kernel = vmla();
    let run = |budget| {
        let options = SimOptions {
            max_instructions: budget,
            ..timing()
        };
        evaluate(&kernel, 0, &[], None, &options)
    };
    let full = simulate(&kernel, &lower(&kernel, 0), &[], &timing()).expect("simulates");
    let fits = (1..=740)
        .find(|b| run(*b).is_ok())
        .expect("fits its own count");
    assert!(fits * 3 < 740, "needs a budget of {fits}");
    assert_eq!(run(fits).expect("within the budget").report, full.report);
    assert_eq!(
        run(fits - 1).expect_err("over the budget"),
        SimError::InstructionBudget {
            limit: fits - 1,
            needed: 740
        }
    );
}

/// The example matmul and the index of its schedule over 4 alike cores.
fn matmul_on_cores() -> (npu_core::ir::CheckedKernel, usize) {
    let kernel = support::check(&support::kernel_file("matmul"));
    let cores = kernel.schedules.iter().position(|s| s.name == "cores");
    (kernel, cores.expect("the example has a schedule `cores`"))
}

#[test]
fn a_program_far_over_the_budget_is_refused_from_its_estimate_and_says_so() {
    // Timing alone is estimated on what lowering builds (one core of each class, a
    // matmul's every step), a run on data on every core's.
    let (kernel, cores) = matmul_on_cores();
    let schedule = &kernel.schedules[cores];
    let held = npu_core::lower::estimate_held_instructions(&kernel, schedule);
    let full = npu_core::lower::estimate_instructions(&kernel, schedule);
    assert!(held * 3 < full, "4 alike cores: {held} held of {full}");
    for (options, estimate) in [(timing(), held), (SimOptions::default(), full)] {
        let options = SimOptions {
            max_instructions: 100,
            ..options
        };
        let error = evaluate(&kernel, cores, &[], None, &options).expect_err("far over the budget");
        assert_eq!(
            error,
            SimError::TooLargeToLower {
                limit: 100,
                estimate
            }
        );
        assert!(
            error
                .to_string()
                .contains("(an estimate; the program was not built)"),
            "{error}"
        );
    }
}

#[test]
fn a_timing_run_is_held_to_one_core_of_each_class() {
    // Timing alone runs one core of each class of identical cores: a matmul over 4
    // alike cores fits a budget of a quarter of its instructions, while a run on data,
    // which executes every core, is refused with the whole count.
    let (kernel, cores) = matmul_on_cores();
    let program = lower(&kernel, cores);
    assert_eq!(program.classes.len(), 1);
    let held = program.class_instruction_count();
    assert_eq!(program.instruction_count(), 4 * held);
    let budget = |max_instructions| SimOptions {
        max_instructions,
        ..SimOptions::default()
    };
    let inputs = support::inputs(&kernel, 1);
    let timed = evaluate(
        &kernel,
        cores,
        &[],
        None,
        &SimOptions {
            functional: false,
            ..budget(held)
        },
    )
    .expect("one core's instructions fit");
    let full = simulate(&kernel, &program, &[], &timing()).expect("simulates");
    assert_eq!(timed.report, full.report);
    assert_eq!(
        evaluate(&kernel, cores, &inputs, None, &budget(2 * held))
            .expect_err("every core's do not"),
        SimError::InstructionBudget {
            limit: 2 * held,
            needed: 4 * held
        }
    );
    assert_eq!(
        simulate(
            &kernel,
            &program,
            &[],
            &SimOptions {
                functional: false,
                ..budget(held - 1)
            }
        )
        .expect_err("one core's do not fit one less"),
        SimError::InstructionBudget {
            limit: held - 1,
            needed: held
        }
    );
}

#[test]
fn bad_inputs_are_reported() {
    let kernel = vmla();
    let options = SimOptions::default();
    let cases: Vec<(&str, Vec<HostTensor>)> = vec![
        ("too few", vec![HostTensor::random(Dtype::F16, &[65536], 0)]),
        (
            "wrong dtype",
            (0..3)
                .map(|s| HostTensor::random(Dtype::F32, &[65536], s))
                .collect(),
        ),
        (
            "wrong shape",
            (0..3)
                .map(|s| HostTensor::random(Dtype::F16, &[256, 256], s))
                .collect(),
        ),
    ];
    let mut text = String::new();
    for (what, inputs) in cases {
        let error = evaluate(&kernel, 0, &inputs, None, &options).expect_err(what);
        assert!(
            matches!(error, SimError::BadInput { .. }),
            "{what}: {error}"
        );
        text.push_str(&format!("{what}: {error}\n"));
    }
    let error = evaluate(&kernel, 99, &[], None, &options).expect_err("no schedule 99");
    text.push_str(&format!("schedule 99: {error}\n"));
    let inputs = support::inputs(&kernel, 0);
    let expected = vec![HostTensor::random(Dtype::F16, &[8], 0)];
    let error =
        evaluate(&kernel, 0, &inputs, Some(&expected), &options).expect_err("wrong expected");
    text.push_str(&format!("expected of another shape: {error}\n"));
    assert_snapshot!(text);
}

#[test]
fn an_instruction_outside_its_level_is_refused_by_the_validator() {
    let kernel = vmla();
    let mut program = lower(&kernel, 0);
    for instr in &mut program.classes[0].streams[Pipe::Mte2.index()] {
        if let Op::CopyIn { address, .. } = &mut instr.op {
            *address = 1 << 30;
        }
    }
    let inputs = support::inputs(&kernel, 0);
    let error =
        simulate(&kernel, &program, &inputs, &SimOptions::default()).expect_err("out of ub");
    assert!(
        matches!(&error, SimError::Invalid { violation, .. } if violation.starts_with("capacity: MTE2 of core class 0")),
        "{error}"
    );
}

#[test]
fn an_instruction_past_every_buffer_is_a_bad_program() {
    // Inside ub, so the validator lets it run, but past every buffer the program placed.
    let kernel = vmla();
    let mut program = lower(&kernel, 0);
    let peak = program.peak(npu_core::Level::Ub) as u32;
    for instr in &mut program.classes[0].streams[Pipe::Mte2.index()] {
        if let Op::CopyIn { address, .. } = &mut instr.op {
            *address = peak;
        }
    }
    let inputs = support::inputs(&kernel, 0);
    let error =
        simulate(&kernel, &program, &inputs, &SimOptions::default()).expect_err("past the buffers");
    assert!(
        matches!(
            error,
            SimError::BadProgram {
                pipe: Pipe::Mte2,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn a_program_its_target_cannot_run_is_refused_before_it_runs() {
    // One vector instruction over 256 repeats: the validator's, not the checker's, catch.
    let kernel = vmla();
    let mut program = lower(&kernel, 0);
    for class in &mut program.classes {
        for instr in &mut class.streams[Pipe::V.index()] {
            if let Op::Vector(v) = &mut instr.op {
                program.boxes[v.shape as usize] = vec![65536];
                v.elements = 65536;
            }
        }
    }
    let error = simulate(&kernel, &program, &[], &timing()).expect_err("too many repeats");
    assert!(matches!(error, SimError::Invalid { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.starts_with(
            "the program breaks its target's rules: repeats: V of core class 0 at `vmul f16"
        ),
        "{text}"
    );
    assert!(
        text.contains("need 512 repeats of 256 B but `npueval_demo` issues at most 255"),
        "{text}"
    );
}

#[test]
fn a_wrong_answer_is_a_mismatch() {
    let kernel = vmla();
    let inputs = support::inputs(&kernel, 0);
    let mut expected = npu_sim::reference(&kernel, &inputs).unwrap();
    let mut values = expected[0].values();
    values[70000 % 65536] += 1.0;
    expected[0] = HostTensor::from_values(expected[0].dtype(), expected[0].shape(), &values);
    let evaluation =
        evaluate(&kernel, 1, &inputs, Some(&expected), &SimOptions::default()).expect("simulates");
    let npu_sim::Correctness::Mismatch(mismatch) = evaluation.correctness else {
        panic!("not a mismatch")
    };
    let text = mismatch.to_string();
    assert!(
        text.starts_with("`y` differs at [4464] (element 4464): expected"),
        "{text}"
    );
    assert!(text.ends_with("1 of 65536 elements differ"), "{text}");
}

#[test]
fn a_malformed_program_is_refused_before_it_runs() {
    let kernel = vmla();
    let mut program = lower(&kernel, 0);
    if let Op::CopyIn { shape, .. } = &mut program.classes[0].streams[Pipe::Mte2.index()][0].op {
        *shape = 99;
    }
    let error = simulate(&kernel, &program, &[], &timing()).expect_err("malformed");
    assert_snapshot!(error.to_string(), @"bad program: MTE2 on core 0 at `copy_in a[+0] -> ub@0x00000 <shape 99>` names copy shape 99 of 4");
}

#[test]
fn a_time_past_the_exact_range_is_an_error_not_a_count() {
    // `Target::from_toml` refuses such a latency; a target built in code is not checked,
    // so the simulator must still refuse to turn it into a saturated cycle count.
    let mut kernel = vmla();
    kernel.target.dma.latency_cycles = u64::MAX;
    let program = lower(&kernel, 0);
    let error = simulate(&kernel, &program, &[], &timing()).expect_err("overflows");
    assert!(
        matches!(
            error,
            SimError::CycleOverflow {
                core: 0,
                pipe: Pipe::Mte2,
                limit: npu_sim::MAX_CYCLES,
                ..
            }
        ),
        "{error:?}"
    );
    assert_snapshot!(error.to_string(), @"cycle count overflow: MTE2 on core 0 at `copy_in a[+0] -> ub@0x00000 [2048] 4096 B` ends past cycle 9007199254740992; check the target's latencies and bandwidths");
}

#[test]
fn a_corrupted_compact_program_is_refused_not_run() {
    // A compact program read back from a file may say anything about its runs: each
    // corruption is a bad program, whatever its numbers (no overflow, no panic), and
    // one more copy than lowering made is caught too (what follows the run would come
    // before its last copy). Stream 1 is MTE2's.
    let kernel = support::check(
        "kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
            y[i] = a[i] * b[i] + c[i];
        }
        target npueval_demo;
        schedule tiles { split i by 256; stage a, b, c, y in ub depth 2; }",
    );
    let compact = npu_core::lower::lower_compact(&kernel, 0);
    assert!(compact.is_compact());
    simulate(&kernel, &compact, &[], &timing()).expect("the program as lowered runs");
    type Corrupt = fn(&mut npu_core::program::Repeat);
    let corruptions: [(&str, Corrupt); 6] = [
        ("one copy more", |r| r.count += 1),
        ("a single copy", |r| r.count = 1),
        ("copies past 2^32 loops", |r| r.count = u64::MAX),
        ("a copy's length past any stream", |r| r.len[1] = usize::MAX),
        ("a start past the stream", |r| r.start[1] = usize::MAX),
        ("tiles per copy off by one", |r| r.tiles += 1),
    ];
    for (what, corrupt) in corruptions {
        let mut program = compact.clone();
        corrupt(&mut program.classes[0].repeats[0]);
        match simulate(&kernel, &program, &[], &timing()) {
            Err(SimError::BadProgram { .. }) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
}
