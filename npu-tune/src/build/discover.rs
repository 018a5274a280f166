//! Finding kernels in a user's sources: every `npu_kernel! { ... }` block of a Rust
//! file, the kernel of a `.npu` text file, or every Rust file under a crate's `src/`.
//! The build helper and `autotune` both find kernels here, and read every file through
//! npu-core's bounded reader ([`npu_core::file`]).
//!
//! Rust files are split into tokens, not compiled: a block is recognised by the tokens
//! `npu_kernel ! { ... }` (a path such as `npu::npu_kernel!` ends the same way), at any
//! depth, so kernels inside modules and functions are found too.

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};

use npu_core::ast::KernelDef;
use npu_core::{CheckedKernel, Target};

use crate::evaluate::Problem;

/// A kernel found in a file.
#[derive(Clone, Debug)]
pub struct Found {
    /// The file, as given or as found under the crate.
    pub file: PathBuf,
    /// The 1-based line of the kernel's `kernel` keyword.
    pub line: usize,
    /// The kernel's name.
    pub name: String,
    /// The kernel as written (spans into `text`).
    pub def: KernelDef,
    /// The whole file, which `def`'s spans and diagnostics refer to.
    pub text: String,
}

/// Every kernel in `path`: a `.rs` file, a `.npu` file or a crate directory (its `src/`).
/// Errors name the file and the line.
pub fn discover(path: &Path) -> Result<Vec<Found>, String> {
    if path.is_dir() {
        let src = path.join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files)
            .map_err(|error| format!("cannot list {}: {error}", src.display()))?;
        files.sort();
        let mut found = Vec::new();
        for file in files {
            found.extend(discover(&file)?);
        }
        return Ok(found);
    }
    let text = npu_core::file::read(npu_core::file::Kind::Kernel, path)
        .map_err(|error| error.to_string())?;
    if path.extension().is_some_and(|e| e == "rs") {
        in_rust(path, &text)
    } else {
        in_text(path, &text).map(|found| vec![found])
    }
}

/// The kernels of Rust source `text`, read from `file`.
pub fn in_rust(file: &Path, text: &str) -> Result<Vec<Found>, String> {
    let tokens: TokenStream = text.parse().map_err(|error: proc_macro2::LexError| {
        let start = error.span().start();
        format!(
            "{}:{}:{}: not Rust tokens: {error}",
            file.display(),
            start.line,
            start.column + 1
        )
    })?;
    let mut bodies = Vec::new();
    blocks(tokens, &mut bodies);
    bodies
        .into_iter()
        .map(|body| {
            let def = npu_core::internal::parse_tokens(body)
                .map_err(|diagnostics| located(file, text, &diagnostics))?;
            Ok(found(file, text, def))
        })
        .collect()
}

/// The kernel of DSL text `text`, read from `file`.
pub fn in_text(file: &Path, text: &str) -> Result<Found, String> {
    let def = npu_core::internal::parse_str(text)
        .map_err(|diagnostics| located(file, text, &diagnostics))?;
    Ok(found(file, text, def))
}

impl Found {
    /// Checks the kernel with its hand schedules. A target file resolves relative to
    /// `crate_dir`, as the macro resolves it.
    pub fn check(&self, crate_dir: &Path) -> Result<CheckedKernel, String> {
        let target = self.target(crate_dir)?;
        npu_core::internal::check(&self.def, &target)
            .map_err(|d| located(&self.file, &self.text, &d))
    }

    /// The kernel's target, a preset or a file relative to `crate_dir`, read as the
    /// macro reads it (a FIFO or `/dev/zero` is an error, not a hang).
    pub fn target(&self, crate_dir: &Path) -> Result<Target, String> {
        npu_core::internal::resolve_target(&self.def, |path| {
            npu_core::target::read_file(&crate_dir.join(path))
                .map_err(|reason| format!("{reason} (looked in {})", crate_dir.display()))
        })
        .map_err(|d| located(&self.file, &self.text, &d))
    }

    /// The tuning problem: the checked kernel on seeded random inputs, with the host
    /// reference's outputs.
    pub fn problem(&self, crate_dir: &Path, seed: u64) -> Result<Problem, String> {
        Ok(seeded_problem(self.check(crate_dir)?, seed))
    }

    /// `FILE:LINE`, for messages.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }
}

/// `kernel` on inputs drawn from `seed`, with the host reference's outputs
/// ([`npu_sim::testing::seeded_inputs`]).
pub fn seeded_problem(kernel: CheckedKernel, seed: u64) -> Problem {
    let (inputs, expected) = npu_sim::testing::seeded_inputs(&kernel, seed);
    Problem::new(kernel, inputs, expected)
}

fn found(file: &Path, text: &str, def: KernelDef) -> Found {
    Found {
        file: file.to_path_buf(),
        line: def.kernel_span.start().line,
        name: def.name.to_string(),
        def,
        text: text.to_string(),
    }
}

/// Diagnostics as text: each rendered with its caret excerpt at `FILE:LINE:COLUMN`.
fn located(file: &Path, text: &str, diagnostics: &npu_core::Diagnostics) -> String {
    diagnostics
        .render_in(text, &file.display().to_string())
        .trim_end()
        .to_string()
}

fn blocks(tokens: TokenStream, bodies: &mut Vec<TokenStream>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (index, tree) in trees.iter().enumerate() {
        if let TokenTree::Group(group) = tree {
            let is_call = index >= 2
                && matches!(&trees[index - 1], TokenTree::Punct(p) if p.as_char() == '!')
                && matches!(&trees[index - 2], TokenTree::Ident(name) if name == "npu_kernel");
            if is_call {
                bodies.push(group.stream());
            } else {
                blocks(group.stream(), bodies);
            }
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}
