//! Checking grows linearly with the kernel: counted in nodes walked
//! ([`npu_core::ir::walked_nodes`]), never timed. How long it takes is a row of
//! `cargo bench -p npu-core --bench pathological` (`lets/N`).

use npu_core::ir::walked_nodes;
use npu_core::{Target, check_source};

/// `n` chained intermediates, `let t0[i] = x[i]; let t1[i] = t0[i] + 1.0; ...`, the
/// output the last of them. Too many to fit in UB, so the check also searches the
/// schedule fixes, as it does for a user.
fn chained_lets(n: usize) -> String {
    let mut body = String::from("let t0[i] = x[i];\n");
    for k in 1..n {
        body.push_str(&format!("let t{k}[i] = t{}[i] + 1.0;\n", k - 1));
    }
    format!(
        "kernel lets(x: [f32; 1024]) -> y: [f32; 1024] {{\n{body}y[i] = t{}[i];\n}}\n\
         target npueval_demo;\nschedule s {{ stage x, y in ub; }}\n",
        n - 1
    )
}

/// Nodes walked while checking `source` on this thread.
fn walked_checking(source: &str) -> u64 {
    let target = Target::preset("npueval_demo").unwrap();
    let before = walked_nodes();
    let _ = check_source(source, &target);
    walked_nodes() - before
}

#[test]
fn checking_chained_lets_walks_linearly_many_nodes() {
    let n = 250;
    let small = walked_checking(&chained_lets(n));
    let large = walked_checking(&chained_lets(4 * n));
    // Four times the statements walk at most four times the nodes, with a little room
    // for the parts that do not grow; a walk per intermediate over the whole body (the
    // quadratic step this guards against) walked 16 times as many.
    assert!(small > 0, "checking walks the body");
    assert!(
        large <= 4 * small + small / 4,
        "{n} lets walked {small} nodes but {} lets walked {large}",
        4 * n
    );
}
