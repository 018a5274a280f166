//! Pathological input gets a bounded answer: thousands of repeated mistakes give a
//! bounded list of diagnostics and a bounded rendering. How long these cases take is
//! measured by `cargo bench -p npu-core --bench pathological`, never asserted here.

use npu_core::diag::{EXCERPT_CHARS, MAX_SHOWN_PER_CODE};
use npu_core::parse::parse_schedules_str;
use npu_core::{Code, Diagnostics, Target, check_source};

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
