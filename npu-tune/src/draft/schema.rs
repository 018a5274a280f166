//! The body as a syntax tree in JSON, for servers that decode under a JSON Schema but
//! not a grammar (vLLM, hosted OpenAI-compatible APIs with structured outputs; the
//! llama.cpp server gets the GBNF of [`super::grammar`]). [`body_schema`] restricts
//! the tree to one signature and target as the GBNF does: a statement names an output
//! (`"name"`) or a `let` intermediate (`"let"`, one of `t0`, `t1`, ... that no tensor of
//! the signature is called), so an output may have any name; loads name input tensors, calls and reductions are what the target
//! computes, in the dtypes it computes in (a read of another dtype is an operand only
//! of a cast, or a statement's whole value; a cast to another dtype ends a statement),
//! and a subscript may be a gather through an integer index tensor (`{"gather": "idx",
//! "index": ["i"]}` prints `idx[i]`). [`body_from_json`] prints a reply back to the
//! language's text, every operation in parentheses, for the parser and checker to judge.
//!
//! ```json
//! {"statements": [{"name": "y", "axes": ["i"], "value":
//!   {"reduce": "sum", "axes": [{"axis": "k"}], "body":
//!     {"load": "x", "index": ["i", "k"]}}}]}
//! ```
//! prints `y[i] = sum[k](x[i, k]);`.

use npu_core::{Dtype, Target};
use serde_json::{Value, json};

use super::grammar::{LET_NAMES, UNARY, computed, dtype_names, reductions, target_ops};
use super::{Port, Task, axes};

/// Binary operators and the vector operation each needs.
const BINARY: [(&str, &str); 11] = [
    ("+", "add"),
    ("-", "sub"),
    ("*", "mul"),
    ("/", "div"),
    ("%", "rem"),
    ("&", "and"),
    ("|", "or"),
    ("^", "xor"),
    ("<<", "shl"),
    (">>", "shr"),
    ("max", "max"),
];

/// The JSON Schema of a body for `ports` on `target`.
pub fn body_schema(task: &Task, target: &Target) -> Value {
    let ports = &task.ports;
    let ops = target_ops(target);
    let has = |name: &str| ops.contains(name);
    let outputs: Vec<&str> = ports
        .iter()
        .filter(|p| p.output)
        .map(|p| p.name.as_str())
        .collect();
    let lets = let_names(ports);
    let pool = axes::pool(&task.doc);
    let axes: Vec<&str> = pool.iter().map(String::as_str).collect();
    let statement = |key: &str, names: Vec<&str>| {
        object(json!({
            key: { "enum": names },
            "axes": { "type": "array", "items": { "enum": axes } },
            "value": value(ports, target),
        }))
    };
    json!({
        "type": "object",
        "properties": {
            "statements": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/statement" } }
        },
        "required": ["statements"],
        "additionalProperties": false,
        "$defs": {
            "statement": { "anyOf": [
                statement("name", outputs),
                statement("let", lets.iter().map(String::as_str).collect()),
            ] },
            "expr": { "anyOf": expressions(ports, target, &has, &axes, &lets) },
            "operand": { "anyOf": operands(ports, target, &has) },
        }
    })
}

/// The names of `let` intermediates: as many as [`LET_NAMES`] of `t0`, `t1`, ... that
/// no tensor or parameter of `ports` is called, so that a statement or a load names one
/// thing and a body never defines a name twice.
fn let_names(ports: &[Port]) -> Vec<String> {
    (0..)
        .map(|n| format!("t{n}"))
        .filter(|name| ports.iter().all(|p| p.name != *name))
        .take(LET_NAMES.len())
        .collect()
}

/// The names of the inputs of `ports` of rank 0 (`scalars`) or not, whose dtype
/// `target` computes in or not (`computes`).
fn inputs<'a>(ports: &'a [Port], target: &Target, scalars: bool, computes: bool) -> Vec<&'a str> {
    ports
        .iter()
        .filter(|p| !p.output && (p.rank == 0) == scalars && computed(p, target) == computes)
        .map(|p| p.name.as_str())
        .collect()
}

