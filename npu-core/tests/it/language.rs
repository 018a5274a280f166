//! The language front end on the forms of issue 23's items 6 to 8: `let` extents,
//! literal dtypes, typing helps that rewrite a statement, gathers and keywords. Each
//! test names its item; a help that names an edit is applied and checked again.

use npu_core::ir::{Expr, Role};
use npu_core::{CheckedKernel, Code, Diagnostics, Target, check_source_with};

fn check(source: &str) -> Result<CheckedKernel, Diagnostics> {
    check_source_with(source, |path| Err(format!("no such file: {path}")))
}

/// The diagnostics of a kernel the checker must refuse.
fn refused(source: &str) -> Diagnostics {
    match check(source) {
        Ok(_) => panic!("accepted:\n{source}"),
        Err(diagnostics) => diagnostics,
    }
}

fn accepted(source: &str) -> CheckedKernel {
    check(source).unwrap_or_else(|d| panic!("refused:\n{source}\n{}", d.render(source)))
}

/// The one diagnostic of `code` in `diagnostics`.
fn only(diagnostics: &Diagnostics, code: Code) -> &npu_core::Diagnostic {
    let found: Vec<_> = diagnostics.iter().filter(|d| d.code == code).collect();
    assert_eq!(found.len(), 1, "{:?}", diagnostics.list);
    found[0]
}

/// The statement a help rewrites a kernel's statement to: the help's last quoted text.
fn rewritten_statement(help: &str) -> &str {
    let end = help.rfind('`').expect("a quoted statement");
    let start = help[..end].rfind('`').expect("a quoted statement") + 1;
    &help[start..end]
}

/// `source` with the statement writing `output` (a `let` or an output statement)
/// replaced by `statement`.
fn replace_statement(source: &str, output: &str, statement: &str) -> String {
    let body_start = source.find('{').unwrap() + 1;
    let body_end = source.find("}\n").unwrap();
    let statements: Vec<String> = source[body_start..body_end]
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            let name = s
                .trim_start_matches("let ")
                .split(['[', ' '])
                .next()
                .unwrap();
            if name == output {
                statement.trim_end_matches(';').to_string()
            } else {
                s.to_string()
            }
        })
        .collect();
    format!(
        "{} {}; {}",
        &source[..body_start],
        statements.join("; "),
        &source[body_end..]
    )
}

/// Applies the help of each E026 of `source` (each rewrites one statement, of the
/// output `outputs[n]`) and checks that the kernel is then accepted.
fn helps_clear(source: &str, outputs: &[&str]) {
    let diagnostics = refused(source);
    let e026: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.code == Code::E026)
        .collect();
    assert_eq!(e026.len(), outputs.len(), "{}", diagnostics.render(source));
    let mut fixed = source.to_string();
    for (diagnostic, output) in e026.iter().zip(outputs) {
        let help = diagnostic.help.as_deref().expect("a help");
        fixed = replace_statement(&fixed, output, rewritten_statement(help));
    }
    accepted(&fixed);
}

// Item 6: a `let` axis takes the extent an output statement gives it.
#[test]
fn item6_let_axis_takes_its_extent_from_the_output() {
    let kernel = accepted(
        "kernel l(x: [bf16; 64], z: [bf16; 64]) -> y: [bf16; 64] { let m[i] = max[k](x[k]); y[i] = z[i] - m[i]; }\n\
         target aie2_tile;\nschedule s { stage x, z, y in ub depth 1; }\n",
    );
    let m = kernel.tensors.iter().find(|t| t.name == "m").unwrap();
    assert_eq!((m.role, m.shape.as_slice()), (Role::Local, &[64][..]));
}

// Item 6: an axis no statement and no output fixes is one E011, and the readers of the
// failed `let` are not reported as unknown tensors (E002).
#[test]
fn item6_a_failed_let_still_declares_its_name() {
    let source = "kernel l(x: [f32; 64], z: [f32; 64]) -> y: [f32; 64] { let m[j] = max[k](x[k]); y[i] = z[i] - m[i] + m[j]; }\n\
                  target ascend910b;\nschedule s { stage x, z, y in ub depth 1; }\n";
    let diagnostics = refused(source);
    let e011 = only(&diagnostics, Code::E011);
    assert!(e011.message.contains("`j`"), "{}", e011.message);
    assert!(
        !diagnostics.codes().contains(&Code::E002),
        "{}",
        diagnostics.render(source)
    );
}

