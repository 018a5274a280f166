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
//! let Outcome::Matches { kernel, .. } = task.try_body("y[i] = x[i] * 2.0;", &target, &[], None)
//! else {
//!     panic!("the body checks")
//! };
//! assert_eq!(kernel.name, "double");
//! assert!(task.with_body("y[i] = x[i] * 2.0;").contains("{\n    y[i] = x[i] * 2.0;\n}"));
//! ```

mod arrays;
#[cfg(feature = "llm")]
mod attempt;
pub mod axes;
pub mod eval;
pub mod examples;
pub mod grammar;
pub mod idioms;
#[cfg(feature = "llm")]
pub mod prompt;
#[cfg(feature = "llm")]
mod resample;
pub mod retrieve;
#[cfg(feature = "llm")]
pub mod run;
pub mod schema;
#[cfg(feature = "llm")]
pub mod scoreboard;
mod signature;

#[cfg(feature = "llm")]
pub use attempt::Attempt;
#[cfg(feature = "llm")]
pub use run::{DraftConfig, Drafted, draft};
pub use signature::Port;

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
    /// What the kernel computes: its doc comment, lines joined with `\n`.
    pub doc: String,
    /// The signature, inputs then outputs, as the body sees it.
    pub ports: Vec<Port>,
    /// The kernel's source in the text: the whole file, or inside `npu_kernel! { }`.
    kernel: Range<usize>,
    /// The bytes of the empty body's braces, `{}`.
    body: Range<usize>,
}

/// What one candidate body gave.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The parser or the checker refused it: the diagnostics, rendered with carets
    /// against the kernel text with this body.
    Rejected {
        /// What the parser or checker reported, detached from the source.
        diagnostics: Diagnostics,
        /// `diagnostics` rendered with carets against the kernel text with this body.
        rendered: String,
    },
    /// It checks, and the host reference failed on an example (a gather index out of
    /// range, an input that does not fit the signature).
    Failed {
        /// Which example, 0-based.
        example: usize,
        /// What the host reference reported.
        error: String,
    },
    /// It checks, and computes other values than an example's.
    Mismatch(Mismatch),
    /// It checks and matches every example (`verified`), or there were none.
    Matches {
        /// The checked kernel (algorithm only, no schedule).
        kernel: Box<CheckedKernel>,
        /// Whether it was run on examples; `false` when there were none.
        verified: bool,
    },
}

impl Task {
    /// Finds the kernel and its empty body in `text`: a `.npu` file's kernel, or the
    /// kernel of an `npu_kernel!` block of a Rust file.
    pub fn parse(text: &str) -> Result<Task, String> {
        Task::parse_named(text, None)
    }

    /// [`parse`](Self::parse) for the kernel named `wanted` (the first when `None`).
    pub fn parse_named(text: &str, wanted: Option<&str>) -> Result<Task, String> {
        let located = locate(text, wanted);
        // Tokenizing text records it in this thread's span table; free it.
        proc_macro2::extra::invalidate_current_thread_spans();
        let Located {
            name,
            kernel,
            body,
            empty,
        } = located?;
        let (doc, ports) = signature::signature(&text[kernel.clone()]);
        if !empty {
            return Err(format!(
                "kernel `{name}` already has a body; `autotune draft` writes the body of a kernel whose body is empty (`{{}}`)"
            ));
        }
        Ok(Task {
            text: text.to_string(),
            name,
            doc,
            ports,
            kernel,
            body,
        })
    }

    /// The file's text with `body` (statements) in the kernel's braces, indented.
    pub fn with_body(&self, body: &str) -> String {
        let lines: Vec<String> = body
            .trim()
            .lines()
            .map(|line| format!("    {}", line.trim()))
            .collect();
        format!(
            "{}{{\n{}\n}}{}",
            &self.text[..self.body.start],
            lines.join("\n"),
            &self.text[self.body.end..]
        )
    }

    /// The kernel's source alone (without the Rust around an `npu_kernel!` block) with
    /// `body`.
    pub fn kernel_with_body(&self, body: &str) -> String {
        let whole = self.with_body(body);
        let grown = whole.len() - self.text.len();
        whole[self.kernel.start..self.kernel.end + grown].to_string()
    }

    /// The kernel's target: a preset, or a target file relative to `dir` (the kernel
    /// file's directory).
    pub fn target(&self, dir: &std::path::Path) -> Result<Target, String> {
        let text = self.kernel_with_body("");
        let (def, _) = npu_core::internal::parse_str_partial(&text);
        let target = def
            .ok_or_else(|| "the kernel does not parse".to_string())
            .and_then(|def| {
                npu_core::internal::resolve_target(&def, |path| {
                    npu_core::target::read_file(&dir.join(path))
                })
                .map_err(|d| d.render(&text))
            });
        proc_macro2::extra::invalidate_current_thread_spans();
        target
    }

    /// `body` rewritten into the forms the checker asks for ([`npu_core::rewrite`]:
    /// mixed dtypes cast, unrolled windows folded, reductions hoisted into
    /// intermediates); `None` when the body does not parse or no rewrite changes it.
    pub fn rewritten(&self, body: &str) -> Option<String> {
        let (def, _) = npu_core::internal::parse_str_partial(&self.kernel_with_body(body));
        let rewritten = def.as_ref().and_then(npu_core::rewrite::all);
        proc_macro2::extra::invalidate_current_thread_spans();
        let lines: Vec<String> = rewritten?.iter().map(npu_core::print::statement).collect();
        Some(lines.join("\n"))
    }

