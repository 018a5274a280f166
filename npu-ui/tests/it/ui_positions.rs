//! The string API and the macro agree: for every compile-fail UI case, checking the
//! macro's body as text (`npu::check_source_with`) reports exactly the diagnostics, at
//! exactly the lines and columns and with the same notes and help, that rustc reported for the macro in the case's
//! reviewed `.stderr`. Also, no `.stderr` holds any other error or a warning: a broken
//! kernel costs its user only its own diagnostics.
//!
//! The same cases also hold the help lines to their word: every fix a help proposes,
//! applied to the kernel, clears its diagnostic without bringing a new one; and no
//! diagnostic points at the call site instead of a token of the kernel.

use std::path::Path;

/// One diagnostic as both sides report it: code, 1-based line and column, message,
/// notes and help.
type Reported = (String, usize, usize, String, Vec<String>, Option<String>);

#[test]
fn text_and_macro_report_the_same_diagnostics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut mismatches = Vec::new();
    let cases = crate::ui::fail_cases();
    assert!(
        cases.len() >= 25,
        "expected the compile-fail UI cases, found {}",
        cases.len()
    );
    for case in &cases {
        let text = std::fs::read_to_string(case).expect("a readable UI case");
        let stderr_path = case.with_extension("stderr");
        let stderr =
            std::fs::read_to_string(&stderr_path).expect("every fail case has a reviewed .stderr");
        let from_rustc = match rustc_diagnostics(&stderr) {
            Ok(list) => list,
            Err(problem) => {
                mismatches.push(format!("{}: {problem}", stderr_path.display()));
                continue;
            }
        };
        let from_text = text_diagnostics(root, &text);
        if from_text != from_rustc {
            mismatches.push(format!(
                "{}\n  rustc: {from_rustc:?}\n  text:  {from_text:?}",
                case.display()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "the macro and the string API disagree:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn every_help_fix_clears_its_diagnostic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| std::fs::read_to_string(root.join(path)).map_err(|e| e.to_string());
    let mut applied = 0;
    let mut failures = Vec::new();
    for case in crate::ui::fail_cases() {
        let body = macro_body(&std::fs::read_to_string(&case).expect("a readable UI case"));
        let Err(diagnostics) = npu::check_source_with(&body, read) else {
            continue;
        };
        let before = code_counts(&diagnostics);
        for diagnostic in diagnostics.iter() {
            for fix in &diagnostic.fixes {
                applied += 1;
                let mut def = npu_core::internal::parse_str(&body).expect("the case parses");
                assert!(
                    fix.apply(&mut def),
                    "{}: no schedule `{}`",
                    case.display(),
                    fix.schedule
                );
                let edited = npu::print::kernel(&def);
                let after = match npu::check_source_with(&edited, read) {
                    Ok(_) => Vec::new(),
                    Err(after) => code_counts(&after),
                };
                let count = |list: &[(npu::Code, usize)], code| {
                    list.iter().find(|(c, _)| *c == code).map_or(0, |(_, n)| *n)
                };
                let cleared = count(&after, diagnostic.code) < count(&before, diagnostic.code);
                let nothing_new = after.iter().all(|(code, n)| *n <= count(&before, *code));
                if !cleared || !nothing_new {
                    failures.push(format!(
                        "{}: `{fix}` for [{}] {} leaves {after:?} (before {before:?})",
                        case.display(),
                        diagnostic.code,
                        diagnostic.message
                    ));
                }
            }
        }
    }
    eprintln!("{applied} help fixes of the UI cases applied and checked again");
    assert!(
        applied >= 10,
        "expected help fixes in the UI cases, applied {applied}"
    );
    assert!(
        failures.is_empty(),
        "help fixes that do not work:\n{}",
        failures.join("\n")
    );
}

#[test]
fn no_diagnostic_points_at_the_call_site() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for case in crate::ui::fail_cases() {
        let text = std::fs::read_to_string(&case).expect("a readable UI case");
        for (code, line, column, message, _, _) in text_diagnostics(root, &text) {
            let call = text
                .lines()
                .position(|l| l.contains("npu_kernel!"))
                .expect("a call")
                + 1;
            assert!(
                (line, column) != (1, 1) && line > call,
                "{}: [{code}] {message} points at {line}:{column}, outside the kernel body",
                case.display()
            );
        }
    }
}

/// How many diagnostics of each code, in code order.
fn code_counts(diagnostics: &npu::Diagnostics) -> Vec<(npu::Code, usize)> {
    let mut counts: Vec<(npu::Code, usize)> = Vec::new();
    for code in diagnostics.codes() {
        match counts.iter_mut().find(|(c, _)| *c == code) {
            Some((_, n)) => *n += 1,
            None => counts.push((code, 1)),
        }
    }
    counts.sort();
    counts
}

/// The diagnostics of the one `npu_kernel!` body in `text`, checked as text with target
/// files read relative to the crate root, as the macro reads them.
fn text_diagnostics(root: &Path, text: &str) -> Vec<Reported> {
    let body = macro_body(text);
    let result = npu::check_source_with(&body, |path| {
        std::fs::read_to_string(root.join(path)).map_err(|error| error.to_string())
    });
    let mut list: Vec<Reported> = match result {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics
            .records()
            .into_iter()
            .flat_map(|r| {
                // The macro marks a label on another line with an error of its own
                // (`Diagnostic::to_syn_error`).
                let code = r.code.to_string();
                let labels: Vec<Reported> = r
                    .labels
                    .iter()
                    .filter(|l| l.line != r.line)
                    .map(|l| {
                        let message = format!("{} (for: {})", l.text, r.message);
                        (code.clone(), l.line, l.column, message, Vec::new(), None)
                    })
                    .collect();
                let help = shared_help(&r.message, r.help);
                let own = (code, r.line, r.column, r.message, r.notes, help);
                std::iter::once(own).chain(labels)
            })
            .collect(),
    };
    list.sort();
    list
}

/// `text` with everything but the body of its `npu_kernel!` call blanked out, so that
/// lines and columns in the body are those of the file.
fn macro_body(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let name: Vec<char> = "npu_kernel!".chars().collect();
    let calls: Vec<usize> = (0..chars.len())
        .filter(|&i| chars[i..].starts_with(&name))
        .collect();
    assert_eq!(
        calls.len(),
        1,
        "a UI case holds exactly one `npu_kernel!` call"
    );
    let mut open = calls[0] + name.len();
    while chars[open].is_whitespace() {
        open += 1;
    }
    let close = matching_close(&chars, open);
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if (open + 1..close).contains(&i) || *c == '\n' {
                *c
            } else {
                ' '
            }
        })
        .collect()
}