// Item 6: the extent comes from a later statement's read when no output has the axis.
#[test]
fn item6_let_axis_extent_from_a_later_read() {
    let kernel = accepted(
        "kernel l(x: [f32; 16], w: [f32; 32, 64]) -> y: [f32; 32] { let m[d] = max[k](x[k]); y[i] = sum[d](w[i, d] * m[d]); }\n\
         target ascend910b;\nschedule s { stage x, w, y in ub depth 1; }\n",
    );
    let m = kernel.tensors.iter().find(|t| t.name == "m").unwrap();
    assert_eq!(m.shape, [64]);
}

/// Every node's dtype in the body of `kernel`.
fn dtypes(kernel: &CheckedKernel) -> Vec<npu_core::Dtype> {
    let mut out = Vec::new();
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if !matches!(node, Expr::Compare { .. }) {
                out.push(node.dtype())
            }
        });
    }
    out
}

// Item 8b: a select of float literals, nested, takes the output's dtype (bf16 on
// aie2_tile, whose unit has no f32), as integer literals do.
#[test]
fn item8b_select_of_float_literals_takes_the_context_dtype() {
    let kernel = accepted(
        "kernel sg(x: [bf16; 64]) -> y: [bf16; 64] { y[i] = select(x[i] > 0.0, 1.0, select(x[i] < 0.0, 2.0, 0.0)); }\n\
         target aie2_tile;\nschedule s { stage x, y in ub depth 1; }\n",
    );
    assert!(dtypes(&kernel).iter().all(|d| *d == npu_core::Dtype::Bf16));
}

// Item 8b: a sum of selects of integer literals is computed in the output's dtype.
#[test]
fn item8b_selects_of_integer_literals_in_a_sum_take_the_output_dtype() {
    let kernel = accepted(
        "kernel sel(x: [i8; 64]) -> y: [i8; 64] { y[i] = select(x[i] > 0, 1, 0) + select(x[i] < 0, 2, 0); }\n\
         target aie2_tile;\nschedule s { stage x, y in ub depth 1; }\n",
    );
    assert!(dtypes(&kernel).iter().all(|d| *d == npu_core::Dtype::I8));
}

// A count: a fold of selects between literals reads a tensor in its condition, so it
// is no constant; with no context inside the fold, it takes i32 (f32 for a fraction),
// a scan as a reduction. A fold of literals alone still is refused.
#[test]
fn a_fold_of_literal_selects_counts_in_i32_or_f32() {
    let kernel = accepted(
        "kernel count(x: [f32; 8, 64], t: f32) -> (n: [i32; 8], share: [f32; 8]) {\n\
             n[i] = sum[k](select(x[i, k] > t, 1, 0));\n\
             share[i] = sum[k](select(x[i, k] > t, 1.0, 0.0)) / 64.0;\n\
         }\ntarget ascend910b;\nschedule s { stage x, n, share in ub depth 1; }\n",
    );
    let folds: Vec<_> = kernel
        .body
        .iter()
        .map(|assign| {
            let mut fold = None;
            assign.value.walk(&mut |node| {
                if let Expr::Reduce { dtype, .. } = node {
                    fold = Some(*dtype);
                }
            });
            fold
        })
        .collect();
    assert_eq!(
        folds,
        [Some(npu_core::Dtype::I32), Some(npu_core::Dtype::F32)]
    );
    accepted(
        "kernel running(x: [f32; 8, 64]) -> y: [i16; 8, 64] { y[i, k] = cumsum[k](select(x[i, k] > 0.0, 1, 0)) as i16; }\n\
         target ascend910b;\nschedule s { stage x, y in ub depth 1; }\n",
    );
    let diagnostics = refused(
        "kernel k(x: [f32; 8, 64]) -> y: [i32; 8] { y[i] = sum[k < 64](3); }\n\
         target ascend910b;\nschedule s { stage x, y in ub depth 1; }\n",
    );
    assert!(
        only(&diagnostics, Code::E010)
            .message
            .contains("over a constant")
    );
}

// Item 8b: a select of an integer and a float literal is a float literal.
#[test]
fn item8b_select_of_mixed_literals_is_a_float() {
    let source = "kernel sg(x: [i16; 64]) -> y: [i16; 64] { y[i] = x[i] + select(x[i] > 0, 1, 0.5); }\n\
                  target ascend910b;\nschedule s { stage x, y in ub depth 1; }\n";
    let diagnostics = refused(source);
    assert!(
        only(&diagnostics, Code::E010)
            .message
            .contains("floating-point literal")
    );
}

