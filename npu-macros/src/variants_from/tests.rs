//! The macro's code path on a kernel with a variants file in a temporary crate
//! directory: present, missing, stale, corrupt and hand-edited into an illegal one.

const KERNEL: &str = r#"
    kernel scale(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] * 2.0; }
    target npueval_demo;
    variants 2 from "kernels/scale.variants.npu";
    schedule hand { split i by 512; stage x, y in ub depth 1; }
"#;

/// The header line for `KERNEL`, computed the way the writers compute it.
fn hash_line(kernel: &str) -> String {
    let def = npu_core::internal::parse_str(kernel).unwrap();
    let hash = npu_core::variants::kernel_hash(&def, "npueval_demo");
    format!("// kernel: scale\n// kernel-hash: {hash}\n")
}

/// Expands `KERNEL` in a crate whose variants file holds `file` (none when `None`).
fn expand(file: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    if let Some(text) = file {
        std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
        std::fs::write(dir.path().join("kernels/scale.variants.npu"), text).unwrap();
    }
    crate::expand_kernel(KERNEL.parse().unwrap(), dir.path()).to_string()
}

#[test]
fn variants_follow_the_hand_schedules() {
    let file = format!(
        "{}\nschedule v1 {{\n    split i by 2048;\n    stage x, y in ub depth 2;\n}}\n\nschedule v2 {{\n    split i by 1024;\n    stage x, y in ub depth 2;\n}}\n\nschedule v3 {{\n    split i by 256;\n    stage x, y in ub depth 2;\n}}\n",
        hash_line(KERNEL)
    );
    let output = expand(Some(&file));
    // `variants 2`: the third schedule of the file is not used.
    assert!(
        output.contains(r#"[& :: core :: primitive :: str ; 3usize] = ["hand" , "v1" , "v2"]"#),
        "{output}"
    );
    assert!(output.contains("include_bytes"), "{output}");
    assert!(!output.contains("compile_error"), "{output}");
}

#[test]
fn an_illegal_variant_is_an_error_at_its_line_in_the_file() {
    let file = format!(
        "{}\nschedule v1 {{\n    split i by 8192;\n    stage x, y in ub depth 2;\n}}\n",
        hash_line(KERNEL)
    );
    let output = expand(Some(&file));
    // Two header lines, a blank line and `schedule v1 {`: the split is line 5.
    assert!(output.contains("compile_error"), "{output}");
    assert!(
        output.contains("[E032] kernels/scale.variants.npu:5:16:"),
        "{output}"
    );
    assert!(
        output.contains("pub mod scale"),
        "the stub is still there: {output}"
    );
}

#[test]
fn a_variants_file_that_does_not_parse_names_its_line() {
    let file = format!(
        "{}\nschedule v1 {{\n    splt i by 1024;\n}}\n",
        hash_line(KERNEL)
    );
    let output = expand(Some(&file));
    assert!(
        output.contains("[E006] kernels/scale.variants.npu:5:5: unknown schedule item `splt`"),
        "{output}"
    );
    let output = expand(Some(&format!("{}\nkernel x", hash_line(KERNEL))));
    assert!(
        output.contains("[E001] kernels/scale.variants.npu:4:1:"),
        "{output}"
    );
}

#[test]
fn a_file_for_another_kernel_or_without_a_hash_is_an_error() {
    let other = KERNEL.replace("* 2.0", "* 3.0");
    let file = format!(
        "{}\nschedule v1 {{ split i by 1024; stage x, y in ub depth 2; }}\n",
        hash_line(&other)
    );
    let output = expand(Some(&file));
    assert!(
        output
            .contains("[E034] kernels/scale.variants.npu:2:1: variants file is for another kernel"),
        "{output}"
    );
    let output = expand(Some("garbage"));
    assert!(
        output.contains("[E034] kernels/scale.variants.npu:1:1: variants file has no"),
        "{output}"
    );
}

/// Item 8e of issue 23: the warning of a missing file is at the path of the
/// `variants` line (rustc reports a deprecation at the use of the constant).
#[test]
fn item8e_the_missing_file_warning_points_at_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let output = crate::expand_kernel(KERNEL.parse().unwrap(), dir.path());
    let mut spans = Vec::new();
    let mut stack = vec![output];
    while let Some(tokens) = stack.pop() {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Group(group) => stack.push(group.stream()),
                proc_macro2::TokenTree::Ident(ident)
                    if ident.to_string().starts_with("VARIANTS_FILE_MISSING_") =>
                {
                    spans.push(ident.span().start());
                }
                _ => {}
            }
        }
    }
    // `variants 2 from "kernels/...";` is line 4; the path starts at column 25.
    let line = KERNEL.lines().nth(3).unwrap();
    let column = line.find('"').unwrap();
    assert_eq!(spans.len(), 2, "the constant and its use");
    for start in spans {
        assert_eq!((start.line, start.column), (4, column));
    }
}

#[test]
fn a_missing_file_compiles_the_hand_schedules_with_a_warning() {
    let output = expand(None);
    assert!(!output.contains("compile_error"), "{output}");
    assert!(output.contains(r#"= ["hand"]"#), "{output}");
    assert!(output.contains("deprecated"), "{output}");
    assert!(output.contains("which does not exist yet"), "{output}");
}

/// Runs `work` on its own thread and fails if it has not answered within 20 s: a
/// read that hangs becomes a failing test, not a test run that never ends.
#[cfg(unix)]
fn within_20_s<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(work());
    });
    receive
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("no answer in 20 s: the read hangs")
}

/// A variants file that is a FIFO (opening it waits for a writer) or a link to
/// `/dev/zero` (it never ends) is an error naming the file, read by the same
/// bounded reader as the build helper's, not a compiler that hangs or fills memory.
#[cfg(unix)]
#[test]
fn a_variants_file_that_is_a_fifo_or_endless_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    let path = dir.path().join("kernels/scale.variants.npu");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let fifo = path.clone();
    let message = within_20_s(move || super::read(&fifo)).unwrap_err();
    assert!(
        message.ends_with("kernels/scale.variants.npu: not a regular file (a FIFO)"),
        "{message}"
    );
    assert!(
        message.starts_with("cannot read variants file "),
        "{message}"
    );
    let root = dir.path().to_path_buf();
    let output =
        within_20_s(move || crate::expand_kernel(KERNEL.parse().unwrap(), &root).to_string());
    assert!(
        output.contains("[E034] cannot read variants file"),
        "{output}"
    );
    assert!(output.contains("not a regular file (a FIFO)"), "{output}");

    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let link = path.clone();
    let message = within_20_s(move || super::read(&link)).unwrap_err();
    assert!(
        message.ends_with("not a regular file (a character device)"),
        "{message}"
    );
    // A link to a regular file is followed.
    let real = dir.path().join("real.variants.npu");
    std::fs::write(&real, "text").unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&real, &path).unwrap();
    assert_eq!(super::read(&path), Ok(Some("text".to_string())));
}

#[test]
fn a_variants_file_past_the_limit_is_an_error() {
    let limit = npu_core::file::Kind::Variants.limit() as usize;
    let message = expand(Some(&" ".repeat(limit + 1)));
    assert!(message.contains("limit of a variants file"), "{message}");
}
