//! The bundled aie2_tile kernels as AIE C++ tile kernels: emitted, compiled against
//! the CPU model of the AIE API (`tests/model/aie_api/aie.hpp`), called once per tile
//! by a driver that moves each tile's data as the program's copies do (the object
//! FIFOs' part), and compared bit for bit with the simulator's functional outputs.

use std::fmt::Write as _;

use npu_core::CheckedKernel;
use npu_core::ir::Role;
use npu_core::program::Op;
use npu_emit::{Backend, emit};

use crate::kernels::{first_difference, simulated, tuned};
use crate::support::{self, Build, Case};

/// aie2 programs (hand and tuned schedules) the backend writes today; fewer means a
/// regression.
const AT_LEAST_WRITTEN: usize = 56;

/// Emitted cases with their kernels, and skipped kernels with the reason.
pub(crate) type Suite = (Vec<(Case, &'static CheckedKernel)>, Vec<(String, String)>);

/// The aie2_tile kernels with their hand schedules, then their tuned ones.
fn cases() -> Suite {
    let mut suite = (Vec::new(), Vec::new());
    for bundled in npu_tune::kernels::all() {
        let kernel = (bundled.kernel)();
        if kernel.target.family != npu_core::Family::Aie {
            continue;
        }
        let schedule = kernel
            .schedules
            .iter()
            .position(|s| s.name == "hand")
            .unwrap_or(0);
        add(&mut suite, bundled.name, kernel, schedule);
    }
    for (name, kernel) in tuned(npu_core::Family::Aie) {
        add(&mut suite, &name, kernel, 0);
    }
    for (name, source) in UNCOVERED {
        let target = npu_core::Target::preset("aie2_tile").expect("the preset");
        let checked = npu_core::check_source(source, &target)
            .unwrap_or_else(|d| panic!("{}", d.render(source)));
        add(&mut suite, name, Box::leak(Box::new(checked)), 0);
    }
    suite
}

/// What no bundled aie2_tile kernel has: compares and selects (a leaky ReLU and a hard
/// sigmoid's clamp on bf16, NaN, ±0 and ±inf among the edge inputs; every compare on
/// i16 with a scalar parameter), and bitwise operations and shifts on runs no vector
/// covers (100 elements of u8; i16 shifts by amounts outside 0..16 among the edges).
const UNCOVERED: [(&str, &str); 5] = [
    (
        "select_bf16",
        "kernel select_bf16(x: [bf16; 64, 128]) -> (y: [bf16; 64, 128], c: [bf16; 64, 128]) {
            y[i, j] = select(x[i, j] >= 0, x[i, j], x[i, j] * 0.125);
            c[i, j] = select(x[i, j] < -3, 0, select(x[i, j] > 3, 1, x[i, j] * 0.1875 + 0.5));
        }
        target aie2_tile;
        schedule hand { split i by 8; stage x, y, c in ub depth 2; }",
    ),
    (
        "select_i16",
        "kernel select_i16(x: [i16; 4096], limit: i16) -> y: [i16; 4096] {
            y[i] = select(x[i] == limit, 0, select(x[i] != 7, select(x[i] <= limit, x[i], limit), -7));
        }
        target aie2_tile;
        schedule hand { split i by 1024; stage x, y in ub depth 2; }",
    ),
    (
        "bits_u8",
        "kernel bits_u8(a: [u8; 100], b: [u8; 100]) -> y: [u8; 100] {
            y[i] = ((a[i] ^ b[i]) | (a[i] & 15)) + b[i];
        }
        target aie2_tile;
        schedule hand { stage a, b, y in ub depth 1; tail pad; }",
    ),
    (
        "shifts_i16",
        "kernel shifts_i16(a: [i16; 100], n: [i16; 100]) -> y: [i16; 100] {
            y[i] = (a[i] << n[i]) ^ (a[i] >> n[i]);
        }
        target aie2_tile;
        schedule hand { stage a, n, y in ub depth 1; tail pad; }",
    ),
    (
        "requant_i16",
        "kernel requant_i16(acc: [i16; 16, 128], m: i16) -> q: [i8; 16, 128] {
            q[r, c] = (((acc[r, c] * m) >> 6) ^ (acc[r, c] << 3)) as sat i8;
        }
        target aie2_tile;
        schedule hand { split r by 4; stage acc, q in ub depth 2; }",
    ),
];