    /// Checks `body` on `target` and runs it on every example, comparing within
    /// `tolerance` (each output dtype's default when `None`).
    pub fn try_body(
        &self,
        body: &str,
        target: &Target,
        examples: &[Example],
        tolerance: Option<Tolerance>,
    ) -> Outcome {
        let text = self.kernel_with_body(body);
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
            let mismatch =
                examples::compare(index, &self.ports, &got, &example.expected, tolerance);
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

/// Where a kernel is in a file.
struct Located {
    name: String,
    /// The kernel's source: the whole file, or the inside of its `npu_kernel!` braces.
    kernel: Range<usize>,
    /// The body's braces.
    body: Range<usize>,
    empty: bool,
}

/// Finds kernel `wanted` (or the first kernel) in `text`: at the top level of a `.npu`
/// file, or inside the braces of a macro call in a Rust file.
fn locate(text: &str, wanted: Option<&str>) -> Result<Located, String> {
    let stream =
        TokenStream::from_str(text).map_err(|e| format!("the file does not tokenize: {e}"))?;
    let whole = 0..text.len();
    if let Some(found) = locate_in(stream.clone(), whole, wanted)? {
        return Ok(found);
    }
    for token in stream {
        if let TokenTree::Group(group) = token
            && group.delimiter() == Delimiter::Brace
        {
            let inside = group.span_open().byte_range().end..group.span_close().byte_range().start;
            if let Some(found) = locate_in(group.stream(), inside, wanted)? {
                return Ok(found);
            }
        }
    }
    Err(match wanted {
        Some(name) => format!("no kernel `{name}` found in the file"),
        None => "no `kernel NAME(...)` found in the file".into(),
    })
}

/// The kernel `wanted` (or the first) among `stream`'s top-level tokens, whose source
/// spans `kernel`.
fn locate_in(
    stream: TokenStream,
    kernel: Range<usize>,
    wanted: Option<&str>,
) -> Result<Option<Located>, String> {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let Some(start) = tokens.windows(2).position(|pair| {
        is_ident(&pair[0], "kernel")
            && matches!(&pair[1], TokenTree::Ident(name) if wanted.is_none_or(|w| name == w))
    }) else {
        return Ok(None);
    };
    let name = tokens[start + 1].to_string();
    let mut arrow = false;
    let mut previous_dash = false;
    for token in &tokens[start + 2..] {
        if let TokenTree::Punct(punct) = token {
            arrow |= previous_dash && punct.as_char() == '>';
            previous_dash = punct.as_char() == '-';
            continue;
        }
        previous_dash = false;
        if let TokenTree::Group(group) = token
            && arrow
            && group.delimiter() == Delimiter::Brace
        {
            let body = group.span().byte_range();
            let empty = group.stream().is_empty();
            return Ok(Some(Located {
                name,
                kernel,
                body,
                empty,
            }));
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
        let json = r#"{"examples": [{"inputs": {"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, "inf"]},
                                    "outputs": {"y": [6, 15, 24, "inf"]}}]}"#;
        examples::from_json(json, &task.ports).unwrap()
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
        let right = task.try_body("y[i] = sum[k](x[i, k]);", &target(), &examples, None);
        assert!(matches!(right, Outcome::Matches { verified: true, .. }));
        let wrong = task.try_body("y[i] = max[k](x[i, k]);", &target(), &examples, None);
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
            task.try_body("y[i] = sum[k](z[i, k]);", &target(), &[], None)
        else {
            panic!("an unknown tensor is an error")
        };
        assert!(rendered.contains("error[E0"), "{rendered}");
        assert!(rendered.contains("z[i, k]"), "{rendered}");
    }

    #[test]
    fn a_kernel_of_a_rust_file_is_found_by_name_and_the_rest_kept() {
        let rust = "use npu::npu_kernel;\n\nnpu_kernel! {\n    kernel a(x: [f32; 4]) -> y: [f32; 4] { y[i] = x[i]; }\n    target ascend910b;\n    schedule s { stage x, y in ub; }\n}\n\nnpu_kernel! {\n    /// y = 3x\n    kernel b(x: [f32; 4]) -> y: [f32; 4] {}\n    target ascend910b;\n}\n";
        let task = Task::parse_named(rust, Some("b")).unwrap();
        assert_eq!(task.ports.len(), 2);
        let written = task.with_body("y[i] = x[i] * 3.0;");
        assert!(written.starts_with(&rust[..rust.find("kernel b").unwrap()]));
        assert!(written.ends_with("{\n    y[i] = x[i] * 3.0;\n}\n    target ascend910b;\n}\n"));
        assert!(
            task.kernel_with_body("y[i] = x[i] * 3.0;")
                .trim()
                .starts_with("/// y = 3x")
        );
        let outcome = task.try_body("y[i] = x[i] * 3.0;", &target(), &[], None);
        assert!(matches!(outcome, Outcome::Matches { .. }), "{outcome:?}");
        assert!(
            Task::parse_named(rust, Some("a"))
                .unwrap_err()
                .contains("already has a body")
        );
        assert!(
            Task::parse_named(rust, Some("c"))
                .unwrap_err()
                .contains("no kernel `c`")
        );
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
                "holds `big` at x[11], which is not a value",
            ),
            ("not json", "examples: expected"),
        ];
        for (json, why) in cases {
            let error = examples::from_json(json, &task.ports).unwrap_err();
            assert!(error.contains(why), "{json}: {error}");
        }
    }
}
