//! The `npu_kernel!` procedural macro. Use it through the `npu` crate, which re-exports
//! it and holds everything the generated code refers to.
//!
//! The macro is thin: npu-core parses and checks the tokens, then `expand` writes the
//! module of a checked kernel, or the diagnostics become `compile_error!`s at the
//! offending tokens, followed by the `fallback` stub. The one thing done here is I/O:
//! a `target "path.toml";` line names a file relative to the crate being compiled
//! (`CARGO_MANIFEST_DIR`), which the macro reads, and so does a `variants N from
//! "path.variants.npu";` line (see `variants`). Both go through npu-core's bounded
//! reader (`npu_core::file`), as the tools' reads do: a FIFO, a device or an oversized
//! file is a compile error naming it, never a compiler that waits or fills memory.

// Every public item says what it is; CI denies warnings.
#![warn(missing_docs)]

mod expand;
mod fallback;
mod variants_from;

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream, TokenTree};

use npu_core::ast::{KernelDef, TargetRef};
use npu_core::internal::SpanKey;
use npu_core::internal::{check, parse_tokens_partial, resolve_target};
use npu_core::{Code, Diagnostics, Target};

/// Defines an NPU kernel: its algorithm, its target and one or more named schedules.
///
/// Every schedule is checked against the target at compile time; an illegal one is a
/// compile error at the offending token, with a code (`E020`), the numbers and a fix.
/// A kernel `vmla` expands to `pub mod vmla` with `NAME`, `SOURCE`, `TARGET_TOML`,
/// `SCHEDULES`, `kernel()` (the checked kernel), `Outputs`, `reference(..)` (the host
/// reference on typed slices) and `reference_host(..)` (on `HostTensor`s).
///
/// A target file (`target "targets/chip.toml";`) is read relative to the directory of
/// the crate's `Cargo.toml`. The language is described in `docs/dsl.md`; see the `npu`
/// crate for an example.
#[proc_macro]
pub fn npu_kernel(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand_kernel(input.into(), &crate_dir()).into()
}

/// The directory target files are relative to: the crate being compiled.
fn crate_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// The whole macro on `proc_macro2` tokens, so tests can run it outside the compiler:
/// the module of a checked kernel, or the errors plus a stub.
fn expand_kernel(input: TokenStream, dir: &Path) -> TokenStream {
    match check_tokens(input.clone(), dir) {
        Ok(tokens) => tokens,
        Err(diagnostics) => {
            let mut tokens = diagnostics.to_syn_error().into_compile_error();
            tokens.extend(fallback::stub(&input));
            tokens
        }
    }
}

/// Parse, resolve the target, check, expand.
fn check_tokens(input: TokenStream, dir: &Path) -> Result<TokenStream, Diagnostics> {
    let last_token = last_token_span(&input);
    let (def, mut parsed) = parse_tokens_partial(input);
    if let Some(last_token) = last_token {
        point_end_of_input_at(&mut parsed, last_token);
    }
    let def = def.ok_or_else(|| parsed.clone())?;
    let mut file = None;
    let target = resolve_target(&def, |path| {
        let full = dir.join(path);
        let text = npu_core::target::read_file(&full)?;
        file = Some(full);
        Ok(text)
    });
    let target = target.map_err(|mut diagnostics| {
        explain_target_file(&def, &mut diagnostics);
        diagnostics
    });
    let mut beside = TokenStream::new();
    let checked = target.and_then(|target| {
        let hand = check(&def, &target)?;
        let (kernel, tokens) = variants_from::add(&def, &target, hand, dir)?;
        beside = tokens;
        Ok(kernel)
    });
    let kernel = npu_core::internal::merge(parsed, checked)?;
    let mut tokens = expand::kernel(&def, &kernel, target_toml(&def, file.as_deref()));
    tokens.extend(beside);
    Ok(tokens)
}

