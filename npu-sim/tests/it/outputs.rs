//! The simulator's outputs: the reference interpreter, output comparison, the Chrome
//! trace, and the report's serialised form.

use crate::support;

use npu_core::Dtype;
use npu_core::host::HostTensor;
use npu_core::ir::Role;
use npu_core::program::{Op, Pipe};
use npu_sim::{
    Correctness, Fold, Mismatch, Report, SimOptions, Tolerance, compare_outputs,
    compare_outputs_with, evaluate, reference,
};

#[test]
fn reference_interprets_the_algorithm() {
    let x = HostTensor::from_values(Dtype::F32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let w = HostTensor::from_values(Dtype::F32, &[3], &[1.0, 0.5, 0.25]);
    let dot = support::check(
        "kernel dot(x: [f32; 2, 3], w: [f32; 3]) -> y: [f32; 2] { y[i] = sum[k](x[i, k] * w[k]); }
        target ascend910b;
        schedule s { stage x, w, y in ub; tail pad; }",
    );
    // y = [1 + 1 + 0.75, 4 + 2.5 + 1.5]
    assert_eq!(
        reference(&dot, &[x.clone(), w]).unwrap()[0].values(),
        [2.75, 8.0]
    );
    let shifted = support::check(
        "kernel shifted(x: [f32; 2, 3], b: [f32; 2]) -> z: [f32; 2, 3] {
            z[i, j] = select(x[i, j] > 1.5, x[i, j], -x[i, j]) + b[i] as f16 as f32;
        }
        target ascend910b;
        schedule s { stage x, b, z in ub; tail pad; }",
    );
    // z = (x or -x) + b rounded to f16: 0.1 becomes 0.0999755859375.
    let b = HostTensor::from_values(Dtype::F32, &[2], &[3.0, 0.1]);
    let b16 = 0.0999755859375;
    assert_eq!(
        reference(&shifted, &[x, b]).unwrap()[0].values(),
        [2.0, 5.0, 6.0, 4.0 + b16, 5.0 + b16, 6.0 + b16]
    );
}

#[test]
fn comparison_names_the_first_difference() {
    let expected = HostTensor::from_values(Dtype::F16, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let actual = expected.clone();
    assert_eq!(
        compare_outputs(
            std::slice::from_ref(&expected),
            std::slice::from_ref(&actual)
        ),
        Ok(0.0)
    );
    // The next f16 after 5: within 1e-3 relative.
    let actual =
        HostTensor::from_values(Dtype::F16, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.00390625, 6.0]);
    assert!(
        compare_outputs(
            std::slice::from_ref(&expected),
            std::slice::from_ref(&actual)
        )
        .is_ok()
    );
    let actual = HostTensor::from_values(Dtype::F16, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.5, 7.0]);
    let mismatch = compare_outputs(
        std::slice::from_ref(&expected),
        std::slice::from_ref(&actual),
    )
    .expect_err("differs");
    match &mismatch {
        Mismatch::Value {
            tensor,
            flat_index,
            index,
            expected,
            actual,
            count,
            ..
        } => {
            assert_eq!(
                (tensor.as_str(), *flat_index, index.as_slice()),
                ("output 0", 4, [1u64, 1].as_slice())
            );
            assert_eq!((*expected, *actual, *count), (5.0, 5.5, 2));
        }
        other => panic!("{other}"),
    }
    // Integers are exact; floats that a fold of n terms feeds get √n units of the
    // accumulator's figures more room.
    let ints = HostTensor::from_values(Dtype::I32, &[1], &[3.0]);
    let off = HostTensor::from_values(Dtype::I32, &[1], &[4.0]);
    let long_sum = Some(Fold {
        terms: 1 << 20,
        accumulator: Dtype::I32,
    });
    assert!(compare_outputs_with(&[ints], &[off], &[long_sum]).is_err());
    let hundred = |accumulator| {
        Some(Fold {
            terms: 100,
            accumulator,
        })
    };
    assert_eq!(
        Tolerance::for_dtype(Dtype::F32, hundred(Dtype::F32)),
        Tolerance {
            relative: 1e-5 + 1e-4,
            absolute: 1e-7 + 1e-6
        }
    );
    assert_eq!(
        Tolerance::for_dtype(Dtype::F16, hundred(Dtype::F16)),
        Tolerance {
            relative: 1e-3 + 1e-2,
            absolute: 1e-5 + 1e-4
        }
    );
    let count = compare_outputs(&[], &[expected]).expect_err("count");
    assert_eq!(count.to_string(), "1 outputs but 0 were expected");
}

