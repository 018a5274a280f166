//! Drafting a kernel's body: a kernel file with a doc comment saying what the kernel
//! computes, its signature, its target and an empty body (`{}`) is a [`Task`]; a
//! candidate body goes through the parser, the checker (the algorithm only: no
//! schedule is needed yet) and the host reference on the [`examples`], and the
//! [`Outcome`] says what the next attempt should fix.
//!
//! ```
//! use npu_tune::draft::{Outcome, Task};
//!
//! let text = "/// y = 2x\nkernel double(x: [f32; 4]) -> y: [f32; 4] {}\ntarget ascend910b;\n";
//! let task = Task::parse(text).unwrap();
//! let target = npu_core::Target::preset("ascend910b").unwrap();
//! let Outcome::Matches { kernel, .. } = task.evaluate("y[i] = x[i] * 2.0;", &target, &[], None)
//! else {
//!     panic!("the body checks")
//! };
//! assert_eq!(kernel.name, "double");
//! assert!(task.with_body("y[i] = x[i] * 2.0;").contains("{\n    y[i] = x[i] * 2.0;\n}"));
//! ```

pub mod examples;
pub mod grammar;

use std::ops::Range;
use std::str::FromStr;

use npu_core::ir::CheckedKernel;
use npu_core::{Diagnostics, Target};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

use examples::{Example, Mismatch, Tolerance};

/// A kernel file to draft a body for.
#[derive(Clone, Debug)]
pub struct Task {
    /// The file's text, kept byte for byte around the body.
    pub text: String,
    /// The kernel's name.
    pub name: String,
    /// The signature, inputs then outputs, as the body sees it.
    pub ports: Vec<Port>,
    /// The bytes of the empty body's braces, `{}`.
    body: Range<usize>,
}

/// A tensor or scalar parameter of the signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    /// `None` when the signature names a dtype npu does not have (the checker says so).
    pub dtype: Option<npu_core::Dtype>,
    /// The number of dimensions: 0 for a scalar parameter or a 0-d output.
    pub rank: usize,
    pub output: bool,
}

/// What one candidate body gave.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The parser or the checker refused it: the diagnostics, rendered with carets
    /// against the kernel text with this body.
    Rejected {
        diagnostics: Diagnostics,
        rendered: String,
    },
    /// It checks, and the host reference failed on an example (a gather index out of
    /// range, an input that does not fit the signature).
    Failed { example: usize, error: String },
    /// It checks, and computes other values than an example's.
    Mismatch(Mismatch),
    /// It checks and matches every example (`verified`), or there were none.
    Matches {
        kernel: Box<CheckedKernel>,
        verified: bool,
    },
}

impl Task {
    /// Finds the kernel and its empty body in `text`.
    pub fn parse(text: &str) -> Result<Task, String> {
        let located = locate_body(text);
        let ports = ports(text);
        // Tokenizing text records it in this thread's span table; free it.
        proc_macro2::extra::invalidate_current_thread_spans();
        let (name, body, empty) = located?;
        if !empty {
            return Err(format!(
                "kernel `{name}` already has a body; `autotune draft` writes the body of a kernel whose body is empty (`{{}}`)"
            ));
        }
        Ok(Task {
            text: text.to_string(),
            name,
            ports,
            body,
        })
    }

    /// The file's text with `body` (statements) in the kernel's braces, indented.
    pub fn with_body(&self, body: &str) -> String {
        let lines: Vec<String> = body
            .trim()
            .lines()
            .map(|line| format!("    {}", line.trim_end()))
            .collect();
        format!(
            "{}{{\n{}\n}}{}",
            &self.text[..self.body.start],
            lines.join("\n"),
            &self.text[self.body.end..]
        )
    }