/// Emits schedule `schedule` of `kernel` as a case, or records why it is skipped.
pub(crate) fn add(suite: &mut Suite, name: &str, kernel: &'static CheckedKernel, schedule: usize) {
    let program = npu_core::lower::lower_compact(kernel, schedule);
    match emit(&program, &kernel.target, kernel, Backend::Aie) {
        Ok(emitted) => {
            let function = npu_emit::symbol(kernel, &program.schedule);
            let source = emitted.files[0].text.clone();
            let case = Case {
                function,
                source,
                program,
                target: kernel.target.clone(),
            };
            suite.0.push((case, kernel));
        }
        Err(unsupported) => suite.1.push((name.to_string(), unsupported.to_string())),
    }
}

/// Compiles AIE cases, a dozen per translation unit.
pub(crate) fn build(cases: &[Case]) -> Build {
    support::build_units(cases, unit)
}

/// A translation unit: the model, the cases' sources, one driver per case, `main`.
fn unit(cases: &[Case]) -> String {
    let mut text = String::from("#include <aie_api/aie.hpp>\n#include \"aie_driver.h\"\n");
    for case in cases {
        text.push_str(&case.source);
        text.push_str(&driver(case));
    }
    text.push_str(
        "int main(int argc, char **argv) {\n    if (argc != 3) {\n        return 2;\n    }\n",
    );
    for case in cases {
        let _ = writeln!(
            text,
            "    if (std::strcmp(argv[1], \"{0}\") == 0) {{\n        return run_{0}(argv[2]);\n    }}",
            case.function
        );
    }
    text.push_str("    return 2;\n}\n");
    text
}

/// The element type the driver reads a scalar parameter in.
fn c_type(dtype: npu_core::Dtype) -> &'static str {
    use npu_core::Dtype::*;
    match dtype {
        Bf16 => "bfloat16",
        F32 => "float",
        I8 => "int8_t",
        U8 => "uint8_t",
        I16 => "int16_t",
        U16 => "uint16_t",
        U32 => "uint32_t",
        _ => "int32_t",
    }
}

/// One call the header comment lists: first and last tile, function, slots.
struct Calls {
    first: u32,
    last: u32,
    function: String,
    slots: Vec<u64>,
}

/// The calls of the emitted header comment (`//   calls A..B: FUNCTION (slots)`).
fn calls(source: &str) -> Vec<Calls> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("//   calls ")?;
            let (range, rest) = rest.split_once(": ")?;
            let (first, last) = range.split_once("..")?;
            let (function, slots) = rest.split_once(" (")?;
            Some(Calls {
                first: first.parse().ok()?,
                last: last.parse().ok()?,
                function: function.to_string(),
                slots: slots
                    .trim_end_matches(')')
                    .split_whitespace()
                    .filter_map(|s| s.parse().ok())
                    .collect(),
            })
        })
        .collect()
}

/// The parameter names of `function` in the emitted source, each with its element
/// type if it is a pointer (a buffer), `None` for a scalar parameter.
fn parameters(source: &str, function: &str) -> Vec<(String, Option<String>)> {
    let head = format!("extern \"C\" void {function}(");
    let Some(line) = source.lines().find(|l| l.starts_with(&head)) else {
        return Vec::new();
    };
    let list = &line[head.len()..line.rfind(')').unwrap_or(line.len())];
    list.split(", ")
        .map(|p| match p.split_once(" *") {
            Some((ty, name)) => (name.to_string(), Some(ty.to_string())),
            None => (p.rsplit(' ').next().unwrap_or(p).to_string(), None),
        })
        .collect()
}

