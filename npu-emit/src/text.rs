//! An indented text writer: every emitted line goes through [`Text::line`], so the
//! output is formatted by construction (four spaces per level, no trailing blanks).

use std::fmt::Write;

#[derive(Debug, Default)]
pub(crate) struct Text {
    out: String,
    depth: usize,
}

impl Text {
    /// One line at the current depth; an empty line stays empty.
    pub(crate) fn line(&mut self, line: impl AsRef<str>) {
        let line = line.as_ref();
        if !line.is_empty() {
            for _ in 0..self.depth {
                self.out.push_str("    ");
            }
            self.out.push_str(line);
        }
        self.out.push('\n');
    }

    /// Opens a block: writes `head {` and indents.
    pub(crate) fn open(&mut self, head: impl AsRef<str>) {
        let head = head.as_ref();
        if head.is_empty() {
            self.line("{");
        } else {
            self.line(format!("{head} {{"));
        }
        self.depth += 1;
    }

    /// Closes a block with `}` followed by `tail` (e.g. `;`).
    pub(crate) fn close(&mut self, tail: &str) {
        self.depth = self.depth.saturating_sub(1);
        self.line(format!("}}{tail}"));
    }

    /// `// text` comment lines, one per line of `text`.
    pub(crate) fn comment(&mut self, text: &str) {
        for line in text.lines() {
            if line.is_empty() {
                self.line("//");
            } else {
                let mut comment = String::from("// ");
                let _ = write!(comment, "{line}");
                self.line(comment);
            }
        }
    }

    /// An empty writer at this one's depth, for text that is kept (`append`) only if
    /// writing it succeeds.
    pub(crate) fn nested(&self) -> Text {
        Text {
            out: String::new(),
            depth: self.depth,
        }
    }

    /// Appends what a `nested` writer wrote, and carries on at its depth (inside the
    /// blocks it left open).
    pub(crate) fn append(&mut self, other: Text) {
        self.out.push_str(&other.out);
        self.depth = other.depth;
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }
}