    /// Checks `body` on `target` and runs it on every example, comparing within
    /// `tolerance` (each output dtype's default when `None`).
    pub fn evaluate(
        &self,
        body: &str,
        target: &Target,
        examples: &[Example],
        tolerance: Option<Tolerance>,
    ) -> Outcome {
        let text = self.with_body(body);
        let kernel = match check_algorithm(&text, target) {
            Ok(kernel) => kernel,
            Err(diagnostics) => {
                let rendered = diagnostics.render(&text);
                return Outcome::Rejected {
                    diagnostics,
                    rendered,
                };
            }
        };
        for (index, example) in examples.iter().enumerate() {
            let got = match npu_sim::reference(&kernel, &example.inputs) {
                Ok(got) => got,
                Err(error) => {
                    return Outcome::Failed {
                        example: index,
                        error: error.to_string(),
                    };
                }
            };
            let mismatch = examples::compare(index, &kernel, &got, &example.expected, tolerance);
            if let Some(mismatch) = mismatch {
                return Outcome::Mismatch(mismatch);
            }
        }
        Outcome::Matches {
            kernel: Box::new(kernel),
            verified: !examples.is_empty(),
        }
    }
}

/// The signature's ports, as far as the text parses.
fn ports(text: &str) -> Vec<Port> {
    let (def, _) = npu_core::internal::parse_str_partial(text);
    let Some(def) = def else {
        return Vec::new();
    };
    let port = |param: &npu_core::ast::Param, output: bool| Port {
        name: param.name.to_string(),
        dtype: npu_core::Dtype::from_name(&param.dtype.to_string()),
        rank: param.shape.len(),
        output,
    };
    let inputs = def.inputs.iter().map(|p| port(p, false));
    inputs
        .chain(def.outputs.iter().map(|p| port(p, true)))
        .collect()
}

