//! The rewrites the drafting loop tries on a body the checker refuses. Hoisting
//! reductions into intermediates (`npu_core::rewrite::hoist`): each statement refused for where
//! a reduction sits is accepted once hoisted, the same reduction written twice is
//! computed once, and a body whose reductions may stay is left alone. Folding unrolled
//! windows (`npu_core::rewrite::window`): terms stepping through a tensor become one windowed
//! reduction, padded where the window leaves the tensor. Casting mixed dtypes
//! (`npu_core::rewrite::promote`): the narrower operand is cast to the wider.

use npu_core::ast::Stmt;
use npu_core::rewrite::{hoist, promote, window};
use npu_core::{CheckedKernel, Diagnostics, Target, internal, print};

/// A kernel `k` over `x: [f32; 4, 8]` on ascend910b with `body`, and `outputs`.
fn kernel(outputs: &str, body: &str) -> String {
    format!("kernel k(x: [f32; 4, 8]) -> {outputs} {{\n{body}\n}}\ntarget ascend910b;\n")
}

/// The body `hoist::reductions` makes of `body`'s kernel, one statement per line.
fn hoisted(outputs: &str, body: &str) -> Option<String> {
    rewritten(&kernel(outputs, body), hoist::reductions)
}

/// The body `rewrite` makes of `text`'s kernel, one statement per line.
fn rewritten(
    text: &str,
    rewrite: impl Fn(&npu_core::ast::KernelDef) -> Option<Vec<Stmt>>,
) -> Option<String> {
    let (def, _) = internal::parse_str_partial(text);
    let statements = rewrite(&def.expect("the kernel parses"))?;
    let lines: Vec<String> = statements.iter().map(print::statement).collect();
    Some(lines.join("\n"))
}

/// The signature and algorithm of `text` checked (no schedule).
fn check(text: &str) -> Result<CheckedKernel, Diagnostics> {
    let target = Target::preset("ascend910b").unwrap();
    let (def, parsed) = internal::parse_str_partial(text);
    internal::merge(parsed, internal::check_algorithm(&def.unwrap(), &target))
}

/// Refused as written, accepted hoisted, and hoisted as `expected`.
fn hoists_to(outputs: &str, body: &str, expected: &str) {
    assert!(check(&kernel(outputs, body)).is_err(), "{body}");
    let got = hoisted(outputs, body).expect("a reduction moves");
    assert_eq!(got, expected);
    accepted(&kernel(outputs, &got));
}

fn accepted(text: &str) {
    if let Err(diagnostics) = check(text) {
        panic!("{}", diagnostics.render(text));
    }
}

/// A filter `x: [f32; 16]`, `w: [f32; 3]` -> `y: [f32; 16]` with `body`.
fn filter(body: &str) -> String {
    format!(
        "kernel f(x: [f32; 16], w: [f32; 3]) -> y: [f32; 16] {{\n{body}\n}}\ntarget ascend910b;\n"
    )
}

#[test]
fn an_unrolled_filter_becomes_a_padded_window() {
    let written = "y[t] = x[t - 1] * w[0] + x[t] * w[1] + x[t + 1] * w[2] + 0.5;";
    assert!(check(&filter(written)).is_err());
    let got = rewritten(&filter(written), window::fold).unwrap();
    assert_eq!(got, "y[t] = sum[k < 3](pad(x, 0)[t + k - 1] * w[k]) + 0.5;");
    accepted(&filter(&got));
}

#[test]
fn nested_max_calls_become_a_window_padded_with_its_identity() {
    let written = "y[t] = max(max(x[t], x[t + 1]), x[t + 2]) * w[0];";
    let got = rewritten(&filter(written), window::fold).unwrap();
    assert_eq!(got, "y[t] = max[k < 3](pad(x, -inf)[t + k]) * w[0];");
    accepted(&filter(&got));
    // In range, nothing is padded; `k` is taken, so the window's axis is `l`.
    let text = "kernel p(x: [f32; 16], s: [f32; 4]) -> y: [f32; 7] {\n    y[k] = min(x[2 * k], min(x[2 * k + 1], x[2 * k + 2])) + s[0];\n}\ntarget ascend910b;\n";
    let got = rewritten(text, window::fold).unwrap();
    assert_eq!(got, "y[k] = min[l < 3](x[2*k + l]) + s[0];");
    let three = text.replace(
        "min(x[2 * k], min(x[2 * k + 1], x[2 * k + 2]))",
        "min(x[2 * k], x[2 * k + 1], x[2 * k + 2])",
    );
    assert_eq!(rewritten(&three, window::fold).unwrap(), got);
}

#[test]
fn terms_that_do_not_step_evenly_forward_stay() {
    for body in [
        // A true convolution steps x down while w steps up: not a subscript.
        "y[t] = x[t + 1] * w[0] + x[t] * w[1] + x[t - 1] * w[2];",
        "y[t] = x[t] * w[0] + x[t] * w[0];",
        "y[t] = x[t] * w[0] - x[t + 1] * w[1];",
        "y[t] = x[t] * w[0] + exp(x[t + 1]) * w[1];",
    ] {
        assert_eq!(rewritten(&filter(body), window::fold), None, "{body}");
    }
}

#[test]
fn a_reduction_inside_another_and_written_twice_is_computed_once() {
    hoists_to(
        "y: [f32; 4]",
        "y[i] = max[k](x[i, k]) + log(sum[k](exp(x[i, k] - max[k](x[i, k]))));",
        "let max0[i] = max[k](x[i, k]);\n\
         let sum0[i] = sum[k](exp(x[i, k] - max0[i]));\n\
         y[i] = max0[i] + log(sum0[i]);",
    );
}

