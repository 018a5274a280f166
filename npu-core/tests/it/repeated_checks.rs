//! Checking text again and again runs in bounded memory with exact positions.
//!
//! Text parsed outside the compiler is kept in proc-macro2's per-thread span table;
//! `check_source` reads the positions it needs and then frees the table. This is its
//! own test binary so that no other test allocates while memory is measured.

use npu_core::{Code, Target, check_source};

/// A rejected kernel with a mistake at a known place, padded by a comment to `bytes`.
fn source(bytes: usize) -> String {
    let kernel = "kernel k(a: [f32; 64]) -> y: [f32; 64] { y[i] = a[i]; }\n\
                  target npueval_demo;\n\
                  schedule s {\n    stage a, y in ub;\n    spilt i by 8;\n}\n";
    let padding = bytes.saturating_sub(kernel.len() + 4);
    format!("{kernel}/* {} */", "x".repeat(padding))
}

/// Resident memory of this process in bytes, where Linux says.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn checking_the_same_text_many_times_keeps_positions_and_memory() {
    let target = Target::preset("npueval_demo").unwrap();
    let text = source(1 << 20);
    let check = || {
        let diagnostics = check_source(&text, &target).expect_err("rejected");
        let records = diagnostics.records();
        // `spilt` is line 5, column 5, every time: positions do not drift as the
        // span table is reused.
        assert_eq!(
            records
                .iter()
                .map(|r| (r.code, r.line, r.column))
                .collect::<Vec<_>>(),
            [(Code::E006, 5, 5)]
        );
        assert!(diagnostics.render(&text).contains("5 |     spilt i by 8;"));
    };
    // Warm up allocators and lazily built tables before measuring.
    for _ in 0..4 {
        check();
    }
    let before = resident_bytes();
    // 128 checks of 1 MiB: without freeing the span table that is 128 MiB more kept.
    for _ in 0..128 {
        check();
    }
    if let (Some(before), Some(after)) = (before, resident_bytes()) {
        let grown = after.saturating_sub(before);
        assert!(
            grown < 32 << 20,
            "resident memory grew by {} MiB over 128 checks of 1 MiB",
            grown >> 20
        );
    }
}
