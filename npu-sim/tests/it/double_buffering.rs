//! Double buffering pays off where a tile's copy and compute can overlap, and the
//! report says so.

use crate::support;

use insta::assert_snapshot;
use npu_sim::{SimOptions, evaluate};

#[test]
fn depth_two_beats_depth_one_on_vmla() {
    let kernel = support::check(&support::kernel_file("vmla"));
    let index = |name: &str| {
        kernel
            .schedules
            .iter()
            .position(|s| s.name == name)
            .expect("schedule")
    };
    let timing = SimOptions {
        functional: false,
        ..SimOptions::default()
    };
    let single = evaluate(&kernel, index("single_1024"), &[], None, &timing)
        .expect("simulates")
        .report;
    let double = evaluate(&kernel, index("double_1024"), &[], None, &timing)
        .expect("simulates")
        .report;
    assert_eq!(
        kernel.schedules[index("single_1024")].tiles,
        kernel.schedules[index("double_1024")].tiles
    );
    assert!(
        double.total_cycles * 100 < single.total_cycles * 80,
        "depth 2 should save at least a fifth: {} vs {}",
        double.total_cycles,
        single.total_cycles
    );
    // Depth 1: V waits for each copy's latency and MTE2 for V; the report names the
    // missing overlap and the fix. Depth 2: MTE2 streams at the bandwidth limit.
    assert_snapshot!(format!(
        "depth 1: {}\ndepth 2: {}",
        single.symptom, double.symptom
    ));
    assert!(single.symptom.contains("depth 2"));
    assert!(double.symptom.contains("memory-bound"));
}
