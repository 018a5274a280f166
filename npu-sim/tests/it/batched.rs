//! Batched matmul on the cube: each matrix of the batch is its own product, the batch
//! axis tiled with `split` and spread with `parallel` like any output axis, and an
//! operand without the batch axis (a weight the batch shares) staying in L1 across it.

use crate::support;

use npu_sim::{Correctness, SimOptions, evaluate};

/// c[5, 48, 32] = a[5, 48, 64] x b[5, 64, 32] with the given schedule items.
fn batched(items: &str) -> String {
    format!(
        "kernel bmm(a: [f16; 5, 48, 64], b: [f16; 5, 64, 32]) -> c: [f32; 5, 48, 32] {{
            c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32);
        }}
        target ascend910b;
        schedule s {{ {items} }}"
    )
}

/// y[5, 32, 64] = x[5, 32, 96] x w[96, 64], one `w` for the whole batch.
fn shared_weight(items: &str) -> String {
    format!(
        "kernel shared(x: [f16; 5, 32, 96], w: [f16; 96, 64]) -> y: [f32; 5, 32, 64] {{
            y[t, m, n] = sum[k](x[t, m, k] as f32 * w[k, n] as f32);
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

/// Runs the schedule on seeded data against the reference interpreter; the cores that
/// got work.
fn passes(source: &str) -> u64 {
    let kernel = support::check(source);
    let inputs = support::inputs(&kernel, 3);
    let expected = npu_sim::reference(&kernel, &inputs).unwrap();
    let evaluation = evaluate(&kernel, 0, &inputs, Some(&expected), &SimOptions::default())
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        matches!(evaluation.correctness, Correctness::Passed { .. }),
        "{source}\n{:?}",
        evaluation.correctness
    );
    evaluation.report.cores
}

const STAGES: &str = "stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2;
    stage c in l0c depth 2;";

#[test]
fn every_matrix_of_the_batch_matches_the_reference() {
    // Five matrices over four cores: two each, so the fourth core gets none and the
    // third only one (a tail of the batch, copied at its exact length).
    let cores = batched(&format!(
        "parallel t over 4 cores; cube m by 48, n by 32, k by 32; {STAGES} tail exact;"
    ));
    assert_eq!(passes(&cores), 3);
    // Batch tiles of two matrices, the last tile one; m tiles with a tail.
    let tiles = batched(&format!(
        "split t by 2; split m by 32; split k by 32; cube m by 16, n by 16, k by 32;
         {STAGES} tail pad;"
    ));
    assert_eq!(passes(&tiles), 1);
    // A core grid over the batch and m, the batch not outermost.
    let grid = batched(&format!(
        "parallel t, m over 3 x 3 cores; order m, n, t; cube m by 16, n by 32, k by 64; {STAGES}
         tail exact;"
    ));
    assert_eq!(passes(&grid), 9);
    // The shared weight, with the batch split across cores and over n.
    let shared = shared_weight(
        "parallel t, n over 2 x 2 cores; split t by 2; cube m by 32, n by 32, k by 32;
         stage x, w in l1 depth 2; stage x in l0a depth 2; stage w in l0b depth 2;
         stage y in l0c depth 1; tail exact;",
    );
    assert_eq!(passes(&shared), 4);
}

#[test]
fn a_shared_weight_stays_in_l1_across_the_batch() {
    // `w` is 96 x 64 f16 = 12288 B in two n tiles of 6144 B; `x` is 5 x 32 x 96 f16 =
    // 30720 B, whole in one L1 tile. With n outermost, each n tile of `w` is copied
    // once and serves every matrix of the batch: 30720 + 12288 B read in all.
    let items = |order: &str| {
        format!(
            "order {order}; split n by 32; cube m by 32, n by 32, k by 96;
             stage x in l1 depth 1; stage w in l1 depth 1;
             stage x in l0a depth 1; stage w in l0b depth 1; stage y in l0c depth 2;"
        )
    };
    let resident = support::check(&shared_weight(&items("n, t, m")));
    let report = evaluate(&resident, 0, &[], None, &timing()).unwrap().report;
    assert_eq!(report.traffic.gm_read, 30720 + 12288);
    // The batch outermost but whole in one tile: the n loop runs inside the tile and
    // each n tile of `w` serves its five matrices in a row, so nothing is read twice.
    let batch_outer = support::check(&shared_weight(&items("t, n, m")));
    let report = evaluate(&batch_outer, 0, &[], None, &timing())
        .unwrap()
        .report;
    assert_eq!(report.traffic.gm_read, 30720 + 12288);
    // One matrix per batch tile, batch outermost: the two n tiles of `w` are copied
    // for each of the five matrices (5 x 12288 B) and `x` once (30720 B).
    let reloaded = support::check(&shared_weight(&format!(
        "split t by 1; {}",
        items("t, n, m")
    )));
    let report = evaluate(&reloaded, 0, &[], None, &timing()).unwrap().report;
    assert_eq!(report.traffic.gm_read, 30720 + 5 * 12288);
}