/// A cast's operand: an expression, or a read of a dtype the target does not compute
/// in, which is read only to be cast or copied.
fn operands(ports: &[Port], target: &Target, has: &impl Fn(&str) -> bool) -> Vec<Value> {
    let mut operands = vec![json!({ "$ref": "#/$defs/expr" })];
    let tensors = inputs(ports, target, false, false);
    if !tensors.is_empty() {
        operands.push(object(
            json!({ "load": { "enum": tensors }, "index": index(ports, has) }),
        ));
    }
    let scalars = inputs(ports, target, true, false);
    if !scalars.is_empty() {
        operands.push(object(json!({ "scalar": { "enum": scalars } })));
    }
    operands
}

/// A statement's value: an operand, or one cast to an output's dtype the target does not
/// compute in, which ends the statement (`(..) as sat i8`).
fn value(ports: &[Port], target: &Target) -> Value {
    let operand = json!({ "$ref": "#/$defs/operand" });
    let mut dtypes: Vec<&str> = ports
        .iter()
        .filter(|p| p.output && !computed(p, target))
        .filter_map(|p| p.dtype.map(Dtype::name))
        .collect();
    dtypes.sort_unstable();
    dtypes.dedup();
    match dtypes.is_empty() {
        true => operand,
        false => json!({ "anyOf": [operand, object(
            json!({ "cast": { "enum": dtypes }, "saturate": { "type": "boolean" }, "value": operand }),
        )] }),
    }
}

/// A load's subscripts: affine, as text, or, where the target gathers and the signature
/// has an integer input tensor, one read through it (`{"gather": "idx", "index": ["i"]}`).
fn index(ports: &[Port], has: &impl Fn(&str) -> bool) -> Value {
    let affine = json!({ "type": "string", "maxLength": 24 });
    let indexes: Vec<&str> = ports
        .iter()
        .filter(|p| !p.output && p.rank > 0 && p.dtype.is_some_and(|d| !d.is_float()))
        .map(|p| p.name.as_str())
        .collect();
    let items = match indexes.is_empty() || !has("gather") {
        true => affine,
        false => json!({ "anyOf": [affine.clone(), object(json!({
            "gather": { "enum": indexes },
            "index": { "type": "array", "items": affine },
        }))] }),
    };
    json!({ "type": "array", "items": items })
}

/// An object schema whose every property is required and nothing else allowed.
fn object(properties: Value) -> Value {
    let required: Vec<&String> = properties
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
}

/// `schema` (an [`object`]) with one more property, not required.
fn with_optional(mut schema: Value, name: &str, property: Value) -> Value {
    schema["properties"][name] = property;
    schema
}

/// An axis a reduction introduces, with the extent of a window (`k < 3`) when no
/// tensor is indexed by the axis alone: at most the longest dimension of an input
/// tensor of `ports`, as in the GBNF.
fn reduction_axis(ports: &[Port], axes: &[&str]) -> Value {
    let mut extent = json!({ "type": "integer", "minimum": 1 });
    let longest = ports
        .iter()
        .filter(|p| !p.output)
        .flat_map(|p| p.shape.iter().copied())
        .max();
    if let Some(longest) = longest {
        extent["maximum"] = longest.into();
    }
    with_optional(
        object(json!({ "axis": { "enum": axes } })),
        "extent",
        extent,
    )
}

