//! The layout check on fixture crates, and on every crate of this workspace.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use npu_layout::analyze;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .join("src")
}

/// Checks the text the check prints for a fixture: its errors, then its circles.
fn check(name: &str, expected: &str) {
    let analysis = analyze(&fixture(name));
    assert!(!analysis.files.is_empty(), "{name}: no files");
    assert_eq!(analysis.to_string(), expected, "{name}");
}

#[test]
fn circular_fixture_reports_every_circle_with_its_names() {
    check(
        "circular",
        "\
circle: area.rs, shapes.rs
  area.rs -> shapes.rs: Square
  shapes.rs -> area.rs: area_of
circle: geometry.rs, geometry/point.rs
  geometry.rs -> geometry/point.rs: Point
  geometry/point.rs -> geometry.rs: origin
circle: lexer.rs, parser.rs, tokens.rs
  lexer.rs -> tokens.rs: Token
  parser.rs -> lexer.rs: lex
  parser.rs -> tokens.rs: SEEN
  tokens.rs -> parser.rs: MAX_TOKENS
",
    );
}

#[test]
fn acyclic_fixture_passes() {
    check("acyclic", "");
    let analysis = analyze(&fixture("acyclic"));
    assert_eq!(analysis.files.len(), 9, "{:?}", analysis.files);
    assert!(analysis.is_clean());
}

#[test]
fn parent_that_only_reexports_its_children_is_no_circle() {
    check("reexport", "");
}

#[test]
fn unparsable_and_missing_files_are_errors() {
    check(
        "broken",
        "\
error: garbled.rs:1:17: cannot parse: cannot parse string into token stream
error: lib.rs: module `missing` has no file missing.rs
",
    );
    let nowhere = fixture("no-such-fixture");
    let analysis = analyze(&nowhere);
    assert!(!analysis.is_clean());
    assert_eq!(analysis.errors.len(), 1, "{analysis}");
}

/// Circles not yet broken, by package directory and files. The test fails on a circle
/// that is not listed and on a listed circle that is gone, so the list only shrinks:
/// break a circle, run the test, delete the line it names.
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

/// The `src/` directory of every package of the workspace: the root package, then the
/// members its Cargo.toml lists.
fn workspace_sources() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("Cargo.toml")).expect("root Cargo.toml");
    let manifest: toml::Table = text.parse().expect("root Cargo.toml parses");
    let mut sources = Vec::new();
    if manifest.contains_key("package") {
        sources.push((".".to_owned(), root.join("src")));
    }
    let members = manifest["workspace"]["members"]
        .as_array()
        .expect("members");
    for member in members {
        let member = member.as_str().expect("a member is a path");
        sources.push((member.to_owned(), root.join(member).join("src")));
    }
    sources
}

#[test]
fn workspace_has_no_circles_but_the_known_ones() {
    let mut known: BTreeSet<(String, Vec<String>)> = KNOWN_CIRCLES
        .iter()
        .map(|(member, files)| {
            let files = files.iter().map(|file| (*file).to_owned()).collect();
            ((*member).to_owned(), files)
        })
        .collect();
    let mut report = String::new();
    for (member, src) in workspace_sources() {
        let analysis = analyze(&src);
        assert!(
            !analysis.files.is_empty(),
            "{member}: no files in {}",
            src.display()
        );
        for error in &analysis.errors {
            report.push_str(&format!("{member}: error: {error}\n"));
        }
        for circle in &analysis.circles {
            if !known.remove(&(member.clone(), circle.files.clone())) {
                report.push_str(&format!("{member}: {circle}"));
            }
        }
    }
    for (member, files) in known {
        report.push_str(&format!(
            "{member}: gone, delete from KNOWN_CIRCLES: {files:?}\n"
        ));
    }
    assert!(report.is_empty(), "\n{report}");
}
