//! Mutants: small, plausible mistakes applied to an emitted kernel's text, each of
//! which must fail, either as a model check or as outputs that differ from the
//! simulator's. The unmutated kernel runs first and must pass, so a mutant's failure
//! is the mutation's.

use npu_core::{CheckedKernel, Target, check_source};
use npu_emit::{Backend, emit};

use crate::kernels::simulated;
use crate::support::{self, Case};

/// Four cores, two tiles of 8 rows × 32 columns in flight (depth 2), so copies have
/// several blocks with a stride between them and flags pair across tiles.
const TILES_2D: &str = "kernel mutant(x: [f32; 256, 96], b: [f32; 256, 96]) -> y: [f32; 256, 96] {
        y[i, j] = x[i, j] * 2.0 + b[i, j];
    }
    target ascend910b;
    schedule s { parallel i over 4 cores; split i by 8; split j by 32; stage x, b, y in ub depth 2; }";

/// Sixteen alike tiles per core: the run becomes a loop.
const RUN_1D: &str = "kernel mutant(x: [f32; 65536], b: [f32; 65536]) -> y: [f32; 65536] {
        y[i] = x[i] * 2.0 + b[i];
    }
    target ascend910b;
    schedule s { parallel i over 4 cores; split i by 1024; stage x, b, y in ub depth 2; }";

/// A row sum: its lane partials run on the scalar unit between the emitter's own
/// flags (rows of 217 elements start unaligned), its lanes combine in `PairReduceSum`
/// passes.
const FOLD: &str = "kernel mutant(x: [f32; 64, 217]) -> y: [f32; 64] {
        y[i] = sum[k](x[i, k]);
    }
    target ascend910b;
    schedule s { parallel i over 2 cores; split i by 8; stage x, y in ub depth 1; tail pad; }";

/// A max pool of windows of 2, 2 apart: each window position's terms gathered across
/// the outputs, cast to f32 and folded by one `Max`.
const WINDOW: &str = "kernel mutant(x: [f16; 8, 128]) -> y: [f16; 8, 64] {
        y[c, i] = max[k < 2](x[c, 2*i + k]);
    }
    target ascend910b;
    schedule s { split c by 4; stage x, y in ub depth 2; }";

/// A division by a constant: `Duplicate` into the destination, then `Div` in place.
const DIVIDE: &str = "kernel mutant(x: [f32; 4096]) -> y: [f32; 4096] {
        y[i] = x[i] / 3.0;
    }
    target ascend910b;
    schedule s { split i by 1024; stage x, y in ub depth 2; }";

/// A select on a compare: `Compares` writes a bit mask that `Select` reads, over a
/// tail of 992 elements that `Compares` rounds up to whole 256-byte blocks.
const SELECT: &str = "kernel mutant(x: [f32; 4064]) -> y: [f32; 4064] {
        y[i] = select(x[i] > 0, x[i], x[i] * 0.25);
    }
    target ascend910b;
    schedule s { split i by 1024; stage x, y in ub depth 2; tail pad; }";

/// An advanced math call with its temporary buffer past the program's buffers.
const TANH: &str = "kernel mutant(x: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = tanh(x[i]);
    }
    target ascend910b;
    schedule s { split i by 1024; stage x, y in ub depth 2; }";

/// A row's arg max: compares, selects and minima over each row of 100 floats (two
/// repeats), the winner taken on the scalar unit.
const ARGMAX: &str = "kernel mutant(x: [f32; 64, 100]) -> y: [i32; 64] {
        y[i] = argmax[k](x[i, k]);
    }
    target ascend910b;
    schedule s { split i by 8; stage x, y in ub depth 1; }";

/// A matmul on the cube: two k tiles per C block, each two Mmads of 32 x 32 x 32,
/// so C accumulates across Mmads (behind a `PipeBarrier<PIPE_M>`) and leaves
/// through Fixpipe after an M->FIX flag, cast to f16 on the way (no bundled kernel
/// on ascend910b has an f16 result).
const CUBE: &str = "kernel mutant(a: [f16; 64, 128], b: [f16; 128, 64]) -> c: [f16; 64, 64] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32) as f16;
    }
    target ascend910b;
    schedule s { split k by 64; cube m by 32, n by 32, k by 32; stage a, b in l1 depth 1; stage a in l0a depth 1; stage b in l0b depth 1; stage c in l0c depth 1; }";

