//! Hoisting reductions into intermediates: the rewrite that turns a statement the
//! checker refuses for where its reductions sit into the `let` form the checker's help
//! asks for.
//!
//! A reduction computed in place must be the only reader of its tensors in the
//! statement (one view per tensor, E011), sit in no other reduction or scan (E003) and
//! take no axis the statement already uses (E030). Mathematics writes all three freely:
//! `y[i] = max[k](x[i, k]) + log(sum[k](exp(x[i, k] - max[k](x[i, k]))))`. Each such
//! reduction becomes an intermediate over the axes of the enclosing scope it reads, the
//! same reduction written twice becomes one, and the statement reads the intermediate:
//!
//! ```text
//! let max0[i] = max[k](x[i, k]);
//! let sum0[i] = sum[k](exp(x[i, k] - max0[i]));
//! y[i] = max0[i] + log(sum0[i]);
//! ```
//!
//! A reduction's axes are its own inside its brackets: `sum[k]` in a statement written
//! over `y[i, k]` reduces a fresh `k`, as it would on paper. The rewrite only moves
//! code; whether the result checks is the checker's to say, so a caller checks it.
//!
//! ```
//! use npu_core::print;
//! use npu_core::rewrite::hoist;
//!
//! let text = "kernel c(x: [f32; 4, 8]) -> y: [f32; 4, 8] {\n    y[i, k] = x[i, k] - sum[k](x[i, k]) / 8.0;\n}\ntarget ascend910b;\n";
//! let (def, _) = npu_core::internal::parse_str_partial(text);
//! let body = hoist::reductions(&def.unwrap()).expect("the sum reads x beside x[i, k]");
//! let lines: Vec<String> = body.iter().map(print::statement).collect();
//! assert_eq!(lines, ["let sum0[i] = sum[k](x[i, k]);", "y[i, k] = x[i, k] - sum0[i] / 8.0;"]);
//! ```

use proc_macro2::{Ident, Span};

use crate::ast::{Expr, Index, KernelDef, Link, Stmt};
use crate::ir::ScanOp;
use crate::print;

/// `def`'s body with every reduction that cannot stay where it is computed in an
/// intermediate first; `None` when no reduction needs it.
pub fn reductions(def: &KernelDef) -> Option<Vec<Stmt>> {
    let mut hoister = Hoister {
        taken: names(def),
        reads: def.body.iter().flat_map(written_and_read).collect(),
        body: Vec::new(),
        moved: false,
    };
    for statement in &def.body {
        hoister.statement(statement);
    }
    hoister.moved.then_some(hoister.body)
}

struct Hoister {
    /// Every name in the kernel, so that a new intermediate's name is fresh.
    taken: Vec<String>,
    /// Every read of a tensor in the kernel as written: its name and subscripts.
    reads: Vec<Read>,
    /// The rewritten body so far.
    body: Vec<Stmt>,
    /// Whether any reduction was hoisted.
    moved: bool,
}

/// Where an expression sits in its statement.
#[derive(Clone)]
struct Scope {
    /// The axes bound here: the statement's, then each enclosing reduction's.
    bound: Vec<String>,
    /// Inside a reduction or a scan.
    inside: bool,
}

/// A tensor read: its name and each subscript's axis, when the subscript is one.
type Read = (String, Vec<Option<String>>);

/// The intermediates of one statement: each hoisted reduction's text and name.
type Hoisted = Vec<(String, Stmt)>;

impl Hoister {
    fn statement(&mut self, statement: &Stmt) {
        let loads = load_counts(&statement.value);
        let scope = Scope {
            bound: statement.indices.iter().filter_map(axis_name).collect(),
            inside: false,
        };
        let mut hoisted = Hoisted::new();
        let value = self.expr(&statement.value, &scope, &loads, &mut hoisted);
        self.body.extend(hoisted.into_iter().map(|(_, stmt)| stmt));
        self.body.push(Stmt {
            value,
            ..statement.clone()
        });
    }

    /// `expr` with its children rewritten, then hoisted itself if it is a reduction
    /// that must be.
    fn expr(
        &mut self,
        expr: &Expr,
        scope: &Scope,
        loads: &[(String, usize)],
        hoisted: &mut Hoisted,
    ) -> Expr {
        let Expr::Call {
            func,
            reduction: Some(reduction),
            args,
        } = expr
        else {
            return self.children(expr, scope, loads, hoisted);
        };
        let scan = [ScanOp::Sum, ScanOp::Prod]
            .iter()
            .any(|op| func == op.name());
        let mut inner = scope.clone();
        inner.inside = true;
        if !scan {
            inner
                .bound
                .extend(reduction.axes.iter().map(Ident::to_string));
        }
        let args: Vec<Expr> = args
            .iter()
            .map(|arg| self.expr(arg, &inner, loads, hoisted))
            .collect();
        let rewritten = Expr::Call {
            func: func.clone(),
            reduction: Some(reduction.clone()),
            args,
        };
        let shadows = reduction
            .axes
            .iter()
            .any(|a| scope.bound.contains(&a.to_string()));
        let shares = load_counts(expr)
            .iter()
            .any(|(tensor, n)| count(loads, tensor) > *n);
        if scan || !(scope.inside || shadows || shares) {
            return rewritten;
        }
        self.hoist(rewritten, &func.to_string(), scope, hoisted)
    }