/// The alternatives of an expression node.
fn expressions(
    ports: &[Port],
    target: &Target,
    has: &impl Fn(&str) -> bool,
    axes: &[&str],
    lets: &[String],
) -> Vec<Value> {
    let expr = json!({ "$ref": "#/$defs/expr" });
    let tensors = inputs(ports, target, false, true);
    let lets: Vec<&str> = lets.iter().map(String::as_str).collect();
    let readable = [&lets[..], &tensors[..]].concat();
    let mut scalars = inputs(ports, target, true, true);
    scalars.extend(&lets);
    let index = index(ports, has);
    let (dtypes, accumulators) = dtype_names(target);
    let calls: Vec<&str> = UNARY
        .iter()
        .copied()
        .filter(|f| has(f))
        .chain(has("not").then_some("not"))
        .collect();
    let binary: Vec<&str> = BINARY
        .iter()
        .filter(|(_, op)| has(op))
        .map(|(text, _)| *text)
        .chain(has("min").then_some("min"))
        .collect();
    let mut nodes = vec![
        object(json!({ "number": { "type": "number" } })),
        object(json!({ "special": { "enum": ["inf", "nan"] } })),
        object(json!({ "scalar": { "enum": scalars } })),
        object(json!({ "load": { "enum": readable }, "index": index })),
        object(json!({ "call": { "enum": calls }, "arg": expr })),
        object(json!({ "op": { "enum": binary }, "lhs": expr, "rhs": expr })),
        object(
            json!({ "cast": { "enum": dtypes }, "saturate": { "type": "boolean" }, "value": { "$ref": "#/$defs/operand" } }),
        ),
        with_optional(
            object(json!({
                "reduce": { "enum": reductions(has) },
                "axes": { "type": "array", "minItems": 1, "items": reduction_axis(ports, axes) },
                "body": expr,
            })),
            "accumulator",
            json!({ "enum": accumulators }),
        ),
    ];
    if !tensors.is_empty() {
        nodes.push(object(
            json!({ "pad": { "enum": tensors }, "fill": expr, "index": index }),
        ));
    }
    nodes.extend(special_cases(has));
    nodes
}

/// `select` for a special case and `pow`, where the target computes them.
fn special_cases(has: &impl Fn(&str) -> bool) -> Vec<Value> {
    let expr = json!({ "$ref": "#/$defs/expr" });
    let mut nodes = Vec::new();
    if has("select") && has("cmp") {
        nodes.push(object(json!({
            "select": { "enum": ["<", "<=", ">", ">=", "==", "!="] },
            "lhs": expr, "rhs": expr, "then": expr, "else": expr,
        })));
    }
    if has("pow") {
        nodes.push(object(
            json!({ "pow": expr, "exponent": { "type": "number" } }),
        ));
    }
    nodes
}

/// A reply written under [`body_schema`] as the body's text, or why it is not one.
pub fn body_from_json(reply: &str) -> Result<String, String> {
    let value: Value = serde_json::from_str(reply.trim())
        .map_err(|e| format!("the reply is not the JSON syntax tree asked for: {e}"))?;
    let statements = value["statements"]
        .as_array()
        .ok_or("the reply has no `statements` list")?;
    let mut body = String::new();
    for (index, statement) in statements.iter().enumerate() {
        let line = print_statement(statement).map_err(|e| format!("statements[{index}]: {e}"))?;
        body += &line;
        body.push('\n');
    }
    Ok(body)
}

/// `let t0[i] = ...;` (a statement with `"let"`) or `y[i, j] = ...;` (with `"name"`).
/// What a statement defines is said by its key, never guessed from its name: an
/// output may be called `t0`.
fn print_statement(statement: &Value) -> Result<String, String> {
    let (keyword, name) = match statement.get("let") {
        Some(name) => ("let ", text(name, "let")?),
        None => ("", text(&statement["name"], "name")?),
    };
    let axes = strings(&statement["axes"], "axes")?;
    let target = match axes.is_empty() {
        true => name.to_string(),
        false => format!("{name}[{}]", axes.join(", ")),
    };
    Ok(format!(
        "{keyword}{target} = {};",
        print(&statement["value"])?
    ))
}

