//! Mutated kernels never panic the parser, the checker or the renderer, and every
//! rejection says why.
//!
//! Every `npu_kernel!` body of the UI cases and the examples is mutated hundreds of
//! times (truncated at every token, a token deleted, duplicated or swapped, a number
//! made 0, huge or a float, a name replaced) and checked as the macro checks it:
//! `parse_str_partial`, then target resolution and `check`. An accepted kernel must
//! check again from its canonical text to the same `CheckedKernel`, which the
//! generated `kernel()` function relies on, and lowers and simulates without an
//! error other than the instruction budget. The macro's own expansion runs on mutated
//! token streams in npu-macros' unit tests.
//!
//! A second pass grows each body pathologically: thousands of nested parentheses,
//! `abs(` or unary `-` around a token, an item repeated thousands of times, the whole
//! body on one line. These run through the same checks and through the LLM reply
//! extractor. `NPU_FUZZ_ITERATIONS=N` runs N rounds of it instead of one.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use npu::sim::{SimError, SimOptions};
#[cfg(feature = "tune")]
use npu::tuner::reply::{Extracted, extract_schedules};
use npu_core::internal::{check, parse_str_partial, resolve_target};
use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

#[test]
fn mutated_kernels_never_panic_and_every_rejection_has_a_diagnostic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bodies = corpus(root);
    assert!(
        bodies.len() >= 30,
        "expected the UI cases and examples, found {} bodies",
        bodies.len()
    );
    let mut random = Random::new(0x5eed_1234_abcd_ef01);
    let mut failures = Vec::new();
    let mut checked = 0;
    for body in &bodies {
        let Ok(stream) = body.parse::<TokenStream>() else {
            continue;
        };
        let tokens = flatten(stream);
        for mutant in mutants(&tokens, &mut random) {
            checked += 1;
            if let Err(problem) = check_text(root, &mutant) {
                failures.push(format!("{problem}\n--- input ---\n{mutant}"));
            }
        }
    }
    assert!(checked > 10_000, "only {checked} mutants");
    assert!(
        failures.is_empty(),
        "{} of {checked} mutants failed; the first:\n{}",
        failures.len(),
        failures[0]
    );
}

/// Runs the macro's checks on `text`; `Err` says what went wrong.
fn check_text(root: &Path, text: &str) -> Result<(), String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let (def, parsed) = parse_str_partial(text);
        let Some(def) = def else {
            return if parsed.is_empty() {
                Err("the parser rejected without a diagnostic".to_string())
            } else {
                render(&parsed, text)
            };
        };
        let read = |path: &str| std::fs::read_to_string(root.join(path)).map_err(|e| e.to_string());
        let target = match resolve_target(&def, read) {
            Ok(target) => target,
            Err(diagnostics) if diagnostics.is_empty() => {
                return Err("no target, without a diagnostic".into());
            }
            Err(diagnostics) => return render(&diagnostics, text),
        };
        match check(&def, &target) {
            Err(diagnostics) if diagnostics.is_empty() => {
                Err("the checker rejected without a diagnostic".into())
            }
            Err(diagnostics) => render(&diagnostics, text),
            Ok(_) if !parsed.is_empty() => render(&parsed, text),
            Ok(kernel) => match npu::check_source(&kernel.source, &target) {
                Ok(again) if again == kernel => simulate(&kernel),
                Ok(_) => Err(format!(
                    "the canonical text checks to another kernel:\n{}",
                    kernel.source
                )),
                Err(d) => Err(format!(
                    "the canonical text does not check:\n{}",
                    d.render(&kernel.source)
                )),
            },
        }
    }));
    outcome.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
        Err(format!("panicked: {}", message.unwrap_or_default()))
    })
}

/// Lowers and simulates (timing only) every schedule of a checked kernel.
fn simulate(kernel: &npu::CheckedKernel) -> Result<(), String> {
    let options = SimOptions {
        functional: false,
        max_instructions: 200_000,
        ..SimOptions::default()
    };
    for index in 0..kernel.schedules.len() {
        match npu::sim::evaluate(kernel, index, &[], None, &options) {
            Ok(_) | Err(SimError::InstructionBudget { .. } | SimError::TooLargeToLower { .. }) => {}
            Err(error) => {
                return Err(format!(
                    "schedule {index} of the checked kernel does not simulate: {error}"
                ));
            }
        }
    }
    Ok(())
}

