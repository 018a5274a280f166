//! Kernels whose lowered programs computed other values than the reference, or made
//! the simulator panic (issue 23): each test names the item, builds its inputs
//! by hand where the data matters, and checks that every schedule's simulated outputs
//! equal the reference interpreter's bit for bit and the values worked out here.

use crate::support;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use npu_core::lower::lower;
use npu_sim::{Correctness, SimOptions, evaluate, reference, simulate};

/// The reference's outputs of `source` on `inputs`, after checking that every
/// schedule's simulated outputs are the same bits (any NaN equals any NaN) and that
/// `evaluate` finds them correct.
fn agreed(source: &str, inputs: &[HostTensor]) -> Vec<HostTensor> {
    let kernel = support::check(source);
    let expected = reference(&kernel, inputs).expect("indices in range");
    for (index, schedule) in kernel.schedules.iter().enumerate() {
        let program = lower(&kernel, index);
        let outputs = simulate(&kernel, &program, inputs, &SimOptions::default())
            .unwrap_or_else(|error| panic!("{}: {error}", schedule.name))
            .outputs;
        for (got, want) in outputs.iter().zip(&expected) {
            let same = got
                .values()
                .iter()
                .zip(&want.values())
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
            assert!(same, "{}: {got:?}\n!= {want:?}", schedule.name);
        }
        let evaluation = evaluate(&kernel, index, inputs, None, &SimOptions::default())
            .unwrap_or_else(|error| panic!("{}: {error}", schedule.name));
        assert!(
            matches!(evaluation.correctness, Correctness::Passed { .. }),
            "{}: {:?}",
            schedule.name,
            evaluation.correctness
        );
    }
    expected
}

fn tensor(dtype: Dtype, shape: &[u64], data: &[f64]) -> HostTensor {
    HostTensor::from_values(dtype, shape, data)
}

/// `n` values of `dtype` from its least to its greatest, through -1, 0 and 1.
fn spread(dtype: Dtype, n: usize) -> Vec<f64> {
    let (low, high) = dtype.range();
    let mut values: Vec<f64> = (0..n)
        .map(|i| dtype.round(low + (high - low) * i as f64 / (n - 1) as f64))
        .collect();
    values[1] = -1.0_f64.max(low);
    values[2] = 0.0;
    values[3] = 1.0;
    values
}

/// `select(x > 0, 1, 0) + select(x < 0, 2, 0)`: each select of literals takes the
/// output's dtype, so 1, 2 or 0 come out, never the i32 sum's bytes.
#[test]
fn select_of_literals_narrows_back_item_1() {
    for (dtype, target, zero, one, two) in [
        (Dtype::I8, "aie2_tile", "0", "1", "2"),
        (Dtype::I16, "aie2_tile", "0", "1", "2"),
        (Dtype::I16, "ascend910b", "0", "1", "2"),
        (Dtype::F16, "ascend910b", "0.0", "1.0", "2.0"),
        (Dtype::Bf16, "aie2_tile", "0.0", "1.0", "2.0"),
    ] {
        let source = format!(
            "kernel sel(x: [{dtype}; 256]) -> y: [{dtype}; 256] {{
                y[i] = select(x[i] > {zero}, {one}, {zero}) + select(x[i] < {zero}, {two}, {zero});
            }}
            target {target};
            schedule s {{ stage x, y in ub depth 1; }}
            schedule tiles {{ split i by 64; stage x, y in ub depth 2; }}"
        );
        let x = spread(dtype, 256);
        let want: Vec<f64> = x
            .iter()
            .map(|v| match v {
                v if *v > 0.0 => 1.0,
                v if *v < 0.0 => 2.0,
                _ => 0.0,
            })
            .collect();
        let y = agreed(&source, &[tensor(dtype, &[256], &x)]);
        assert_eq!(y[0].values(), want, "{dtype} on {target}");
    }
}

/// Nested selects of literals and literal arithmetic around them take the output's
/// dtype as well: on bf16 none of it is computed in f32 (which aie2_tile lacks).
#[test]
fn nested_select_of_literals_takes_the_outputs_dtype_item_1() {
    let source = "kernel sel(x: [bf16; 64]) -> y: [bf16; 64] {
            y[i] = select(x[i] > 0.0, 1.0, select(x[i] < 0.0, 2.0 * 3.0, 0.5)) - 0.25;
        }
        target aie2_tile;
        schedule s { stage x, y in ub depth 1; }";
    let kernel = support::check(source);
    assert_eq!(kernel.body[0].value.dtype(), Dtype::Bf16);
    let x: Vec<f64> = (0..64).map(|i| f64::from(i - 32) / 4.0).collect();
    let want: Vec<f64> = x
        .iter()
        .map(|v| match v {
            v if *v > 0.0 => 0.75,
            v if *v < 0.0 => 5.75,
            _ => 0.25,
        })
        .collect();
    let y = agreed(source, &[tensor(Dtype::Bf16, &[64], &x)]);
    assert_eq!(y[0].values(), want);
}