/// Row maxima of 12 rows a tile: the 48-byte result moves from the accumulator to the
/// output with a masked `Copy` that spans two 32-byte blocks.
const SHORT_MOVE: &str = "kernel mutant(x: [f32; 48, 40]) -> y: [f32; 48] {
        y[i] = max[k](x[i, k]);
    }
    target ascend910b;
    schedule s { split i by 12; stage x, y in ub depth 1; tail pad; }";

/// A transpose: the tile moves through a `Gather` with a table of byte offsets.
const TRANSPOSE: &str = "kernel mutant(x: [f32; 64, 32]) -> y: [f32; 32, 64] {
        y[j, i] = x[i, j];
    }
    target ascend910b;
    schedule s { split j by 8; split i by 64; stage x, y in ub depth 1; }";

/// A gather through an index tile: the vector unit checks the indices (the scalar
/// unit reads their bounds) and writes the offsets.
const GATHER: &str = "kernel mutant(x: [f32; 512], idx: [i32; 4096]) -> y: [f32; 4096] {
        y[i] = x[idx[i]];
    }
    target ascend910b;
    schedule s { split i by 1024; stage x, idx, y in ub depth 1; }";

/// A border of -1 around each 30 x 30 plane: the copy in pads one element on the left
/// of each row, and the border columns are masked `Duplicate` calls.
const PAD: &str = "kernel mutant(x: [f16; 2, 30, 30]) -> y: [f16; 2, 32, 32] {
        y[c, i, j] = pad(x, -1)[c, i - 1, j - 1];
    }
    target ascend910b;
    schedule s { split c by 1; stage x, y in ub depth 1; }";

/// A running sum of f16 rows in f32, each row split into two tiles: across the rows,
/// one position at a time, carried from tile to tile.
const SCAN: &str = "kernel mutant(x: [f16; 16, 256]) -> y: [f16; 16, 256] {
        y[i, k] = cumsum[k](x[i, k]);
    }
    target ascend910b;
    schedule s { split k by 128; stage x, y in ub depth 2; }";

/// A quantisation: a scaled f16 to i8, saturating, in `CAST_TRUNC` (toward zero, as
/// the simulator's cast to an integer).
const QUANTISE: &str = "kernel mutant(x: [f16; 4096]) -> y: [i8; 4096] {
        y[i] = (x[i] * 8) as sat i8;
    }
    target ascend910b;
    schedule s { split i by 1024; stage x, y in ub depth 2; }";

/// The kernels mutated, with the names their originals are built under.
const KERNELS: [(&str, &str); 15] = [
    (TILES_2D, "tiles_2d"),
    (RUN_1D, "run_1d"),
    (FOLD, "fold"),
    (DIVIDE, "divide"),
    (SELECT, "compare_select"),
    (TANH, "math_tanh"),
    (ARGMAX, "arg_max"),
    (CUBE, "cube"),
    (SHORT_MOVE, "short_move"),
    (TRANSPOSE, "transpose"),
    (PAD, "pad"),
    (GATHER, "gather"),
    (WINDOW, "window"),
    (QUANTISE, "quantise"),
    (SCAN, "scan"),
];

/// A mutation: its name, the kernel it applies to, and what it does to the text
/// (`None` if its pattern is not there, which fails the test: a mutant that changes
/// nothing proves nothing).
use crate::support::Mutation;