/// `run_NAME(dir)`: read the inputs, walk the tiles (copies in, the call, copies
/// out), write the outputs.
fn driver(case: &Case) -> String {
    let program = case.program.clone().into_expanded();
    let ub = case.target.memory.ub;
    let mut text = format!("static int run_{}(const char *dir) {{\n", case.function);
    let _ = writeln!(
        text,
        "    alignas(64) static uint8_t mem[{ub}];\n    std::memset(mem, 0xA5, sizeof mem);\n    aie_model::register_memory(mem, sizeof mem);"
    );
    for tensor in program.signature.iter().filter(|t| t.role != Role::Local) {
        let (name, bytes) = (&tensor.name, tensor.bytes());
        if tensor.role == Role::Input && tensor.shape.is_empty() {
            let ty = c_type(tensor.dtype);
            let _ = writeln!(
                text,
                "    {ty} {name} = npu_driver::read_scalar<{ty}>(dir, \"{name}\");"
            );
        } else if tensor.role == Role::Input {
            let _ = writeln!(
                text,
                "    std::vector<uint8_t> {name} = npu_driver::read(dir, \"{name}\", {bytes});"
            );
        } else {
            let _ = writeln!(text, "    std::vector<uint8_t> {name}({bytes}, 0xCD);");
        }
    }
    let code = &program.classes[0];
    let last = (0..7)
        .flat_map(|p| code.streams[p].iter().map(|i| i.tile))
        .max()
        .unwrap_or(0);
    let calls = calls(&case.source);
    for tile in 0..=last {
        tile_steps(&mut text, &program, &case.source, &calls, tile);
    }
    for tensor in program.signature.iter().filter(|t| t.role == Role::Output) {
        let _ = writeln!(
            text,
            "    npu_driver::write(dir, \"{0}\", {0});",
            tensor.name
        );
    }
    text.push_str("    return 0;\n}\n");
    text
}

/// One tile: its copies in, its call (if the header lists one), its copies out.
fn tile_steps(
    text: &mut String,
    program: &npu_core::Program,
    source: &str,
    calls: &[Calls],
    tile: u32,
) {
    let code = &program.classes[0];
    let copies = |pipe: npu_core::Pipe| {
        code.streams[pipe.index()]
            .iter()
            .filter(move |i| i.tile == tile)
    };
    for instr in copies(npu_core::Pipe::Mte2) {
        copy_line(text, program, &instr.op);
    }
    if let Some(call) = calls.iter().find(|c| c.first <= tile && tile <= c.last) {
        call_line(text, program, source, call);
    }
    for instr in copies(npu_core::Pipe::Mte3) {
        copy_line(text, program, &instr.op);
    }
}

/// A `copy_in` or `copy_out` as the driver's copy, in the program's copy shape.
fn copy_line(text: &mut String, program: &npu_core::Program, op: &Op) {
    let (tensor, gm, address, shape, inward) = match *op {
        Op::CopyIn {
            tensor,
            gm,
            address,
            shape,
            ..
        } => (tensor, gm, address, shape, true),
        Op::CopyOut {
            tensor,
            gm,
            address,
            shape,
            ..
        } => (tensor, gm, address, shape, false),
        _ => return,
    };
    let shape = &program.copies[shape as usize];
    let dims: Vec<String> = shape
        .dims
        .iter()
        .map(|d| format!("{{{}, {}, {}}}", d.len, d.gm_stride, d.buf_stride))
        .collect();
    let _ = writeln!(
        text,
        "    npu_aie_driver::copy(mem + {address}, {}, {}, {}, {{{}}}, {inward});",
        program.signature[usize::from(tensor)].name,
        program.cores[0].gm_base[usize::from(tensor)] + gm,
        shape.element_bytes,
        dims.join(", ")
    );
}

/// The call of a tile: each buffer argument at its slot in the data memory, each
/// scalar parameter by name.
fn call_line(text: &mut String, program: &npu_core::Program, source: &str, call: &Calls) {
    let mut arguments = Vec::new();
    let mut slots = call.slots.iter();
    for (name, pointer) in parameters(source, &call.function) {
        let Some(ty) = pointer else {
            arguments.push(name);
            continue;
        };
        let buffer = program.buffers.iter().find(|b| b.name == name);
        let slot = slots.next().copied().unwrap_or(0);
        let address = buffer.map_or(0, |b| b.slot(slot));
        arguments.push(format!("reinterpret_cast<{ty} *>(mem + {address})"));
    }
    let _ = writeln!(text, "    {}({});", call.function, arguments.join(", "));
}