/// A scan along a tensor's only axis: its carry is a value over no axes, one element.
#[test]
fn scan_along_the_only_axis_runs_item_2() {
    let source = "kernel cs(x: [f32; 1024]) -> y: [f32; 1024] { y[k] = cumsum[k](x[k]); }
        target ascend910b;
        schedule whole { stage x, y in ub depth 1; }
        schedule tiles { split k by 256; stage x, y in ub depth 2; }";
    // Small integers: every partial sum is exact in f32.
    let x: Vec<f64> = (0..1024).map(|i| f64::from(i % 7) - 3.0).collect();
    let mut running = 0.0;
    let want: Vec<f64> = x
        .iter()
        .map(|v| {
            running += v;
            running
        })
        .collect();
    let y = agreed(source, &[tensor(Dtype::F32, &[1024], &x)]);
    assert_eq!(y[0].values(), want);

    let source = "kernel cp(x: [i32; 64]) -> y: [i32; 64] { y[k] = cumprod[k](x[k]); }
        target ascend910b;
        schedule whole { stage x, y in ub depth 1; }";
    let x: Vec<f64> = (0..64).map(|i| [1.0, -1.0, 2.0, 1.0][i % 4]).collect();
    let mut running = 1.0;
    let want: Vec<f64> = x
        .iter()
        .map(|v| {
            running *= v;
            running
        })
        .collect();
    let y = agreed(source, &[tensor(Dtype::I32, &[64], &x)]);
    assert_eq!(y[0].values(), want);
}

/// Rows of unsigned values over the dtype's whole range: every row holds 0, its
/// greatest value, 2^(bits - 1) and its neighbours (past i32's range for u32) at
/// places that move from row to row, and small values elsewhere.
fn unsigned_rows(dtype: Dtype, rows: usize, cols: usize) -> Vec<f64> {
    let (_, high) = dtype.range();
    let half = (high + 1.0) / 2.0;
    let special = [high, half, half - 1.0, half + 1.0, 0.0, high - 1.0];
    let mut data = vec![0.0; rows * cols];
    for row in 0..rows {
        for col in 0..cols {
            data[row * cols + col] = ((row * 7 + col * 3) % 11 + 1) as f64;
        }
        // Row r leaves out special value r % 6 (so some rows have no 0, some no
        // maximum), and puts the rest at shifting columns.
        for (n, value) in special.iter().enumerate() {
            if n != row % special.len() {
                data[row * cols + (row + 3 * n) % cols] = *value;
            }
        }
    }
    data
}

/// `min`, `max`, `sum`, `argmax` and `argmin` along rows of an unsigned tensor, and
/// `cumsum` along them, worked out here in u64/u128: a u32 past 2^31 is no negative
/// i32 in any of them.
fn check_unsigned_folds(dtype: Dtype, target: &str) {
    let (rows, cols) = (16usize, 70usize);
    // Column tiles of 64 B, so that the folds carry from tile to tile.
    let split = 64 / dtype.size();
    let source = format!(
        "kernel mn(x: [{dtype}; 16, 70]) -> (lo: [{dtype}; 16], hi: [{dtype}; 16], total: [{dtype}; 16], first_hi: [i32; 16], first_lo: [i32; 16]) {{
            lo[h] = min[w](x[h, w]);
            hi[h] = max[w](x[h, w]);
            total[h] = sum[w](x[h, w]);
            first_hi[h] = argmax[w](x[h, w]);
            first_lo[h] = argmin[w](x[h, w]);
        }}
        target {target};
        schedule whole {{ stage x, lo, hi, total, first_hi, first_lo in ub depth 1; tail pad; }}
        schedule cols {{ split w by {split}; stage x in ub depth 2; stage lo, hi, total, first_hi, first_lo in ub; tail pad; }}"
    );
    let data = unsigned_rows(dtype, rows, cols);
    let x = tensor(dtype, &[rows as u64, cols as u64], &data);
    let out = agreed(&source, std::slice::from_ref(&x));
    let modulus = 2f64.powi(dtype.bits() as i32);
    for row in 0..rows {
        let values = &data[row * cols..(row + 1) * cols];
        let least = values.iter().copied().fold(f64::INFINITY, f64::min);
        let greatest = values.iter().copied().fold(0.0, f64::max);
        let total = values.iter().map(|v| *v as u128).sum::<u128>() as f64 % modulus;
        let first = |want: f64| values.iter().position(|v| *v == want).unwrap() as f64;
        let got: Vec<f64> = out.iter().map(|t| t.values()[row]).collect();
        assert_eq!(
            got,
            [least, greatest, total, first(greatest), first(least)],
            "{dtype} row {row}"
        );
    }
    // A running sum wraps as the dtype does.
    let source = format!(
        "kernel cs(x: [{dtype}; 16, 70]) -> y: [{dtype}; 16, 70] {{ y[h, w] = cumsum[w](x[h, w]); }}
        target {target};
        schedule whole {{ stage x, y in ub depth 1; tail pad; }}"
    );
    let y = agreed(&source, &[x]);
    let mut want = data.clone();
    for row in want.chunks_mut(cols) {
        for col in 1..cols {
            row[col] = (row[col - 1] + row[col]) % modulus;
        }
    }
    assert_eq!(y[0].values(), want, "{dtype} cumsum");
}

