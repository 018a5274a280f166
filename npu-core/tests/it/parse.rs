//! The parser and the printer, data-driven: each case is DSL text and a snapshot of
//! either its canonical form or its rendered diagnostics.
//!
//! Every case that parses is also printed, parsed and printed again, and must come
//! back as the same text and the same tree: the round trip is checked on every input
//! here, so a new case cannot forget it.

use insta::assert_snapshot;
use npu_core::ast::{Expr, Index, KernelDef, Reduction};
use npu_core::internal::{parse_schedules_str, parse_str};
use npu_core::print;

/// The canonical form of `input`, or its diagnostics rendered against it.
fn check(input: &str) -> String {
    let input = trim_indent(input);
    match parse_str(&input) {
        Ok(def) => {
            let printed = print::kernel(&def);
            assert_round_trip(&def, &printed);
            printed
        }
        Err(diagnostics) => diagnostics.render(&input),
    }
}

/// Like [`check`], for text that holds only schedule blocks.
fn check_schedules(input: &str) -> String {
    let input = trim_indent(input);
    match parse_schedules_str(&input) {
        Ok(schedules) => {
            let printed: Vec<String> = schedules.iter().map(print::schedule).collect();
            let printed = printed.join("\n");
            let reparsed = parse_schedules_str(&printed).expect("printed schedules parse");
            let reprinted: Vec<String> = reparsed.iter().map(print::schedule).collect();
            assert_eq!(reprinted.join("\n"), printed);
            printed
        }
        Err(diagnostics) => diagnostics.render(&input),
    }
}

/// One line per expression: as written, as printed, and its tree with every node in
/// parentheses, which shows what the parser made of it.
fn check_exprs(inputs: &[&str]) -> String {
    let mut out = String::new();
    for input in inputs {
        let def = parse_str(&format!("kernel k() -> y: [f32; 1] {{ y[0] = {input}; }}"))
            .unwrap_or_else(|diagnostics| panic!("`{input}` does not parse:\n{diagnostics}"));
        let printed = print::kernel(&def);
        assert_round_trip(&def, &printed);
        let value = &def.body[0].value;
        out.push_str(&format!(
            "{input:<28} => {:<28} {}\n",
            print::expr(value),
            tree(value)
        ));
    }
    out
}

fn assert_round_trip(def: &KernelDef, printed: &str) {
    let reparsed = parse_str(printed).unwrap_or_else(|diagnostics| {
        panic!("printed kernel does not parse:\n{printed}\n{diagnostics}")
    });
    assert_eq!(print::kernel(&reparsed), printed);
    // The same text could come from a different tree if the printer dropped needed
    // parentheses, so the statements are compared as trees too.
    let trees = |def: &KernelDef| {
        def.body
            .iter()
            .map(|stmt| tree(&stmt.value))
            .collect::<Vec<_>>()
    };
    assert_eq!(trees(&reparsed), trees(def), "printed as:\n{printed}");
}

/// The expression with every node in parentheses, as an S-expression.
fn tree(expr: &Expr) -> String {
    let operands = |args: &[Expr]| {
        args.iter()
            .map(|arg| format!(" {}", tree(arg)))
            .collect::<String>()
    };
    match expr {
        Expr::Load {
            tensor,
            indices,
            pad,
        } => {
            let indices: Vec<String> = indices
                .iter()
                .map(|index| match index {
                    Index::Axis(axis) => axis.to_string(),
                    Index::Const(position) => position.value.to_string(),
                    Index::Affine(affine) => {
                        let terms: Vec<String> = affine
                            .terms
                            .iter()
                            .map(|t| format!("{}*{}", t.coefficient, t.axis))
                            .collect();
                        format!("(affine {} {})", terms.join(" "), affine.offset)
                    }
                    Index::Gather(gather) => {
                        let load = Expr::Load {
                            tensor: gather.tensor.clone(),
                            indices: gather.indices.clone(),
                            pad: None,
                        };
                        format!("(gather {})", tree(&load))
                    }
                })
                .collect();
            match pad {
                Some(pad) => format!("(pad {tensor} {})[{}]", tree(pad), indices.join(",")),
                None => format!("{tensor}[{}]", indices.join(",")),
            }
        }
        // The value as stored, so an integer too large for an f64 shows its rounding.
        Expr::Literal {
            value, is_float, ..
        } if *is_float => format!("{value:?}"),
        Expr::Literal { value, .. } => format!("{value}"),
        Expr::Neg { arg, .. } => format!("(neg {})", tree(arg)),
        Expr::Binary { op, lhs, rhs, .. } => {
            format!("({} {} {})", op.symbol(), tree(lhs), tree(rhs))
        }
        Expr::Chain { first, rest } => {
            let steps: String = rest
                .iter()
                .map(|link| format!(" {} {}", link.op.symbol(), tree(&link.operand)))
                .collect();
            format!("(chain {}{steps})", tree(first))
        }
        Expr::Call {
            func,
            reduction,
            args,
        } => {
            let axis = reduction.as_ref().map(Reduction::text).unwrap_or_default();
            format!("({func}{axis}{})", operands(args))
        }
        Expr::Cast {
            arg,
            dtype,
            saturating: false,
        } => format!("(as {} {dtype})", tree(arg)),
        Expr::Cast {
            arg,
            dtype,
            saturating: true,
        } => format!("(as-sat {} {dtype})", tree(arg)),
        Expr::Not { arg, .. } => format!("(! {})", tree(arg)),
    }
}

