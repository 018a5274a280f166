//! Shared helpers: the example kernels in `tests/kernels/`, inputs, and targets with
//! round numbers for hand-computed cycle counts.

// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

pub(crate) mod schedules;

use std::path::Path;

use npu_core::host::HostTensor;
use npu_core::ir::{CheckedKernel, Role};
use npu_core::{Target, check_source};

/// The example kernels: (file stem, source), sorted by name.
pub(crate) fn kernel_files() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/kernels exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "npu"))
        .map(|path| {
            let stem = path
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (
                stem,
                std::fs::read_to_string(&path).expect("readable kernel"),
            )
        })
        .collect();
    files.sort();
    files
}

/// An example kernel by file stem.
pub(crate) fn kernel_file(stem: &str) -> String {
    kernel_files()
        .into_iter()
        .find(|(s, _)| s == stem)
        .map(|(_, source)| source)
        .unwrap_or_else(|| panic!("no kernel {stem}"))
}

/// Checks source text against the preset it names.
pub(crate) fn check(source: &str) -> CheckedKernel {
    npu_core::check_source_with(source, |path| Err(format!("no files in tests: {path}")))
        .unwrap_or_else(|diagnostics| panic!("{}", diagnostics.render(source)))
}

/// Checks source text against `target`, whatever it names.
pub(crate) fn check_on(source: &str, target: &Target) -> CheckedKernel {
    check_source(source, target)
        .unwrap_or_else(|diagnostics| panic!("{}", diagnostics.render(source)))
}

/// Deterministic inputs for every input tensor.
pub(crate) fn inputs(kernel: &CheckedKernel, seed: u64) -> Vec<HostTensor> {
    kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Input)
        .enumerate()
        .map(|(index, t)| HostTensor::random(t.dtype, &t.shape, seed * 31 + index as u64))
        .collect()
}

/// A target with round numbers: 32 B/cycle of global memory for the chip and for a
/// core, 100 cycles of DMA latency, 4 cycles per extra burst, a pad penalty of 2, no
/// vector issue cost, `mul` at 40 cycles per 256-byte repeat (`add` at 1), 1 cycle per
/// loop iteration, 32-byte alignment, up to 4 vector cores.
pub(crate) fn hand_target() -> Target {
    let text = r#"
        name = "hand"
        description = "round numbers for hand-computed cycle counts"
        clock_mhz = 1000
        events = 8

        [cores]
        vector = 4
        cube = 0

        [memory]
        ub = 131072
        l1 = 0
        l0a = 0
        l0b = 0
        l0c = 0

        [align]
        ub = 32
        l1 = 32
        l0a = 32
        l0b = 32
        l0c = 32

        [vector]
        repeat_bytes = 256
        max_repeat = 255
        dtypes = ["f16", "f32"]
        issue_cycles = 0

        [vector.cycles]
        add = 1
        sub = 1
        mul = 40
        div = 1
        min = 1
        max = 1
        neg = 1
        abs = 1
        exp = 1
        log = 1
        sqrt = 1
        rsqrt = 1
        tanh = 1
        recip = 1
        relu = 1
        sigmoid = 1
        cmp = 1
        select = 1
        cast = 1
        dup = 1
        reduce = 1

        [dma]
        gm_bytes_per_cycle = 32.0
        core_bytes_per_cycle = 32.0
        latency_cycles = 100
        mte1_bytes_per_cycle = 32.0
        fix_bytes_per_cycle = 32.0
        burst_cycles = 4
        pad_penalty = 2.0

        [scalar]
        loop_cycles = 1
    "#;
    Target::from_toml(text).expect("the hand target parses")
}
