//! The places where a unit could fold in an order of its own, each checked bit for bit
//! against the IR interpreter's index order on random and edge data, f32 throughout so
//! that every reordering would round differently: the cube's k blocks (several `mmad`
//! steps accumulating in L0C, and k split into several L1 tiles), a vector reduction
//! over rows longer than one repeat, a split reduction axis folded tile by tile, and a
//! split later axis of a multi-axis reduction (the one place the simulator folds in
//! another order: tile by tile, held to the named tolerance of
//! [`super::compare::folds_tile_by_tile`]).

use npu_core::Target;

use super::compare::{agree, folds_tile_by_tile};

fn check(source: &str) -> npu_core::ir::CheckedKernel {
    let target = Target::preset("ascend910b").expect("preset");
    let kernel =
        npu_core::check_source(source, &target).unwrap_or_else(|d| panic!("{}", d.render(source)));
    if let Err((stage, detail)) = agree(&kernel) {
        panic!("{stage}: {detail}\n{source}");
    }
    kernel
}

#[test]
fn cube_k_blocks_and_k_tiles_fold_in_index_order() {
    let kernel = check(
        "kernel mm(a: [f16; 32, 256], b: [f16; 256, 32]) -> c: [f32; 32, 32] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }
         target ascend910b;
         schedule s { split k by 64; cube m by 16, n by 16, k by 16; stage a, b in l1 depth 2; stage a in l0a depth 2; stage b in l0b depth 2; stage c in l0c depth 1; }",
    );
    assert!(!folds_tile_by_tile(&kernel));
}

#[test]
fn a_row_longer_than_a_repeat_folds_in_index_order() {
    check(
        "kernel r(x: [f32; 4, 1000]) -> y: [f32; 4] { y[i] = sum[k](x[i, k]); }
         target ascend910b;
         schedule s { stage x, y in ub depth 1; tail pad; }",
    );
}

#[test]
fn a_split_reduction_axis_folds_tile_by_tile_in_index_order() {
    let kernel = check(
        "kernel r(x: [f32; 4, 1000]) -> y: [f32; 4] { y[i] = sum[k](x[i, k]); }
         target ascend910b;
         schedule s { split k by 64; stage x, y in ub depth 2; tail pad; }",
    );
    assert!(!folds_tile_by_tile(&kernel), "bit equality applies");
}

/// The simulator folds `sum[k, q]` with `q` split tile by tile: the named tolerance
/// applies (and only it lets this pass: bit for bit, 3 of 4 sums differ in the last
/// bits on random data).
#[test]
fn a_split_later_axis_of_a_multi_axis_sum_is_held_to_the_tile_by_tile_tolerance() {
    let kernel = check(
        "kernel r(x: [f32; 4, 16, 64]) -> y: [f32; 4] { y[i] = sum[k, q](x[i, k, q]); }
         target ascend910b;
         schedule s { split k by 4; split q by 16; stage x, y in ub depth 2; tail pad; }",
    );
    assert!(folds_tile_by_tile(&kernel));
}