/// Removes the first line when it is blank and the indent every line shares, so that
/// cases can be written indented in the test source.
fn trim_indent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = text
        .lines()
        .map(|line| line.get(indent..).unwrap_or("").trim_end())
        .collect();
    lines.join("\n").trim_end().to_string() + "\n"
}

// Kernels.

#[test]
fn vmla() {
    assert_snapshot!(check(
        r#"
        /// y = a * b + c
        kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
            y[i] = a[i] * b[i] + c[i];
        }
        target npueval_demo;

        schedule hand {
            split i by 2048;
            stage a, b, c, y in ub;
        }
        schedule pipelined {
            parallel i over 8 cores;
            split i by 4096;
            stage a, b, c, y in ub depth 2;   // double buffering
        }
        "#
    ));
}

#[test]
fn compact_text_prints_canonically() {
    assert_snapshot!(check(
        "kernel k(a:[f16;8,],)->(y:[f16;8]){y[i]=((a[i]));}target npueval_demo;schedule s{split i by 4;}"
    ));
}

#[test]
fn broadcast_2d() {
    assert_snapshot!(check(
        r#"
        kernel add_bias(x: [f32; 64, 128], bias: [f32; 128]) -> y: [f32; 64, 128] {
            y[i, j] = x[i, j] + bias[j];
        }
        "#
    ));
}

#[test]
fn reduction() {
    assert_snapshot!(check(
        r#"
        kernel row_sum(x: [f32; 32, 1024]) -> y: [f32; 32] {
            y[i] = sum[k](x[i, k]);
        }
        "#
    ));
}

#[test]
fn matmul() {
    assert_snapshot!(check(
        r#"
        kernel matmul(a: [f16; 256, 512], b: [f16; 512, 128]) -> c: [f32; 256, 128] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;

        schedule cube_tiles {
            cube m by 64, n by 64, k by 32;
            stage a, b in l1 depth 2;
            order n, m;
        }
        "#
    ));
}

#[test]
fn select_and_compare() {
    assert_snapshot!(check(
        r#"
        kernel relu_mask(x: [f16; 4096]) -> y: [f16; 4096] {
            y[i] = select(x[i] > 0.0, x[i], 0.0);
        }
        "#
    ));
}

#[test]
fn constant_subscript_and_calls() {
    assert_snapshot!(check(
        r#"
        kernel softmax_row(x: [f32; 1, 256]) -> y: [f32; 256] {
            y[j] = exp(x[0, j] - max(x[0, j], 1.5)) / 2;
        }
        "#
    ));
}

#[test]
fn several_outputs_and_statements() {
    assert_snapshot!(check(
        r#"
        kernel split_halves(x: [f32; 128]) -> (lo: [f16; 128], hi: [bf16; 128]) {
            lo[i] = x[i] as f16;
            hi[i] = -x[i] as bf16;
        }
        "#
    ));
}

#[test]
fn let_intermediates() {
    assert_snapshot!(check(
        r#"
        kernel softmax(x: [f32; 8, 64]) -> y: [f32; 8, 64] {
            let m[i] = max[k](x[i,k]);
            let e[i, k] = exp(x[i, k] - m[i]);
            let   s[i]=sum[k](e[i, k]);
            y[i, k] = e[i, k] / s[i];
        }
        "#
    ));
}

#[test]
fn argmax_and_scans() {
    assert_snapshot!(check(
        r#"
        kernel k(x: [f16; 8, 64]) -> (y: [f16; 8, 64], at: [i32; 8, 64]) {
            let top[i] = argmax[k:i16](x[i,k]);
            let low[i]=argmin[k](x[i, k]);
            y[i, k] = cumsum[k](x[i, k]) + cumprod[ k : f32 ](x[i, k]) as f16;
            at[i, k] = (top[i] as i32) - (low[i]);
        }
        "#
    ));
}

