//! Drafting kernel bodies: every body sampled under a signature's grammar parses,
//! names only the signature's tensors, and writes every output once.

use npu_tune::draft::Task;
use npu_tune::draft::grammar::body_gbnf;

use crate::support::gbnf;

const TASKS: [&str; 4] = [
    "/// Softmax over rows.\nkernel softmax(x: [f32; 8, 64]) -> y: [f32; 8, 64] {}\ntarget ascend910b;\n",
    "kernel mix(a: [i16; 256], b: [i16; 256], s: i16) -> (y: [i16; 256], z: [i32; 256]) {}\ntarget ascend910b;\n",
    "kernel total(x: [bf16; 1024]) -> y: f32 {}\ntarget aie2_tile;\n",
    "kernel conv(x: [f16; 4, 34, 34], w: [f16; 8, 4, 3, 3]) -> y: [f16; 8, 32, 32] {}\ntarget ascend310p;\n",
];

#[test]
fn bodies_sampled_under_the_grammar_parse_and_name_only_the_signature() {
    for text in TASKS {
        let task = Task::parse(text).unwrap();
        let target_name = text
            .rsplit("target ")
            .next()
            .unwrap()
            .trim()
            .trim_end_matches(';');
        let target = npu_core::Target::preset(target_name).unwrap();
        let grammar = body_gbnf(&task.ports, &target);
        for seed in 0..40 {
            let body = gbnf::sample(&grammar, seed).unwrap();
            let kernel = task.with_body(&body);
            let parsed = npu_core::internal::parse_str(&kernel)
                .map(|_| ())
                .map_err(|diagnostics| diagnostics.render(&kernel));
            proc_macro2::extra::invalidate_current_thread_spans();
            if let Err(rendered) = parsed {
                panic!("{rendered}\n{grammar}");
            }
            for port in task.ports.iter().filter(|p| p.output) {
                let written = format!("\n    {}", port.name);
                assert_eq!(kernel.matches(&written).count(), 1, "{kernel}");
            }
        }
    }
}

#[test]
fn the_grammar_offers_only_what_the_target_computes() {
    let task = Task::parse(TASKS[2]).unwrap();
    let aie = body_gbnf(&task.ports, &npu_core::Target::preset("aie2_tile").unwrap());
    let ascend = body_gbnf(
        &task.ports,
        &npu_core::Target::preset("ascend910b").unwrap(),
    );
    assert!(ascend.contains("\"cumprod\""), "{ascend}");
    assert!(
        !aie.contains("\"cumprod\""),
        "AIE2 has no running product: {aie}"
    );
    assert!(
        !aie.contains("bits ::="),
        "no integer tensor: no bit operations"
    );
    let integers = Task::parse(TASKS[1]).unwrap();
    let grammar = body_gbnf(
        &integers.ports,
        &npu_core::Target::preset("ascend910b").unwrap(),
    );
    assert!(grammar.contains("term bits expr"), "{grammar}");
    assert!(
        grammar.contains("\"s\""),
        "the scalar parameter by bare name: {grammar}"
    );
}
