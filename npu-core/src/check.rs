//! The checker: a [`KernelDef`] and a [`Target`] in, a [`CheckedKernel`] or every
//! problem out.
//!
//! Checking runs in two halves. This module checks the kernel itself (names, dtypes,
//! shapes and subscripts, the algorithm's types, what the target's units can compute)
//! and classifies it as elementwise, reduction or matmul. [`crate::schedule`] then
//! checks each schedule against the machine (tiles, staging, capacity, alignment,
//! repeats, cores, events, tails). Both halves push into one [`Diagnostics`], so a run
//! reports everything it found, in source order.

use std::collections::HashMap;

use proc_macro2::{Ident, Span};

use crate::ast::{KernelDef, TargetRef};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::dtype::Dtype;
use crate::ir::*;
use crate::target::Target;
use crate::words::{list, suggestion};

mod chain;
mod class;
mod constant;
mod expr;
mod gather;
mod load;
mod matmul;
mod products;
mod reduce;
mod retype;
mod scan;
mod statement;

pub use class::vector_op;
pub(crate) use matmul::{near_matmul, vector_matmul};

/// The functions of the algorithm language, for "did you mean" suggestions.
pub(crate) const FUNCTIONS: &[&str] = &[
    "exp", "log", "sqrt", "rsqrt", "tanh", "recip", "sigmoid", "abs", "neg", "relu", "min", "max",
    "select", "sum", "sin", "cos", "tan", "floor", "ceil", "round", "trunc", "exp2", "log2",
    "log10", "erf", "sign", "popcount", "pow", "argmax", "argmin", "cumsum", "cumprod",
];

/// The most elements a tensor or a statement's loop nest may have: 2^48, more than any
/// NPU's memory holds, and few enough that no tile, buffer or repeat count of the plan
/// can overflow a `u64`.
pub(crate) const MAX_ELEMENTS: u64 = 1 << 48;

fn too_many_elements(extents: &[u64]) -> bool {
    let elements = extents
        .iter()
        .try_fold(1u64, |n, extent| n.checked_mul((*extent).max(1)));
    elements.is_none_or(|elements| elements > MAX_ELEMENTS)
}

/// The most generated variants a kernel may ask for: each is compiled and simulated.
pub const MAX_VARIANTS: u64 = 64;

/// Checks a parsed kernel against `target`.
pub fn check(def: &KernelDef, target: &Target) -> Result<CheckedKernel, Diagnostics> {
    let mut cx = Checker {
        target,
        diagnostics: Diagnostics::default(),
        untyped: Vec::new(),
        helps: true,
        require_schedule: true,
        literals: Vec::new(),
    };
    let kernel = cx.kernel(def);
    let mut diagnostics = cx.diagnostics;
    let kernel = kernel.map(|mut kernel| {
        crate::schedule::check_all(def, &mut kernel, &mut diagnostics);
        kernel
    });
    diagnostics.sort();
    match kernel {
        Some(kernel) if diagnostics.is_empty() => Ok(kernel),
        _ => Err(diagnostics),
    }
}

/// Checks a parsed kernel's signature and algorithm against `target`, not its
/// schedules: what a kernel body needs before any schedule is written for it (drafting
/// a body from a description). A kernel without a schedule block is accepted; the
/// checked kernel has no schedules.
pub fn check_algorithm(def: &KernelDef, target: &Target) -> Result<CheckedKernel, Diagnostics> {
    let mut cx = Checker {
        target,
        diagnostics: Diagnostics::default(),
        untyped: Vec::new(),
        helps: true,
        require_schedule: false,
        literals: Vec::new(),
    };
    let kernel = cx.kernel(def);
    let mut diagnostics = cx.diagnostics;
    diagnostics.sort();
    match kernel {
        Some(kernel) if diagnostics.is_empty() => Ok(kernel),
        _ => Err(diagnostics),
    }
}