#[test]
fn a_reduction_over_an_axis_the_statement_writes_reduces_its_own() {
    hoists_to(
        "y: [f32; 4, 8]",
        "y[i, k] = x[i, k] - sum[k](x[i, k]) / 8.0;",
        "let sum0[i] = sum[k](x[i, k]);\ny[i, k] = x[i, k] - sum0[i] / 8.0;",
    );
}

#[test]
fn a_reduction_reading_a_tensor_the_statement_reads_elsewhere_moves_and_reads_it_alike() {
    hoists_to(
        "y: [f32; 4, 8]",
        "y[i, j] = x[i, j] * rsqrt(sum[k](x[i, k] * x[i, k]) + 1e-6);",
        "let sum0[i] = sum[j](x[i, j] * x[i, j]);\ny[i, j] = x[i, j] * rsqrt(sum0[i] + 1e-6);",
    );
}

#[test]
fn a_reduction_inside_a_let_moves_before_it_and_names_stay_fresh() {
    hoists_to(
        "y: [f32; 4, 8]",
        "let sum0[i] = sum[k](x[i, k]);\n\
         let e[i, k] = exp(x[i, k] - max[k](x[i, k]));\n\
         y[i, k] = e[i, k] / sum[k](e[i, k]) + sum0[i];",
        "let sum0[i] = sum[k](x[i, k]);\n\
         let max0[i] = max[k](x[i, k]);\n\
         let e[i, k] = exp(x[i, k] - max0[i]);\n\
         let sum1[i] = sum[k](e[i, k]);\n\
         y[i, k] = e[i, k] / sum1[i] + sum0[i];",
    );
}

#[test]
fn a_reduction_over_every_axis_becomes_a_scalar() {
    hoists_to(
        "y: [f32; 4, 8]",
        "y[i, j] = x[i, j] - max[p, q](x[p, q]);",
        "let max0 = max[i, j](x[i, j]);\ny[i, j] = x[i, j] - max0;",
    );
}

#[test]
fn a_body_whose_reductions_may_stay_is_left_alone() {
    for (outputs, body) in [
        ("y: [f32; 4]", "y[i] = sum[k](x[i, k]) / 8.0;"),
        ("y: [f32; 4, 8]", "y[i, k] = cumsum[k](x[i, k]);"),
        (
            "y: [f32; 4, 8]",
            "let m[i] = max[k](x[i, k]);\ny[i, j] = x[i, j] - m[i];",
        ),
        ("y: [f32; 4]", "y[i] = undefined(x[i, 0]);"),
    ] {
        assert_eq!(hoisted(outputs, body), None, "{body}");
    }
}

/// A quantiser's signature: `q: [i8; 8]`, two f32 parameters, with `outputs` and `body`.
fn quantised(outputs: &str, body: &str) -> String {
    format!(
        "kernel d(q: [i8; 8, 4], zero_point: f32, scale: f32) -> {outputs} {{\n{body}\n}}\ntarget ascend910b;\n"
    )
}

#[test]
fn the_narrower_operand_of_a_mixed_operation_is_cast_to_the_wider() {
    for (outputs, written, expected) in [
        (
            "y: [f32; 8, 4]",
            "y[i, j] = (q[i, j] - zero_point) * scale;",
            "y[i, j] = (q[i, j] as f32 - zero_point) * scale;",
        ),
        (
            "y: [f32; 8, 4]",
            "y[i, j] = q[i, j] * scale + zero_point - q[i, j];",
            "y[i, j] = q[i, j] as f32 * scale + zero_point - q[i, j] as f32;",
        ),
        (
            "y: [f32; 8, 4]",
            "y[i, j] = max(q[i, j], zero_point) + select(q[i, j] > zero_point, scale, 1);",
            "y[i, j] = max(q[i, j] as f32, zero_point) + select(q[i, j] as f32 > zero_point, scale, 1);",
        ),
        // Through an intermediate: the row sums are i32, the scale f32.
        (
            "y: [f32; 8]",
            "let s[i] = sum[k: i32](q[i, k] as i32);\ny[i] = s[i] * scale;",
            "let s[i] = sum[k: i32](q[i, k] as i32);\ny[i] = s[i] as f32 * scale;",
        ),
    ] {
        let text = quantised(outputs, written);
        assert!(check(&text).is_err(), "{written}");
        let got = rewritten(&text, promote::casts).unwrap();
        assert_eq!(got, expected);
        accepted(&quantised(outputs, &got));
    }
    let agreed = quantised(
        "y: [f32; 8, 4]",
        "y[i, j] = (q[i, j] as f32 - zero_point) * 2;",
    );
    assert_eq!(rewritten(&agreed, promote::casts), None);
}

#[test]
fn all_rewrites_cast_then_fold_then_hoist() {
    let kernel = |body: &str| {
        format!(
            "kernel f(x: [i8; 16], w: [f32; 2], b: [f32; 16]) -> y: [f32; 16] {{\n{body}\n}}\ntarget ascend910b;\n"
        )
    };
    let text = kernel("y[t] = x[t] * w[0] + x[t + 1] * w[1] - max[t](b[t]);");
    let got = rewritten(&text, npu_core::rewrite::all).unwrap();
    assert_eq!(
        got,
        "let max0 = max[t](b[t]);\ny[t] = sum[k < 2](pad(x, 0)[t + k] as f32 * w[k]) - max0;"
    );
    accepted(&kernel(&got));
}
