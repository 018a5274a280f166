//! The cube as the matmul libraries schedule it: L1 tiles that stay resident while a
//! buffer still holds them, and the L2 that serves re-reads.

use crate::support;

use npu_core::Target;
use npu_sim::{Correctness, SimOptions, evaluate};

/// c[128, 64] = a[128, 256] x b[256, 64] with the given schedule items.
fn matmul(items: &str) -> String {
    format!(
        "kernel mm(a: [f16; 128, 256], b: [f16; 256, 64]) -> c: [f32; 128, 64] {{
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }}
        target ascend910b;
        schedule s {{ {items} }}"
    )
}

fn timing() -> SimOptions {
    SimOptions {
        functional: false,
        ..SimOptions::default()
    }
}

#[test]
fn b_panel_stays_in_l1_across_the_m_loop() {
    // Four m tiles of 32 rows, two k tiles of 128, one n tile of 64; n outermost.
    let items = |b_depth: u64| {
        format!(
            "split m by 32; split k by 128; order n, m; cube m by 32, n by 64, k by 64;
             stage a in l1 depth 2; stage b in l1 depth {b_depth};
             stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 2;"
        )
    };
    let resident = support::check(&matmul(&items(2)));
    let inputs = support::inputs(&resident, 1);
    let expected = npu_sim::reference(&resident, &inputs).unwrap();
    let evaluation = evaluate(
        &resident,
        0,
        &inputs,
        Some(&expected),
        &SimOptions::default(),
    )
    .unwrap();
    assert!(matches!(evaluation.correctness, Correctness::Passed { .. }));
    // With two slots, both k tiles of b (128 x 64 f16 = 16384 B each) stay in L1 for
    // all four m tiles: b is read once (32768 B), a once (128 x 256 x 2 = 65536 B).
    assert_eq!(evaluation.report.traffic.gm_read, 32768 + 65536);

    // With one slot, each m tile reads both k tiles of b again: 4 x 32768 B.
    let reloaded = support::check(&matmul(&items(1)));
    let report = evaluate(&reloaded, 0, &[], None, &timing()).unwrap().report;
    assert_eq!(report.traffic.gm_read, 4 * 32768 + 65536);
    assert!(evaluation.report.total_cycles < report.total_cycles);
}

#[test]
fn resident_tiles_compute_the_same_product() {
    let kernel = support::check(&matmul(
        "parallel m, n over 2 x 2 cores; split m by 16; split k by 64; order n, m;
         cube m by 16, n by 32, k by 32;
         stage a in l1 depth 2; stage b in l1 depth 4;
         stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 2;",
    ));
    let inputs = support::inputs(&kernel, 7);
    let expected = npu_sim::reference(&kernel, &inputs).unwrap();
    let evaluation = evaluate(&kernel, 0, &inputs, Some(&expected), &SimOptions::default())
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(matches!(evaluation.correctness, Correctness::Passed { .. }));
    assert_eq!(evaluation.report.cores, 4);
}

/// ascend910b with its L2 taken out.
fn without_l2() -> Target {
    let mut target = Target::preset("ascend910b").unwrap();
    target.dma.l2_bytes = 0;
    target
}

#[test]
fn l2_serves_rereads_and_leaves_single_reads_alone() {
    // 16 cores each read their a rows and b columns: a is read by 4 cores, b by 4, so
    // global memory alone (888 B/cycle over 16 cores, 55.5 B/cycle each) is the limit;
    // the L2 serves the second to fourth reads.
    let source = "kernel mm(a: [f16; 512, 512], b: [f16; 512, 512]) -> c: [f32; 512, 512] {
            c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
        }
        target ascend910b;
        schedule s { parallel m, n over 4 x 4 cores; split k by 128;
            cube m by 128, n by 128, k by 64;
            stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2;
            stage c in l0c depth 1; }";
    let with = support::check(source);
    let without = support::check_on(source, &without_l2());
    let fast = evaluate(&with, 0, &[], None, &timing()).unwrap().report;
    let slow = evaluate(&without, 0, &[], None, &timing()).unwrap().report;
    assert_eq!(fast.traffic.gm_read, slow.traffic.gm_read);
    assert!(fast.total_cycles < slow.total_cycles, "{fast}\n{slow}");
    assert!(fast.total_cycles >= fast.machine_roofline_cycles);

    // A kernel that reads every byte once runs exactly as without an L2.
    let vmla =
        "kernel vmla(a: [f16; 65536], b: [f16; 65536]) -> y: [f16; 65536] { y[i] = a[i] * b[i]; }
        target ascend910b;
        schedule s { parallel i over 32 cores; split i by 2048; stage a, b, y in ub depth 2; }";
    let with = evaluate(&support::check(vmla), 0, &[], None, &timing())
        .unwrap()
        .report;
    let without = evaluate(
        &support::check_on(vmla, &without_l2()),
        0,
        &[],
        None,
        &timing(),
    )
    .unwrap()
    .report;
    assert_eq!(with.total_cycles, without.total_cycles);
}