const MUTANTS: &[Mutation] = &[
    ("a global offset off by one element", TILES_2D, |t| {
        edit_number_after(t, "x_gm[", 1, |n| n + 1)
    }),
    ("a burst one element short", TILES_2D, |t| {
        edit_field(t, "DataCopyExtParams{", 1, |n| n - 4)
    }),
    ("a global-memory stride between bursts", TILES_2D, |t| {
        edit_field(t, "DataCopyExtParams{", 2, |n| n + 4)
    }),
    ("a dropped SetFlag", TILES_2D, |t| {
        drop_line(t, "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>", 1)
    }),
    ("a dropped SetFlag and its WaitFlag", TILES_2D, |t| {
        let t = drop_line(t, "AscendC::SetFlag<AscendC::HardEvent::V_MTE3>", 1)?;
        drop_line(&t, "AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>", 1)
    }),
    ("a swapped event id", TILES_2D, |t| {
        edit_number_after(t, "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(", 1, |n| {
            n ^ 1
        })
    }),
    ("a wrong repeat count of a vector call", TILES_2D, |t| {
        last_argument_minus_one(t, "AscendC::Muls(")
    }),
    ("a wrong loop count", RUN_1D, |t| {
        edit_number_after(t, "j < ", 1, |n| n - 1)
    }),
    ("a dropped flag before a scalar fold", FOLD, |t| {
        let t = drop_line(t, "AscendC::SetFlag<AscendC::HardEvent::V_S>", 1)?;
        drop_line(&t, "AscendC::WaitFlag<AscendC::HardEvent::V_S>", 1)
    }),
    ("a dropped barrier between two pair-sum passes", FOLD, |t| {
        let second = t.match_indices("AscendC::PairReduceSum(").nth(1)?.0;
        let barrier = "AscendC::PipeBarrier<PIPE_V>();";
        let at = t[..second].rfind(barrier)?;
        Some(format!("{}{}", &t[..at], &t[at + barrier.len()..]))
    }),
    ("a window position's terms one element along", WINDOW, |t| {
        // The gather of a reduced position moves its offsets on by the position's bytes.
        let at = t.find("static_cast<uint32_t>(w")?;
        let tail = edit_number_after(&t[at..], " * ", 1, |n| n + 2)?;
        Some(format!("{}{tail}", &t[..at]))
    }),
    ("a running sum that forgets the tile before", SCAN, |t| {
        // The line before the first position is gathered from the carried sums (the
        // second tile's, which are not zero).
        drop_line(t, "offsets_carry, 0, ", 2)
    }),
    ("a running sum rounded back one line short", SCAN, |t| {
        // The lines are cast back to half in one call over every position's line of 16.
        edit_number_after(t, "RoundMode::CAST_RINT, ", 1, |n| n - 16)
    }),
    ("a pair-sum pass over half the lanes", FOLD, |t| {
        // The first pass's mask follows its repeat count (the tile's 8 rows).
        let at = t.find("AscendC::PairReduceSum(")?;
        let tail = edit_number_after(&t[at..], "float>(), 8, ", 1, |n| n / 2)?;
        Some(format!("{}{tail}", &t[..at]))
    }),
    ("a division with its operands swapped", DIVIDE, |t| {
        let at = t.find("AscendC::Div(")?;
        let end = t[at..].find(");")? + at;
        let arguments: Vec<&str> = t[at + "AscendC::Div(".len()..end].split(", ").collect();
        let [dst, src, divisor, count] = arguments.as_slice() else {
            return None;
        };
        let swapped = format!("AscendC::Div({dst}, {divisor}, {src}, {count}");
        Some(format!("{}{swapped}{}", &t[..at], &t[end..]))
    }),
    ("a wrong compare mode", SELECT, |t| {
        let t = t.replacen("AscendC::CMPMODE::GT", "AscendC::CMPMODE::LT", 1);
        t.contains("CMPMODE::LT").then_some(t)
    }),
    (
        "a compare over the count, not whole 256-byte blocks",
        SELECT,
        |t| edit_number_after(t, "AscendC::CMPMODE::GT, ", 2, |n| n - 32),
    ),
    ("a buffer in the basic API's scratch", SELECT, |t| {
        // The temporary Select reads as its second source, moved to TMP_UB_OFFSET
        // (184 KiB on ascend910b), with the UB claimed whole so the move is in range.
        let source = t.match_indices("AscendC::Select(").next()?.0;
        let second = t[source..].split("ub[").nth(4)?;
        let offset = &second[..second.find(']')?];
        let moved = t.replace(&format!("ub[{offset}]"), "ub[188416]");
        let grown = edit_number_after(&moved, "UB_BYTES = ", 1, |_| 196608)?;
        (grown != t).then_some(grown)
    }),
    ("a temporary buffer over the source", TANH, |t| {
        edit_number_after(t, "TMP_AT = ", 1, |_| 0)
    }),
    ("an arg index off by one", ARGMAX, |t| {
        let t = t.replacen("static_cast<int32_t>(0 + ", "static_cast<int32_t>(1 + ", 1);
        t.contains("(1 + ").then_some(t)
    }),
    (
        "an arg reduction's minima over the first repeat only",
        ARGMAX,
        |t| {
            // Rows of 100 floats are two repeats; the second level folds both.
            let level = ", 2, 1, 1, 1, 8, AscendC::ReduceOrder";
            t.contains(level)
                .then(|| t.replace(level, ", 1, 1, 1, 1, 8, AscendC::ReduceOrder"))
        },
    ),
    ("a masked move one element short", SHORT_MOVE, |t| {
        copy_mask(t, |n| n - 1)
    }),
    ("a wrong block stride of a masked move", SHORT_MOVE, |t| {
        edit_field(t, "AscendC::CopyRepeatParams{", 0, |n| n + 1)
    }),
    (
        "a wrong stride in a gather's offset table",
        TRANSPOSE,
        |t| edit_number_after(t, "static_cast<int32_t>(g * ", 1, |n| n + 4),
    ),
    ("a wrong row size in a gather's offsets", GATHER, |t| {
        // The last `Muls` scales the indices (any before it, a position table's stride).
        let at = t.rfind("AscendC::Muls(")?;
        let tail = edit_number_after(&t[at..], "static_cast<int32_t>(", 1, |n| n + 4)?;
        Some(format!("{}{tail}", &t[..at]))
    }),
    (
        "a dropped flag before the scalar unit reads a gather's index bounds",
        GATHER,
        |t| {
            let t = drop_line(t, "AscendC::SetFlag<AscendC::HardEvent::V_S>", 1)?;
            drop_line(&t, "AscendC::WaitFlag<AscendC::HardEvent::V_S>", 1)
        },
    ),
    ("a wrong block stride of a masked Duplicate", PAD, |t| {
        // The block stride follows the mask and the repeat count.
        edit_number_after(t, ", mask, 3, ", 1, |n| n + 1)
    }),
    ("a left padding one element short", PAD, |t| {
        edit_field(t, "AscendC::DataCopyPadExtParams<half>{", 1, |n| n - 1)
    }),
    ("a wrong core share", TILES_2D, |t| {
        let at = t.find("GM_BASE[BLOCK_DIM]")?;
        let first = t[at..].find("{0, 0, 0},")? + at;
        let second_start = first + "{0, 0, 0},".len();
        let second_end = t[second_start..].find("},")? + second_start + 2;
        Some(format!(
            "{}\n{{0, 0, 0}},{}",
            &t[..second_start],
            &t[second_end..]
        ))
    }),
    ("a wrong k of an Mmad", CUBE, |t| {
        edit_number_after(t, "mmad.k = ", 1, |n| n - 16)
    }),
    ("a wrong LoadData repeat count", CUBE, |t| {
        edit_number_after(t, "load.repeatTimes = ", 1, |n| n - 1)
    }),
    ("a wrong fractal stride of a LoadData", CUBE, |t| {
        edit_number_after(t, "load.srcStride = ", 1, |n| n + 1)
    }),
    ("a dropped M->FIX flag", CUBE, |t| {
        let t = drop_line(t, "AscendC::SetFlag<AscendC::HardEvent::M_FIX>", 1)?;
        drop_line(&t, "AscendC::WaitFlag<AscendC::HardEvent::M_FIX>", 1)
    }),
    (
        "a dropped PipeBarrier<PIPE_M> between accumulating Mmads",
        CUBE,
        |t| drop_line(t, "AscendC::PipeBarrier<PIPE_M>", 1),
    ),
    ("a wrong Nz column stride of an ND2NZ copy", CUBE, |t| {
        edit_number_after(t, "nd2nz.dstNzC0Stride = ", 1, |n| n + 16)
    }),
    (
        "a cast to i8 rounding to nearest, not toward zero",
        QUANTISE,
        |t| {
            let t = t.replacen("RoundMode::CAST_TRUNC", "RoundMode::CAST_RINT", 1);
            t.contains("CAST_RINT").then_some(t)
        },
    ),
    ("a Fixpipe to f16 without its cast", CUBE, |t| {
        let cast = "fixpipe.quantPre = QuantMode_t::F322F16;";
        t.contains(cast)
            .then(|| t.replace(cast, "fixpipe.quantPre = QuantMode_t::NoQuant;"))
    }),
];

