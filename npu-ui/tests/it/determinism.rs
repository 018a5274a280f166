//! Same input, same output: the diagnostics of every compile-fail UI case, rendered as
//! text, are byte-identical in two separate processes. A hash map iterated where the
//! order shows (as E022's position once was) differs between processes, because each
//! process seeds its hashers anew; within one process it would not show.

use std::path::Path;
use std::process::Command;

const CHILD: &str = "NPU_DETERMINISM_CHILD";
/// Around the child's payload, apart from what the test harness prints (its timings).
const BEGIN: &str = "<<<diagnostics\n";
const END: &str = "diagnostics>>>\n";

#[test]
fn diagnostics_are_identical_across_processes() {
    if std::env::var_os(CHILD).is_some() {
        print!("{BEGIN}{}{END}", render_all());
        return;
    }
    let run = || {
        let output = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "determinism::diagnostics_are_identical_across_processes",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .output()
            .expect("the test binary runs");
        assert!(output.status.success(), "the child run failed");
        let stdout = String::from_utf8(output.stdout).expect("utf-8 output");
        let start = stdout.find(BEGIN).expect("the payload starts") + BEGIN.len();
        let end = stdout.find(END).expect("the payload ends");
        stdout[start..end].to_string()
    };
    let first = run();
    let second = run();
    assert!(
        first.contains("error[E022]"),
        "the child rendered the UI cases"
    );
    assert_eq!(
        first, second,
        "two processes rendered different diagnostics"
    );
}

/// Every fail case's kernel body checked as text and rendered, plus a kernel whose two
/// equal splits both exceed the repeat limit.
fn render_all() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = crate::ui::fail_cases();
    let mut sources: Vec<String> = cases
        .iter()
        .map(|case| {
            let text = std::fs::read_to_string(case).expect("a readable case");
            let start = text.find("npu_kernel!").expect("a call") + "npu_kernel!".len();
            let end = text.rfind("fn main").unwrap_or(text.len());
            text[start..end].trim().trim_matches(['{', '}']).to_string()
        })
        .collect();
    sources.push(
        "kernel k(x: [f32; 256, 256]) -> y: [f32; 256, 256] { y[i, j] = x[i, j] + 1.0; }\n\
         target ascend910b;\n\
         schedule s { split i by 128; split j by 128; stage x, y in ub; }\n"
            .into(),
    );
    let mut out = String::new();
    for source in &sources {
        let result = npu::check_source_with(source, |path| {
            std::fs::read_to_string(root.join(path)).map_err(|e| e.to_string())
        });
        match result {
            Ok(kernel) => out += &format!("ok {}\n", kernel.name),
            Err(diagnostics) => out += &diagnostics.render(source),
        }
    }
    out
}
