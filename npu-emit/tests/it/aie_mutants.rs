//! Mutants of emitted AIE tile kernels: small, plausible mistakes, each of which must
//! fail, as a model check or as outputs that differ from the simulator's. The
//! unmutated kernels run first and must pass, so a mutant's failure is the mutation's.

use npu_core::{CheckedKernel, Target, check_source};
use npu_emit::{Backend, emit};

use crate::aie::build;
use crate::kernels::simulated;
use crate::mutants::{drop_line, edit_number_after};
use crate::support::Case;

/// Eight alike tiles of 512 elements: vector loops of 32 lanes, bf16 through accfloat.
const VECTOR: &str = "kernel mutant(x: [bf16; 4096], b: [bf16; 4096]) -> y: [bf16; 4096] {
        y[i] = x[i] * 2.0 + b[i];
    }
    target aie2_tile;
    schedule s { split i by 512; stage x, b, y in ub depth 1; }";

/// Row sums: 16 f32 lanes a row added a block at a time, then the lane tree.
const FOLD: &str = "kernel mutant(x: [bf16; 16, 256]) -> y: [bf16; 16] {
        y[i] = sum[k](x[i, k]);
    }
    target aie2_tile;
    schedule s { split i by 4; stage x, y in ub depth 1; tail pad; }";

/// Row sums near the top of the range: the lanes' partials mostly stay finite, and whether
/// a pair of them overflows f32 depends on which lanes the tree pairs (a difference
/// of rounding alone would rarely survive the sum's rounding to bf16).
const FOLD_LARGE: &str = "kernel mutant(x: [bf16; 16, 256]) -> y: [bf16; 16] {
        let big[i, k] = x[i, k] * 4.0e37;
        y[i] = sum[k](big[i, k]);
    }
    target aie2_tile;
    schedule s { split i by 4; stage x, y in ub depth 1; tail pad; }";

/// Row maxima of integers, a vector at a time with `aie::reduce_max`.
const REDUCE: &str = "kernel mutant(x: [i16; 32, 64]) -> y: [i16; 32] {
        y[i] = max[k](x[i, k]);
    }
    target aie2_tile;
    schedule s { split i by 16; stage x, y in ub depth 1; }";

/// A scaled saturating add of int8 (most results clamp): widened by `unpack`,
/// computed in int16, narrowed through an accumulator under `saturate`.
const SATURATE: &str = "kernel mutant(a: [i8; 2048], b: [i8; 2048]) -> y: [i8; 2048] {
        y[i] = (a[i] as i16 * 100 + b[i] as i16) as sat i8;
    }
    target aie2_tile;
    schedule s { split i by 512; stage a, b, y in ub depth 1; }";

/// A leaky ReLU: a compare into mask bytes, then a select by them, a vector at a time.
const SELECT: &str = "kernel mutant(x: [bf16; 2048]) -> y: [bf16; 2048] {
        y[i] = select(x[i] > 0, x[i], x[i] * 0.125);
    }
    target aie2_tile;
    schedule s { split i by 512; stage x, y in ub depth 1; }";

/// A requantisation: products shifted right by a constant with `aie::downshift`, then
/// narrowed under `saturate`.
const SHIFT: &str = "kernel mutant(acc: [i16; 2048], m: i16) -> q: [i8; 2048] {
        q[i] = ((acc[i] * m) >> 6) as sat i8;
    }
    target aie2_tile;
    schedule s { split i by 512; stage acc, q in ub depth 1; }";

const KERNELS: [(&str, &str); 7] = [
    (VECTOR, "aie_vector"),
    (FOLD, "aie_fold"),
    (FOLD_LARGE, "aie_fold_large"),
    (REDUCE, "aie_reduce"),
    (SATURATE, "aie_saturate"),
    (SELECT, "aie_select"),
    (SHIFT, "aie_shift"),
];

/// A mutation: its name, the kernel it applies to, and what it does to the text
/// (`None` if its pattern is not there, which fails the test).
use crate::support::Mutation;