/// The index of the delimiter closing the one at `open`, skipping strings and comments.
fn matching_close(chars: &[char], open: usize) -> usize {
    let mut depth = 0;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            '"' => {
                i += 1;
                while chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while chars[i] != '\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    panic!("unbalanced `npu_kernel!` call");
}

/// `help`, unless the diagnostic is about a target file that cannot be read: only the
/// macro knows where a relative path starts, and says so in a help of its own.
fn shared_help(message: &str, help: Option<String>) -> Option<String> {
    help.filter(|_| !message.starts_with("cannot use target file"))
}

/// The `error: [E0xx] message` lines of a `.stderr`, each with its `= note:` and
/// `= help:` lines and the `--> file:line:column` that follows. Any other error or
/// warning is a problem of its own.
fn rustc_diagnostics(stderr: &str) -> Result<Vec<Reported>, String> {
    let mut list = Vec::new();
    let mut pending: Option<(String, String)> = None;
    let mut notes = Vec::new();
    let mut help = None;
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("error: [") {
            let (code, message) = rest
                .split_once("] ")
                .ok_or_else(|| format!("unreadable error line `{line}`"))?;
            if pending
                .replace((code.to_string(), message.to_string()))
                .is_some()
            {
                return Err("an error without a location".into());
            }
        } else if let Some(text) = line.trim_start().strip_prefix("= note: ")
            && pending.is_some()
        {
            notes.push(text.to_string());
        } else if let Some(text) = line.trim_start().strip_prefix("= help: ")
            && pending.is_some()
        {
            help = Some(text.to_string());
        } else if line.starts_with("error") || line.starts_with("warning") {
            return Err(format!(
                "rustc reported more than the kernel's diagnostics: `{line}`"
            ));
        } else if let Some(location) = line.trim_start().strip_prefix("--> ")
            && let Some((code, message)) = pending.take()
        {
            let mut parts = location.rsplitn(3, ':');
            let column = parts.next().and_then(|c| c.parse().ok());
            let line_number = parts.next().and_then(|l| l.parse().ok());
            let (Some(column), Some(line_number)) = (column, line_number) else {
                return Err(format!("unreadable location `{location}`"));
            };
            let help = shared_help(&message, help.take());
            let notes = std::mem::take(&mut notes);
            list.push((code, line_number, column, message, notes, help));
        }
    }
    if pending.is_some() {
        return Err("an error without a location".into());
    }
    list.sort();
    Ok(list)
}