#[test]
fn let_needs_a_tensor_name() {
    assert_snapshot!(check(
        r#"
        kernel k(x: [f32; 8]) -> y: [f32; 8] {
            let = x[i];
            y[i] = x[i];
        }
        "#
    ));
}

#[test]
fn target_file_and_preset() {
    assert_snapshot!(check(
        r#"
        kernel copy(x: [i8; 64]) -> y: [i8; 64] {
            y[i] = x[i];
        }
        target "targets/my chip.toml";
        target ascend310p;
        "#
    ));
}

#[test]
fn variants_line_prints_after_the_targets() {
    assert_snapshot!(check(
        r#"
        kernel copy(x: [i8; 64]) -> y: [i8; 64] { y[i] = x[i]; }
        schedule hand { split i by 32; stage x, y in ub; }
        variants 4 from "kernels/copy.variants.npu";
        target ascend310p;
        "#
    ));
}

#[test]
fn variants_line_needs_a_count_and_a_path() {
    assert_snapshot!(check(
        r#"
        kernel copy(x: [i8; 64]) -> y: [i8; 64] { y[i] = x[i]; }
        target ascend310p;
        variants from "kernels/copy.variants.npu";
        "#
    ));
}

#[test]
fn doc_lines() {
    assert_snapshot!(check(
        r#"
        /// Copies `x`.
        ///
        ///    Indented text is trimmed.
        #[doc = "two\n  lines"]
        kernel copy(x: [u8; 64]) -> y: [u8; 64] {
            y[i] = x[i];
        }
        "#
    ));
}

#[test]
fn every_schedule_item() {
    assert_snapshot!(check(
        r#"
        kernel scale(x: [f16; 1000, 217]) -> y: [f16; 1000, 217] {
            y[i, j] = x[i, j] * 2;
        }
        target ascend910b;

        schedule all_items {
            parallel i over 40 cores;
            split i by 25;
            split j by 64;
            stage x in ub;
            stage y in ub depth 2;
            tail pad;
            order j, i;
        }
        schedule empty {
        }
        "#
    ));
}

// Expressions.

#[test]
fn precedence() {
    assert_snapshot!(check_exprs(&[
        "a[i] + b[i] * c[i]",
        "(a[i] + b[i]) * c[i]",
        "a[i] - b[i] - c[i]",
        "(a[i] - b[i]) - c[i]",
        "a[i] - (b[i] - c[i])",
        "a[i] / (b[i] * c[i])",
        "a[i] * b[i] / c[i]",
        "a[i] + b[i] < c[i] * 2",
        "(a[i] < b[i]) == (c[i] < 1)",
        "a[i] < b[i] == c[i]",
        "((a[i]))",
    ]));
}

#[test]
fn unary_minus_and_casts() {
    assert_snapshot!(check_exprs(&[
        "-a[i]",
        "- -a[i]",
        "-(a[i] + b[i])",
        "-a[i] * b[i]",
        "a[i] * -b[i]",
        "a[i] - -b[i]",
        "-a[i] as f32",
        "(-a[i]) as f32",
        "(a[i] + 1) as f16",
        "a[i] as f32 as f16",
        "(a[i] as f32) as f16",
        "a[i] as f32 * b[i] as f32",
    ]));
}

#[test]
fn literals() {
    assert_snapshot!(check_exprs(&[
        "0",
        "18446744073709551615",
        "2.0",
        "2.",
        "0.5",
        "1e-7",
        "1.5e3",
        "1e16",
        "1e999",
        "2f32",
        "0.1 + 0.2",
    ]));
}

#[test]
fn calls_and_reductions() {
    assert_snapshot!(check_exprs(&[
        "exp(x[i])",
        "max(a[i], b[i])",
        "select(a[i] >= b[i], a[i], b[i])",
        "sum[k](x[i, k] * w[k])",
        "max[k](x[i, k]) - min[k](x[i, k])",
        "-sum[k](x[k]) as f16",
        "f()",
        "sum[kh, kw](x[i, kh, kw])",
        "sum[k: bf16](x[i, k])",
        "max[kh,kw:f32](x[kh, kw])",
    ]));
}

#[test]
fn bit_operators_bind_as_in_rust() {
    assert_snapshot!(check_exprs(&[
        "a[i] & b[i] | c[i]",
        "a[i] | b[i] & c[i]",
        "a[i] ^ b[i] & c[i] | d[i]",
        "a[i] << 2 + b[i]",
        "a[i] >> 1 << 2",
        "a[i] & 255 == b[i]",
        "a[i] + b[i] >> c[i] * 2",
        "(a[i] | b[i]) & c[i]",
        "a[i] << (b[i] >> 1)",
        "!a[i] & b[i]",
        "!(a[i] & b[i])",
        "!!a[i]",
        "-!a[i]",
        "popcount(a[i] ^ b[i])",
    ]));
}