#[test]
fn unsigned_reductions_keep_values_past_i32_item_10b() {
    check_unsigned_folds(Dtype::U32, "ascend910b");
    check_unsigned_folds(Dtype::U16, "ascend910b");
    check_unsigned_folds(Dtype::U32, "npueval_demo");
    check_unsigned_folds(Dtype::U8, "npueval_demo");
}

/// The diagnostics of `source`, which must not check.
fn refused(source: &str) -> npu_core::Diagnostics {
    match npu_core::check_source_with(source, |path| Err(format!("no files: {path}"))) {
        Ok(_) => panic!("accepted:\n{source}"),
        Err(diagnostics) => diagnostics,
    }
}

/// Deterministic values of `dtype` in -4..4 (0..8 unsigned), fractions for floats.
fn small(dtype: Dtype, n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let step = ((i * 37 + seed * 11) % 64) as f64;
            let value = if dtype.is_float() {
                step / 8.0 - 4.0
            } else {
                (step % 8.0) - 4.0
            };
            dtype.round(value)
        })
        .collect()
}

/// A product of two operand dtypes is no cube matmul (the cube multiplies one
/// dtype): a `cube` schedule is refused naming both, and on the vector unit every
/// element is the f32 sum of the exact products in index order.
#[test]
fn mixed_dtype_matmul_runs_on_the_vector_unit_item_10a() {
    let cube = "cube m by 16, n by 16, k by 16; stage a, b in l1 depth 1; \
                stage a in l0a depth 1; stage b in l0b depth 1; stage c in l0c depth 1;";
    for (a_dtype, b_dtype) in [
        (Dtype::I8, Dtype::F16),
        (Dtype::Bf16, Dtype::F16),
        (Dtype::F16, Dtype::I8),
    ] {
        let kernel = format!(
            "kernel mm(a: [{a_dtype}; 16, 16], b: [{b_dtype}; 16, 16]) -> c: [f32; 16, 16] {{
                c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
            }}
            target ascend910b;"
        );
        let diagnostics = refused(&format!("{kernel}\nschedule s {{ {cube} }}"));
        let first = diagnostics.iter().next().expect("a diagnostic");
        assert_eq!(first.code, npu_core::Code::E026);
        assert!(
            first
                .message
                .contains(&format!("`a` is {a_dtype} and `b` is {b_dtype}")),
            "{}",
            first.message
        );
        assert_eq!(
            first.help.as_deref(),
            Some("remove the `cube` item and stage every tensor in `ub`")
        );
        // The help's schedule checks and computes the sums of exact products.
        let source = format!("{kernel}\nschedule s {{ stage a, b, c in ub depth 1; }}");
        let (a, b) = (small(a_dtype, 256, 1), small(b_dtype, 256, 2));
        let inputs = [
            tensor(a_dtype, &[16, 16], &a),
            tensor(b_dtype, &[16, 16], &b),
        ];
        let c = agreed(&source, &inputs);
        for (index, got) in c[0].values().iter().enumerate() {
            let (m, n) = (index / 16, index % 16);
            let want = (0..16).fold(0.0f32, |acc, k| {
                acc + (a[m * 16 + k] * b[k * 16 + n]) as f32
            });
            assert_eq!(*got, f64::from(want), "{a_dtype} x {b_dtype} at {m}, {n}");
        }
    }
}