/// Parses and checks kernel text's signature and algorithm, freeing the span table.
fn check_algorithm(text: &str, target: &Target) -> Result<CheckedKernel, Diagnostics> {
    let (def, parsed) = npu_core::internal::parse_str_partial(text);
    let result = match def {
        Some(def) => {
            npu_core::internal::merge(parsed, npu_core::internal::check_algorithm(&def, target))
        }
        None => Err(parsed),
    };
    let result = result.map_err(|mut diagnostics| {
        diagnostics.detach();
        diagnostics
    });
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

/// The kernel's name, the byte range of its body's braces, and whether the body is
/// empty: the first brace group after the `kernel` keyword and its `->` outputs.
fn locate_body(text: &str) -> Result<(String, Range<usize>, bool), String> {
    let stream =
        TokenStream::from_str(text).map_err(|e| format!("the file does not tokenize: {e}"))?;
    let mut tokens = stream.into_iter().skip_while(|t| !is_ident(t, "kernel"));
    let name = match (tokens.next(), tokens.next()) {
        (Some(_), Some(TokenTree::Ident(name))) => name.to_string(),
        _ => return Err("no `kernel NAME(...)` found in the file".into()),
    };
    let mut arrow = false;
    let mut previous_dash = false;
    for token in tokens {
        if let TokenTree::Punct(punct) = &token {
            arrow |= previous_dash && punct.as_char() == '>';
            previous_dash = punct.as_char() == '-';
            continue;
        }
        previous_dash = false;
        if let TokenTree::Group(group) = &token
            && arrow
            && group.delimiter() == Delimiter::Brace
        {
            let empty = group.stream().is_empty();
            return Ok((name, group.span().byte_range(), empty));
        }
    }
    Err(format!(
        "kernel `{name}` has no body: write `{{}}` after its outputs"
    ))
}

fn is_ident(token: &TokenTree, word: &str) -> bool {
    matches!(token, TokenTree::Ident(ident) if ident == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "// A comment kept as it is.\n/// Row sums.\nkernel rows(x: [f32; 4, 3]) -> y: [f32; 4] {}\ntarget ascend910b;\n";

    fn target() -> Target {
        Target::preset("ascend910b").unwrap()
    }

    fn examples(task: &Task) -> Vec<Example> {
        let Outcome::Matches { kernel, .. } =
            task.evaluate("y[i] = sum[k](x[i, k]);", &target(), &[], None)
        else {
            panic!("the right body checks");
        };
        let json = r#"{"examples": [{"inputs": {"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, "inf"]},
                                    "outputs": {"y": [6, 15, 24, "inf"]}}]}"#;
        examples::from_json(json, &kernel).unwrap()
    }

    #[test]
    fn the_body_is_written_between_the_braces_and_the_rest_is_kept() {
        let task = Task::parse(FILE).unwrap();
        assert_eq!(task.name, "rows");
        assert_eq!(
            task.with_body("y[i] = sum[k](x[i, k]);\n"),
            "// A comment kept as it is.\n/// Row sums.\nkernel rows(x: [f32; 4, 3]) -> y: [f32; 4] {\n    y[i] = sum[k](x[i, k]);\n}\ntarget ascend910b;\n"
        );
    }

    #[test]
    fn a_right_body_matches_and_a_wrong_one_says_where() {
        let task = Task::parse(FILE).unwrap();
        let examples = examples(&task);
        let right = task.evaluate("y[i] = sum[k](x[i, k]);", &target(), &examples, None);
        assert!(matches!(right, Outcome::Matches { verified: true, .. }));
        let wrong = task.evaluate("y[i] = max[k](x[i, k]);", &target(), &examples, None);
        let Outcome::Mismatch(mismatch) = wrong else {
            panic!("{wrong:?}")
        };
        assert_eq!(
            mismatch.to_string(),
            "example 0: `y` differs in 3 of 4 elements; first at [0]: expected 6, got 3; largest error 15"
        );
    }

    #[test]
    fn a_body_that_does_not_check_gets_the_diagnostics() {
        let task = Task::parse(FILE).unwrap();
        let Outcome::Rejected { rendered, .. } =
            task.evaluate("y[i] = sum[k](z[i, k]);", &target(), &[], None)
        else {
            panic!("an unknown tensor is an error")
        };
        assert!(rendered.contains("error[E0"), "{rendered}");
        assert!(rendered.contains("z[i, k]"), "{rendered}");
    }

    #[test]
    fn files_that_are_not_a_task_are_errors() {
        let full = FILE.replace("{}", "{ y[i] = x[i, 0]; }");
        assert!(
            Task::parse(&full)
                .unwrap_err()
                .contains("already has a body")
        );
        assert!(
            Task::parse("target ascend910b;")
                .unwrap_err()
                .contains("no `kernel")
        );
        let open = Task::parse("kernel k(x: [f32; 4]) -> y: [f32; 4]\ntarget ascend910b;");
        assert!(open.unwrap_err().contains("has no body"));
        assert!(
            Task::parse("kernel k( {")
                .unwrap_err()
                .contains("does not tokenize")
        );
    }

    #[test]
    fn examples_must_fit_the_signature() {
        let task = Task::parse(FILE).unwrap();
        let Outcome::Matches { kernel, .. } =
            task.evaluate("y[i] = sum[k](x[i, k]);", &target(), &[], None)
        else {
            panic!("the right body checks");
        };
        let cases = [
            (r#"{"examples": []}"#, "the list is empty"),
            (
                r#"{"examples": [{"inputs": {}, "outputs": {"y": [1, 2, 3, 4]}}]}"#,
                "input `x` is missing",
            ),
            (
                r#"{"examples": [{"inputs": {"x": [1]}, "outputs": {"y": [1, 2, 3, 4]}}]}"#,
                "has 1 values; its shape [4, 3] holds 12",
            ),
            (
                r#"{"examples": [{"inputs": {"x": [1,1,1,1,1,1,1,1,1,1,1,1], "w": [1]}, "outputs": {"y": [1, 2, 3, 4]}}]}"#,
                "no input `w`",
            ),
            (
                r#"{"examples": [{"inputs": {"x": [1,1,1,1,1,1,1,1,1,1,1,"big"]}, "outputs": {"y": [1, 2, 3, 4]}}]}"#,
                "`big` is not a value",
            ),
            ("not json", "examples: expected"),
        ];
        for (json, why) in cases {
            let error = examples::from_json(json, &kernel).unwrap_err();
            assert!(error.contains(why), "{json}: {error}");
        }
    }
}
