//! Examples as users have them: `json.dumps(a.tolist())` for each tensor, a bare
//! number for a scalar parameter, NumPy's `tolist()` of every dtype, and the `NaN`,
//! `Infinity` and `-Infinity` tokens Python writes; a ragged or misshapen list is an
//! error that names the tensor, the shape the signature gives and what was found.

use npu_tune::draft::Task;
use npu_tune::draft::examples::from_json;

/// Reads `examples` (the `inputs` and `outputs` objects of one example) for the kernel
/// `signature`, and renders what was read, one tensor a line (`x [2, 3] f32: 1 2 3 ...`),
/// or the error.
fn check(signature: &str, examples: &str, expected: &str) {
    let task = Task::parse(&format!("{signature} {{}}\ntarget npueval_demo;\n")).unwrap();
    let json = format!(r#"{{"examples": [{examples}]}}"#);
    let got = match from_json(&json, &task.ports) {
        Ok(read) => {
            let tensors = read[0].inputs.iter().chain(&read[0].expected);
            let names = task.ports.iter().filter(|p| !p.output);
            let names = names.chain(task.ports.iter().filter(|p| p.output));
            let lines: Vec<String> = names
                .zip(tensors)
                .map(|(port, tensor)| {
                    let values: Vec<String> = tensor.values().iter().map(f64::to_string).collect();
                    let dtype = tensor.dtype().name();
                    format!(
                        "{} {:?} {dtype}: {}",
                        port.name,
                        tensor.shape(),
                        values.join(" ")
                    )
                })
                .collect();
            lines.join("\n")
        }
        Err(error) => format!("error: {error}"),
    };
    assert_eq!(got, expected, "{examples}");
}

const ROWS: &str = "kernel rows(in_buffer: [f32; 2, 3], scale: f32) -> out_buffer: [f32; 2]";

#[test]
fn nested_lists_of_the_shape_and_a_bare_number_for_a_scalar() {
    check(
        ROWS,
        r#"{"inputs": {"in_buffer": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "scale": 0.5}, "outputs": {"out_buffer": [3.0, 7.5]}}"#,
        "in_buffer [2, 3] f32: 1 2 3 4 5 6\nscale [] f32: 0.5\nout_buffer [2] f32: 3 7.5",
    );
    // The flat row-major form and a list of one value for a scalar are read as before.
    check(
        ROWS,
        r#"{"inputs": {"in_buffer": [1, 2, 3, 4, 5, 6], "scale": [2]}, "outputs": {"out_buffer": [1, 2]}}"#,
        "in_buffer [2, 3] f32: 1 2 3 4 5 6\nscale [] f32: 2\nout_buffer [2] f32: 1 2",
    );
    check(
        "kernel total(x: [i32; 3]) -> y: i32",
        r#"{"inputs": {"x": [1, 2, 3]}, "outputs": {"y": 6}}"#,
        "x [3] i32: 1 2 3\ny [] i32: 6",
    );
}

#[test]
fn python_writes_nan_and_infinities_as_bare_tokens() {
    check(
        "kernel f(x: [f32; 2, 2]) -> y: [f32; 2, 2]",
        r#"{"inputs": {"x": [[NaN, Infinity], [-Infinity, 1e-3]]}, "outputs": {"y": [[NaN, -Infinity],[Infinity, -0.0]]}}"#,
        "x [2, 2] f32: NaN inf -inf 0.0010000000474974513\ny [2, 2] f32: NaN -inf inf -0",
    );
    // Inside a string the tokens stay text: a name is never rewritten.
    check(
        "kernel f(x: [f32; 1]) -> y: [f32; 1]",
        r#"{"inputs": {"x": ["NaN"]}, "outputs": {"y": ["Infinity"]}}"#,
        "x [1] f32: NaN\ny [1] f32: inf",
    );
}

/// What `json.dumps(a.tolist())` writes for arrays of each NumPy dtype npu has (and
/// bool, whose `tolist()` is Python's `True`/`False`).
#[test]
fn tolist_of_every_dtype_is_read_by_value() {
    for (dtype, list, read) in [
        (
            "f16",
            "[[0.5, -2.0], [65504.0, 0.0001]]",
            "0.5 -2 65504 0.00010001659393310547",
        ),
        (
            "bf16",
            "[[1.0, 3.140625], [-0.0, 256.0]]",
            "1 3.140625 -0 256",
        ),
        (
            "f32",
            "[[0.1, 2.5], [-0.0, 1e10]]",
            "0.10000000149011612 2.5 -0 10000000000",
        ),
        ("i8", "[[-128, 127], [0, -1]]", "-128 127 0 -1"),
        ("u8", "[[0, 255], [true, false]]", "0 255 1 0"),
        ("i16", "[[-32768, 32767], [1, 2]]", "-32768 32767 1 2"),
        ("u16", "[[65535, 0], [7, 8]]", "65535 0 7 8"),
        (
            "i32",
            "[[-2147483648, 2147483647], [3, 4]]",
            "-2147483648 2147483647 3 4",
        ),
        ("u32", "[[4294967295, 0], [5, 6]]", "4294967295 0 5 6"),
    ] {
        check(
            &format!("kernel f(x: [{dtype}; 2, 2]) -> y: [{dtype}; 2, 2]"),
            &format!(r#"{{"inputs": {{"x": {list}}}, "outputs": {{"y": {list}}}}}"#),
            &format!("x [2, 2] {dtype}: {read}\ny [2, 2] {dtype}: {read}"),
        );
    }
}

#[test]
fn a_ragged_or_misshapen_list_names_the_tensor_the_shape_and_what_was_found() {
    let with = |in_buffer: &str| {
        format!(
            r#"{{"inputs": {{"in_buffer": {in_buffer}, "scale": 1}}, "outputs": {{"out_buffer": [1, 2]}}}}"#
        )
    };
    for (in_buffer, error) in [
        (
            "[[1, 2, 3], [4, 5]]",
            "examples[0]: input `in_buffer` is a ragged list: in_buffer[1] holds 2 items, in_buffer[0] holds 3; the signature says [2, 3]",
        ),
        (
            "[[1, 2, 3], 4]",
            "examples[0]: input `in_buffer` is a ragged list: in_buffer[1] is a number where a list belongs; the signature says [2, 3]",
        ),
        (
            "[[1, 2, [3]], [4, 5, 6]]",
            "examples[0]: input `in_buffer` is a ragged list: in_buffer[0][2] is a list where a number belongs; the signature says [2, 3]",
        ),
        (
            "[[1, 2], [3, 4], [5, 6]]",
            "examples[0]: input `in_buffer` has shape [3, 2]; the signature says [2, 3]",
        ),
        (
            "[[[1, 2, 3], [4, 5, 6]]]",
            "examples[0]: input `in_buffer` has shape [1, 2, 3]; the signature says [2, 3]",
        ),
        (
            "[1, 2, 3, 4, 5]",
            "examples[0]: input `in_buffer` has 5 values; its shape [2, 3] holds 6",
        ),
        (
            "7",
            "examples[0]: input `in_buffer` has shape []; the signature says [2, 3]",
        ),
        (
            r#"[[1, 2, 3], [4, 5, "six"]]"#,
            r#"examples[0]: input `in_buffer` holds `six` at in_buffer[1][2], which is not a value (a number, a boolean, NaN, Infinity, -Infinity, "nan", "inf" or "-inf")"#,
        ),
        (
            r#"[[1, 2, 3], [4, 5, null]]"#,
            r#"examples[0]: input `in_buffer` holds `null` at in_buffer[1][2], which is not a value (a number, a boolean, NaN, Infinity, -Infinity, "nan", "inf" or "-inf")"#,
        ),
    ] {
        check(ROWS, &with(in_buffer), &format!("error: {error}"));
    }
    check(
        ROWS,
        r#"{"inputs": {"in_buffer": [[1, 2, 3], [4, 5, 6]], "scale": [[1]]}, "outputs": {"out_buffer": [1, 2]}}"#,
        "error: examples[0]: input `scale` has shape [1, 1]; the signature says []",
    );
}