/// Extracts schedules from `text` as the tuner does from an LLM reply: never empty,
/// and every rejection says why.
#[cfg(feature = "tune")]
fn extract(text: &str) -> Result<(), String> {
    let extracted = catch_unwind(|| extract_schedules(text))
        .map_err(|_| "the reply extractor panicked".to_string())?;
    if extracted.is_empty() {
        return Err("the reply extractor returned nothing".into());
    }
    match extracted.iter().find_map(|candidate| match candidate {
        Extracted::Rejected { reason, .. } if reason.trim().is_empty() => Some(()),
        _ => None,
    }) {
        Some(()) => Err("the reply extractor rejected without a reason".into()),
        None => Ok(()),
    }
}

#[test]
fn pathologically_grown_kernels_are_rejected_or_run_without_aborting() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rounds: usize = std::env::var("NPU_FUZZ_ITERATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut random = Random::new(0x0dee_9000_5eed_0001);
    let mut failures = Vec::new();
    let mut checked = 0;
    for body in corpus(root).iter().cycle().take(rounds * 40) {
        let Ok(stream) = body.parse::<TokenStream>() else {
            continue;
        };
        let tokens = flatten(stream);
        for mutant in grown(&tokens, &mut random) {
            checked += 1;
            let outcome = check_text(root, &mutant);
            #[cfg(feature = "tune")]
            let outcome = outcome.and_then(|()| extract(&mutant));
            if let Err(problem) = outcome {
                failures.push(format!("{problem}\n--- input (cut) ---\n{mutant:.2000}"));
            }
        }
    }
    assert!(checked >= 200, "only {checked} mutants");
    assert!(
        failures.is_empty(),
        "{} of {checked} grown mutants failed; the first:\n{}",
        failures.len(),
        failures[0]
    );
}

/// Mutants of one body grown past every limit: nesting around a random token, an
/// item repeated, everything on one line.
fn grown(tokens: &[Token], random: &mut Random) -> Vec<String> {
    let leaf = |text: &str| Token {
        text: text.to_string(),
        joint: false,
    };
    let mut out = Vec::new();
    let n = tokens.len();
    let depths = [300, 5_000, 40_000];
    let depth = depths[random.below(depths.len())];
    for (open, close) in [("(", ")"), ("abs (", ")"), ("-", "")] {
        let at = random.below(n);
        let mut nested = tokens[..at].to_vec();
        nested.extend(std::iter::repeat_n(leaf(open), depth));
        nested.push(tokens[at].clone());
        if !close.is_empty() {
            nested.extend(std::iter::repeat_n(leaf(close), depth));
        }
        nested.extend_from_slice(&tokens[at + 1..]);
        out.push(join(&nested));
    }
    // An operator chain as long as the nesting, in place of a token.
    let at = random.below(n);
    let mut chained = tokens[..at].to_vec();
    for _ in 0..depth.min(20_000) {
        chained.push(tokens[at].clone());
        chained.push(leaf("+"));
    }
    chained.extend_from_slice(&tokens[at..]);
    out.push(join(&chained));
    // Thousands of copies of the tokens up to and including a `;`.
    let ends: Vec<usize> = (0..n).filter(|&i| tokens[i].text == ";").collect();
    if !ends.is_empty() {
        let end = ends[random.below(ends.len())];
        let start = ends.iter().rev().find(|&&e| e < end).map_or(0, |e| e + 1);
        let copies = [1_000, 8_000][random.below(2)];
        let mut repeated = tokens[..=end].to_vec();
        for _ in 0..copies {
            repeated.extend_from_slice(&tokens[start..=end]);
        }
        repeated.extend_from_slice(&tokens[end + 1..]);
        out.push(join(&repeated));
        // The same on one line, as a long LLM reply writes it.
        out.push(join(&repeated).replace('\n', " "));
    }
    out
}

/// Renders diagnostics every way a user or an LLM sees them.
fn render(diagnostics: &npu::Diagnostics, text: &str) -> Result<(), String> {
    let rendered = diagnostics.render(text);
    let _ = (
        diagnostics.to_string(),
        diagnostics.records(),
        diagnostics.to_syn_error().to_compile_error(),
    );
    if rendered.contains("error[") {
        Ok(())
    } else {
        Err(format!("rendered without an error line:\n{rendered}"))
    }
}