// A literal its context's dtype cannot hold is refused at its token, not rounded to
// an infinity or wrapped; one at the edge of the range (a negated one too) is kept.
#[test]
fn literals_that_do_not_fit_their_dtype_are_refused() {
    for (dtype, body, literal, target) in [
        ("f16", "x[i] * 100000.0", "100000", "ascend910b"),
        ("f32", "x[i] + 1.0e39", "1e39", "ascend910b"),
        ("i8", "x[i] + 300", "300", "aie2_tile"),
        ("i8", "max(x[i], -129)", "-129", "aie2_tile"),
        ("u8", "select(x[i] > 0, 256, 0)", "256", "aie2_tile"),
    ] {
        let source = format!(
            "kernel lit(x: [{dtype}; 64]) -> y: [{dtype}; 64] {{ y[i] = {body}; }}\n\
             target {target};\nschedule s {{ stage x, y in ub depth 1; }}\n"
        );
        let diagnostic = only(&refused(&source), Code::E010).clone();
        assert!(
            diagnostic
                .message
                .starts_with(&format!("the literal {literal} does not fit {dtype}")),
            "{body}: {}",
            diagnostic.message
        );
    }
    for (dtype, body, target) in [
        ("f16", "min(x[i] * 65504.0, inf) - 65504.0", "ascend910b"),
        (
            "i8",
            "max(x[i], -128) + select(x[i] > 0, 127, 0)",
            "aie2_tile",
        ),
        ("u8", "x[i] & 255", "aie2_tile"),
        // A cast wraps as documented: 300 as i8 is 44.
        ("i8", "x[i] + (300 as i8)", "aie2_tile"),
    ] {
        accepted(&format!(
            "kernel lit(x: [{dtype}; 64]) -> y: [{dtype}; 64] {{ y[i] = {body}; }}\n\
             target {target};\nschedule s {{ stage x, y in ub depth 1; }}\n"
        ));
    }
}

// A saturating cast clamps a literal as written: `1e6 as sat f16` reads 1e6, which
// the cast takes to 65504, not the infinity 1e6 is in f16.
#[test]
fn a_saturating_cast_of_a_literal_clamps_the_literal_as_written() {
    let kernel = accepted(
        "kernel sc(x: [f16; 64]) -> y: [f16; 64] { y[i] = x[i] + (1.0e6 as sat f16); }\n\
         target ascend910b;\nschedule s { stage x, y in ub depth 1; }\n",
    );
    let mut constants = Vec::new();
    kernel.body[0].value.walk(&mut |node| {
        if let npu_core::ir::Expr::Const { value, .. } = node {
            constants.push(*value);
        }
    });
    assert_eq!(constants, [1.0e6]);
}

// A split of a sum's lane-folded axis must keep the lanes whole [E032]; the fix adds
// `tail pad;` only to a schedule without a tail item, before or after the split.
#[test]
fn a_lane_split_fix_adds_a_tail_item_only_where_none_is() {
    let kernel = "kernel rs(x: [f32; 100, 217]) -> y: [f32; 100] { y[i] = sum[k](x[i, k]); }\n\
                  target ascend910b;\n";
    for (items, help) in [
        (
            "split k by 100; stage x, y in ub depth 2; tail pad;",
            "split k by 64",
        ),
        (
            "tail pad; split k by 100; stage x, y in ub depth 2;",
            "split k by 64",
        ),
        (
            "split k by 100; stage x, y in ub depth 2;",
            "split k by 64 and add `tail pad;`",
        ),
    ] {
        let source = format!("{kernel}schedule s {{ {items} }}\n");
        let diagnostic = only(&refused(&source), Code::E032).clone();
        assert!(
            diagnostic.message.contains("folds in 64 lanes"),
            "{}",
            diagnostic.message
        );
        assert_eq!(diagnostic.help.as_deref(), Some(help), "{items}");
    }
}

