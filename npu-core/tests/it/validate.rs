//! The validator on programs lowered from a legal schedule and then broken by hand, one
//! rule per case: each break must be reported under its rule, naming the instruction.

use npu_core::program::{Op, Program};
use npu_core::{Pipe, Rule, Target, check_source, lower, validate};

/// A way to break a program.
type Break = fn(&mut Program);

fn vmla() -> (Program, Target) {
    let target = Target::preset("ascend910b").expect("a preset");
    let source = "kernel vmla(a: [f16; 8192], b: [f16; 8192], c: [f16; 8192]) -> y: [f16; 8192] { y[i] = a[i] * b[i] + c[i]; }
        target ascend910b; schedule s { split i by 1024; stage a, b, c, y in ub depth 2; }";
    let kernel = check_source(source, &target).expect("legal");
    (lower(&kernel, 0), target)
}

fn first_copy_in(program: &mut Program) -> &mut Op {
    program.classes[0].streams[Pipe::Mte2.index()]
        .iter_mut()
        .map(|i| &mut i.op)
        .find(|op| matches!(op, Op::CopyIn { .. }))
        .expect("a copy")
}

#[test]
fn a_lowered_program_is_valid() {
    let (program, target) = vmla();
    assert_eq!(validate(&program, &target), Ok(()));
}

#[test]
fn each_break_is_named() {
    let (program, target) = vmla();
    let cases: [(Rule, &str, Break); 11] = [
        (
            Rule::Capacity,
            "buffer `a` at ub 0x30000..0x31000 ends 4096 B past the 196608 B of ub",
            |p| p.buffers[0].address = 196_608,
        ),
        (
            Rule::Capacity,
            "capacity: MTE2 of core class 0 at `copy_in a[+0] -> ub@0x2fc00 [1024] 2048 B`: touches ub 0x2fc00..0x30400, 1024 B past the 196608 B of ub",
            copy_past_ub_end,
        ),
        (
            Rule::Alignment,
            "alignment: MTE2 of core class 0 at `copy_in a[+0] -> ub@0x00002 [1024] 2048 B`: starts at ub 0x2, not a multiple of the 32-byte ub alignment",
            misaligned_copy,
        ),
        (
            Rule::Events,
            "core class 0 sets flag MTE2->V #0 4 times but waits for it 3 times",
            first_v_wait_dropped,
        ),
        (
            Rule::Events,
            "event id 9 of MTE2->V, but `ascend910b` has ids 0 to 7",
            event_0_renumbered_9,
        ),
        (
            Rule::Cores,
            "the program asks for 41 cores but `ascend910b` has 40 vector cores",
            |p| p.requested_cores = 41,
        ),
        (
            Rule::Repeats,
            "65536 elements of 2 B need 512 repeats of 256 B but `ascend910b` issues at most 255",
            vector_box_grown,
        ),
        (
            Rule::Unit,
            "computes in i8, but the vector unit of `ascend910b` computes in f16, f32, i16, i32",
            vector_in_i8,
        ),
        (
            Rule::Signature,
            "the signature names tensors [a, b, c] but the program has [a, b, c, y]",
            |p| {
                p.signature.pop();
            },
        ),
        (
            Rule::Signature,
            "`a` is Output in the signature but the instruction uses it as Input",
            |p| p.signature[0].role = npu_core::ir::Role::Output,
        ),
        (
            Rule::Signature,
            "`a` has 4-byte elements (f32) but the copy moves 2-byte elements",
            |p| p.signature[0].dtype = npu_core::Dtype::F32,
        ),
    ];
    for (rule, expected, break_it) in cases {
        let mut broken = program.clone();
        break_it(&mut broken);
        let violations = validate(&broken, &target).expect_err(expected);
        assert!(
            violations
                .iter()
                .any(|v| v.rule == rule && v.to_string().contains(expected)),
            "{rule:?} `{expected}` not in:\n{}",
            violations
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// Moves the first copy in to end 1024 B past the end of ub.
fn copy_past_ub_end(program: &mut Program) {
    if let Op::CopyIn { address, .. } = first_copy_in(program) {
        *address = 196_608 - 1024;
    }
}

/// Moves the first copy in to ub address 2, off the 32-byte alignment.
fn misaligned_copy(program: &mut Program) {
    if let Op::CopyIn { address, .. } = first_copy_in(program) {
        *address = 2;
    }
}

/// Drops V's first wait, leaving one flag set more often than it is waited for.
fn first_v_wait_dropped(program: &mut Program) {
    let v = &mut program.classes[0].streams[Pipe::V.index()];
    let at = v
        .iter()
        .position(|i| matches!(i.op, Op::WaitFlag { .. }))
        .expect("a wait");
    v.remove(at);
}

/// Renumbers event 0 of every flag to 9, past the target's event ids.
fn event_0_renumbered_9(program: &mut Program) {
    for class in &mut program.classes {
        for stream in &mut class.streams {
            for instr in stream {
                if let Op::SetFlag { event, .. } | Op::WaitFlag { event, .. } = &mut instr.op
                    && *event == 0
                {
                    *event = 9;
                }
            }
        }
    }
}

/// Makes every vector instruction cover 65536 elements, more repeats than one issues.
fn vector_box_grown(program: &mut Program) {
    for class in &mut program.classes {
        for instr in &mut class.streams[Pipe::V.index()] {
            if let Op::Vector(v) = &mut instr.op {
                v.elements = 65536;
            }
        }
    }
    program.boxes[0] = vec![65536];
}

/// Makes every vector instruction compute in i8, which the vector unit does not.
fn vector_in_i8(program: &mut Program) {
    for class in &mut program.classes {
        for instr in &mut class.streams[Pipe::V.index()] {
            if let Op::Vector(v) = &mut instr.op {
                v.dtype = npu_core::Dtype::I8;
            }
        }
    }
}
