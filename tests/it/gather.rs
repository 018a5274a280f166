//! Gathers (`x[idx[i]]`, `table[idx[i], d]`) written with `npu_kernel!`: every schedule
//! simulated on seeded random and edge data (whose indices `fit_inputs` keeps in range)
//! against both host references, and an index out of range reported by the macro's
//! reference, the simulator's interpreter and the simulator alike, never read.

use npu::HostTensor;
use npu::npu_kernel;
use npu::sim::{Correctness, SimOptions, evaluate, reference};
use npu::testing::{edge_inputs, seeded_inputs};

npu_kernel! {
    /// A gather inside arithmetic: its rows land in a temporary that the add reads.
    kernel shifted(x: [f32; 64], idx: [u8; 300], b: [f32; 300]) -> y: [f32; 300] {
        y[i] = x[idx[i]] * 2.0 + b[i];
    }
    target ascend910b;
    schedule whole { stage x, idx, b, y in ub depth 1; tail pad; }
    schedule tiles { parallel i over 2 cores; split i by 64; stage x, idx, b, y in ub depth 2; tail pad; }
}

npu_kernel! {
    /// A 2-d index tensor: each batch row looks up its own tokens.
    kernel batched(table: [f16; 40, 16], idx: [i32; 3, 50]) -> y: [f16; 3, 50, 16] {
        y[b, t, d] = table[idx[b, t], d];
    }
    target ascend910b;
    schedule rows { parallel b over 3 cores; split b by 1; split t by 16; stage table, idx, y in ub depth 2; tail pad; }
}

npu_kernel! {
    kernel lookup(x: [f32; 64], idx: [i32; 8]) -> y: [f32; 8] {
        y[i] = x[idx[i]];
    }
    target ascend910b;
    schedule whole { stage x, idx, y in ub depth 1; }
}

/// Every schedule of `kernel` on random and edge inputs: the generated reference, the
/// interpreter and the simulated outputs agree bit for bit.
fn agree(kernel: &npu::CheckedKernel, generated: impl Fn(&[HostTensor]) -> Vec<HostTensor>) {
    for (inputs, interpreted) in [seeded_inputs(kernel, 3), edge_inputs(kernel, 5)] {
        let host = generated(&inputs);
        for (a, b) in host.iter().zip(&interpreted) {
            let same = a
                .values()
                .iter()
                .zip(&b.values())
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
            assert!(same, "{}: the two references differ", kernel.name);
        }
        for (index, schedule) in kernel.schedules.iter().enumerate() {
            let evaluation = evaluate(kernel, index, &inputs, Some(&host), &SimOptions::default())
                .unwrap_or_else(|error| panic!("{}.{}: {error}", kernel.name, schedule.name));
            assert!(
                matches!(
                    evaluation.correctness,
                    Correctness::Passed { max_abs_error } if max_abs_error == 0.0
                ),
                "{}.{}: {:?}",
                kernel.name,
                schedule.name,
                evaluation.correctness
            );
        }
    }
}

#[test]
fn gathers_match_both_references_on_random_and_edge_values() {
    agree(shifted::kernel(), |inputs| {
        shifted::reference_host(inputs).expect("indices in range")
    });
    agree(batched::kernel(), |inputs| {
        batched::reference_host(inputs).expect("indices in range")
    });
}

#[test]
fn generated_indices_reach_the_first_and_last_rows_and_stay_in_range() {
    let kernel = shifted::kernel();
    let (edges, _) = edge_inputs(kernel, 1);
    let (random, _) = seeded_inputs(kernel, 1);
    for inputs in [&edges, &random] {
        assert!(inputs[1].values().iter().all(|v| (0.0..64.0).contains(v)));
    }
    // Edge data wraps 0 and -1 (for u8, 255) into the first and last rows.
    assert!(edges[1].values().contains(&0.0));
    assert!(edges[1].values().contains(&63.0));
}