// Item 8a: an argmax whose index dtype the unit lacks: the help casts the index.
#[test]
fn item8a_argmax_into_an_index_dtype_the_unit_lacks() {
    for (dtype, target, input) in [
        ("u8", "ascend910b", "f32"),
        ("i8", "ascend310p", "f16"),
        ("u32", "aie2_tile", "bf16"),
        ("u16", "aie2_tile", "bf16"),
    ] {
        let source = format!(
            "kernel am(x: [{input}; 32, 64]) -> result: [{dtype}; 32] {{ result[r] = argmax[k](x[r, k]); }}\n\
             target {target};\nschedule s {{ stage x, result in ub depth 1; }}\n"
        );
        let diagnostics = refused(&source);
        let help = only(&diagnostics, Code::E026).help.clone().unwrap();
        assert!(
            help.contains(&format!("argmax[k](x[r, k]) as {dtype}")),
            "{help}"
        );
        helps_clear(&source, &["result"]);
    }
}

// Item 8a: E026 helps for a dtype the unit lacks rewrite the statement, and the
// rewrite checks: bf16 on ascend910b, in a `let`, a comparison and a select.
#[test]
fn item8a_e026_helps_are_statements_that_check() {
    helps_clear(
        "kernel l(x: [bf16; 64], z: [bf16; 64]) -> y: [bf16; 64] { let m[i] = max[k](x[k]); y[i] = z[i] - m[i]; }\n\
         target ascend910b;\nschedule s { stage x, z, y in ub depth 1; }\n",
        &["m", "y"],
    );
    helps_clear(
        "kernel sg(x: [bf16; 64]) -> y: [bf16; 64] { y[i] = select(x[i] > 0.0, 1.0, select(x[i] < 0.0, 2.0, 0.0)); }\n\
         target ascend910b;\nschedule s { stage x, y in ub depth 1; }\n",
        &["y"],
    );
    helps_clear(
        "kernel a(x: [u8; 64], b: [u8; 64]) -> y: [u8; 64] { y[i] = max(x[i], b[i]) / 2; }\n\
         target ascend910b;\nschedule s { stage x, b, y in ub depth 1; }\n",
        &["y"],
    );
}

#[allow(dead_code)]
fn preset(name: &str) -> Target {
    Target::preset(name).unwrap()
}

// Item 8c: a nested gather is E037, the code docs/dsl.md gives it, with a help.
#[test]
fn item8c_nested_gather_is_e037() {
    let source = "kernel ng(table: [f32; 64, 16], a: [i32; 64], b: [i32; 32]) -> y: [f32; 32, 16] { y[i, d] = table[a[b[i]], d]; }\n\
                  target ascend910b;\nschedule s { stage table, a, b, y in ub depth 1; }\n";
    let diagnostics = refused(source);
    assert_eq!(
        diagnostics.codes(),
        [Code::E037],
        "{}",
        diagnostics.render(source)
    );
    let help = diagnostics.list[0].help.as_deref().unwrap();
    assert!(help.contains("`a[b[i]]`"), "{help}");
}

// Item 8d: an out-of-range read of a gather's index suggests no `pad(idx, 0)[..]`,
// which a subscript cannot hold; the help it gives checks.
#[test]
fn item8d_gather_index_help_parses_and_checks() {
    // (output extent, the read, what the help says, the source edit it names)
    let cases = [
        (
            32,
            "idx[i + 1]",
            "give `idx` extent 33",
            ("idx: [i32; 32]", "idx: [i32; 33]"),
        ),
        (
            48,
            "idx[i]",
            "give `idx` extent 48",
            ("idx: [i32; 32]", "idx: [i32; 48]"),
        ),
        (
            32,
            "idx[40]",
            "use an index below 32",
            ("idx[40]", "idx[31]"),
        ),
        (
            32,
            "idx[i - 1]",
            "write `i + 0` there",
            ("idx[i - 1]", "idx[i + 0]"),
        ),
    ];
    for (output, read, says, (from, to)) in cases {
        let source = format!(
            "kernel g(x: [f32; 64], idx: [i32; 32]) -> y: [f32; {output}] {{ y[i] = x[{read}]; }}\n\
             target ascend910b;\nschedule s {{ stage x, idx, y in ub depth 1; tail pad; }}\n"
        );
        let diagnostics = refused(&source);
        let help = only(&diagnostics, Code::E012).help.clone().unwrap();
        assert!(!help.contains("pad("), "{help}");
        assert!(help.contains(says), "{help}");
        accepted(&source.replace(from, to));
    }
}

