//! Every schedule of every kernel, hand-written and generated, simulated on seeded data
//! and checked against the reference. A regenerated variant that is slower, or wrong,
//! is a reviewable snapshot diff.

use npu::testing::bench_variants;

#[test]
fn vmla_variants() {
    insta::assert_snapshot!(bench_variants(variants_demo::vmla::kernel()));
}

#[test]
fn rowsum_variants() {
    insta::assert_snapshot!(bench_variants(variants_demo::rowsum::kernel()));
}

#[test]
fn matmul_variants() {
    insta::assert_snapshot!(bench_variants(variants_demo::matmul::kernel()));
}

#[test]
fn every_kernel_has_its_hand_schedule_then_variants() {
    assert_eq!(variants_demo::vmla::SCHEDULES[0], "hand");
    for schedules in [
        &variants_demo::vmla::SCHEDULES[..],
        &variants_demo::rowsum::SCHEDULES[..],
        &variants_demo::matmul::SCHEDULES[..],
    ] {
        assert!(schedules.len() > 1, "{schedules:?}");
        assert!(
            schedules[1..].iter().all(|name| name.starts_with('v')),
            "{schedules:?}"
        );
    }
}
