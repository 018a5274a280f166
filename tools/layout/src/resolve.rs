//! A path as written in one module to the module or item it names, by Rust's rules
//! for `crate`, `self`, `super`, child modules, items and `use` imports (explicit,
//! then glob), tracing every re-export to the module that defines the name.

use crate::tree::{Crate, ModulePath};

/// How deep re-exports may chain before a path counts as unresolved; it also ends
/// cycles of imports, which rustc rejects but a broken file may contain.
const MAX_DEPTH: usize = 32;

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    Module(ModulePath),
    /// An item `name` defined in `module`. A path that goes on past an item (an enum
    /// variant, an associated function) still names the item.
    Item {
        module: ModulePath,
        name: String,
    },
}

impl Crate {
    /// Resolves `segments` written in module `from`; `None` for a name of another crate,
    /// a local variable, a generic parameter or the prelude.
    pub(crate) fn resolve(&self, from: &[String], segments: &[String]) -> Option<Resolved> {
        self.resolve_at(from, segments, 0)
    }

    fn resolve_at(&self, from: &[String], segments: &[String], depth: usize) -> Option<Resolved> {
        let (first, rest) = segments.split_first()?;
        let mut current = match first.as_str() {
            "crate" => Resolved::Module(Vec::new()),
            _ => self.lookup(from, first, rest.is_empty(), depth)?,
        };
        for (index, segment) in rest.iter().enumerate() {
            let Resolved::Module(module) = &current else {
                break;
            };
            current = self.lookup(module, segment, index + 1 == rest.len(), depth)?;
        }
        Some(current)
    }

    /// The meaning of `name` inside `module`. `last` says whether the path ends here:
    /// a name that is both a module and an item (`mod lower` and `fn lower`) is the
    /// module when more segments follow and the item otherwise.
    fn lookup(&self, module: &[String], name: &str, last: bool, depth: usize) -> Option<Resolved> {
        if depth > MAX_DEPTH {
            return None;
        }
        match name {
            "self" => return Some(Resolved::Module(module.to_vec())),
            "super" => return Some(Resolved::Module(module.split_last()?.1.to_vec())),
            _ => {}
        }
        let names = self.modules.get(module)?;
        let child = || {
            let mut path = module.to_vec();
            path.push(name.to_owned());
            Resolved::Module(path)
        };
        if !last && names.children.contains(name) {
            return Some(child());
        }
        if names.items.contains(name) {
            let module = module.to_vec();
            let name = name.to_owned();
            return Some(Resolved::Item { module, name });
        }
        if names.children.contains(name) {
            return Some(child());
        }
        self.lookup_imports(module, name, last, depth)
    }

    /// `name` through the `use` imports of `module`: explicit imports first, then globs.
    fn lookup_imports(
        &self,
        module: &[String],
        name: &str,
        last: bool,
        depth: usize,
    ) -> Option<Resolved> {
        let imports = &self.modules.get(module)?.imports;
        let explicit = imports
            .iter()
            .filter(|import| import.name.as_deref() == Some(name))
            .find_map(|import| self.resolve_at(module, &import.target, depth + 1));
        if explicit.is_some() {
            return explicit;
        }
        imports
            .iter()
            .filter(|import| import.name.is_none())
            .find_map(
                |glob| match self.resolve_at(module, &glob.target, depth + 1)? {
                    Resolved::Module(source) if source != module => {
                        self.lookup(&source, name, last, depth + 1)
                    }
                    _ => None,
                },
            )
    }

    /// The file a resolved name is defined in; `None` for a module.
    pub(crate) fn defining_file<'a>(
        &'a self,
        resolved: &'a Resolved,
    ) -> Option<(&'a str, &'a str)> {
        match resolved {
            Resolved::Module(_) => None,
            Resolved::Item { module, name } => {
                let file = &self.modules.get(module)?.file;
                Some((file.as_str(), name.as_str()))
            }
        }
    }
}