/// Finds the kernel's target: a preset by name, or a file read by `read_file` (the
/// caller's I/O; the path is as written). Reports a missing, repeated or unknown target.
pub fn resolve_target(
    def: &KernelDef,
    read_file: impl FnOnce(&str) -> Result<String, String>,
) -> Result<Target, Diagnostics> {
    let mut diagnostics = Diagnostics::default();
    for extra in def.targets.iter().skip(1) {
        diagnostics.push(
            Diagnostic::new(Code::E030, extra.span(), "a kernel has one target")
                .help("remove this `target` line, or check the kernel once per target with `npu::check_source`"),
        );
    }
    let target = match def.targets.first() {
        None => {
            diagnostics.push(
                Diagnostic::new(
                    Code::E031,
                    def.kernel_span,
                    format!("kernel `{}` names no target", def.name),
                )
                .help(format!(
                    "add a line such as `target npueval_demo;` after the kernel body; presets: {}",
                    list(&Target::preset_names())
                )),
            );
            None
        }
        Some(TargetRef::Preset(name)) => {
            let text = name.to_string();
            let target = Target::preset(&text);
            if target.is_none() {
                diagnostics.push(
                    Diagnostic::new(Code::E005, name.span(), format!("unknown target `{text}`"))
                        .help(format!(
                            "{} or give a target file as `target \"path/to/target.toml\";`",
                            suggestion(&text, &Target::preset_names())
                        )),
                );
            }
            target
        }
        Some(TargetRef::File { path, span }) => match read_file(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Target::from_toml(&text).map_err(|e| e.to_string()))
        {
            Ok(target) => Some(target),
            Err(error) => {
                diagnostics.push(Diagnostic::new(
                    Code::E005,
                    *span,
                    format!("cannot use target file `{path}`: {}", first_line(&error)),
                ));
                None
            }
        },
    };
    match target {
        Some(target) if diagnostics.is_empty() => Ok(target),
        _ => Err(diagnostics),
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The type of an expression while checking.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Value(Dtype),
    /// A comparison's result, only usable as `select`'s condition.
    Mask(Dtype),
    /// A literal whose dtype comes from the other operand.
    Literal {
        is_float: bool,
    },
    /// Already reported; stay quiet about it.
    Error,
}

/// A named constant (the `constant` module checks it): defined here, beside the
/// checker that holds them, so that the module reads the checker and not the reverse.
#[derive(Clone, Debug)]
struct Constant {
    /// The name where the `let` writes it.
    ident: Ident,
    /// Its literal tree; `None` when it was refused as too large (reads are then
    /// silent: the `let` said why).
    value: Option<crate::ast::Expr>,
    /// The nodes and levels of the tree with the constants it reads expanded.
    nodes: usize,
    depth: usize,
}

struct Checker<'a> {
    target: &'a Target,
    diagnostics: Diagnostics,
    /// Tensors whose dtype is unknown (already reported): their loads and stores are
    /// not type-checked, so that one unknown dtype is one error.
    untyped: Vec<String>,
    /// Whether diagnostics get helps that are rechecked rewrites of the kernel (off
    /// while such a rewrite is being rechecked).
    helps: bool,
    /// Whether a kernel without a schedule block is an error ([`check_algorithm`]
    /// accepts one).
    require_schedule: bool,
    /// Every literal read so far and its token, for a diagnostic on a literal its
    /// context's dtype cannot hold.
    literals: Vec<(f64, Span)>,
}

/// What a padded view pads with, to tell two views of one tensor apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PadKey {
    /// The bits of a constant.
    Bits(u64),
    /// A scalar parameter, by tensor index.
    Param(usize),
}

/// Names in scope while checking the body.
struct Scope {
    tensors: HashMap<String, usize>,
    axes: Vec<Axis>,
    /// Axes usable at the current point: output axes plus enclosing reduction axes.
    live: Vec<usize>,
    /// The subscripts of each input's first load: a staged input holds one tile per
    /// iteration, so every load of it must read the same elements.
    loads: HashMap<usize, Vec<Subscript>>,
    /// Whether the expression being checked is inside a reduction.
    reducing: bool,
    /// Whether the expression being checked is inside a scan.
    scanning: bool,
    /// The axis list of every reduction so far: one reduction's axes are folded
    /// together, so an axis belongs to one list.
    reductions: Vec<Vec<usize>>,
    /// The pad value of each input's first load, `None` when it is not a padded view:
    /// every load of an input reads the same tile, padded alike.
    pads: HashMap<usize, Option<PadKey>>,
    /// Axes whose extent was found from a tensor's shape (a reduction's without a
    /// stated `k < n`, an intermediate's new axis) rather than declared by the output
    /// or stated: a tensor that disagrees with one is likely a mistake.
    found: Vec<usize>,
    /// Intermediates whose `let` failed (already reported): they are declared, so
    /// that a read of one is silent rather than an unknown tensor.
    failed: Vec<usize>,
    /// Whether the load being checked is a gather's index (`idx[i]` in `x[idx[i]]`),
    /// which cannot be read through `pad(..)`.
    gather_index: bool,
    /// The named constants (0-d `let`s of literals) by name, each its literal tree
    /// (`constant`).
    constants: std::collections::BTreeMap<String, Constant>,
}

