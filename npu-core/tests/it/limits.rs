//! Pathological input gets a bounded answer: nesting past the parser's limit is one
//! E007 at the token where the limit is passed (on a 2 MiB thread, the size of a test
//! thread, in a debug build), and thousands of repeated mistakes give a bounded list
//! of diagnostics and a bounded rendering. How long these cases take is measured by
//! `cargo bench -p npu-core --bench pathological`, never asserted here.

use npu_core::internal::parse_schedules_str;
use npu_core::{Code, DiagnosticRecord, Diagnostics, Target, check_source};
use npu_core::{EXCERPT_CHARS, MAX_SHOWN_PER_CODE};
use npu_core::{MAX_CHAIN_TERMS, MAX_EXPR_DEPTH, MAX_GROUP_DEPTH};

/// Runs `f` on a thread with a 2 MiB stack, the size of a test thread: deep input
/// must not need more.
fn on_small_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(scope, f)
            .expect("a thread starts")
            .join()
            .expect("no panic and no stack overflow")
    })
}

/// A kernel whose one statement is `y[i] = EXPR;`, all on line 1.
const PREFIX: &str = "kernel k(a: [f32; 64]) -> y: [f32; 64] { y[i] = ";
const SUFFIX: &str = "; } target npueval_demo; schedule s { stage a, y in ub; }";

/// The diagnostics of `y[i] = expr;`, checked on a 2 MiB stack.
fn check_expr(expr: String) -> Vec<DiagnosticRecord> {
    let source = format!("{PREFIX}{expr}{SUFFIX}");
    let target = Target::preset("npueval_demo").unwrap();
    on_small_stack(move || match check_source(&source, &target) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics.records(),
    })
}

/// The 1-based column of the `n`-th (1-based) `needle` on line 1, after `PREFIX`.
fn column_of(expr: &str, needle: &str, n: usize) -> usize {
    let (offset, _) = expr.match_indices(needle).nth(n - 1).expect("occurs");
    PREFIX.len() + offset + 1
}

/// (code, line, column, message) of each record.
fn positions(records: &[DiagnosticRecord]) -> Vec<(Code, usize, usize, String)> {
    records
        .iter()
        .map(|r| (r.code, r.line, r.column, r.message.clone()))
        .collect()
}

#[test]
fn parentheses_past_the_limit_are_one_e007_at_the_first_too_deep() {
    let expr = format!("{}a[i]{}", "(".repeat(40_000), ")".repeat(40_000));
    // The body's `{` is delimiter level 1, so the n-th `(` is level n + 1: the first
    // past MAX_GROUP_DEPTH is the one at n = MAX_GROUP_DEPTH.
    let column = column_of(&expr, "(", MAX_GROUP_DEPTH);
    assert_eq!(
        positions(&check_expr(expr)),
        [(
            Code::E007,
            1,
            column,
            format!("delimiters nest deeper than {MAX_GROUP_DEPTH} levels")
        )]
    );
}

#[test]
fn calls_past_the_limit_are_one_e007() {
    let too_deep = format!("expression nests deeper than {MAX_EXPR_DEPTH} levels");
    // Few enough `abs(` for the delimiter limit to pass them: the call limit says no
    // at the call that would be level MAX_EXPR_DEPTH + 1.
    let calls = MAX_EXPR_DEPTH + 4;
    let expr = format!("{}a[i]{}", "abs(".repeat(calls), ")".repeat(calls));
    let column = column_of(&expr, "abs", MAX_EXPR_DEPTH + 1);
    assert_eq!(
        positions(&check_expr(expr)),
        [(Code::E007, 1, column, too_deep)]
    );
    // Thousands are stopped by the delimiter limit first.
    let expr = format!("{}a[i]{}", "abs(".repeat(6_000), ")".repeat(6_000));
    let column = column_of(&expr, "(", MAX_GROUP_DEPTH);
    let records = check_expr(expr);
    assert_eq!(
        positions(&records)
            .into_iter()
            .map(|(code, line, column, _)| (code, line, column))
            .collect::<Vec<_>>(),
        [(Code::E007, 1, column)]
    );
    assert!(records[0].help.is_some());
}

