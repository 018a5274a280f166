//! The file graph and its circles: strongly connected components of more than one
//! file, found with Tarjan's algorithm over sorted files so the output never varies.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Which file uses which names of which other file.
#[derive(Debug, Default)]
pub(crate) struct FileGraph {
    edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

/// Files that use each other's names, directly or through one another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circle {
    /// The files, relative to `src/`, sorted.
    pub files: Vec<String>,
    /// Every use between two files of the circle, sorted.
    pub edges: Vec<Edge>,
}

/// One file using names defined in another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The using file, relative to the crate's `src`.
    pub from: String,
    /// The defining file.
    pub to: String,
    /// The names `from` uses, sorted.
    pub names: Vec<String>,
}

impl fmt::Display for Circle {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(formatter, "circle: {}", self.files.join(", "))?;
        for edge in &self.edges {
            let names = edge.names.join(", ");
            writeln!(formatter, "  {} -> {}: {names}", edge.from, edge.to)?;
        }
        Ok(())
    }
}

impl FileGraph {
    pub(crate) fn add_file(&mut self, file: &str) {
        self.edges.entry(file.to_owned()).or_default();
    }

    pub(crate) fn add_edge(&mut self, from: &str, to: &str, name: &str) {
        self.add_file(to);
        let targets = self.edges.entry(from.to_owned()).or_default();
        targets
            .entry(to.to_owned())
            .or_default()
            .insert(name.to_owned());
    }

    /// Every strongly connected component of more than one file, sorted.
    pub(crate) fn circles(&self) -> Vec<Circle> {
        let mut tarjan = Tarjan::new(self);
        for file in self.edges.keys() {
            if !tarjan.index.contains_key(file.as_str()) {
                tarjan.connect(file);
            }
        }
        let mut circles: Vec<Circle> = tarjan
            .components
            .into_iter()
            .filter(|files| files.len() > 1)
            .map(|files| self.circle(files))
            .collect();
        circles.sort_by(|left, right| left.files.cmp(&right.files));
        circles
    }

    fn circle(&self, files: BTreeSet<&str>) -> Circle {
        let mut edges = Vec::new();
        for &from in &files {
            for (to, names) in &self.edges[from] {
                if files.contains(to.as_str()) {
                    edges.push(Edge {
                        from: from.to_owned(),
                        to: to.clone(),
                        names: names.iter().cloned().collect(),
                    });
                }
            }
        }
        let files = files.into_iter().map(str::to_owned).collect();
        Circle { files, edges }
    }
}

/// Tarjan's strongly connected components. Recursion depth is at most the number of
/// files of one crate, a few hundred.
struct Tarjan<'a> {
    graph: &'a FileGraph,
    index: BTreeMap<&'a str, usize>,
    low: BTreeMap<&'a str, usize>,
    stack: Vec<&'a str>,
    on_stack: BTreeSet<&'a str>,
    components: Vec<BTreeSet<&'a str>>,
}

impl<'a> Tarjan<'a> {
    fn new(graph: &'a FileGraph) -> Self {
        Tarjan {
            graph,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            components: Vec::new(),
        }
    }

    fn connect(&mut self, file: &'a str) {
        let number = self.index.len();
        self.index.insert(file, number);
        self.low.insert(file, number);
        self.stack.push(file);
        self.on_stack.insert(file);
        let graph = self.graph;
        for next in graph.edges[file].keys() {
            let next = next.as_str();
            if !self.index.contains_key(next) {
                self.connect(next);
                let low = self.low[file].min(self.low[next]);
                self.low.insert(file, low);
            } else if self.on_stack.contains(next) {
                let low = self.low[file].min(self.index[next]);
                self.low.insert(file, low);
            }
        }
        if self.low[file] == self.index[file] {
            self.pop_component(file);
        }
    }

    fn pop_component(&mut self, root: &'a str) {
        let mut component = BTreeSet::new();
        while let Some(file) = self.stack.pop() {
            self.on_stack.remove(file);
            component.insert(file);
            if file == root {
                break;
            }
        }
        self.components.push(component);
    }
}