/// An operand cast that changes values before the product (f16 through bf16) is no
/// cube matmul either: the cube reads the values the tensor holds.
#[test]
fn rounding_cast_of_a_matmul_operand_is_no_cube_matmul_item_10a() {
    let kernel = "kernel mm(a: [f16; 16, 16], b: [f16; 16, 16]) -> c: [f32; 16, 16] {
            c[m, n] = sum[k](a[m, k] as bf16 as f32 * b[k, n] as f32);
        }
        target ascend910b;";
    let diagnostics = refused(&format!(
        "{kernel}\nschedule s {{ cube m by 16, n by 16, k by 16; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c; }}"
    ));
    let first = diagnostics.iter().next().expect("a diagnostic");
    assert!(
        first.message.contains("a cast of `a` changes its values"),
        "{}",
        first.message
    );
    // Values with bits below bf16's: the cast rounds them.
    let a: Vec<f64> = (0..256).map(|i| 1.0 + f64::from(i % 4) / 1024.0).collect();
    let b = vec![1.0; 256];
    let source = format!("{kernel}\nschedule s {{ stage a, b, c in ub depth 1; }}");
    let c = agreed(
        &source,
        &[
            tensor(Dtype::F16, &[16, 16], &a),
            tensor(Dtype::F16, &[16, 16], &b),
        ],
    );
    // Every element of a rounds to 1.0 in bf16 (steps of 1/128 there), so 16 ones.
    assert!(c[0].values().iter().all(|v| *v == 16.0));
    // The same product without the rounding cast stays a matmul.
    let same = support::check(
        "kernel mm(a: [f16; 16, 16], b: [f16; 16, 16]) -> c: [f32; 16, 16] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;
        schedule s { cube m by 16, n by 16, k by 16; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c; }"
    );
    assert!(matches!(same.class, npu_core::ir::KernelClass::Matmul(_)));
}

/// `n` values of a float dtype with at most 8 significant bits, `±k / 64` for k in
/// 64..256: products of two need 16 bits (more than bf16 or f16 keep, exact in f32),
/// and sums of a few hundred of those products stay exact in f32.
fn eight_bit_values(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let k = 64 + (i * 73 + seed * 29) % 192;
            let sign = if (i + seed).is_multiple_of(3) {
                -1.0
            } else {
                1.0
            };
            sign * k as f64 / 64.0
        })
        .collect()
}

/// A 3 x 3 "same" convolution of a 16 x 30 plane (padded rows of 32 x 2 B) through a padded view, each output the exact sum of
/// exact products (f64) rounded once to the output's dtype: the products are not
/// rounded to bf16 (or f16) before the f32 accumulation, as the AIE2 MAC and the
/// cube do not round them.
fn check_convolution(dtype: Dtype, target: &str, split: &str) {
    let source = format!(
        "kernel conv(x: [{dtype}; 16, 30], w: [{dtype}; 3, 3]) -> y: [{dtype}; 16, 30] {{
            y[h, v] = sum[kh, kw](pad(x, 0)[h + kh - 1, v + kw - 1] * w[kh, kw]);
        }}
        target {target};
        schedule whole {{ stage x, w, y in ub depth 1; tail pad; }}
        schedule rows {{ {split} stage x, w, y in ub depth 2; tail pad; }}"
    );
    let (x, w) = (eight_bit_values(480, 1), eight_bit_values(9, 2));
    let inputs = [tensor(dtype, &[16, 30], &x), tensor(dtype, &[3, 3], &w)];
    let y = agreed(&source, &inputs);
    let mut rounded_differently = 0;
    for (index, got) in y[0].values().iter().enumerate() {
        let (h, v) = ((index / 30) as i64, (index % 30) as i64);
        let mut exact = 0.0;
        let mut rounded = 0.0f32;
        for kh in 0..3 {
            for kw in 0..3 {
                let (r, c) = (h + kh - 1, v + kw - 1);
                if (0..16).contains(&r) && (0..30).contains(&c) {
                    let product = x[(r * 30 + c) as usize] * w[(kh * 3 + kw) as usize];
                    exact += product;
                    rounded += dtype.round(product) as f32;
                }
            }
        }
        assert_eq!(*got, dtype.round(exact), "{dtype} on {target} at {h}, {v}");
        rounded_differently += usize::from(dtype.round(f64::from(rounded)) != *got);
    }
    // The data tells the rules apart: rounding each product first gives other values.
    assert!(rounded_differently > 16, "{rounded_differently}");
}

