//! The module tree of every crate root in a `src/` directory, with the names each
//! module defines, declares and imports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path from the crate root: `["check", "load"]` is `crate::check::load`.
pub(crate) type ModulePath = Vec<String>;

/// One crate: a root file and every module reachable from it by `mod` declarations.
#[derive(Default)]
pub(crate) struct Crate {
    pub(crate) modules: BTreeMap<ModulePath, Module>,
    /// Every file of the crate, relative to `src/`, with its syntax tree and the path of
    /// the module it is.
    pub(crate) files: BTreeMap<String, (ModulePath, syn::File)>,
}

/// The names one module (a file, or an inline `mod name { ... }` in a file) brings in.
#[derive(Debug, Default)]
pub(crate) struct Module {
    /// The file the module is written in, relative to `src/`.
    pub(crate) file: String,
    /// Items defined here: functions, types, traits, constants, statics, macros.
    pub(crate) items: BTreeSet<String>,
    /// Child modules, declared (`mod name;`) or inline.
    pub(crate) children: BTreeSet<String>,
    /// `use` imports, one per name they bind.
    pub(crate) imports: Vec<Import>,
}

/// One name bound by a `use` item: `use a::b as c;` binds `c` to `["a", "b"]`.
#[derive(Debug, Clone)]
pub(crate) struct Import {
    /// The bound name; `None` for a glob (`use a::*;`).
    pub(crate) name: Option<String>,
    /// The imported path as written, relative to the importing module.
    pub(crate) target: Vec<String>,
    /// A `pub`, `pub(crate)` or `pub(super)` import: a re-export.
    pub(crate) public: bool,
}

/// Loads every crate root under `src`: the crates, and the errors met on the way.
pub(crate) fn load(src: &Path) -> (Vec<Crate>, Vec<String>) {
    let mut errors = Vec::new();
    let mut crates = Vec::new();
    for root in crate_roots(src) {
        let mut loader = Loader {
            src,
            krate: Crate::default(),
            errors: &mut errors,
        };
        let directory = root.parent().map(Path::to_path_buf).unwrap_or_default();
        loader.load_file(&root, Vec::new(), &directory);
        crates.push(loader.krate);
    }
    if crates.is_empty() {
        errors.push(format!("{}: no lib.rs, main.rs or bin/", src.display()));
    }
    errors.sort();
    errors.dedup();
    (crates, errors)
}

/// `lib.rs`, `main.rs`, `bin/*.rs` and `bin/*/main.rs`, in that order, those that exist.
fn crate_roots(src: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|name| src.join(name))
        .filter(|path| path.is_file())
        .collect();
    let mut binaries: Vec<PathBuf> = fs::read_dir(src.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter_map(|path| match path.extension() {
            Some(extension) if extension == "rs" && path.is_file() => Some(path),
            _ => Some(path.join("main.rs")).filter(|main| main.is_file()),
        })
        .collect();
    binaries.sort();
    roots.extend(binaries);
    roots
}

struct Loader<'a> {
    src: &'a Path,
    krate: Crate,
    errors: &'a mut Vec<String>,
}

impl Loader<'_> {
    /// Reads and parses `path`, the file of module `module`, whose children live in
    /// `children_directory`.
    fn load_file(&mut self, path: &Path, module: ModulePath, children_directory: &Path) {
        let relative = self.relative(path);
        if self.krate.files.contains_key(&relative) {
            return;
        }
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) => {
                return self
                    .errors
                    .push(format!("{relative}: cannot read: {error}"));
            }
        };
        let file = match syn::parse_file(&text) {
            Ok(file) => file,
            Err(error) => {
                let start = error.span().start();
                let at = format!("{relative}:{}:{}", start.line, start.column + 1);
                return self.errors.push(format!("{at}: cannot parse: {error}"));
            }
        };
        self.add_module(&file.items, &module, &relative, children_directory);
        self.krate.files.insert(relative, (module, file));
    }

    /// Records the module made of `items`, then loads its children.
    fn add_module(
        &mut self,
        items: &[syn::Item],
        module: &ModulePath,
        file: &str,
        children_directory: &Path,
    ) {
        let mut names = Module {
            file: file.to_owned(),
            ..Module::default()
        };
        for item in items {
            collect_names(item, &mut names);
        }
        self.krate.modules.insert(module.clone(), names);
        for item in items {
            if let syn::Item::Mod(child) = item {
                self.add_child(child, module, file, children_directory);
            }
        }
    }

    fn add_child(
        &mut self,
        child: &syn::ItemMod,
        parent: &ModulePath,
        file: &str,
        parent_directory: &Path,
    ) {
        let name = child.ident.to_string();
        let mut module = parent.clone();
        module.push(name.clone());
        let directory = parent_directory.join(&name);
        match &child.content {
            Some((_, items)) => self.add_module(items, &module, file, &directory),
            None => {
                let flat = parent_directory.join(format!("{name}.rs"));
                let nested = directory.join("mod.rs");
                if flat.is_file() {
                    self.load_file(&flat, module, &directory);
                } else if nested.is_file() {
                    self.load_file(&nested, module, &directory);
                } else {
                    let relative = self.relative(&flat);
                    self.errors
                        .push(format!("{file}: module `{name}` has no file {relative}"));
                }
            }
        }
    }

    /// `path` relative to `src/`, with `/` between components on every platform.
    fn relative(&self, path: &Path) -> String {
        let relative = path.strip_prefix(self.src).unwrap_or(path);
        let parts: Vec<String> = relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.join("/")
    }
}