/// `t` with the `nth` (1-based) number right after `pattern` changed by `f`.
pub(crate) fn edit_number_after(
    t: &str,
    pattern: &str,
    nth: usize,
    f: fn(u64) -> u64,
) -> Option<String> {
    let at = t.match_indices(pattern).nth(nth - 1)?.0 + pattern.len();
    let digits = t[at..].chars().take_while(char::is_ascii_digit).count();
    let number: u64 = t[at..at + digits].parse().ok()?;
    Some(format!("{}{}{}", &t[..at], f(number), &t[at + digits..]))
}

/// `t` with field `index` of the first brace list after `pattern` changed by `f`.
fn edit_field(t: &str, pattern: &str, index: usize, f: fn(u64) -> u64) -> Option<String> {
    let start = t.find(pattern)? + pattern.len();
    let end = t[start..].find('}')? + start;
    let mut fields: Vec<String> = t[start..end].split(", ").map(str::to_string).collect();
    let value: u64 = fields.get(index)?.parse().ok()?;
    fields[index] = f(value).to_string();
    Some(format!("{}{}{}", &t[..start], fields.join(", "), &t[end..]))
}

/// `t` without the `nth` (1-based) line containing `pattern`.
pub(crate) fn drop_line(t: &str, pattern: &str, nth: usize) -> Option<String> {
    let index = t
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(pattern))
        .nth(nth - 1)?
        .0;
    let lines: Vec<&str> = t
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, l)| l)
        .collect();
    Some(lines.join("\n") + "\n")
}