#[test]
fn the_trace_is_chrome_json() {
    let kernel = support::check(&support::kernel_file("softmax"));
    let options = SimOptions {
        functional: false,
        trace: true,
        ..SimOptions::default()
    };
    let cores_schedule = kernel
        .schedules
        .iter()
        .position(|s| s.name == "cores")
        .expect("cores");
    let evaluation = evaluate(&kernel, cores_schedule, &[], None, &options).expect("simulates");
    let trace = evaluation.trace.expect("traced");
    assert_eq!(trace.events.len() as u64, evaluation.report.instructions);
    let json: serde_json::Value = serde_json::from_str(&trace.to_json()).expect("valid JSON");
    let events = json["traceEvents"].as_array().expect("traceEvents");
    let complete: Vec<_> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(complete.len(), trace.events.len());
    assert!(
        complete
            .iter()
            .all(|e| e["name"].is_string() && e["ts"].is_number() && e["dur"].is_number())
    );
    assert!(complete.iter().any(|e| e["pid"] == 1), "both cores appear");
    let names: Vec<_> = events
        .iter()
        .filter(|e| e["name"] == "thread_name" && e["pid"] == 0)
        .map(|e| e["args"]["name"].clone())
        .collect();
    assert_eq!(names.len(), Pipe::ALL.len());
    assert!(names.contains(&serde_json::json!("MTE2")));

    let dir = std::env::temp_dir().join(format!("npu-sim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("trace.json");
    trace.write(&path).expect("writes");
    let written = std::fs::read_to_string(&path).expect("reads");
    assert_eq!(written, trace.to_json());
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name() != "trace.json")
        .collect();
    assert!(leftovers.is_empty(), "no temporary file left behind");
    // Through a link, the file it points to is replaced and the link stays a link; a
    // FIFO is refused, not opened (which would wait for a reader).
    #[cfg(unix)]
    {
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&path, &link).expect("links");
        std::fs::write(&path, "old").expect("writes");
        trace.write(&link).expect("writes through the link");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), trace.to_json());
        let fifo = dir.join("fifo.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.expect("mkfifo runs").success());
        let error = trace.write(&fifo).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
    }
    std::fs::remove_dir_all(&dir).expect("cleans up");
}

#[test]
fn the_report_round_trips_through_json() {
    let kernel = support::check(&support::kernel_file("row_sum"));
    let timing = SimOptions {
        functional: false,
        ..SimOptions::default()
    };
    let report = evaluate(&kernel, 1, &[], None, &timing)
        .expect("simulates")
        .report;
    let json = serde_json::to_string(&report).expect("serialises");
    let back: Report = serde_json::from_str(&json).expect("deserialises");
    // Ratios may come back a unit in the last place off; everything else is exact.
    assert_eq!(back.to_string(), report.to_string());
    assert_eq!(
        (back.total_cycles, back.roofline_cycles, &back.traffic),
        (report.total_cycles, report.roofline_cycles, &report.traffic)
    );
    assert!((back.efficiency - report.efficiency).abs() < 1e-12);
}

