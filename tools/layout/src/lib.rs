//! The layout check: import circles between the files of a crate.
//!
//! Files A and B form a circle when A uses a name defined in B and B, directly or
//! through other files, uses a name defined in A. A parent module file that only
//! declares its children and re-exports their names does not count: a name is traced
//! through every re-export to the file that defines it, and a `pub use` is a use only
//! where the re-exporting file refers to the name itself.
//!
//! The stages, each in its own module:
//!
//! 1. `tree`: the module tree of every crate root in a `src/` directory (`lib.rs`,
//!    `main.rs`, `bin/*.rs`, `bin/*/main.rs`), each file parsed with syn, with the names
//!    every module defines, declares and imports.
//! 2. `resolve`: a path as written in one module to the module and item it names.
//! 3. `uses`: every path of every file resolved, giving the file graph: which file
//!    uses which names of which other file.
//! 4. `graph`: the strongly connected components of more than one file, with the
//!    names that make each edge.
//!
//! What it does not see: method calls (a method is found by the type of a value, which
//! needs type inference), names that only occur inside macro input that does not parse
//! as expressions, and `#[path]` attributes. Each of these only hides an edge, so the
//! check can miss a circle but never reports one that is not there.

// Every public item says what it is; CI denies warnings.
#![warn(missing_docs)]

mod graph;
mod resolve;
mod tree;
mod uses;

use std::fmt;
use std::path::Path;

pub use graph::{Circle, Edge};

/// What [`analyze`] found in one `src/` directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Every file of every crate root, relative to `src/`, sorted.
    pub files: Vec<String>,
    /// Every circle, sorted by its files.
    pub circles: Vec<Circle>,
    /// Files that could not be read or parsed and modules whose file is missing, sorted.
    pub errors: Vec<String>,
}

impl Analysis {
    /// No circles and no errors.
    pub fn is_clean(&self) -> bool {
        self.circles.is_empty() && self.errors.is_empty()
    }
}

impl fmt::Display for Analysis {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for error in &self.errors {
            writeln!(formatter, "error: {error}")?;
        }
        for circle in &self.circles {
            write!(formatter, "{circle}")?;
        }
        Ok(())
    }
}

/// Parses every file of every crate root under `src` and reports the circles between
/// them. Bad input is reported in [`Analysis::errors`], never a panic.
pub fn analyze(src: &Path) -> Analysis {
    let (crates, errors) = tree::load(src);
    let mut files = Vec::new();
    let mut graph = graph::FileGraph::default();
    for krate in &crates {
        files.extend(krate.files.keys().cloned());
        uses::add_edges(krate, &mut graph);
    }
    files.sort();
    Analysis {
        files,
        circles: graph.circles(),
        errors,
    }
}