#[test]
fn math_literals_and_saturating_casts() {
    assert_snapshot!(check_exprs(&[
        "inf",
        "-inf",
        "nan",
        "max(x[i], -inf)",
        "select(x[i] != x[i], 0.0, x[i])",
        "x[i] as sat i8",
        "x[i] * 2.0 as sat u8 as i16",
        "(x[i] + 0.5) as sat i8",
        "-x[i] as sat i8",
        "pow(x[i], 3.0)",
        "pow(x[i], -0.5)",
        "round(sin(x[i]) * 8.0) + floor(x[i])",
        "x[i] as sat",
    ]));
}

#[test]
fn gathers() {
    assert_snapshot!(check_exprs(&[
        "x[idx[i]]",
        "table[idx[i], d] * 2.0",
        "table[idx[b, 2*t + 1], d]",
        "x[idx[i] ]",
    ]));
}

#[test]
fn nested_gathers_say_so() {
    insta::assert_snapshot!(check(
        "kernel k(x: [f32; 64], a: [i32; 64], b: [i32; 64]) -> y: [f32; 64] {\n    y[i] = x[a[b[i]]];\n}\n"
    ));
}

#[test]
fn unsupported_forms_say_so() {
    for (name, expr) in [
        ("logical_and", "a[i] && b[i]"),
        ("logical_or", "a[i] || b[i]"),
        ("chained_subscripts", "a[i][0]"),
        ("method", "a[i].abs()"),
        ("power", "a[i] ** 2"),
        ("reference", "&a[i]"),
        ("question_mark", "a[i]?"),
    ] {
        let text = format!(
            "kernel k(a: [i16; 64], b: [i16; 64]) -> y: [i16; 64] {{\n    y[i] = {expr};\n}}\n"
        );
        insta::assert_snapshot!(format!("unsupported_{name}"), check(&text));
    }
}

// Schedules on their own, as an LLM writes them.

#[test]
fn schedules_only() {
    assert_snapshot!(check_schedules(
        r#"
        schedule small_tiles {
            split i by 512;
            stage a, b, y in ub;
        }

        schedule big_tiles { parallel i over 2 cores; split i by 8192; stage a, b, y in ub depth 2; tail exact; }
        "#
    ));
}

#[test]
fn schedules_only_empty_text() {
    assert_snapshot!(check_schedules(""));
}

#[test]
fn schedules_only_with_kernel() {
    assert_snapshot!(check_schedules(
        r#"
        kernel k(x: [f16; 8]) -> y: [f16; 8] { y[i] = x[i]; }
        "#
    ));
}

// Errors.

#[test]
fn missing_semicolon() {
    assert_snapshot!(check(
        r#"
        kernel vmla(a: [f16; 64], b: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i] * b[i]
        }
        "#
    ));
}

#[test]
fn missing_semicolon_between_statements() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> (y: [f16; 64], z: [f16; 64]) {
            y[i] = a[i]
            z[i] = a[i];
        }
        "#
    ));
}

#[test]
fn unknown_schedule_item() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 4096]) -> y: [f16; 4096] {
            y[i] = a[i];
        }
        schedule s {
            tile i by 64;
            stage a, y in ub;
        }
        "#
    ));
}

#[test]
fn two_unknown_schedule_items() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 4096]) -> y: [f16; 4096] {
            y[i] = a[i];
        }
        schedule s {
            tile i by 64;
            split i by 1024;
            buffer a, y in ub;
        }
        "#
    ));
}

#[test]
fn unknown_schedule_item_among_schedules_only() {
    assert_snapshot!(check_schedules(
        r#"
        schedule s {
            spilt i by 64;
        }
        schedule t {
            vectorize i;
        }
        "#
    ));
}

#[test]
fn bad_token_in_expression() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64], b: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i] + * b[i];
        }
        "#
    ));
}

#[test]
fn unknown_operator_in_expression() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64], b: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i] @ b[i];
        }
        "#
    ));
}

#[test]
fn empty_subscripts() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[] = a[i];
        }
        "#
    ));
}

#[test]
fn tensor_without_subscripts() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[i] = a + 1;
        }
        "#
    ));
}