/// An expression node as text. Its depth is bounded by serde_json's recursion limit
/// (128), which refuses deeper replies before they are printed.
fn print(node: &Value) -> Result<String, String> {
    let sub = |key: &str| print(&node[key]);
    if let Some(number) = node.get("number") {
        return number_text(number);
    }
    if let Some(special) = node.get("special") {
        return Ok(text(special, "special")?.to_string());
    }
    if let Some(scalar) = node.get("scalar") {
        return Ok(text(scalar, "scalar")?.to_string());
    }
    if let Some(load) = node.get("load") {
        let index = subscripts(&node["index"])?;
        let name = text(load, "load")?;
        return Ok(format!("{name}[{}]", index.join(", ")));
    }
    if let Some(pad) = node.get("pad") {
        let index = subscripts(&node["index"])?;
        return Ok(format!(
            "pad({}, {})[{}]",
            text(pad, "pad")?,
            sub("fill")?,
            index.join(", ")
        ));
    }
    if let Some(call) = node.get("call") {
        return Ok(match text(call, "call")? {
            "not" => format!("!({})", sub("arg")?),
            name => format!("{name}({})", sub("arg")?),
        });
    }
    if let Some(op) = node.get("op") {
        return Ok(match text(op, "op")? {
            name @ ("max" | "min") => format!("{name}({}, {})", sub("lhs")?, sub("rhs")?),
            symbol => format!("({} {symbol} {})", sub("lhs")?, sub("rhs")?),
        });
    }
    if let Some(cast) = node.get("cast") {
        let saturate = if node["saturate"].as_bool() == Some(true) {
            "sat "
        } else {
            ""
        };
        return Ok(format!(
            "({} as {saturate}{})",
            sub("value")?,
            text(cast, "cast")?
        ));
    }
    if let Some(reduce) = node.get("reduce") {
        let axes: Vec<String> = node["axes"]
            .as_array()
            .ok_or("`axes` is not a list")?
            .iter()
            .map(reduction_axis_text)
            .collect::<Result<_, _>>()?;
        let accumulator = match node.get("accumulator") {
            Some(dtype) => format!(": {}", text(dtype, "accumulator")?),
            None => String::new(),
        };
        return Ok(format!(
            "{}[{}{accumulator}]({})",
            text(reduce, "reduce")?,
            axes.join(", "),
            sub("body")?
        ));
    }
    if let Some(cmp) = node.get("select") {
        let (lhs, rhs) = (sub("lhs")?, sub("rhs")?);
        return Ok(format!(
            "select({lhs} {} {rhs}, {}, {})",
            text(cmp, "select")?,
            sub("then")?,
            sub("else")?
        ));
    }
    if let Some(base) = node.get("pow") {
        let exponent = number_text(&node["exponent"])?;
        return Ok(format!("pow({}, {exponent})", print(base)?));
    }
    Err(format!("`{}` is not an expression node", excerpt(node)))
}

/// A load's subscripts as text: each affine one as written, a gather as `idx[i]`.
fn subscripts(index: &Value) -> Result<Vec<String>, String> {
    let list = index.as_array().ok_or("`index` is not a list")?;
    list.iter()
        .map(|subscript| match subscript.get("gather") {
            None => Ok(text(subscript, "index")?.to_string()),
            Some(tensor) => Ok(format!(
                "{}[{}]",
                text(tensor, "gather")?,
                strings(&subscript["index"], "index")?.join(", ")
            )),
        })
        .collect()
}

/// One axis of a reduction: `k`, or `k < 3` with its extent.
fn reduction_axis_text(axis: &Value) -> Result<String, String> {
    let name = text(&axis["axis"], "axis")?;
    match axis.get("extent") {
        None => Ok(name.to_string()),
        Some(extent) => match extent.as_u64() {
            Some(n) if n > 0 => Ok(format!("{name} < {n}")),
            _ => Err(format!(
                "extent `{}` is not a positive integer",
                excerpt(extent)
            )),
        },
    }
}

/// A JSON number as a literal: integers without a point, others as written.
fn number_text(number: &Value) -> Result<String, String> {
    match (number.as_i64(), number.as_f64()) {
        (Some(integer), _) => Ok(integer.to_string()),
        (None, Some(float)) if float.is_finite() => Ok(format!("{float:?}")),
        _ => Err(format!("`{}` is not a number", excerpt(number))),
    }
}

fn text<'a>(value: &'a Value, what: &str) -> Result<&'a str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("`{what}` is not a string"))
}

fn strings<'a>(value: &'a Value, what: &str) -> Result<Vec<&'a str>, String> {
    let list = value
        .as_array()
        .ok_or_else(|| format!("`{what}` is not a list"))?;
    list.iter().map(|v| text(v, what)).collect()
}

