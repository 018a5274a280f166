//! Every path of every file resolved to the file that defines the name it uses: the
//! edges of the file graph.

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

use crate::graph::FileGraph;
use crate::resolve::Resolved;
use crate::tree::{Crate, ModulePath};

/// Adds to `graph` every use of a name from one file of `krate` in another.
pub(crate) fn add_edges(krate: &Crate, graph: &mut FileGraph) {
    for (file, (module, syntax)) in &krate.files {
        graph.add_file(file);
        let mut visitor = PathVisitor {
            krate,
            file,
            module: module.clone(),
            graph: &mut *graph,
        };
        visitor.visit_file(syntax);
    }
}

/// Walks one file, knowing which (possibly inline) module it is in.
struct PathVisitor<'a> {
    krate: &'a Crate,
    file: &'a str,
    module: ModulePath,
    graph: &'a mut FileGraph,
}

impl PathVisitor<'_> {
    fn record(&mut self, segments: &[String]) {
        if let Some(resolved) = self.krate.resolve(&self.module, segments) {
            self.record_resolved(&resolved);
        }
    }

    fn record_resolved(&mut self, resolved: &Resolved) {
        if let Some((defining, name)) = self.krate.defining_file(resolved)
            && defining != self.file
        {
            self.graph.add_edge(self.file, defining, name);
        }
    }

    /// A private `use` is a use of every name it binds: rustc warns about unused ones,
    /// and a trait imported for its methods is never named again. A re-export is a use
    /// only where the file names it elsewhere, which the path visitor sees.
    fn record_private_imports(&mut self) {
        let Some(names) = self.krate.modules.get(&self.module) else {
            return;
        };
        let imports = names.imports.iter().filter(|import| !import.public);
        for import in imports.filter(|import| import.name.is_some()) {
            if let Some(resolved) = self.krate.resolve(&self.module, &import.target) {
                self.record_resolved(&resolved);
            }
        }
    }
}

impl<'ast> Visit<'ast> for PathVisitor<'_> {
    fn visit_file(&mut self, file: &'ast syn::File) {
        self.record_private_imports();
        visit::visit_file(self, file);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_none() {
            return;
        }
        self.module.push(item.ident.to_string());
        self.record_private_imports();
        visit::visit_item_mod(self, item);
        self.module.pop();
    }

    /// Imports are handled per module by `record_private_imports`.
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            self.record(&segments);
        }
        visit::visit_path(self, path);
    }

    /// Macro input is opaque to syn; input that parses as comma-separated expressions
    /// (`format!`, `assert_eq!`, `vec!`, `matches!` mostly do) is walked as such.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(expressions) = mac.parse_body_with(parser) {
            for expression in &expressions {
                self.visit_expr(expression);
            }
        }
    }
}