/// The first call to `pattern` with its last argument (the count) one less.
fn last_argument_minus_one(t: &str, pattern: &str) -> Option<String> {
    let start = t.find(pattern)?;
    let end = t[start..].find(");")? + start;
    let comma = t[start..end].rfind(", ")? + start + 2;
    let count: u64 = t[comma..end].parse().ok()?;
    Some(format!("{}{}{}", &t[..comma], count - 1, &t[end..]))
}

/// The first `Copy` call with its mask (the third argument) changed by `f`.
fn copy_mask(t: &str, f: fn(u64) -> u64) -> Option<String> {
    let start = t.find("AscendC::Copy(")?;
    let mut commas = t[start..].match_indices(", ").map(|(at, _)| at + start + 2);
    let (_, mask) = (commas.next()?, commas.next()?);
    let digits = t[mask..].chars().take_while(char::is_ascii_digit).count();
    let value: u64 = t[mask..mask + digits].parse().ok()?;
    Some(format!("{}{}{}", &t[..mask], f(value), &t[mask + digits..]))
}

/// The kernel of `source` on ascend910b, checked, and its emitted case named `function`.
fn original(source: &str, function: &str) -> (CheckedKernel, Case) {
    let target = Target::preset("ascend910b").expect("a preset");
    let kernel = check_source(source, &target).expect("the mutant kernel checks");
    let program = npu_core::lower::lower_compact(&kernel, 0);
    let emitted = emit(&program, &target, &kernel, Backend::AscendC).expect("it is written");
    let text = &emitted.file("mutant_s.cpp").expect("the kernel").text;
    let case = Case {
        function: function.into(),
        source: text.replace(&npu_emit::symbol(&kernel, "s"), function),
        program,
        target,
    };
    (kernel, case)
}

#[test]
fn every_mutant_fails() {
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
    let cases = crate::support::with_mutants(&named, MUTANTS, "mutant");
    let build = support::build(&cases);
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