/// The start of a node's JSON, for messages.
fn excerpt(value: &Value) -> String {
    value.to_string().chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_prints_as_the_language() {
        let reply = r#"{"statements": [
            {"let": "t0", "axes": ["i"], "value": {"reduce": "max", "axes": [{"axis": "k"}], "body": {"load": "x", "index": ["i", "k"]}}},
            {"name": "y", "axes": ["i", "j"], "value": {"op": "*", "lhs": {"call": "exp", "arg": {"op": "-", "lhs": {"load": "x", "index": ["i", "j"]}, "rhs": {"load": "t0", "index": ["i"]}}}, "rhs": {"number": 0.5}}}
        ]}"#;
        assert_eq!(
            body_from_json(reply).unwrap(),
            "let t0[i] = max[k](x[i, k]);\ny[i, j] = (exp((x[i, j] - t0[i])) * 0.5);\n"
        );
        let cast = r#"{"statements": [{"name": "q", "axes": ["i"], "value": {"cast": "i8", "saturate": true, "value": {"select": ">", "lhs": {"load": "x", "index": ["i"]}, "rhs": {"number": 0}, "then": {"pow": {"scalar": "s"}, "exponent": 2}, "else": {"special": "nan"}}}}]}"#;
        assert_eq!(
            body_from_json(cast).unwrap(),
            "q[i] = (select(x[i] > 0, pow(s, 2), nan) as sat i8);\n"
        );
        let window = r#"{"statements": [{"name": "y", "axes": ["i"], "value": {"reduce": "sum", "accumulator": "f16", "axes": [{"axis": "k", "extent": 3}, {"axis": "l"}], "body": {"load": "x", "index": ["2 * i + k", "l"]}}}]}"#;
        let gather = r#"{"statements": [{"name": "y", "axes": ["i", "j"], "value": {"load": "x", "index": [{"gather": "idx", "index": ["i + 1"]}, "j"]}}]}"#;
        assert_eq!(
            body_from_json(gather).unwrap(),
            "y[i, j] = x[idx[i + 1], j];\n"
        );
        assert_eq!(
            body_from_json(window).unwrap(),
            "y[i] = sum[k < 3, l: f16](x[2 * i + k, l]);\n"
        );
    }

    /// Issue 40: an output named as the schema names intermediates (`t0`) was printed
    /// as a `let`, and the checker refused the body for an output never written.
    #[test]
    fn an_output_named_as_an_intermediate_is_printed_as_an_output() {
        let text = "/// y = 2x\nkernel twice(x: [f32; 8]) -> t0: [f32; 8] {}\ntarget ascend910b;\n";
        let task = Task::parse(text).unwrap();
        let target = Target::preset("ascend910b").unwrap();
        let tree = r#"{"statements": [{"name": "t0", "axes": ["i"], "value": {"op": "*", "lhs": {"load": "x", "index": ["i"]}, "rhs": {"number": 2.0}}}]}"#;
        let body = body_from_json(tree).unwrap();
        assert_eq!(body, "t0[i] = (x[i] * 2.0);\n");
        let outcome = task.try_body(&body, &target, &[], None);
        assert!(
            matches!(outcome, super::super::Outcome::Matches { .. }),
            "{outcome:?}"
        );
        // The schema offers `t0` as the output only, and no intermediate a tensor's name.
        let text = text.replace("x: [f32; 8]", "t1: [f32; 8]");
        let schema = body_schema(&Task::parse(&text).unwrap(), &target);
        let statements = &schema["$defs"]["statement"]["anyOf"];
        assert_eq!(statements[0]["properties"]["name"]["enum"], json!(["t0"]));
        assert_eq!(
            statements[1]["properties"]["let"]["enum"],
            json!(["t2", "t3", "t4", "t5", "t6", "t7"])
        );
    }

    #[test]
    fn replies_that_are_not_trees_say_why() {
        for (reply, why) in [
            ("y[i] = x[i];", "not the JSON syntax tree"),
            (r#"{"rows": []}"#, "no `statements`"),
            (
                r#"{"statements": [{"name": "y", "axes": ["i"], "value": {"frob": 1}}]}"#,
                "statements[0]: `{\"frob\":1}` is not an expression node",
            ),
        ] {
            let error = body_from_json(reply).unwrap_err();
            assert!(error.contains(why), "{error}");
        }
        let deep = format!(
            "{}{{\"number\": 1}}{}",
            "{\"call\": \"exp\", \"arg\": ".repeat(200),
            "}".repeat(200)
        );
        let reply =
            format!(r#"{{"statements": [{{"name": "y", "axes": ["i"], "value": {deep}}}]}}"#);
        assert!(
            body_from_json(&reply)
                .unwrap_err()
                .contains("recursion limit")
        );
    }
}