#[test]
fn products_in_a_wider_sum_are_exact_item_9() {
    check_convolution(Dtype::Bf16, "aie2_tile", "split h by 4;");
    check_convolution(Dtype::F16, "ascend910b", "split h by 4;");
    check_convolution(Dtype::F16, "npueval_demo", "split h by 8;");
    // Edge values: bf16 products past f32's range are infinite in f32 (and two of
    // opposite signs a NaN), products below its subnormals zeros of their sign, on
    // the vector unit's multiply-accumulate as in the reference.
    let source = "kernel mv(a: [bf16; 64, 128], x: [bf16; 128]) -> y: [bf16; 64] {
            y[i] = sum[k](a[i, k] * x[k]);
        }
        target aie2_tile;
        schedule hand { split i by 16; stage a, x, y in ub depth 1; tail pad; }
        schedule tiles { split i by 16; split k by 32; stage a, x in ub depth 2; stage y in ub; tail pad; }";
    for offset in 0..4 {
        let inputs = [
            HostTensor::edges(Dtype::Bf16, &[64, 128], offset),
            HostTensor::edges(Dtype::Bf16, &[128], offset + 1),
        ];
        agreed(source, &inputs);
    }
    let (_, max) = Dtype::Bf16.range();
    let tiny = 2f64.powi(-133);
    let mut a = vec![0.0; 64 * 128];
    let mut x = vec![1.0; 128];
    (x[0], x[1], x[2]) = (max, max, tiny);
    // Row 0: max² - max² is ∞ - ∞; row 1: max² alone; row 2: -tiny², a -0 term.
    (a[0], a[1]) = (max, -max);
    a[128] = max;
    a[256 + 2] = -tiny;
    let inputs = [
        tensor(Dtype::Bf16, &[64, 128], &a),
        tensor(Dtype::Bf16, &[128], &x),
    ];
    let y = agreed(source, &inputs)[0].values();
    assert!(y[0].is_nan() && y[1] == f64::INFINITY, "{:?}", &y[..3]);
    assert!(y[2] == 0.0 && y[2].is_sign_positive(), "{}", y[2]);
}

/// A cube matmul of f16 written without casts, `sum[k](a[m, k] * b[k, n])` into f16,
/// sums exact products in f32 on the cube and in the reference alike, rounded once.
#[test]
fn matmul_without_casts_sums_exact_products_item_9() {
    let source = "kernel mm(a: [f16; 16, 32], b: [f16; 32, 16]) -> c: [f16; 16, 16] {
            c[m, n] = sum[k](a[m, k] * b[k, n]);
        }
        target ascend910b;
        schedule s { cube m by 16, n by 16, k by 16; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c; }";
    let kernel = support::check(source);
    assert!(matches!(kernel.class, npu_core::ir::KernelClass::Matmul(_)));
    let (a, b) = (eight_bit_values(512, 3), eight_bit_values(512, 4));
    let inputs = [
        tensor(Dtype::F16, &[16, 32], &a),
        tensor(Dtype::F16, &[32, 16], &b),
    ];
    let c = agreed(source, &inputs);
    for (index, got) in c[0].values().iter().enumerate() {
        let (m, n) = (index / 16, index % 16);
        let exact: f64 = (0..32).map(|k| a[m * 32 + k] * b[k * 16 + n]).sum();
        assert_eq!(*got, Dtype::F16.round(exact), "at {m}, {n}");
    }
}