/// Adds the names `item` defines, declares or imports to `module`.
fn collect_names(item: &syn::Item, module: &mut Module) {
    let defined = match item {
        syn::Item::Const(item) => Some(&item.ident),
        syn::Item::Enum(item) => Some(&item.ident),
        syn::Item::Fn(item) => Some(&item.sig.ident),
        syn::Item::Macro(item) if item.ident.is_none() => {
            module.items.extend(macro_defined_names(&item.mac));
            None
        }
        syn::Item::Macro(item) => item.ident.as_ref(),
        syn::Item::Static(item) => Some(&item.ident),
        syn::Item::Struct(item) => Some(&item.ident),
        syn::Item::Trait(item) => Some(&item.ident),
        syn::Item::TraitAlias(item) => Some(&item.ident),
        syn::Item::Type(item) => Some(&item.ident),
        syn::Item::Union(item) => Some(&item.ident),
        syn::Item::Mod(item) => {
            module.children.insert(item.ident.to_string());
            None
        }
        syn::Item::Use(item) if item.leading_colon.is_none() => {
            let public = !matches!(item.vis, syn::Visibility::Inherited);
            flatten_use(&item.tree, &mut Vec::new(), public, &mut module.imports);
            None
        }
        _ => None,
    };
    if let Some(ident) = defined {
        module.items.insert(ident.to_string());
    }
}

/// The names an item macro defines, by the two shapes such macros take: a single
/// identifier (`syn::custom_keyword!(split)`), or declarations inside
/// (`thread_local! { static NAME: .. }`), where an identifier after `static`, `const`,
/// `fn`, `struct`, `enum`, `type` or `trait` is defined.
fn macro_defined_names(mac: &syn::Macro) -> Vec<String> {
    let tokens: Vec<proc_macro2::TokenTree> = mac.tokens.clone().into_iter().collect();
    if let [proc_macro2::TokenTree::Ident(name)] = &tokens[..] {
        return vec![name.to_string()];
    }
    const DECLARES: [&str; 7] = ["static", "const", "fn", "struct", "enum", "type", "trait"];
    tokens
        .windows(2)
        .filter_map(|pair| match pair {
            [
                proc_macro2::TokenTree::Ident(keyword),
                proc_macro2::TokenTree::Ident(name),
            ] if DECLARES.iter().any(|declares| keyword == declares) => Some(name.to_string()),
            _ => None,
        })
        .collect()
}

/// One [`Import`] per name a use tree binds.
fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, public: bool, out: &mut Vec<Import>) {
    let mut bind = |name: Option<String>, last: Option<String>| {
        let mut target = prefix.clone();
        target.extend(last);
        out.push(Import {
            name,
            target,
            public,
        });
    };
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten_use(&path.tree, prefix, public, out);
            prefix.pop();
        }
        // `use a::b::{self}` binds `b`.
        syn::UseTree::Name(name) if name.ident == "self" => bind(prefix.last().cloned(), None),
        syn::UseTree::Name(name) => {
            bind(Some(name.ident.to_string()), Some(name.ident.to_string()))
        }
        syn::UseTree::Rename(rename) if rename.ident == "self" => {
            bind(Some(rename.rename.to_string()), None)
        }
        syn::UseTree::Rename(rename) => bind(
            Some(rename.rename.to_string()),
            Some(rename.ident.to_string()),
        ),
        syn::UseTree::Glob(_) => bind(None, None),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                flatten_use(tree, prefix, public, out);
            }
        }
    }
}