#[test]
fn scalar_parameters() {
    assert_snapshot!(check(
        r#"
        kernel k(x: [i8; 4096], offset: i8, s: f16,) -> y: [i8; 4096] {
            y[i] = x[i] + offset * (s as i8) - -offset;
        }
        "#
    ));
}

#[test]
fn scalar_output_parses_for_the_checker() {
    assert_snapshot!(check(
        r#"
        kernel k(x: [f32; 64]) -> y: f32 {
            y[i] = x[i];
        }
        "#
    ));
}

#[test]
fn scalar_parameter_without_dtype() {
    assert_snapshot!(check(
        r#"
        kernel k(x: [f32; 64], s:) -> y: [f32; 64] {
            y[i] = x[i];
        }
        "#
    ));
}

#[test]
fn reduction_bracket_mistakes() {
    let mut out = String::new();
    for body in [
        "sum[0](a[i, 0])",
        "sum[i: f32, j](a[i, j])",
        "sum[](a[i, 0])",
        "sum[i:](a[i, 0])",
    ] {
        out += &check(&format!(
            "kernel k(a: [f16; 8, 8]) -> y: [f16; 1] {{ y[0] = {body}; }}"
        ));
        out += "\n";
    }
    assert_snapshot!(out);
}

#[test]
fn reduction_over_two_axes() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 8, 8]) -> y: [f16; 1] {
            y[0] = sum[i, j](a[i, j]);
        }
        "#
    ));
}

#[test]
fn truncated_input() {
    assert_snapshot!(check(
        r#"
        kernel vmla(a: [f16; 64], b: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i] * b[i];
        "#
    ));
}

#[test]
fn truncated_after_signature() {
    assert_snapshot!(check("kernel vmla(a: [f16; 64]) -> y: [f16; 64]"));
}

#[test]
fn truncated_schedule_item() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i];
        }
        schedule s {
            split i by;
        }
        "#
    ));
}

#[test]
fn empty_input() {
    assert_snapshot!(check(""));
}

#[test]
fn garbage() {
    assert_snapshot!(check("Sure! Here is the kernel you asked for."));
}

#[test]
fn unbalanced_garbage() {
    assert_snapshot!(check("fn main() { println!(\"hi\"); ]"));
}

#[test]
fn attribute_other_than_doc() {
    assert_snapshot!(check(
        r#"
        #[inline]
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i];
        }
        "#
    ));
}

#[test]
fn trailing_junk_after_kernel() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i];
        }
        schedual s {
            split i by 8;
        }
        "#
    ));
}

#[test]
fn negative_shape() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; -64]) -> y: [f16; 64] {
            y[i] = a[i];
        }
        "#
    ));
}

#[test]
fn negative_subscript() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 63] {
            y[i] = a[i] - a[-1];
        }
        "#
    ));
}

#[test]
fn integer_too_large() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 99999999999999999999]) -> y: [f16; 64] {
            y[i] = a[i];
        }
        "#
    ));
}

#[test]
fn unterminated_string() {
    assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i];
        }
        target "targets/chip.toml;
        "#
    ));
}

#[test]
fn markdown_fence_around_schedules() {
    assert_snapshot!(check_schedules(
        r#"
        ```
        schedule s {
            split i by 64;
        }
        ```
        "#
    ));
}

#[test]
fn truncated_schedules_only() {
    assert_snapshot!(check_schedules("schedule s"));
}

// Windows: affine subscripts, window reductions and padded views.

#[test]
fn affine_subscripts() {
    insta::assert_snapshot!(check_exprs(&[
        "x[4 * i + k]",
        "x[2*i + k - 1]",
        "x[i*2+1]",
        "x[i + 1 - 3 + k]",
        "x[c, 2*h + kh, 2*w + kw]",
        "x[i + 0]",
        "x[1 + 2]",
        "x[1 - 2]",
        "max[k < 3](x[2*i + k])",
        "sum[k](pad(x, 0)[t + k - 2] * w[o, k])",
        "pad(m, -1.5)[i - 1, j - 1]",
    ]));
}

#[test]
fn affine_subscript_errors() {
    insta::assert_snapshot!(check(
        "
        kernel k(x: [f32; 64]) -> y: [f32; 60] {
            y[i] = x[4 - i];
        }
        "
    ));
    insta::assert_snapshot!(
        "affine_zero_coefficient",
        check(
            "
        kernel k(x: [f32; 64]) -> y: [f32; 60] {
            y[i] = x[0*i + 1];
        }
        "
        )
    );
    insta::assert_snapshot!(
        "window_extent_needs_a_number",
        check(
            "
        kernel k(x: [f32; 64]) -> y: [f32; 60] {
            y[i] = max[k < n](x[i + k]);
        }
        "
        )
    );
}
