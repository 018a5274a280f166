//! Unrolled windows folded: terms that differ only by subscripts stepping by a
//! constant become one windowed reduction, the form the checker's one-view rule asks
//! for (E011: `w[0]` and `w[1]` are one window, read once as `w[k]`).
//!
//! A 3-tap filter is written on paper as `x[t - 1] * w[0] + x[t] * w[1] + x[t + 1] *
//! w[2]`; the language wants `sum[k < 3](pad(x, 0)[t + k - 1] * w[k])`. A run of two
//! or more consecutive terms of a `+`/`-` chain joined by the same operator (or the
//! arguments of `min`/`max` calls, nested or not) whose text is the same but for the
//! constants of their subscripts, each
//! constant stepping by the same amount from term to term, becomes `sum[k < n](..)`
//! (`min`, `max`) over a fresh axis. A subscript of an output statement that the window
//! takes outside its tensor is read through `pad(.., v)`, `v` the fold's identity (0
//! for a sum, ∓inf for max and min): the term it stood for read outside the tensor
//! too, which the checker refuses (E012), and its help proposes the same pad. The
//! rewrite moves code only; a caller checks the result.
//!
//! ```
//! use npu_core::print;
//! use npu_core::rewrite::window;
//!
//! let text = "kernel c(x: [f32; 16], w: [f32; 3]) -> y: [f32; 16] {\n    y[t] = x[t - 1] * w[0] + x[t] * w[1] + x[t + 1] * w[2];\n}\ntarget ascend910b;\n";
//! let (def, _) = npu_core::internal::parse_str_partial(text);
//! let body = window::fold(&def.unwrap()).expect("three terms step by one");
//! assert_eq!(print::statement(&body[0]), "y[t] = sum[k < 3](pad(x, 0)[t + k - 1] * w[k]);");
//! ```

use proc_macro2::{Ident, Span};

use crate::ast::{
    Affine, AffineTerm, BinOp, Expr, Index, KernelDef, Link, Number, Reduction, Stmt,
};
use crate::print;

/// Names a window's axis may take, in order of preference.
const AXES: [&str; 6] = ["k", "l", "kw", "kh", "kk", "win"];

/// `def`'s body with every unrolled window folded; `None` when there is none.
pub fn fold(def: &KernelDef) -> Option<Vec<Stmt>> {
    let mut folded = false;
    let body = def
        .body
        .iter()
        .map(|statement| {
            let mut statement = statement.clone();
            let extents = extents(def, &statement);
            let mut folder = Folder {
                def,
                extents,
                taken: names(&statement.value),
                folded: false,
            };
            statement.value = folder.expr(&statement.value);
            folded |= folder.folded;
            statement
        })
        .collect();
    folded.then_some(body)
}

struct Folder<'a> {
    def: &'a KernelDef,
    /// The extent of each axis the statement writes, when it writes an output.
    extents: Vec<(String, u64)>,
    /// Axis names in use in the statement.
    taken: Vec<String>,
    folded: bool,
}

/// A fold a window becomes: `sum` for `+`, or `min`/`max`.
#[derive(Clone, Copy, PartialEq)]
enum Fold {
    Sum,
    Min,
    Max,
}

impl Fold {
    fn name(self) -> &'static str {
        match self {
            Fold::Sum => "sum",
            Fold::Min => "min",
            Fold::Max => "max",
        }
    }
}