/// The bodies of every `npu_kernel!` call in the UI cases (npu-ui) and the examples.
fn corpus(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["npu-ui/tests/ui", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    files
        .iter()
        .flat_map(|file: &PathBuf| macro_bodies(&std::fs::read_to_string(file).unwrap_or_default()))
        .collect()
}

/// Every `.rs` file under `dir`, at any depth.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The text inside the braces of each `npu_kernel! { .. }` in `source`.
fn macro_bodies(source: &str) -> Vec<String> {
    let Ok(stream) = source.parse::<TokenStream>() else {
        return Vec::new();
    };
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    tokens
        .windows(3)
        .filter_map(|w| match w {
            [
                TokenTree::Ident(name),
                TokenTree::Punct(bang),
                TokenTree::Group(body),
            ] if name == "npu_kernel"
                && bang.as_char() == '!'
                && body.delimiter() == Delimiter::Brace =>
            {
                Some(body.stream().to_string())
            }
            _ => None,
        })
        .collect()
}

/// A token of the flattened text: a leaf token, or one delimiter of a group.
#[derive(Clone, Debug)]
struct Token {
    text: String,
    /// No space before the next token (`-` of `->`).
    joint: bool,
}

fn flatten(stream: TokenStream) -> Vec<Token> {
    let mut out = Vec::new();
    for tree in stream {
        match tree {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                out.push(Token {
                    text: open.into(),
                    joint: false,
                });
                out.extend(flatten(group.stream()));
                out.push(Token {
                    text: close.into(),
                    joint: false,
                });
            }
            TokenTree::Punct(punct) => out.push(Token {
                text: punct.as_char().to_string(),
                joint: punct.spacing() == Spacing::Joint,
            }),
            other => out.push(Token {
                text: other.to_string(),
                joint: false,
            }),
        }
    }
    out
}

fn join(tokens: &[Token]) -> String {
    let mut text = String::new();
    for token in tokens {
        text.push_str(&token.text);
        if !token.joint {
            text.push(
                if token.text == ";" || token.text == "{" || token.text == "}" {
                    '\n'
                } else {
                    ' '
                },
            );
        }
    }
    text
}

/// Hundreds of mutants of one body.
fn mutants(tokens: &[Token], random: &mut Random) -> Vec<String> {
    let n = tokens.len();
    let mut out = Vec::new();
    for cut in 0..n {
        out.push(join(&tokens[..cut]));
    }
    for _ in 0..60 {
        let i = random.below(n);
        let mut deleted = tokens.to_vec();
        deleted.remove(i);
        out.push(join(&deleted));
        let mut doubled = tokens.to_vec();
        doubled.insert(i, tokens[i].clone());
        out.push(join(&doubled));
        let mut swapped = tokens.to_vec();
        swapped.swap(i, random.below(n));
        out.push(join(&swapped));
    }
    const NUMBERS: [&str; 7] = [
        "0",
        "1",
        "3",
        "18446744073709551615",
        "99999999999999999999999",
        "1e30",
        "4294967296",
    ];
    const WORDS: [&str; 16] = [
        "kernel", "schedule", "target", "split", "stage", "ub", "l0c", "sum", "f16", "i8", "tail",
        "x", "zz", "exp", "depth", "cube",
    ];
    for (i, token) in tokens.iter().enumerate() {
        let first = token.text.chars().next().unwrap_or(' ');
        let replacements: Vec<String> = if first.is_ascii_digit() {
            NUMBERS.iter().map(|n| n.to_string()).collect()
        } else if first.is_alphabetic() || first == '_' {
            let mut words: Vec<String> = (0..3)
                .map(|_| WORDS[random.below(WORDS.len())].to_string())
                .collect();
            words.push(random.word());
            words
        } else {
            Vec::new()
        };
        for replacement in replacements {
            let mut replaced = tokens.to_vec();
            replaced[i].text = replacement;
            out.push(join(&replaced));
        }
    }
    out
}

/// Seeded picks for the mutations (the workspace's `fastrand`).
struct Random(fastrand::Rng);

impl Random {
    fn new(seed: u64) -> Random {
        Random(fastrand::Rng::with_seed(seed))
    }

    fn below(&mut self, bound: usize) -> usize {
        self.0.usize(0..bound.max(1))
    }

    fn word(&mut self) -> String {
        let length = 1 + self.below(6);
        (0..length)
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect()
    }
}