impl Checker<'_> {
    /// Reports `diagnostic`, built with its help, labels and notes: the builder is the
    /// one way to attach them, so a diagnostic is complete when it is reported.
    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Reports a diagnostic that has no help, label or note. It returns nothing, so
    /// that nothing can be attached to the diagnostic after it is reported.
    fn error(&mut self, code: Code, span: Span, message: impl Into<String>) {
        self.report(Diagnostic::new(code, span, message));
    }

    /// The kernel's tensors, inputs then outputs, each named once, with a known dtype,
    /// no extent of 0 and a size some memory could hold; and their indices by name.
    fn signature(&mut self, def: &KernelDef) -> (Vec<Tensor>, HashMap<String, usize>) {
        let mut tensors = Vec::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        let params = def
            .inputs
            .iter()
            .map(|p| (p, Role::Input))
            .chain(def.outputs.iter().map(|p| (p, Role::Output)));
        for (param, role) in params {
            let name = param.name.to_string();
            if names.contains_key(&name) {
                self.report(
                    Diagnostic::new(
                        Code::E030,
                        param.name.span(),
                        format!("tensor `{name}` is declared twice"),
                    )
                    .help("give each tensor its own name"),
                );
                continue;
            }
            let dtype = self.dtype(&param.dtype).unwrap_or_else(|| {
                self.untyped.push(name.clone());
                Dtype::F32
            });
            for dim in &param.shape {
                if dim.value == 0 {
                    self.report(
                        Diagnostic::new(
                            Code::E011,
                            dim.span,
                            format!("tensor `{name}` has an extent of 0"),
                        )
                        .help("every extent must be at least 1"),
                    );
                }
            }
            let shape: Vec<u64> = param.shape.iter().map(|dim| dim.value).collect();
            if too_many_elements(&shape) {
                self.report(
                    Diagnostic::new(
                        Code::E011,
                        param.name.span(),
                        format!("tensor `{name}` has more than {MAX_ELEMENTS} elements (2^48)"),
                    )
                    .help("no NPU memory holds it; give the kernel a smaller part of the work"),
                );
            }
            names.insert(name.clone(), tensors.len());
            tensors.push(Tensor {
                name,
                dtype,
                shape: param.shape.iter().map(|d| d.value).collect(),
                role,
            });
        }
        (tensors, names)
    }

    /// E031 for each output no statement assigns.
    fn unassigned_outputs(
        &mut self,
        def: &KernelDef,
        scope: &Scope,
        assigned: &HashMap<usize, Span>,
    ) {
        for param in &def.outputs {
            let name = param.name.to_string();
            if let Some(&index) = scope.tensors.get(&name)
                && !assigned.contains_key(&index)
            {
                let help = match def.body.is_empty() {
                    true => format!(
                        "write the kernel's body (`{name}[i] = ...;`), or have a model draft it \
                         from the doc comment: `autotune draft FILE --kernel {}`",
                        def.name
                    ),
                    false => {
                        format!("add a statement such as `{name}[i] = ...;` to the kernel body")
                    }
                };
                self.report(
                    Diagnostic::new(
                        Code::E031,
                        param.name.span(),
                        format!("output `{name}` is never assigned"),
                    )
                    .help(help),
                );
            }
        }
    }

    /// E031 for a kernel without a schedule, with a first schedule that stages every
    /// tensor in UB.
    fn no_schedule(&mut self, def: &KernelDef) {
        if def.schedules.is_empty() && self.require_schedule {
            let tensors: Vec<String> = def
                .inputs
                .iter()
                .chain(&def.outputs)
                .filter(|p| !p.is_scalar())
                .map(|p| p.name.to_string())
                .collect();
            self.report(
                Diagnostic::new(
                    Code::E031,
                    def.name.span(),
                    format!("kernel `{}` has no schedule", def.name),
                )
                .help(format!(
                    "add a block such as `schedule hand {{ stage {} in ub; }}` after the kernel",
                    tensors.join(", ")
                )),
            );
        }
    }

    fn kernel(&mut self, def: &KernelDef) -> Option<CheckedKernel> {
        let (mut tensors, names) = self.signature(def);
        let mut scope = Scope {
            tensors: names,
            axes: Vec::new(),
            live: Vec::new(),
            loads: HashMap::new(),
            reducing: false,
            scanning: false,
            reductions: Vec::new(),
            pads: HashMap::new(),
            found: Vec::new(),
            failed: Vec::new(),
            gather_index: false,
            constants: std::collections::BTreeMap::new(),
        };
        let mut body = Vec::new();
        let mut assigned: HashMap<usize, Span> = HashMap::new();
        for stmt in &def.body {
            let assign = if stmt.let_token.is_some() {
                self.let_statement(stmt, def, &mut tensors, &mut scope)
            } else {
                self.statement(stmt, &tensors, &mut scope, &mut assigned, &body)
            };
            if let Some(assign) = assign {
                body.push(assign);
            }
        }
        self.constants_named_as_axes(&scope);
        // An axis is a reduction axis when the outputs do not run over it: in a fused
        // kernel `k` may be an axis of an intermediate (`let e[i, k]`) and be reduced
        // over by another (`let s[i] = sum[k](e[i, k])`).
        // A 0-d output runs over no axis: every axis is then reduced.
        let output_axes = body
            .iter()
            .find(|a| tensors[a.output].role == Role::Output)
            .map(|a| a.axes.clone());
        if let Some(output_axes) = output_axes {
            for (index, axis) in scope.axes.iter_mut().enumerate() {
                axis.reduction = !output_axes.contains(&index);
            }
        }
        self.unassigned_outputs(def, &scope, &assigned);
        self.no_schedule(def);
        self.variants(def);
        // Classified with exact products (which the cube computes), checked for units
        // as written (the diagnostics point at the nodes the user wrote).
        let exact = products::exact_products(body.clone());
        let class = self.classify(&exact, &scope.axes);
        if !self.diagnostics.is_empty() {
            return None;
        }
        let class = class?;
        self.units(def, &body, &tensors, &class);
        if !self.diagnostics.is_empty() {
            return None;
        }
        Some(CheckedKernel {
            name: def.name.to_string(),
            doc: def.doc.join("\n"),
            target: self.target.clone(),
            tensors,
            axes: scope.axes,
            body: exact,
            class,
            schedules: Vec::new(),
            source: crate::print::kernel(def),
            header: crate::print::kernel_without_schedules(def),
        })
    }

    /// At most one `variants` line, asking for between 1 and [`MAX_VARIANTS`] schedules.
    fn variants(&mut self, def: &KernelDef) {
        for repeated in def.variants.iter().skip(1) {
            self.report(
                Diagnostic::new(Code::E030, repeated.keyword, "duplicate `variants` line")
                    .help("keep one `variants N from \"FILE\";` line per kernel"),
            );
        }
        for variants in &def.variants {
            let count = variants.count.value;
            if count == 0 || count > MAX_VARIANTS {
                self.report(
                    Diagnostic::new(
                        Code::E012,
                        variants.count.span,
                        format!("`variants {count}` is outside 1..={MAX_VARIANTS}"),
                    )
                    .help(format!("ask for between 1 and {MAX_VARIANTS} variants")),
                );
            }
        }
    }

    fn dtype(&mut self, ident: &Ident) -> Option<Dtype> {
        let name = ident.to_string();
        let dtype = Dtype::from_name(&name);
        if dtype.is_none() {
            let help = suggestion(&name, &Dtype::NAMES);
            self.report(
                Diagnostic::new(Code::E004, ident.span(), format!("unknown dtype `{name}`"))
                    .help(help),
            );
        }
        dtype
    }
}