#[test]
fn unary_minus_past_the_limit_is_one_e007() {
    let expr = format!("{}a[i]", "- ".repeat(20_000));
    let column = column_of(&expr, "-", MAX_EXPR_DEPTH + 1);
    assert_eq!(
        positions(&check_expr(expr)),
        [(
            Code::E007,
            1,
            column,
            format!("expression nests deeper than {MAX_EXPR_DEPTH} levels")
        )]
    );
}

#[test]
fn operator_and_cast_chains_past_the_limit_are_one_e007() {
    // `a + a + ...` is one chain node of any length up to MAX_CHAIN_TERMS operands:
    // the operator that brings in operand MAX_CHAIN_TERMS + 1 is refused.
    let expr = vec!["a[i]"; 100_000].join(" + ");
    let column = column_of(&expr, "+", MAX_CHAIN_TERMS);
    assert_eq!(
        positions(&check_expr(expr)),
        [(
            Code::E007,
            1,
            column,
            format!("operator chain has more than {MAX_CHAIN_TERMS} operands")
        )]
    );
    // Mixed `+` and `-` are one chain too, refused at the operator that brings in
    // operand MAX_CHAIN_TERMS + 1; a comparison chains nothing, so `<` after `<` nests
    // as before and is refused at the depth limit.
    let mut expr = String::from("a[i]");
    let mut column = 0;
    for n in 1..=MAX_CHAIN_TERMS {
        if n == MAX_CHAIN_TERMS {
            column = PREFIX.len() + expr.len() + 2;
        }
        expr.push_str(if n % 2 == 0 { " + 1.0" } else { " - a[i]" });
    }
    assert_eq!(
        positions(&check_expr(expr)),
        [(
            Code::E007,
            1,
            column,
            format!("operator chain has more than {MAX_CHAIN_TERMS} operands")
        )]
    );
    let expr = vec!["a[i]"; 1_000].join(" < ");
    let column = column_of(&expr, "<", MAX_EXPR_DEPTH);
    assert_eq!(
        positions(&check_expr(expr)),
        [(
            Code::E007,
            1,
            column,
            format!("expression nests deeper than {MAX_EXPR_DEPTH} levels")
        )]
    );
    // Casts likewise, blamed at the dtype of the cast too many.
    let expr = format!("a[i]{}", " as f32".repeat(10_000));
    let column = column_of(&expr, "f32", MAX_EXPR_DEPTH);
    assert_eq!(
        positions(&check_expr(expr)),
        [(
            Code::E007,
            1,
            column,
            format!("expression nests deeper than {MAX_EXPR_DEPTH} levels")
        )]
    );
}

#[test]
fn a_flat_chain_at_the_limit_checks_on_a_small_stack() {
    // Every operator of both binding powers' chains, MAX_CHAIN_TERMS operands each.
    for op in [" + ", " - ", " * ", " / "] {
        let expr = vec!["a[i]"; MAX_CHAIN_TERMS].join(op);
        assert_eq!(positions(&check_expr(expr)), [], "a chain of `{op}`");
    }
    let expr = (0..MAX_CHAIN_TERMS)
        .map(|n| ["a[i]", "0.5", "exp(a[i])", "a[i] * 2.0"][n % 4])
        .enumerate()
        .map(|(n, term)| match n {
            0 => term.to_string(),
            _ if n % 3 == 0 => format!(" - {term}"),
            _ => format!(" + {term}"),
        })
        .collect::<String>();
    assert_eq!(positions(&check_expr(expr)), []);
}

#[test]
fn an_attribute_with_a_deep_value_is_refused_without_parsing_it() {
    // syn would parse the value of `#[doc = ...]` as a Rust expression, recursively.
    let source = format!(
        "#[doc = \"y\" {}1] kernel k(a: [f32; 64]) -> y: [f32; 64] {{ y[i] = a[i]; }}",
        "- ".repeat(20_000)
    );
    let records = on_small_stack(move || {
        npu_core::internal::parse_str(&source)
            .unwrap_err()
            .records()
    });
    assert_eq!(
        positions(&records),
        [(
            Code::E001,
            1,
            1,
            "only `///` doc comments may precede `kernel`".to_string()
        )]
    );
}