    /// The read of the intermediate that computes `reduction` (one already made for the
    /// same text, or a new one).
    fn hoist(&mut self, reduction: Expr, func: &str, scope: &Scope, hoisted: &mut Hoisted) -> Expr {
        self.moved = true;
        let free = free_axes(&reduction, scope);
        let reduction = self.aligned(reduction, &free);
        let text = print::expr(&reduction);
        let key = format!("{}{text}", free.join(","));
        let name = match hoisted.iter().find(|(k, _)| *k == key) {
            Some((_, stmt)) => stmt.output.to_string(),
            None => {
                let name = self.fresh(func);
                let stmt = Stmt {
                    output: ident(&name),
                    indices: free.iter().map(|a| Index::Axis(ident(a))).collect(),
                    value: reduction,
                    let_token: Some(Span::call_site()),
                };
                hoisted.push((key, stmt));
                name
            }
        };
        Expr::Load {
            tensor: ident(&name),
            indices: free.iter().map(|a| Index::Axis(ident(a))).collect(),
            pad: None,
        }
    }

    /// `reduction` with each of its own axes renamed to the axis the kernel reads the
    /// same tensor with elsewhere, at the same position: a tensor is read through one
    /// view (E011), so `x[i, j] * rsqrt(sum[k](x[i, k] * x[i, k]))` hoists its sum as
    /// `sum[j](x[i, j] * x[i, j])`. `free` are the axes the intermediate is written over.
    fn aligned(&self, reduction: Expr, free: &[String]) -> Expr {
        let Expr::Call {
            reduction: Some(bracket),
            ..
        } = &reduction
        else {
            return reduction;
        };
        let inside = reads(&reduction);
        let mut used = free.to_vec();
        axes_read(&reduction, &mut used);
        used.extend(bracket.axes.iter().map(Ident::to_string));
        let mut renames = Vec::new();
        for own in bracket.axes.iter().map(Ident::to_string) {
            let wanted = inside.iter().find_map(|(tensor, axes)| {
                let at = axes
                    .iter()
                    .position(|a| a.as_deref() == Some(own.as_str()))?;
                self.reads
                    .iter()
                    .filter(|(t, other)| t == tensor && other.len() == axes.len())
                    .find_map(|(_, other)| other[at].clone().filter(|b| !used.contains(b)))
            });
            if let Some(to) = wanted {
                used.push(to.clone());
                renames.push((own, to));
            }
        }
        renames
            .iter()
            .fold(reduction, |expr, (from, to)| rename(&expr, from, to))
    }

    /// `func0`, `func1`, ...: the first name no tensor, axis or intermediate has.
    fn fresh(&mut self, func: &str) -> String {
        let name = (0..)
            .map(|n| format!("{func}{n}"))
            .find(|name| !self.taken.contains(name))
            .expect("an unbounded range has a free name");
        self.taken.push(name.clone());
        name
    }

    /// `expr` with each child rewritten.
    fn children(
        &mut self,
        expr: &Expr,
        scope: &Scope,
        loads: &[(String, usize)],
        hoisted: &mut Hoisted,
    ) -> Expr {
        let mut go = |e: &Expr| Box::new(self.expr(e, scope, loads, hoisted));
        match expr {
            Expr::Load { .. } | Expr::Literal { .. } => expr.clone(),
            Expr::Neg { arg, span } => Expr::Neg {
                arg: go(arg),
                span: *span,
            },
            Expr::Not { arg, span } => Expr::Not {
                arg: go(arg),
                span: *span,
            },
            Expr::Cast {
                arg,
                dtype,
                saturating,
            } => Expr::Cast {
                arg: go(arg),
                dtype: dtype.clone(),
                saturating: *saturating,
            },
            Expr::Binary { op, span, lhs, rhs } => Expr::Binary {
                op: *op,
                span: *span,
                lhs: go(lhs),
                rhs: go(rhs),
            },
            Expr::Chain { first, rest } => Expr::Chain {
                first: go(first),
                rest: rest
                    .iter()
                    .map(|link| Link {
                        operand: *go(&link.operand),
                        ..link.clone()
                    })
                    .collect(),
            },
            Expr::Call {
                func,
                reduction,
                args,
            } => Expr::Call {
                func: func.clone(),
                reduction: reduction.clone(),
                args: args.iter().map(|arg| *go(arg)).collect(),
            },
        }
    }
}

