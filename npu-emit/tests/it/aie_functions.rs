//! Every bf16 function aie2_tile computes with an algorithm of its own
//! (`[vector.functions]`), emitted as AIE C++ and run by the CPU model of the AIE API
//! on every bf16 bit pattern, compared bit for bit with the simulator: once where the
//! vector walk covers the run (the template on vectors of 32), once where it does not
//! (a strided view: the template on a broadcast, lane 0 kept). The patterns cover each input class: ±0, subnormals, normals across every
//! exponent (each range-reduction edge among them), ±∞ and quiet and signalling NaNs.

use npu_core::host::HostTensor;
use npu_core::{CheckedKernel, Dtype, Target, check_source};
use npu_emit::{Backend, emit};

use crate::aie::build;
use crate::kernels::{first_difference, simulated};
use crate::support::Case;

/// Each function as an expression of `x` (and `w`, a second operand).
const FUNCTIONS: [(&str, &str); 10] = [
    ("exp", "exp(x[i])"),
    ("exp2", "exp2(x[i])"),
    ("log", "log(x[i])"),
    ("log2", "log2(x[i])"),
    ("log10", "log10(x[i])"),
    ("rsqrt", "rsqrt(x[i])"),
    ("recip", "recip(x[i])"),
    ("sigmoid", "sigmoid(x[i])"),
    ("tanh", "tanh(x[i])"),
    ("div", "w[i] / x[i]"),
];

/// Whether a kernel reads `x` transposed: along its runs (which the vector walk
/// covers), or across them (a strided view, which the scalar loop walks).
const TRANSPOSED: [bool; 2] = [false, true];

fn kernel(name: &str, expression: &str, transposed: bool) -> &'static CheckedKernel {
    let (shape, read, schedule) = match transposed {
        false => ("256, 256", "x[i, j]", "split i by 16"),
        true => ("256, 256", "x[j, i]", "split i by 16"),
    };
    let expression = expression.replace("x[i]", read).replace("w[i]", "w[i, j]");
    let source = format!(
        "kernel {name}_{transposed}(x: [bf16; {shape}], w: [bf16; 256, 256]) -> y: [bf16; 256, 256] {{ y[i, j] = {expression}; }}
         target aie2_tile;
         schedule hand {{ {schedule}; stage x, w, y in ub depth 1; }}"
    );
    let target = Target::preset("aie2_tile").expect("the preset");
    let checked =
        check_source(&source, &target).unwrap_or_else(|d| panic!("{}", d.render(&source)));
    Box::leak(Box::new(checked))
}

/// Every bf16 bit pattern `p` at `x`'s element `p` (in row-major order), and at
/// `w`'s the pattern `p * 40503 mod 65536` (an odd multiplier, so every pattern is
/// a dividend once too).
fn inputs() -> Vec<HostTensor> {
    let tensor = |pattern: &dyn Fn(u64) -> u16| {
        let bytes = (0..65536).flat_map(|p| pattern(p).to_le_bytes()).collect();
        HostTensor::from_bytes(Dtype::Bf16, &[256, 256], bytes).expect("bf16 bytes")
    };
    vec![
        tensor(&|p| p as u16),
        tensor(&|p| (p.wrapping_mul(40503) & 0xFFFF) as u16),
    ]
}

#[test]
fn aie_functions_match_the_simulator_on_every_bf16_value() {
    let mut cases = Vec::new();
    for (name, expression) in FUNCTIONS {
        for transposed in TRANSPOSED {
            let kernel = kernel(name, expression, transposed);
            let program = npu_core::lower::lower_compact(kernel, 0);
            let emitted = emit(&program, &kernel.target, kernel, Backend::Aie)
                .unwrap_or_else(|e| panic!("{name} is not emitted: {e}"));
            let source = emitted.files[0].text.clone();
            assert!(
                !source.contains("double"),
                "{name}_{transposed} computes in double:\n{source}"
            );
            let lanes = source.contains(".get(0)");
            assert_eq!(
                lanes, transposed,
                "{name}_{transposed}: which path writes it:\n{source}"
            );
            let function = npu_emit::symbol(kernel, &program.schedule);
            let target = kernel.target.clone();
            cases.push((
                Case {
                    function,
                    source,
                    program,
                    target,
                },
                kernel,
            ));
        }
    }
    let plain: Vec<Case> = cases.iter().map(|(c, _)| c.clone()).collect();
    let build = build(&plain);
    let mut failures = Vec::new();
    let inputs = inputs();
    for (case, kernel) in &cases {
        let expected = simulated(case, kernel, &inputs);
        match build.run(case, &inputs, "every") {
            Ok(got) if got == expected => {}
            Ok(got) => failures.push(format!(
                "{}: {}",
                case.function,
                first_difference(&expected, &got)
            )),
            Err(model) => failures.push(format!("{}: {model}", case.function)),
        }
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}