// Item 8f: a Rust keyword as a tensor name says so and names the raw identifier,
// which works and prints back as written.
#[test]
fn item8f_keywords_as_tensor_names() {
    for source in [
        "kernel k(in: [f32; 64]) -> y: [f32; 64] { y[i] = in[i]; }",
        "kernel k(x: [f32; 64]) -> y: [f32; 64] { y[i] = in[i]; }",
        "kernel k(x: [f32; 64]) -> y: [f32; 64] { let in[i] = x[i]; y[i] = x[i]; }",
    ] {
        let source = format!("{source}\ntarget ascend910b;\nschedule s {{ stage x, y in ub; }}\n");
        let diagnostics = refused(&source);
        let e001 = only(&diagnostics, Code::E001);
        assert!(
            e001.message.contains("`in` is a Rust keyword") && e001.message.contains("`r#in`"),
            "{}",
            e001.message
        );
    }
    let source = "kernel k(r#in: [f32; 64]) -> y: [f32; 64] { y[i] = r#in[i] * 2.0; }\ntarget ascend910b;\nschedule s { stage r#in, y in ub depth 1; }\n";
    let kernel = accepted(source);
    assert!(
        kernel.source.contains("y[i] = r#in[i] * 2.0;"),
        "{}",
        kernel.source
    );
    accepted(&kernel.source);
}

// Item 7: a 0-d `let` (a whole-vector max or sum) is declared without subscripts
// and read by its bare name at every element; it prints back as written.
#[test]
fn item7_zero_d_let_checks_and_prints_back() {
    let source = "kernel sm(x: [f32; 64]) -> y: [f32; 64] { let m = max[i](x[i]); let e[i] = exp(x[i] - m); let s = sum[i](e[i]); y[i] = e[i] / s; }\ntarget ascend910b;\nschedule s { stage x, y in ub depth 1; }\n";
    let kernel = accepted(source);
    let m = kernel.tensors.iter().find(|t| t.name == "m").unwrap();
    assert_eq!(
        (m.role, m.shape.len(), m.is_scalar()),
        (Role::Local, 0, false)
    );
    assert!(
        kernel.source.contains("let m = max[i](x[i]);"),
        "{}",
        kernel.source
    );
    assert!(
        kernel.source.contains("y[i] = e[i] / s;"),
        "{}",
        kernel.source
    );
    accepted(&kernel.source);
}

// Item 7: a 0-d `let` read with subscripts is E011 with a help; a 0-d output is
// written by its bare name and copied out as the one element of a `[f32; 1]` would be.
#[test]
fn item7_zero_d_lets_and_outputs() {
    let local = "kernel sm(x: [f32; 64]) -> y: [f32; 64] { let m = max[i](x[i]); y[i] = x[i] - m[i]; }\ntarget ascend910b;\nschedule s { stage x, y in ub depth 1; }\n";
    let diagnostics = refused(local);
    let help = only(&diagnostics, Code::E011).help.clone().unwrap();
    assert!(help.contains("bare name"), "{help}");
    accepted(&local.replace("m[i]", "m"));
    let brackets = local.replace("let m = ", "let m[] = ").replace("m[i]", "m");
    let diagnostics = refused(&brackets);
    let e001 = only(&diagnostics, Code::E001);
    assert!(e001.message.contains("`let m = ...;`"), "{}", e001.message);

    let output = "kernel s0(x: [f32; 64]) -> y: f32 { y = sum[k](x[k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub depth 1; tail pad; }\n";
    accepted(output);
    // Its copy is 4 B, as a `[f32; 1]`'s is: unaligned without `tail pad;`.
    let unpadded = output.replace(" tail pad;", "");
    let one = unpadded
        .replace("y: f32", "y: [f32; 1]")
        .replace("y = ", "y[i] = ");
    assert_eq!(refused(&unpadded).codes(), refused(&one).codes());
    let subscripted = output.replace("y = ", "y[i] = ");
    let diagnostics = refused(&subscripted);
    let help = only(&diagnostics, Code::E011).help.clone().unwrap();
    assert!(help.contains("`y = ...;`"), "{help}");
}