#[test]
fn an_index_out_of_range_is_an_error_from_every_reference_and_the_simulator() {
    let x: Vec<f32> = (0..64).map(|v| v as f32).collect();
    let expected =
        "gather index out of range: `idx[5]` holds 70, but `x` has 64 elements along dimension 0";
    for (bad, text) in [
        (70, expected.to_string()),
        (-1, expected.replace("holds 70", "holds -1")),
    ] {
        let mut idx = vec![3i32; 8];
        idx[5] = bad;
        let macro_error = lookup::reference(&x, &idx).unwrap_err();
        assert_eq!(macro_error.to_string(), text);

        let kernel = lookup::kernel();
        let inputs = [
            HostTensor::from_slice(&[64], &x),
            HostTensor::from_slice(&[8], &idx),
        ];
        let interpreted = reference(kernel, &inputs).unwrap_err();
        assert_eq!(interpreted.to_string(), text);

        let simulated = evaluate(kernel, 0, &inputs, None, &SimOptions::default()).unwrap_err();
        assert_eq!(simulated.to_string(), format!("{text} (on core 0)"));
    }
    // In range, all three read the rows.
    let idx = [0, 63, 1, 2, 3, 4, 5, 6];
    assert_eq!(
        lookup::reference(&x, &idx).unwrap().y,
        [0.0, 63.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
}

#[test]
fn an_index_error_names_its_position_in_a_2d_index_tensor_on_the_core_that_reads_it() {
    let table = vec![npu::f16::ONE; 40 * 16];
    let mut idx = vec![0i32; 150];
    idx[2 * 50 + 17] = 40;
    let text = "gather index out of range: `idx[2, 17]` holds 40, but `table` has 40 elements along dimension 0";
    assert_eq!(
        batched::reference(&table, &idx).unwrap_err().to_string(),
        text
    );
    let inputs = [
        HostTensor::from_slice(&[40, 16], &table),
        HostTensor::from_slice(&[3, 50], &idx),
    ];
    let kernel = batched::kernel();
    assert_eq!(reference(kernel, &inputs).unwrap_err().to_string(), text);
    let simulated = evaluate(kernel, 0, &inputs, None, &SimOptions::default()).unwrap_err();
    assert_eq!(simulated.to_string(), format!("{text} (on core 2)"));
}

#[test]
fn the_listing_gathers_from_the_whole_table_per_tile() {
    let program = npu::lower::lower_named(batched::kernel(), "rows").expect("a schedule");
    let listing = program.listing(false);
    assert!(listing.contains("vgather f16"), "{listing}");
    // The table is copied once per core: all 40 rows, its tile never changes.
    let copies = listing.matches("copy_in table").count();
    assert_eq!(copies, 1, "{listing}");
}

/// The inputs the tools make (the tuner's problem, the build helper's, `npu::testing`'s
/// and the `explain` example's, all `CheckedKernel::random_inputs` / `edge_inputs`) are
/// valid for a gather whose index dtype holds fewer values than the table has rows:
/// an `i8` index into 1,024 rows stays in `0..128` instead of storing 253 as −3
/// (issue 23, item 10e), on every index dtype.
#[test]
fn generated_indices_fit_every_index_dtype_even_below_the_table_extent() {
    for (dtype, usable) in [
        ("i8", 128.0),
        ("u8", 256.0),
        ("i16", 1024.0),
        ("u16", 1024.0),
        ("i32", 1024.0),
        ("u32", 1024.0),
    ] {
        let source = format!(
            "kernel g(x: [f32; 1024], idx: [{dtype}; 64]) -> y: [f32; 64] {{ y[i] = x[idx[i]]; }}
             target ascend910b;
             schedule s {{ stage x, idx, y in ub depth 1; }}"
        );
        let target = npu::Target::preset("ascend910b").expect("preset");
        let kernel = npu::check_source(&source, &target).expect("a legal gather");
        for (inputs, expected) in [seeded_inputs(&kernel, 9), edge_inputs(&kernel, 9)] {
            let indices = inputs[1].values();
            assert!(
                indices.iter().all(|v| (0.0..usable).contains(v)),
                "{dtype}: an index outside 0..{usable}: {indices:?}"
            );
            let evaluation = evaluate(&kernel, 0, &inputs, Some(&expected), &SimOptions::default())
                .unwrap_or_else(|error| panic!("{dtype}: {error}"));
            assert!(
                matches!(evaluation.correctness, Correctness::Passed { max_abs_error } if max_abs_error == 0.0),
                "{dtype}: {:?}",
                evaluation.correctness
            );
        }
    }
}
