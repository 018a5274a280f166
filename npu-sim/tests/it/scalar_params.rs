//! Scalar parameters through the simulator: passed at run time as tensors of shape
//! `[]`, read from a scalar register by the vector instruction that uses them, and
//! compared with the reference interpreter on edge values.

use crate::support;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use npu_sim::{Correctness, SimError, SimOptions, evaluate, reference};

fn scalar(dtype: Dtype, value: f64) -> HostTensor {
    HostTensor::from_values(dtype, &[], &[value])
}

#[test]
fn add_offset_wraps_at_the_edges_of_i8() {
    let kernel = support::check(&support::kernel_file("add_offset"));
    // Every i8 value, 16 times over.
    let x = HostTensor::from_values(
        Dtype::I8,
        &[4096],
        &(0..4096)
            .map(|i| f64::from(i % 256 - 128))
            .collect::<Vec<f64>>(),
    );
    for offset in [-128.0, -1.0, 0.0, 1.0, 127.0] {
        let inputs = [x.clone(), scalar(Dtype::I8, offset)];
        let expected = reference(&kernel, &inputs).unwrap();
        // Integer addition wraps, as the vector unit's does: 127 + 1 is -128.
        let wrapped = |v: f64| (v + 128.0).rem_euclid(256.0) - 128.0;
        let by_hand: Vec<f64> = x.values().iter().map(|v| wrapped(v + offset)).collect();
        assert_eq!(expected[0].values(), by_hand, "offset {offset}");
        for schedule in 0..kernel.schedules.len() {
            let evaluation = evaluate(
                &kernel,
                schedule,
                &inputs,
                Some(&expected),
                &SimOptions::default(),
            )
            .unwrap_or_else(|error| panic!("offset {offset}: {error}"));
            assert_eq!(
                evaluation.correctness,
                Correctness::Passed { max_abs_error: 0.0 },
                "offset {offset}, schedule {schedule}"
            );
        }
    }
}

#[test]
fn f16_scale_saturates_to_infinity_like_the_reference() {
    let kernel = support::check(&support::kernel_file("scale_shift"));
    let x = HostTensor::from_values(
        Dtype::F16,
        &[64, 96],
        &(0..64 * 96)
            .map(|i| Dtype::F16.round(f64::from(i % 97) - 48.0))
            .collect::<Vec<f64>>(),
    );
    for (scale, limit) in [(65504.0, 0.0), (-0.0, -1e30), (6.0e-8, 47.5)] {
        let inputs = [
            x.clone(),
            scalar(Dtype::F16, scale),
            scalar(Dtype::F32, limit),
        ];
        let expected = reference(&kernel, &inputs).unwrap();
        // The second output is the scale as an f16 (6e-8 is the subnormal 2^-24).
        let held = Dtype::F16.round(scale);
        assert!(
            expected[1]
                .values()
                .iter()
                .all(|v| v.to_bits() == held.to_bits())
        );
        let evaluation = evaluate(&kernel, 0, &inputs, Some(&expected), &SimOptions::default())
            .unwrap_or_else(|error| panic!("scale {scale}: {error}"));
        assert!(
            matches!(evaluation.correctness, Correctness::Passed { .. }),
            "scale {scale}: {:?}",
            evaluation.correctness
        );
    }
}

#[test]
fn a_scalar_given_as_a_vector_is_bad_input() {
    let kernel = support::check(&support::kernel_file("add_offset"));
    let inputs = [
        HostTensor::random(Dtype::I8, &[4096], 1),
        HostTensor::random(Dtype::I8, &[2], 2),
    ];
    let error = evaluate(&kernel, 0, &inputs, None, &SimOptions::default())
        .expect_err("the offset has two values");
    assert!(
        matches!(&error, SimError::BadInput { message } if message.contains("`offset` is i8 []")),
        "{error}"
    );
}

#[test]
fn the_listing_names_the_scalar_register() {
    let kernel = support::check(&support::kernel_file("add_offset"));
    let program = npu_core::lower(&kernel, 1);
    let listing = program.listing(false);
    assert!(
        listing.contains("vadd i8 ub@0x01000 <- ub@0x00000, $offset [4096]"),
        "{listing}"
    );
    // Only x and y have buffers: the offset takes no UB.
    let names: Vec<&str> = program.buffers.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["x", "y"]);
}