/// `expr` with axis `from` called `to` in every subscript and bracket.
fn rename(expr: &Expr, from: &str, to: &str) -> Expr {
    let mut out = expr.clone();
    out.each_mut(&mut |e| match e {
        Expr::Load { indices, .. } => indices.iter_mut().for_each(|i| rename_index(i, from, to)),
        Expr::Call {
            reduction: Some(bracket),
            ..
        } => bracket
            .axes
            .iter_mut()
            .filter(|a| *a == from)
            .for_each(|a| *a = ident(to)),
        _ => {}
    });
    out
}

fn rename_index(index: &mut Index, from: &str, to: &str) {
    match index {
        Index::Axis(axis) if *axis == from => *axis = ident(to),
        Index::Axis(_) | Index::Const(_) => {}
        Index::Affine(affine) => affine
            .terms
            .iter_mut()
            .filter(|t| t.axis == from)
            .for_each(|t| t.axis = ident(to)),
        Index::Gather(gather) => gather
            .indices
            .iter_mut()
            .for_each(|i| rename_index(i, from, to)),
    }
}

/// The view `statement` writes (an intermediate is read as it is written), then each
/// it reads.
fn written_and_read(statement: &Stmt) -> Vec<Read> {
    let written = (
        statement.output.to_string(),
        statement.indices.iter().map(axis_name).collect(),
    );
    std::iter::once(written)
        .chain(reads(&statement.value))
        .collect()
}

/// Each tensor read in `expr`, in order.
fn reads(expr: &Expr) -> Vec<Read> {
    let mut found = Vec::new();
    expr.each(&mut |e| {
        if let Expr::Load {
            tensor, indices, ..
        } = e
        {
            found.push((tensor.to_string(), indices.iter().map(axis_name).collect()));
        }
    });
    found
}

/// The axes of `scope` that `reduction` reads, in the scope's order.
fn free_axes(reduction: &Expr, scope: &Scope) -> Vec<String> {
    let Expr::Call {
        reduction: Some(bracket),
        args,
        ..
    } = reduction
    else {
        return Vec::new();
    };
    let mut used = Vec::new();
    for arg in args {
        axes_read(arg, &mut used);
    }
    let own: Vec<String> = bracket.axes.iter().map(Ident::to_string).collect();
    scope
        .bound
        .iter()
        .enumerate()
        // An axis bound twice (a reduction's axis shadowing the statement's) is free
        // only where it was bound last.
        .filter(|(n, a)| !scope.bound[n + 1..].contains(a))
        .map(|(_, a)| a)
        .filter(|a| used.contains(a) && !own.contains(a))
        .cloned()
        .collect()
}

/// Each axis name `expr`'s subscripts use, once.
fn axes_read(expr: &Expr, used: &mut Vec<String>) {
    expr.each(&mut |e| {
        if let Expr::Load { indices, .. } = e {
            for index in indices {
                index_axes(index, used);
            }
        }
    });
}

fn index_axes(index: &Index, used: &mut Vec<String>) {
    let mut add = |name: String| {
        if !used.contains(&name) {
            used.push(name);
        }
    };
    match index {
        Index::Axis(axis) => add(axis.to_string()),
        Index::Const(_) => {}
        Index::Affine(affine) => affine.terms.iter().for_each(|t| add(t.axis.to_string())),
        Index::Gather(gather) => gather.indices.iter().for_each(|i| index_axes(i, used)),
    }
}

/// How many times `expr` reads each tensor, in order of first read.
fn load_counts(expr: &Expr) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    expr.each(&mut |e| {
        if let Expr::Load { tensor, .. } = e {
            let name = tensor.to_string();
            match counts.iter_mut().find(|(t, _)| *t == name) {
                Some((_, n)) => *n += 1,
                None => counts.push((name, 1)),
            }
        }
    });
    counts
}

fn count(loads: &[(String, usize)], tensor: &str) -> usize {
    loads
        .iter()
        .find(|(t, _)| t == tensor)
        .map_or(0, |(_, n)| *n)
}

/// Every name the kernel uses: its tensors, intermediates and axes.
fn names(def: &KernelDef) -> Vec<String> {
    let mut names: Vec<String> = def
        .inputs
        .iter()
        .chain(&def.outputs)
        .map(|p| p.name.to_string())
        .collect();
    for statement in &def.body {
        names.push(statement.output.to_string());
        statement
            .indices
            .iter()
            .for_each(|i| index_axes(i, &mut names));
        statement.value.each(&mut |e| match e {
            Expr::Load { tensor, .. } => names.push(tensor.to_string()),
            Expr::Call {
                reduction: Some(r), ..
            } => {
                names.extend(r.axes.iter().map(Ident::to_string));
            }
            _ => {}
        });
        axes_read(&statement.value, &mut names);
    }
    names
}

fn axis_name(index: &Index) -> Option<String> {
    match index {
        Index::Axis(axis) => Some(axis.to_string()),
        _ => None,
    }
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}