/// Runs every case on random and edge inputs against the simulator; the mismatches.
pub(crate) fn mismatches(build: &Build, cases: &[(Case, &'static CheckedKernel)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (case, kernel) in cases {
        for (tag, inputs) in [
            ("random", kernel.random_inputs(1)),
            ("edges", kernel.edge_inputs(2)),
        ] {
            let expected = simulated(case, kernel, &inputs);
            match build.run(case, &inputs, tag) {
                Ok(got) if got == expected => {}
                Ok(got) => failures.push(format!(
                    "{} on {tag} inputs: {}",
                    case.function,
                    first_difference(&expected, &got)
                )),
                Err(model) => failures.push(format!("{} on {tag} inputs: {model}", case.function)),
            }
        }
    }
    failures
}

#[test]
fn bundled_aie_kernels_match_the_simulator_bit_for_bit() {
    let (cases, skipped) = cases();
    for (kernel, reason) in &skipped {
        println!("skipped {kernel}: {reason}");
    }
    let plain: Vec<Case> = cases.iter().map(|(c, _)| c.clone()).collect();
    let build = build(&plain);
    let failures = mismatches(&build, &cases);
    println!(
        "{} of {} aie2 programs (hand and tuned schedules) written; mismatches: {}",
        cases.len(),
        cases.len() + skipped.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
    assert!(
        cases.len() >= AT_LEAST_WRITTEN,
        "only {} aie2 programs written; skipped:\n{skipped:#?}",
        cases.len()
    );
}

/// Each backend refuses the other family's targets and a target of no vendor, naming
/// the target; the AIE kernel is the same bytes every time.
#[test]
fn targets_of_other_backends_are_refused_and_emission_is_deterministic() {
    let refusal = |name: &str, backend: Backend| {
        let bundled = npu_tune::kernels::Bundled::find(name).expect("a bundled kernel");
        let kernel = (bundled.kernel)();
        let program = npu_core::lower::lower_compact(kernel, 0);
        emit(&program, &kernel.target, kernel, backend).map(|e| e.files[0].text.clone())
    };
    let cases = [
        ("relu", Backend::Aie, "target ascend910b"),
        ("relu_aie", Backend::AscendC, "target aie2_tile"),
    ];
    for (name, backend, construct) in cases {
        let error = refusal(name, backend).expect_err("refused");
        assert_eq!(error.construct, construct, "{error}");
    }
    let demo = npu_tune::kernels::all()
        .into_iter()
        .find(|b| (b.kernel)().target.family == npu_core::Family::Generic)
        .expect("a demonstration kernel");
    for backend in [Backend::Aie, Backend::AscendC] {
        let error = refusal(demo.name, backend).expect_err("refused");
        assert!(error.reason.contains("of no vendor"), "{error}");
    }
    assert_eq!(
        refusal("softmax_aie", Backend::Aie),
        refusal("softmax_aie", Backend::Aie)
    );
}

/// A name rustc and the checker accept but no C symbol or file name should carry is
/// refused on both backends, not written.
#[test]
fn non_ascii_names_are_refused_on_both_backends() {
    for (target, backend) in [
        ("aie2_tile", npu_emit::Backend::Aie),
        ("ascend910b", npu_emit::Backend::AscendC),
    ] {
        let source = format!(
            "kernel größe(x: [i16; 1024]) -> y: [i16; 1024] {{ y[i] = x[i] + x[i]; }}
             target {target};
             schedule s {{ stage x, y in ub depth 1; }}"
        );
        let target = npu_core::Target::preset(target).expect("the preset");
        let kernel = npu_core::check_source(&source, &target).expect("it checks");
        let program = npu_core::lower::lower_compact(&kernel, 0);
        let refused = npu_emit::emit(&program, &target, &kernel, backend).unwrap_err();
        assert!(refused.reason.contains("ASCII"), "{refused}");
    }
}

/// `double` appears in an emitted AIE kernel only where a body calls a function the
/// target computes correctly rounded (through the `npu_round_*` helpers of `math`);
/// the functions aie2_tile names an algorithm for are vector code.
#[test]
fn double_is_only_in_the_correctly_rounded_helpers() {
    let (cases, _) = cases();
    let mut in_double = Vec::new();
    for (case, _) in &cases {
        if case.source.contains("double") {
            assert!(
                case.source.contains("= npu_round_bf16(")
                    || case.source.contains("= npu_round_float("),
                "{} has `double` outside the correctly rounded helpers:\n{}",
                case.function,
                case.source
            );
            in_double.push(case.function.clone());
        }
    }
    println!("kernels with correctly rounded double helpers: {in_double:?}");
    // Of the bundled kernels only wrap_phase's `%` (a remainder, correctly rounded on
    // aie2_tile) is still computed in double.
    let left: Vec<&String> = in_double
        .iter()
        .filter(|f| !f.starts_with("wrap_phase_"))
        .collect();
    assert!(left.is_empty(), "computed in double: {left:?}");
    for kernel in [
        "exp_aie",
        "rsqrt_aie",
        "silu_aie",
        "softmax_aie",
        "gelu_aie",
    ] {
        assert!(
            cases
                .iter()
                .any(|(case, _)| case.function.starts_with(kernel)),
            "{kernel} is not written"
        );
    }
}