impl Folder<'_> {
    /// `expr` with its children folded, then itself if it is a run of terms.
    fn expr(&mut self, expr: &Expr) -> Expr {
        let mut out = expr.clone();
        let Some((fold, terms)) = terms(expr) else {
            self.children(&mut out);
            return out;
        };
        let terms: Vec<Term> = terms
            .iter()
            .map(|(op, term)| (*op, self.expr(term)))
            .collect();
        join(fold, self.runs(fold, terms))
    }

    /// Folds each direct child of `expr` in place.
    fn children(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Load { .. } | Expr::Literal { .. } => {}
            Expr::Neg { arg, .. } | Expr::Not { arg, .. } | Expr::Cast { arg, .. } => {
                **arg = self.expr(arg)
            }
            Expr::Binary { lhs, rhs, .. } => {
                **lhs = self.expr(lhs);
                **rhs = self.expr(rhs);
            }
            Expr::Chain { first, rest } => {
                **first = self.expr(first);
                for link in rest {
                    link.operand = self.expr(&link.operand);
                }
            }
            Expr::Call { args, .. } => {
                for arg in args {
                    *arg = self.expr(arg);
                }
            }
        }
    }

    /// The terms, each maximal run of terms joined by one operator that is a window
    /// folded into one term.
    fn runs(&mut self, fold: Fold, terms: Vec<Term>) -> Vec<Term> {
        let patterns: Vec<(String, Vec<i64>)> = terms.iter().map(|(_, t)| pattern(t)).collect();
        let mut joined = Vec::new();
        let mut start = 0;
        while start < terms.len() {
            let op = terms[start].0;
            // Grown one term at a time: a chain has up to 4096 terms.
            let mut end = start + 1;
            while end < terms.len() && terms[end].0 == op && extends(&patterns[start..=end]) {
                end += 1;
            }
            match steps(&patterns[start..end]) {
                Some(steps) => {
                    let n = end - start;
                    let first = &terms[start].1;
                    joined.push((op, self.window(fold, first, &patterns[start].1, &steps, n)));
                }
                None => joined.extend_from_slice(&terms[start..end]),
            }
            start = end;
        }
        joined
    }

    /// `fold[k < n](first)` with each stepping subscript constant `c` of `first` made
    /// `c + step * k`, and reads the window takes outside their tensor padded.
    fn window(
        &mut self,
        fold: Fold,
        first: &Expr,
        constants: &[i64],
        steps: &[i64],
        n: usize,
    ) -> Expr {
        self.folded = true;
        let axis = AXES
            .iter()
            .map(|a| a.to_string())
            .find(|a| !self.taken.contains(a))
            .unwrap_or_else(|| format!("k{}", self.taken.len()));
        self.taken.push(axis.clone());
        let mut body = first.clone();
        let mut position = 0;
        body.each_mut(&mut |e| {
            if let Expr::Load {
                tensor,
                indices,
                pad,
            } = e
            {
                let mut stepped = false;
                for index in indices.iter_mut() {
                    if let Some(affine) = affine(index) {
                        let step = steps[position];
                        if step != 0 {
                            *index = subscript(with_term(affine, constants[position], step, &axis));
                            stepped = true;
                        }
                        position += 1;
                    }
                }
                if stepped && pad.is_none() && self.outside(&tensor.to_string(), indices, &axis, n)
                {
                    *pad = Some(Box::new(identity(fold)));
                }
            }
        });
        Expr::Call {
            func: ident(fold.name()),
            reduction: Some(Reduction {
                axes: vec![ident(&axis)],
                extents: vec![Some(Number {
                    value: n as u64,
                    span: Span::call_site(),
                })],
                accumulator: None,
            }),
            args: vec![body],
        }
    }

    /// Whether reading `tensor` at `indices`, with `axis` over `0..n` and the
    /// statement's axes over their extents, leaves the tensor; `false` when an extent
    /// or the tensor's shape is unknown.
    fn outside(&self, tensor: &str, indices: &[Index], axis: &str, n: usize) -> bool {
        let Some(param) = self.def.inputs.iter().find(|p| p.name == tensor) else {
            return false;
        };
        let extent = |name: &str| match name == axis {
            true => Some(n as u64),
            false => self
                .extents
                .iter()
                .find(|(a, _)| a == name)
                .map(|(_, e)| *e),
        };
        indices.iter().zip(&param.shape).any(|(index, dim)| {
            let Some(affine) = affine(index) else {
                return false;
            };
            let mut high = affine.offset;
            for term in &affine.terms {
                let Some(extent) = extent(&term.axis.to_string()) else {
                    return false;
                };
                high += term.coefficient as i64 * (extent as i64 - 1);
            }
            affine.offset < 0 || high >= dim.value as i64
        })
    }
}