/// A run on data computes values in an order the flags allow, every producer as far
/// ahead as they let it: with the first free of `a`'s slot taken out of V and MTE2
/// (the flags still balance, so the program runs), MTE2 copies tile 2 over tile 0's
/// `a` before V reads it, and the outputs are wrong rather than right by the timing.
#[test]
fn a_missing_free_shows_in_the_values() {
    let kernel = support::check(&support::kernel_file("vmla"));
    let schedule = kernel
        .schedules
        .iter()
        .position(|s| s.name == "pipelined")
        .expect("the pipelined schedule");
    let inputs = support::inputs(&kernel, 3);
    let expected = reference(&kernel, &inputs).expect("the reference runs");
    let program = npu_core::lower(&kernel, schedule);
    let simulate = |program: &npu_core::program::Program| {
        npu_sim::simulate(&kernel, program, &inputs, &SimOptions::default())
            .expect("runs")
            .outputs
    };
    assert!(compare_outputs(&simulate(&program), &expected).is_ok());
    let mut unsynchronised = program.clone();
    let free = |op: &Op| {
        matches!(
            *op,
            Op::SetFlag {
                from: Pipe::V,
                to: Pipe::Mte2,
                event: 0
            } | Op::WaitFlag {
                from: Pipe::V,
                to: Pipe::Mte2,
                event: 0
            }
        )
    };
    for class in &mut unsynchronised.classes {
        for pipe in [Pipe::V, Pipe::Mte2] {
            let stream = &mut class.streams[pipe.index()];
            let first = stream.iter().position(|i| free(&i.op)).expect("a free");
            stream.remove(first);
        }
    }
    assert!(compare_outputs(&simulate(&unsynchronised), &expected).is_err());
}

/// Each output is compared with the room its own folds need: an elementwise output
/// beside a long sum keeps its elementwise tolerance, and a long sum accumulated in f32
/// and stored as f16 (through a `let`) gets f16's room plus f32's for the sum, not
/// f16's times √n.
#[test]
fn each_output_gets_the_tolerance_of_its_own_folds() {
    let source = "
        kernel k(x: [f32; 4, 8192], w: [f16; 4]) -> (y: [f16; 4], z: [f16; 4]) {
            let s[i] = sum[k](x[i, k]);
            y[i] = s[i] as f16;
            z[i] = w[i] * 2.0;
        }
        target ascend910b;
        schedule s { split i by 1; stage x, w, y, z in ub; tail pad; }
    ";
    let kernel = support::check(source);
    let long = Fold {
        terms: 8192,
        accumulator: Dtype::F32,
    };
    assert_eq!(npu_sim::folds(&kernel), [Some(long), None]);
    let y = Tolerance::for_dtype(Dtype::F16, Some(long));
    assert!(
        (y.relative - (1e-3 + 1e-5 * 8192f64.sqrt())).abs() < 1e-12,
        "{y:?}"
    );
    let inputs: Vec<HostTensor> = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Input)
        .enumerate()
        .map(|(seed, t)| HostTensor::random(t.dtype, &t.shape, seed as u64))
        .collect();
    let reference = npu_sim::reference(&kernel, &inputs).expect("no gathers");
    let scaled = |tensor: &HostTensor, factor: f64| {
        let values: Vec<f64> = tensor.values().iter().map(|v| v * factor).collect();
        HostTensor::from_values(tensor.dtype(), tensor.shape(), &values)
    };
    let options = SimOptions::default();
    // z 1% off: an elementwise f16 result allows 0.1%.
    let off = [reference[0].clone(), scaled(&reference[1], 1.01)];
    let evaluation = evaluate(&kernel, 0, &inputs, Some(&off), &options).expect("simulates");
    match evaluation.correctness {
        Correctness::Mismatch(Mismatch::Value { tensor, .. }) => assert_eq!(tensor, "z"),
        other => panic!("{other:?}"),
    }
    // y 1% off: the f32 sum of 8192 terms adds 0.09% to f16's 0.1%, where f16's
    // figure times √8192 would allow 9%.
    let off = [scaled(&reference[0], 1.01), reference[1].clone()];
    let evaluation = evaluate(&kernel, 0, &inputs, Some(&off), &options).expect("simulates");
    match evaluation.correctness {
        Correctness::Mismatch(Mismatch::Value { tensor, .. }) => assert_eq!(tensor, "y"),
        other => panic!("{other:?}"),
    }
}
