//! The row-by-row folds of `dot` against the general interpreter, which sits above
//! them: so these tests live beside the interpreter, not in `dot`.

use npu_core::host::HostTensor;
use npu_core::ir::Role;
use npu_core::{Target, check_source};

use super::interpret;

/// Row by row and one element at a time, the folds give the same bits: on
/// matmuls (plain, batched, integer), convolutions through affine subscripts, a
/// sum over two axes into a named f16 accumulator, and sums the rows leave to the
/// general loop (a padded view, a product inside a larger expression).
#[test]
fn rows_fold_exactly_as_the_general_loop() {
    let cube = "cube m by 16, n by 16, k by 16; stage a, b in l1; stage a in l0a; \
                stage b in l0b; stage c in l0c;";
    let kernels = [
        (
            "kernel k(a: [f16; 32, 48], b: [f16; 48, 32]) -> c: [f32; 32, 32] {
                c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }",
            cube,
        ),
        (
            "kernel k(a: [bf16; 3, 16, 48], b: [bf16; 48, 16]) -> c: [f32; 3, 16, 16] {
                c[t, m, n] = sum[k](a[t, m, k] as f32 * b[k, n] as f32); }",
            cube,
        ),
        (
            "kernel k(a: [i8; 16, 64], b: [i8; 64, 32]) -> c: [i32; 16, 32] {
                c[m, n] = sum[k](a[m, k] as i32 * b[k, n] as i32); }",
            cube,
        ),
        (
            "kernel k(x: [f32; 72], w: [f32; 4, 5]) -> y: [f32; 4, 32] {
                y[o, t] = sum[k](x[2*t + k] * w[o, k]); }",
            "stage x, w, y in ub; tail pad;",
        ),
        (
            "kernel k(x: [f32; 64], w: [f32; 4, 5]) -> y: [f32; 4, 64] {
                y[o, t] = sum[k](pad(x, 0)[t + k - 2] * w[o, k]); }",
            "stage x, w, y in ub; tail pad;",
        ),
        (
            "kernel k(x: [f16; 8, 18, 18], w: [f16; 3, 3]) -> y: [f16; 8, 16, 16] {
                y[c, h, v] = sum[kh, kw: f16](x[c, h + kh, v + kw] * w[kh, kw]); }",
            "stage x, w, y in ub; tail pad;",
        ),
        (
            "kernel k(x: [f32; 32, 64], w: [f32; 64, 16], b: [f32; 16]) -> y: [f32; 32, 16] {
                y[m, n] = relu(sum[k](x[m, k] * w[k, n]) + b[n]); }",
            "split m by 2; split k by 16; stage x, w, b, y in ub; tail pad;",
        ),
        (
            "kernel k(x: [f32; 32, 64], w: [f32; 64]) -> y: [f32; 32] {
                y[m] = sum[k](x[m, k] * w[k]); }",
            "stage x, w, y in ub; tail pad;",
        ),
    ];
    let target = Target::preset("ascend910b").expect("preset");
    for (text, schedule) in kernels {
        let source = format!("{text}\ntarget ascend910b;\nschedule s {{ {schedule} }}");
        let kernel = check_source(&source, &target)
            .unwrap_or_else(|d| panic!("{text}: {}", d.render(&source)));
        // Random values, then the dtype's edge values (zeros, extremes, infinities,
        // NaN) in the first input.
        for edges in [false, true] {
            let inputs: Vec<HostTensor> = kernel
                .tensors
                .iter()
                .filter(|t| t.role == Role::Input)
                .enumerate()
                .map(|(seed, t)| {
                    if edges && seed == 0 {
                        HostTensor::edges(t.dtype, &t.shape, 3)
                    } else {
                        HostTensor::random(t.dtype, &t.shape, seed as u64)
                    }
                })
                .collect();
            let rows = interpret(&kernel, &inputs, true).expect("no gathers");
            let general = interpret(&kernel, &inputs, false).expect("no gathers");
            // The same values, a NaN matching any NaN (which NaN an operation on
            // two of them gives is the compiler's choice of operand order).
            for (rows, general) in rows.iter().zip(&general) {
                let (rows, general) = (rows.values(), general.values());
                let mismatch = rows
                    .iter()
                    .zip(&general)
                    .position(|(r, g)| r.to_bits() != g.to_bits() && !(r.is_nan() && g.is_nan()));
                assert_eq!(mismatch, None, "{text}, edges {edges}");
                assert!(edges || rows.iter().any(|v| *v != 0.0), "{text}");
            }
        }
    }
}