/// A term of a fold and the operator before it: `+` or `-` in a chain (`+` for the
/// first), `+` for an argument of `min` or `max`.
type Term = (BinOp, Expr);

/// The terms of a `+`/`-` chain, or of nested calls of one of `min`/`max`.
fn terms(expr: &Expr) -> Option<(Fold, Vec<Term>)> {
    match expr {
        Expr::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
            ..
        } => Some((
            Fold::Sum,
            vec![(BinOp::Add, (**lhs).clone()), (*op, (**rhs).clone())],
        )),
        Expr::Chain { first, rest } if matches!(rest[0].op, BinOp::Add | BinOp::Sub) => {
            let mut all = vec![(BinOp::Add, (**first).clone())];
            all.extend(rest.iter().map(|l| (l.op, l.operand.clone())));
            Some((Fold::Sum, all))
        }
        Expr::Call {
            func,
            reduction: None,
            args,
        } if args.len() >= 2 && (func == "min" || func == "max") => {
            let fold = if func == "min" { Fold::Min } else { Fold::Max };
            let mut all = Vec::new();
            for arg in args {
                match terms(arg) {
                    Some((inner, more)) if inner == fold => all.extend(more),
                    _ => all.push((BinOp::Add, arg.clone())),
                }
            }
            Some((fold, all))
        }
        _ => None,
    }
}

/// `terms` joined by `fold` again: a `+`/`-` chain (a binary operation for two), or
/// nested `min`/`max` calls.
fn join(fold: Fold, mut terms: Vec<Term>) -> Expr {
    if terms.len() == 1 {
        return terms.remove(0).1;
    }
    let span = Span::call_site();
    match fold {
        Fold::Sum => {
            let (_, first) = terms.remove(0);
            if let [(op, rhs)] = &terms[..] {
                return Expr::Binary {
                    op: *op,
                    span,
                    lhs: Box::new(first),
                    rhs: Box::new(rhs.clone()),
                };
            }
            let rest = terms
                .into_iter()
                .map(|(op, operand)| Link { op, span, operand })
                .collect();
            Expr::Chain {
                first: Box::new(first),
                rest,
            }
        }
        Fold::Min | Fold::Max => terms
            .into_iter()
            .map(|(_, term)| term)
            .reduce(|a, b| Expr::Call {
                func: ident(fold.name()),
                reduction: None,
                args: vec![a, b],
            })
            .expect("two terms or more"),
    }
}

/// `expr` printed with each load subscript's constant replaced by 0, and those
/// constants in order.
fn pattern(expr: &Expr) -> (String, Vec<i64>) {
    let mut constants = Vec::new();
    let mut shape = expr.clone();
    shape.each_mut(&mut |e| {
        if let Expr::Load { indices, .. } = e {
            for index in indices.iter_mut() {
                if let Some(affine) = affine(index) {
                    constants.push(affine.offset);
                    *index = Index::Affine(Affine {
                        offset: 0,
                        ..affine
                    });
                }
            }
        }
    });
    (print::expr(&shape), constants)
}

/// The step of each constant from one term to the next, when every term has the
/// same pattern, every constant steps evenly, and some step is not 0.
fn steps(patterns: &[(String, Vec<i64>)]) -> Option<Vec<i64>> {
    let (text, first) = &patterns[0];
    if patterns.len() < 2
        || patterns
            .iter()
            .any(|(t, c)| t != text || c.len() != first.len())
    {
        return None;
    }
    let steps: Vec<i64> = first
        .iter()
        .zip(&patterns[1].1)
        .map(|(a, b)| b - a)
        .collect();
    let even = patterns.iter().enumerate().all(|(m, (_, c))| {
        c.iter()
            .zip(first)
            .zip(&steps)
            .all(|((c, f), s)| *c == f + s * m as i64)
    });
    // An axis is never subtracted in a subscript: a step down is not written.
    (even && steps.iter().any(|s| *s != 0) && steps.iter().all(|s| *s >= 0)).then_some(steps)
}