/// A kernel with an empty body is one E031 per output, whose help names `autotune
/// draft`; a body with statements keeps the plain help.
#[test]
fn an_empty_body_points_at_autotune_draft() {
    let target = npu_core::Target::preset("ascend910b").unwrap();
    let source = "/// y = 2x\nkernel k(x: [f32; 64]) -> y: [f32; 64] {}\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    let error = npu_core::check_source(source, &target).unwrap_err();
    assert_eq!(error.codes(), [npu_core::Code::E031]);
    assert!(
        error
            .render(source)
            .contains("`autotune draft FILE --kernel k`")
    );
    let partial = source.replace(
        "kernel k(x: [f32; 64]) -> y: [f32; 64] {}",
        "kernel k(x: [f32; 64]) -> (y: [f32; 64], z: [f32; 64]) { y[i] = x[i]; }",
    );
    let error = npu_core::check_source(&partial, &target).unwrap_err();
    assert!(!error.render(&partial).contains("autotune draft"));
}

/// `min` and `max` take two arguments or more, folded left to right; fewer than two
/// is E003 saying so.
#[test]
fn min_and_max_take_two_arguments_or_more() {
    let kernel = |body: &str| {
        format!(
            "kernel p(a: [f32; 64], b: [f32; 64], c: [f32; 64]) -> y: [f32; 64] {{\n    {body}\n}}\ntarget ascend910b;\nschedule s {{ stage a, b, c, y in ub; }}\n"
        )
    };
    let three = accepted(&kernel("y[t] = max(a[t], b[t], c[t]);"));
    let nested = accepted(&kernel("y[t] = max(max(a[t], b[t]), c[t]);"));
    assert_eq!(format!("{:?}", three.body), format!("{:?}", nested.body));
    let one = refused(&kernel("y[t] = min(a[t]);"));
    let diagnostic = only(&one, Code::E003);
    assert_eq!(
        diagnostic.message,
        "`min` takes 2 arguments or more but was given 1"
    );
}

// A `stage` item that lists an intermediate reads as if it were removed, as its help
// says: the rest of the schedule is still checked (here, too many cores and a split
// reduced axis), so removing it reveals nothing that held before.
#[test]
fn a_staged_intermediate_hides_no_other_error() {
    let source = "kernel soft(s: [f32; 256, 1024]) -> p: [f32; 256, 1024] {
            let m[r] = max[c](s[r, c]);
            let e[r, c] = exp(s[r, c] - m[r]);
            p[r, c] = e[r, c] / m[r];
        }
        target ascend910b;
        schedule s { parallel r over 48 cores; split c by 512; stage s, p in ub depth 2; stage e in ub depth 1; }\n";
    let diagnostics = refused(source);
    let codes = diagnostics.codes();
    assert!(
        codes.contains(&Code::E024),
        "{}",
        diagnostics.render(source)
    );
    let e035 = diagnostics.iter().filter(|d| d.code == Code::E035).count();
    assert_eq!(e035, 2, "{}", diagnostics.render(source));
}

// A fused row too long for the UB at every tile: the help says why no tile shrinks
// (the reduced axis stays whole) and what does fit, not "stage fewer tensors", which
// leads back to the same schedule.
#[test]
fn a_fused_row_too_long_for_the_ub_says_what_stays_whole() {
    let source = "kernel log_softmax(x: [f32; 64, 32000]) -> y: [f32; 64, 32000] {
            let m[t] = max[v](x[t, v]);
            let z[t] = sum[v](exp(x[t, v] - m[t]));
            y[t, v] = x[t, v] - (log(z[t]) + m[t]);
        }
        target ascend910b;
        schedule s { parallel t over 32 cores; split t by 1; stage x, y in ub depth 1; }\n";
    let diagnostics = refused(source);
    let e020 = only(&diagnostics, Code::E020);
    let help = e020.help.as_deref().unwrap_or_default();
    assert!(help.contains("`v` must stay whole"), "{help}");
    assert!(help.contains("a kernel of its own"), "{help}");
}

// The rules that read tiles run too beside a staged intermediate: a row too long for
// the UB is reported with it.
#[test]
fn a_staged_intermediate_hides_no_capacity_error() {
    let source = "kernel soft(s: [f32; 64, 60000]) -> p: [f32; 64, 60000] {
            let m[r] = max[c](s[r, c]);
            p[r, c] = s[r, c] - m[r];
        }
        target ascend910b;
        schedule s { split r by 1; stage s, p in ub depth 1; stage m in ub depth 1; }\n";
    let diagnostics = refused(source);
    let codes = diagnostics.codes();
    assert!(
        codes.contains(&Code::E035),
        "{}",
        diagnostics.render(source)
    );
    assert!(
        codes.contains(&Code::E020),
        "{}",
        diagnostics.render(source)
    );
}