/// i8 products summed in i32 are formed in i32 (as the MAC forms them), and the sum
/// wraps into i8 once, at the end; a sum in i8 itself keeps its i8 products.
#[test]
fn integer_products_widen_to_the_accumulator_item_9() {
    let source = "kernel dot(x: [i8; 64, 64], w: [i8; 64]) -> (y: [i8; 64], z: [i8; 64]) {
            y[i] = sum[k](x[i, k] * w[k]);
            z[i] = sum[k: i8](x[i, k] * w[k]);
        }
        target aie2_tile;
        schedule s { stage x, w, y, z in ub depth 1; }
        schedule rows { split i by 32; split k by 32; stage x, w in ub depth 2; stage y, z in ub; }";
    let kernel = support::check(source);
    let product = |statement: usize| match &kernel.body[statement].value {
        npu_core::ir::Expr::Reduce { body, .. } => (**body).clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        matches!(product(0), npu_core::ir::Expr::Binary { dtype: Dtype::I32, ref lhs, .. }
            if matches!(**lhs, npu_core::ir::Expr::Cast { dtype: Dtype::I32, .. })),
        "{:?}",
        product(0)
    );
    assert_eq!(product(1).dtype(), Dtype::I8);
    let x = spread(Dtype::I8, 64 * 64);
    let w: Vec<f64> = (0..64).map(|i| f64::from(i % 9) - 4.0).collect();
    let out = agreed(
        source,
        &[
            tensor(Dtype::I8, &[64, 64], &x),
            tensor(Dtype::I8, &[64], &w),
        ],
    );
    for i in 0..64 {
        let exact: i64 = (0..64).map(|k| x[i * 64 + k] as i64 * w[k] as i64).sum();
        assert_eq!(
            out[0].values()[i],
            Dtype::I8.wrap_integer(exact.into()),
            "row {i}"
        );
        assert_eq!(
            out[1].values()[i],
            Dtype::I8.wrap_integer(exact.into()),
            "row {i}"
        );
    }
}

/// A bf16 product past f32's range is what `a as f32 * b as f32` gives, ±inf, on the
/// cube as in the reference: 2^100 × 2^100 overflows f32, so row 0 is inf + (-inf) =
/// NaN, not the -inf an unrounded product added in f64 gave (found by the kernel-level
/// differential test on edge data).
#[test]
fn a_cube_product_past_f32_overflows_as_the_reference_does() {
    let source = "
        kernel mm(a: [bf16; 16, 16], b: [bf16; 16, 16]) -> c: [f32; 16, 16] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;
        schedule s {
            cube m by 16, n by 16, k by 16;
            stage a, b in l1 depth 1;
            stage a in l0a depth 1;
            stage b in l0b depth 1;
            stage c in l0c depth 1;
        }
    ";
    let big = 2f64.powi(100);
    let mut a = vec![0.0; 256];
    let mut b = vec![0.0; 256];
    (a[0], a[1]) = (big, -big);
    (b[0], b[16]) = (big, big);
    let outputs = agreed(
        source,
        &[
            tensor(Dtype::Bf16, &[16, 16], &a),
            tensor(Dtype::Bf16, &[16, 16], &b),
        ],
    );
    let c = outputs[0].values();
    assert!(c[0].is_nan(), "{}", c[0]);
    assert_eq!(c[1], 0.0);
}

/// `min[k: i32]` of u32 terms compares each term as i32 holds it, as a cast would:
/// 4294967295 is -1 there, so the minimum is -1, stored back as u32 4294967295 (the
/// simulator compared the u32 value with i32's largest and kept 2147483647).
#[test]
fn a_narrower_integer_accumulator_compares_wrapped_terms() {
    let source = "
        kernel lo(x: [u32; 4, 8]) -> y: [u32; 4] { y[i] = min[k: i32](x[i, k]); }
        target npueval_demo;
        schedule s { stage x, y in ub depth 1; tail pad; }
    ";
    let mut x = vec![7.0; 32];
    x[0] = 4294967295.0; // -1 in i32: the least
    x[8 + 3] = 2147483648.0; // -2^31 in i32
    x[16 + 5] = 3.0;
    let outputs = agreed(source, &[tensor(Dtype::U32, &[4, 8], &x)]);
    assert_eq!(outputs[0].values(), [4294967295.0, 2147483648.0, 3.0, 7.0]);
}

/// A product inside a `cumsum` stays in its own dtype (the exact-product rule is the
/// sum's, whose lowering is a multiply-accumulate): on aie2_tile, which computes f32
/// only in accumulators, widening it lowered a `vmul f32` the validator refused (found
/// by a 100,000-kernel run of the kernel-level differential test).
#[test]
fn a_product_in_a_scan_is_computed_in_its_own_dtype() {
    let source = "
        kernel scan(x: [bf16; 4, 16]) -> y: [bf16; 4, 16] { y[j, l] = cumsum[j](2 * x[j, l]); }
        target aie2_tile;
        schedule s { stage x, y in ub depth 1; }
    ";
    let x: Vec<f64> = (0..64).map(|i| f64::from(i % 7) - 3.0).collect();
    let outputs = agreed(source, &[tensor(Dtype::Bf16, &[4, 16], &x)]);
    assert_eq!(outputs[0].values()[16], 2.0 * (x[0] + x[16]));
}