#[test]
fn schedule_text_nested_past_the_limit_is_e007() {
    // The LLM reply extractor parses schedule blocks on their own.
    let text = format!(
        "schedule s {{ split i by {}1{}; }}",
        "(".repeat(40_000),
        ")".repeat(40_000)
    );
    let records = on_small_stack(move || parse_schedules_str(&text).unwrap_err().records());
    assert_eq!(
        records.iter().map(|r| r.code).collect::<Vec<_>>(),
        [Code::E007]
    );
}

/// A vmla kernel on the demo target with `items` as its schedule.
fn vmla(items: &str) -> String {
    format!(
        "kernel vmla(a: [f16; 4096], b: [f16; 4096]) -> y: [f16; 4096] {{ y[i] = a[i] * b[i]; }}\n\
         target npueval_demo;\n\
         schedule s {{\n    split i by 1000;\n    stage a, b, y in ub;\n{items}}}\n"
    )
}

fn check(source: &str) -> Diagnostics {
    let target = Target::preset("npueval_demo").unwrap();
    check_source(source, &target).expect_err("rejected")
}

#[test]
fn thousands_of_duplicate_items_show_twenty_and_a_count() {
    let source = vmla(&"    tail pad;\n".repeat(8_000));
    let diagnostics = check(&source);
    // Every duplicate is found; what is shown is bounded.
    assert_eq!(diagnostics.len(), 7_999);
    let records = diagnostics.records();
    assert_eq!(records.len(), MAX_SHOWN_PER_CODE + 1);
    assert!(records.iter().all(|r| r.code == Code::E030));
    let note = &records[MAX_SHOWN_PER_CODE];
    assert_eq!(
        note.message,
        format!(
            "and {} more duplicate errors not shown",
            7_999 - MAX_SHOWN_PER_CODE
        )
    );
    // The note stands where the first diagnostic it stands for was: the 22nd `tail`
    // (the first is not a duplicate), on line 6 + 21.
    assert_eq!((note.line, note.column), (27, 5));
    assert_eq!(
        diagnostics
            .to_string()
            .lines()
            .filter(|l| l.starts_with("error["))
            .count(),
        MAX_SHOWN_PER_CODE + 1
    );
    let rendered = diagnostics.render(&source);
    assert_eq!(
        rendered.matches("error[E030]").count(),
        MAX_SHOWN_PER_CODE + 1
    );
    assert!(rendered.len() < 8 * 1024, "{} bytes", rendered.len());
}

#[test]
fn thousands_of_unknown_items_on_one_line_render_in_bounded_space() {
    let text = format!("schedule s {{ {}}}", "frobnicate i;".repeat(8_000));
    let diagnostics = parse_schedules_str(&text).unwrap_err();
    assert_eq!(diagnostics.len(), 8_000);
    let rendered = diagnostics.render(&text);
    assert_eq!(
        rendered.matches("error[E006]").count(),
        MAX_SHOWN_PER_CODE + 1
    );
    // Each excerpt is a window of the 104,014-character line, not the line.
    let longest = rendered.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(
        longest <= EXCERPT_CHARS + 8,
        "a line of {longest} characters"
    );
    assert!(rendered.len() < 16 * 1024, "{} bytes", rendered.len());
}

#[test]
fn a_long_line_shows_a_window_with_the_caret_under_the_token() {
    let text = format!("schedule s {{ {}zz i; }}", "split i by 2; ".repeat(100));
    let diagnostics = parse_schedules_str(&text).unwrap_err();
    let rendered = diagnostics.render(&text);
    let lines: Vec<&str> = rendered.lines().collect();
    let excerpt = lines
        .iter()
        .find(|l| l.starts_with("1 | "))
        .expect("an excerpt");
    let caret = lines.iter().find(|l| l.contains('^')).expect("a caret");
    let at = caret.find('^').unwrap();
    // Character columns: the caret is under the `z` of `zz` in the window shown.
    let under: String = excerpt
        .chars()
        .skip(caret[..at].chars().count())
        .take(2)
        .collect();
    assert_eq!(under, "zz", "\n{rendered}");
    assert!(
        excerpt.starts_with("1 | …") && excerpt.ends_with('}'),
        "{excerpt}"
    );
    assert_eq!(caret.trim_end().len() - at, 2);
}
