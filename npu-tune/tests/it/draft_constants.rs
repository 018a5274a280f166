//! Named constants as users write them (`let scale = 127.0;`): a body that names its
//! literals computes what the body with the literals in place computes, bit for bit,
//! each read taking the dtype of its use.

use npu_tune::draft::examples::{Example, Tolerance};
use npu_tune::draft::{Outcome, Task};

const KERNEL: &str = "/// This kernel scales and shifts an f16 signal.\nkernel scale_shift(in_buffer: [f16; 64], offset: f16) -> out_buffer: [f16; 64] {}\ntarget ascend910b;\n";

#[test]
fn a_body_with_named_constants_computes_the_body_with_literals_in_place() {
    let task = Task::parse(KERNEL).unwrap();
    let target = npu_core::Target::preset("ascend910b").unwrap();
    let inline = "out_buffer[i] = min(in_buffer[i] * 0.1 + -0.1 / 4.0, 127) + offset;";
    let Outcome::Matches { kernel, .. } = task.try_body(inline, &target, &[], None) else {
        panic!("the body with literals checks");
    };
    let examples: Vec<Example> = [
        npu_sim::testing::seeded_inputs(&kernel, 7),
        npu_sim::testing::edge_inputs(&kernel, 7),
    ]
    .into_iter()
    .map(|(inputs, expected)| Example { inputs, expected })
    .collect();
    let named = "let scale = 0.1;\nlet bias = -scale / 4.0;\nlet max_value = 127;\nout_buffer[i] = min(in_buffer[i] * scale + bias, max_value) + offset;";
    let exact = Tolerance {
        relative: 0.0,
        absolute: 0.0,
    };
    let outcome = task.try_body(named, &target, &examples, Some(exact));
    assert!(
        matches!(outcome, Outcome::Matches { verified: true, .. }),
        "{outcome:?}"
    );
    // The same constant read in f32 would round 0.1 otherwise: the examples tell.
    let wider = "let scale = 0.1;\nlet bias = -scale / 4.0;\nout_buffer[i] = ((in_buffer[i] as f32 * scale + bias) as f16) + offset;";
    let outcome = task.try_body(wider, &target, &examples, Some(exact));
    assert!(matches!(outcome, Outcome::Mismatch(_)), "{outcome:?}");
}
