//! A missing `;` at the end of a line is reported as rustc reports it: at the last
//! token of the item, with a help saying what to add, instead of at the first token of
//! the next line. (The cases before this rule are in `parse.rs`: `missing_semicolon*`.)

use npu_core::internal::parse_str;

/// The rendered diagnostics of `input`, which must be rejected.
fn check(input: &str) -> String {
    let input = input.replace("\n        ", "\n");
    match parse_str(&input) {
        Ok(_) => panic!("parses:\n{input}"),
        Err(diagnostics) => diagnostics.render(&input),
    }
}

#[test]
fn after_a_schedule_item() {
    insta::assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] { y[i] = a[i]; }
        target npueval_demo;
        schedule s {
            split i by 16
            stage a, y in ub;
        }
        "#
    ), @r"
    error[E001]: expected `;`
     --> line 5, column 16
      |
    5 |     split i by 16
      |                ^^
      = help: add `;` after `16`
    ");
}

#[test]
fn after_the_target() {
    insta::assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] { y[i] = a[i]; }
        target npueval_demo
        schedule s { stage a, y in ub; }
        "#
    ), @r"
    error[E001]: expected `;`
     --> line 3, column 8
      |
    3 | target npueval_demo
      |        ^^^^^^^^^^^^
      = help: add `;` after `npueval_demo`
    ");
}

#[test]
fn after_a_call_closing_the_block() {
    insta::assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[i] = exp(a[i])
        }
        "#
    ), @r"
    error[E001]: expected `;`
     --> line 3, column 20
      |
    3 |     y[i] = exp(a[i])
      |                    ^
      = help: add `;` after `)`
    ");
}

#[test]
fn on_the_same_line_the_next_token_is_blamed() {
    // Nothing joins `a[i]` and `2`: the statement goes on after `a[i]`, so the token
    // that cannot continue it is the mistake.
    insta::assert_snapshot!(check(
        r#"
        kernel k(a: [f16; 64]) -> y: [f16; 64] {
            y[i] = a[i] 2;
        }
        "#
    ), @r"
    error[E001]: expected `;`
     --> line 3, column 17
      |
    3 |     y[i] = a[i] 2;
      |                 ^
    ");
}