/// Whether the last of `patterns` continues the run before it: the same text, and
/// constants one more step along (the step set by the first two).
fn extends(patterns: &[(String, Vec<i64>)]) -> bool {
    let (text, first) = &patterns[0];
    let (last_text, last) = &patterns[patterns.len() - 1];
    let Some((_, second)) = patterns.get(1) else {
        return false;
    };
    let m = patterns.len() as i64 - 1;
    last_text == text
        && last.len() == first.len()
        && second.len() == first.len()
        && first
            .iter()
            .zip(second)
            .zip(last)
            .all(|((f, s), l)| *l == f + (s - f) * m)
}

/// A subscript as an affine form: an axis, a constant or an affine subscript; `None`
/// for a gather.
fn affine(index: &Index) -> Option<Affine> {
    match index {
        Index::Axis(axis) => Some(Affine {
            terms: vec![AffineTerm {
                coefficient: 1,
                axis: axis.clone(),
            }],
            offset: 0,
            span: axis.span(),
        }),
        Index::Const(number) => Some(Affine {
            terms: Vec::new(),
            offset: number.value as i64,
            span: number.span,
        }),
        Index::Affine(affine) => Some(affine.clone()),
        Index::Gather(_) => None,
    }
}

/// `affine` with offset `offset` and the term `step * axis` after its own.
fn with_term(mut affine: Affine, offset: i64, step: i64, axis: &str) -> Affine {
    affine.offset = offset;
    affine.terms.push(AffineTerm {
        coefficient: step as u64,
        axis: ident(axis),
    });
    affine
}

/// `affine` as the parser reads it back: one axis alone is a plain subscript.
fn subscript(affine: Affine) -> Index {
    match affine.terms.as_slice() {
        [term] if term.coefficient == 1 && affine.offset == 0 => Index::Axis(term.axis.clone()),
        _ => Index::Affine(affine),
    }
}

/// The value a read outside its tensor takes in a window of `fold`: its identity.
fn identity(fold: Fold) -> Expr {
    let literal = |value: f64, is_float: bool| Expr::Literal {
        value,
        is_float,
        span: Span::call_site(),
    };
    match fold {
        Fold::Sum => literal(0.0, false),
        Fold::Max => Expr::Neg {
            arg: Box::new(literal(f64::INFINITY, true)),
            span: Span::call_site(),
        },
        Fold::Min => literal(f64::INFINITY, true),
    }
}

/// The extent of each axis `statement` writes, from its output's shape.
fn extents(def: &KernelDef, statement: &Stmt) -> Vec<(String, u64)> {
    let Some(output) = def.outputs.iter().find(|p| p.name == statement.output) else {
        return Vec::new();
    };
    statement
        .indices
        .iter()
        .zip(&output.shape)
        .filter_map(|(index, extent)| match index {
            Index::Axis(axis) => Some((axis.to_string(), extent.value)),
            _ => None,
        })
        .collect()
}

/// Every axis name `expr` uses in its subscripts and brackets.
fn names(expr: &Expr) -> Vec<String> {
    let mut names = Vec::new();
    expr.each(&mut |e| match e {
        Expr::Load { indices, .. } => {
            for index in indices {
                if let Some(affine) = affine(index) {
                    names.extend(affine.terms.iter().map(|t| t.axis.to_string()));
                }
            }
        }
        Expr::Call {
            reduction: Some(bracket),
            ..
        } => names.extend(bracket.axes.iter().map(Ident::to_string)),
        _ => {}
    });
    names
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}