const MUTANTS: &[Mutation] = &[
    ("a shift one bit short", SHIFT, |t| {
        edit_number_after(t, "aie::downshift(va, ", 1, |n| n - 1)
    }),
    ("an offset off by one element", VECTOR, |t| {
        edit_number_after(t, "aie::load_v<32>(x + ", 1, |n| n + 1)
    }),
    ("a wrong vector length", VECTOR, |t| {
        Some(t.replace("32>", "16>")).filter(|m| m != t)
    }),
    ("a wrong vector loop count", VECTOR, |t| {
        edit_number_after(t, "k < ", 1, |n| n - 1)
    }),
    ("a wrong call count", VECTOR, |t| {
        edit_number_after(t, "//   calls 0..", 1, |n| n - 1)
    }),
    ("a dropped rounding mode", VECTOR, |t| {
        drop_line(t, "aie::set_rounding", 1)
    }),
    ("a narrowing without its saturation mode", SATURATE, |t| {
        drop_line(t, "aie::set_saturation(aie::saturation_mode::saturate)", 1)
    }),
    ("a block of a sum's lanes read one element off", FOLD, |t| {
        edit_number_after(t, "b * ", 1, |n| n + 1)
    }),
    ("a sum's lanes folding one block too few", FOLD, |t| {
        edit_number_after(t, "b < ", 1, |n| n - 1)
    }),
    ("a lane tree a level short", FOLD_LARGE, |t| {
        edit_number_after(t, "level < ", 1, |n| n - 1)
    }),
    // Lane i with lane i + 8, then i + 4, i + 2, i + 1: the other common tree.
    (
        "a lane tree that pairs halves, not neighbours",
        FOLD_LARGE,
        |t| {
            let halves = t
                .replace("filter_even(lanes)", "filter_even(lanes, 8 >> level)")
                .replace("filter_odd(lanes)", "filter_odd(lanes, 8 >> level)");
            Some(halves).filter(|m| m != t)
        },
    ),
    ("a reduction over one vector too few", REDUCE, |t| {
        edit_number_after(t, "k < ", 1, |n| n - 1)
    }),
    ("a compare the other way round", SELECT, |t| {
        let flipped = t.replacen("aie::gt(", "aie::lt(", 1);
        Some(flipped).filter(|m| m != t)
    }),
    ("a select with its choices swapped", SELECT, |t| {
        let swapped = t.replacen("aie::select(vc, vb, ", "aie::select(vb, vc, ", 1);
        Some(swapped).filter(|m| m != t)
    }),
];

/// The kernel of `source` on aie2_tile, checked, and its emitted case named `function`.
fn original(source: &str, function: &str) -> (CheckedKernel, Case) {
    let target = Target::preset("aie2_tile").expect("a preset");
    let kernel = check_source(source, &target).expect("the mutant kernel checks");
    let program = npu_core::lower::lower_compact(&kernel, 0);
    let emitted = emit(&program, &target, &kernel, Backend::Aie).expect("it is written");
    let case = Case {
        function: function.into(),
        source: emitted.files[0]
            .text
            .replace(&npu_emit::symbol(&kernel, "s"), function),
        program,
        target,
    };
    (kernel, case)
}

#[test]
fn every_aie_mutant_fails() {
    let originals = KERNELS.map(|(source, function)| original(source, function));
    let which = |kernel: &str| {
        KERNELS
            .iter()
            .position(|(source, _)| *source == kernel)
            .expect("a listed kernel")
    };
    let named: Vec<(&str, Case)> = KERNELS
        .iter()
        .zip(&originals)
        .map(|((source, _), (_, case))| (*source, case.clone()))
        .collect();
    let cases = crate::support::with_mutants(&named, MUTANTS, "aie_mutant");
    let build = build(&cases);
    let mut expected = Vec::new();
    for ((kernel, case), seed) in originals.iter().zip(7..) {
        let inputs = kernel.random_inputs(seed);
        let outputs = simulated(case, kernel, &inputs);
        let run = build.run(case, &inputs, "original");
        assert_eq!(
            run.as_ref(),
            Ok(&outputs),
            "the unmutated {} must pass",
            case.function
        );
        expected.push((inputs, outputs));
    }
    let mut survived = Vec::new();
    for ((name, kernel, _), case) in MUTANTS.iter().zip(&cases[KERNELS.len()..]) {
        let (inputs, expected) = &expected[which(kernel)];
        match build.run(case, inputs, "mutant") {
            Ok(outputs) if outputs == *expected => survived.push(*name),
            Ok(_) => println!("mutant `{name}`: outputs differ from the simulator's"),
            Err(model) => println!("mutant `{name}`: {}", model.trim()),
        }
    }
    assert!(survived.is_empty(), "mutants that pass: {survived:?}");
}