/// The target's TOML text as an expression: `include_str!` of a target file, so that
/// cargo rebuilds the crate when the file changes, or a preset's text.
fn target_toml(def: &KernelDef, file: Option<&Path>) -> TokenStream {
    if let Some(path) = file.and_then(Path::to_str) {
        return quote::quote!(::core::include_str!(#path));
    }
    let text = match def.targets.first() {
        Some(TargetRef::Preset(name)) => Target::preset_toml(&name.to_string()).unwrap_or_default(),
        _ => "",
    };
    quote::quote!(#text)
}

/// A target file that cannot be read says where the macro looked: relative paths start
/// at the crate's directory, which may not be the directory the user thinks of.
fn explain_target_file(def: &KernelDef, diagnostics: &mut Diagnostics) {
    let Some(TargetRef::File { span, .. }) = def.targets.first() else {
        return;
    };
    let at = SpanKey::of(*span);
    // Each diagnostic is taken by value, so that its help is attached by the builder.
    let list = std::mem::take(&mut diagnostics.list);
    diagnostics.list = list
        .into_iter()
        .map(|diagnostic| {
            if diagnostic.code == Code::E005
                && diagnostic.help.is_none()
                && SpanKey::of(diagnostic.span) == at
            {
                diagnostic.help(
                    "a relative path starts at the crate's directory, where its Cargo.toml is",
                )
            } else {
                diagnostic
            }
        })
        .collect();
}

/// syn reports the end of the input at `Span::call_site()`, which rustc shows as the
/// whole macro call. The text parser points such errors at the last token instead; so
/// does the macro, so that both report the same position.
fn point_end_of_input_at(diagnostics: &mut Diagnostics, last_token: Span) {
    let call_site = SpanKey::of(Span::call_site());
    for diagnostic in &mut diagnostics.list {
        if diagnostic.code == Code::E001 && SpanKey::of(diagnostic.span) == call_site {
            diagnostic.span = last_token;
        }
    }
    diagnostics.sort();
}

fn last_token_span(input: &TokenStream) -> Option<Span> {
    input.clone().into_iter().last().map(|token| match token {
        TokenTree::Group(group) => group.span_close(),
        token => token.span(),
    })
}

#[cfg(test)]
mod tests {
    //! The macro's code path on token streams outside the compiler: every kernel of the
    //! UI cases and the examples, and mutants of them, expand without a panic to either
    //! a module or `compile_error!`s, and always to tokens that lex again.

    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::time::Instant;

    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

    use super::*;

    /// The workspace root, where the examples live (the UI cases are in npu-ui).
    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// The entries of `dir`, sorted; none when it cannot be read.
    fn listing(dir: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        paths
    }

    /// The bodies of every `npu_kernel!` call in the UI cases and the examples, with the
    /// name of the file they come from and the root of its crate (which the macro
    /// resolves target files against).
    fn corpus() -> Vec<(String, PathBuf, TokenStream)> {
        let mut bodies = Vec::new();
        let ui = workspace().join("npu-ui");
        let folders = listing(&ui.join("tests/ui/fail"))
            .into_iter()
            .filter(|p| p.is_dir());
        let ui_dirs = folders
            .chain([ui.join("tests/ui/pass")])
            .map(|d| (ui.clone(), d));
        let dirs = ui_dirs.chain([(workspace(), workspace().join("examples"))]);
        for (root, dir) in dirs {
            let files = listing(&dir);
            for file in files
                .iter()
                .filter(|f| f.extension().is_some_and(|e| e == "rs"))
            {
                let text = std::fs::read_to_string(file).unwrap_or_default();
                let Ok(stream) = text.parse::<TokenStream>() else {
                    continue;
                };
                let tokens: Vec<TokenTree> = stream.into_iter().collect();
                for window in tokens.windows(3) {
                    if let [
                        TokenTree::Ident(name),
                        TokenTree::Punct(bang),
                        TokenTree::Group(body),
                    ] = window
                        && name == "npu_kernel"
                        && bang.as_char() == '!'
                    {
                        bodies.push((file.display().to_string(), root.clone(), body.stream()));
                    }
                }
            }
        }
        bodies
    }

    /// Expands `input` in the workspace's root crate, or says why the result is wrong.
    fn expand(input: TokenStream) -> Result<TokenStream, String> {
        expand_in(input, &workspace())
    }

    /// Expands `input` in the crate at `root`, or says why the result is wrong.
    fn expand_in(input: TokenStream, root: &Path) -> Result<TokenStream, String> {
        let output = catch_unwind(AssertUnwindSafe(|| expand_kernel(input, root)))
            .map_err(|panic| format!("panicked: {:?}", panic.downcast_ref::<String>()))?;
        let text = output.to_string();
        if text.parse::<TokenStream>().is_err() {
            return Err(format!("expanded to tokens that do not lex: {text}"));
        }
        if !text.contains("compile_error") && !text.contains("pub mod") {
            return Err(format!("expanded to neither a module nor errors: {text}"));
        }
        Ok(output)
    }

    #[test]
    fn every_ui_case_and_example_expands_as_its_folder_says() {
        let corpus = corpus();
        assert!(corpus.len() >= 30, "found {} kernels", corpus.len());
        for (file, root, body) in corpus {
            let output =
                expand_in(body, &root).unwrap_or_else(|problem| panic!("{file}: {problem}"));
            let failed = output.to_string().contains("compile_error");
            assert_eq!(failed, file.contains("fail"), "{file}");
        }
    }

    #[test]
    fn a_broken_kernel_still_gets_a_stub_module() {
        let body: TokenStream = "kernel vmla(a: [f16; 64]) -> y: [fp16; 64] { y[i] = a[i] +; }"
            .parse()
            .unwrap();
        let output = expand(body).unwrap().to_string();
        assert!(output.contains("pub mod vmla"), "{output}");
        assert!(
            output.contains("pub fn reference (a : & [:: npu :: __private :: f16])"),
            "{output}"
        );
        assert!(
            output.contains("pub y : :: std :: vec :: Vec < :: npu :: __private :: f16 >"),
            "{output}"
        );
        // Without a kernel name there is nothing to stub.
        let output = expand("kernel 3".parse().unwrap()).unwrap().to_string();
        assert!(!output.contains("pub mod"), "{output}");
    }

    /// A target path naming something endless or blocking is an error at the path, not
    /// a compiler that reads until memory runs out or waits forever.
    #[cfg(unix)]
    #[test]
    fn a_target_that_is_not_a_regular_file_is_refused() {
        let body: TokenStream = r#"
            kernel k(a: [f16; 64]) -> y: [f16; 64] { y[i] = a[i]; }
            target "/dev/zero";
            schedule s { stage a, y in ub; }
        "#
        .parse()
        .unwrap();
        let output = expand(body).unwrap().to_string();
        assert!(
            output.contains(
                "[E005] cannot use target file `/dev/zero`: not a regular file (a character device)"
            ),
            "{output}"
        );
    }

    /// Nesting that crashed rustc (a stack overflow in the macro) is one E007 at a
    /// token: 40,000 parentheses, 5,000 `abs(` and 20,000 unary `-`.
    #[test]
    fn deep_nesting_is_an_error_at_a_token() {
        let bodies = [
            format!("{}a[i]{}", "(".repeat(40_000), ")".repeat(40_000)),
            format!("{}a[i]{}", "abs(".repeat(5_000), ")".repeat(5_000)),
            format!("{}a[i]", "- ".repeat(20_000)),
            vec!["a[i]"; 100_000].join(" + "),
        ];
        for expression in bodies {
            let body: TokenStream = format!(
                "kernel k(a: [f32; 64]) -> y: [f32; 64] {{ y[i] = {expression}; }}
                 target npueval_demo;
                 schedule s {{ stage a, y in ub; }}"
            )
            .parse()
            .unwrap();
            let output = expand(body).unwrap().to_string();
            assert_eq!(output.matches("compile_error").count(), 1, "{output:.300}");
            assert!(output.contains("[E007]"), "{output:.300}");
            assert!(output.contains("pub mod k"), "the stub is still there");
        }
    }

    #[test]
    fn mutated_token_streams_expand_without_panicking() {
        let mut random = fastrand::Rng::with_seed(0x00c0_ffee_1234_5678);
        let mut expanded = 0;
        for (file, root, body) in corpus() {
            let leaves = count_leaves(&body);
            for _ in 0..150 {
                let mutant = mutate(
                    &body,
                    random.usize(..leaves.max(1)),
                    random.u64(..),
                    &mut random,
                );
                expanded += 1;
                if let Err(problem) = expand_in(mutant.clone(), &root) {
                    panic!("{file}: {problem}\n--- input ---\n{mutant}");
                }
            }
            for cut in 0..body.clone().into_iter().count() {
                let truncated: TokenStream = body.clone().into_iter().take(cut).collect();
                expand_in(truncated, &root)
                    .unwrap_or_else(|problem| panic!("{file} cut at {cut}: {problem}"));
                expanded += 1;
            }
        }
        assert!(expanded > 1000, "only {expanded} mutants");
    }

    /// Expansion time of the vmla example, printed, never asserted: run with
    /// `NPU_EXPANSIONS=1000 cargo test --release -p npu-macros expansion_time -- --nocapture`.
    #[test]
    fn expansion_time() {
        let vmla = corpus()
            .into_iter()
            .find(|(file, _, _)| file.ends_with("examples/vmla.rs"))
            .expect("examples/vmla.rs")
            .2;
        let iterations: u32 = std::env::var("NPU_EXPANSIONS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(20);
        let start = Instant::now();
        for _ in 0..iterations {
            std::hint::black_box(expand_kernel(vmla.clone(), &workspace()));
        }
        let each = start.elapsed() / iterations;
        println!("npu_kernel! expansion of vmla: {each:?} each over {iterations} expansions");
    }

    fn count_leaves(stream: &TokenStream) -> usize {
        stream
            .clone()
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Group(group) => 1 + count_leaves(&group.stream()),
                _ => 1,
            })
            .sum()
    }

    /// `stream` with its `target`-th token (in pre-order) deleted, doubled, swapped with
    /// its neighbour or replaced, as `choice` picks. Groups stay balanced, as rustc's
    /// tokens always are.
    fn mutate(
        stream: &TokenStream,
        target: usize,
        choice: u64,
        random: &mut fastrand::Rng,
    ) -> TokenStream {
        let mut index = 0;
        mutate_in(stream, target, choice, random, &mut index)
    }

    fn mutate_in(
        stream: &TokenStream,
        target: usize,
        choice: u64,
        random: &mut fastrand::Rng,
        index: &mut usize,
    ) -> TokenStream {
        let mut trees: Vec<TokenTree> = stream.clone().into_iter().collect();
        let mut position = 0;
        while position < trees.len() {
            if *index == target {
                *index += 1;
                match choice % 5 {
                    0 => drop(trees.remove(position)),
                    1 => trees.insert(position, trees[position].clone()),
                    2 if position + 1 < trees.len() => trees.swap(position, position + 1),
                    _ => trees[position] = replacement(&trees[position], random),
                }
                return trees.into_iter().collect();
            }
            *index += 1;
            if let TokenTree::Group(group) = &trees[position] {
                let inner = mutate_in(&group.stream(), target, choice, random, index);
                let mut replaced = Group::new(group.delimiter(), inner);
                replaced.set_span(group.span());
                trees[position] = TokenTree::Group(replaced);
            }
            position += 1;
        }
        trees.into_iter().collect()
    }

    fn replacement(tree: &TokenTree, random: &mut fastrand::Rng) -> TokenTree {
        const TOKENS: [&str; 14] = [
            "0",
            "18446744073709551615",
            "1e30",
            "4294967296",
            "kernel",
            "schedule",
            "split",
            "stage",
            "sum",
            "f16",
            "l0a",
            "zz",
            "\"x.toml\"",
            ";",
        ];
        match tree {
            TokenTree::Group(group) if random.bool() => {
                TokenTree::Group(Group::new(Delimiter::Parenthesis, group.stream()))
            }
            _ => TOKENS[random.usize(..TOKENS.len())]
                .parse::<TokenStream>()
                .ok()
                .and_then(|s| s.into_iter().next())
                .unwrap_or_else(|| tree.clone()),
        }
    }
}
