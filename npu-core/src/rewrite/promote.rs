//! Operands of two dtypes cast to the wider: the rewrite of the checker's E010 help
//! ("cast the i8 operand to f32").
//!
//! The language has no implicit promotion: `(q[i] - zero_point) * scale` with `q` an
//! i8 tensor and `zero_point` an f32 parameter is refused, and the help asks for
//! `q[i] as f32`. Where an arithmetic operator, a comparison, `min`, `max` or
//! `select`'s values join operands of two known dtypes, each narrower operand is cast
//! to the widest of them, by the checker's rule (a float over an integer, else the
//! larger). Dtypes are followed through reads, casts, calls, reductions and `let`s;
//! a literal takes any. The rewrite moves code only; a caller checks the result.
//!
//! ```
//! use npu_core::print;
//! use npu_core::rewrite::promote;
//!
//! let text = "kernel d(q: [i8; 8], zero_point: f32, scale: f32) -> y: [f32; 8] {\n    y[i] = (q[i] - zero_point) * scale;\n}\ntarget ascend910b;\n";
//! let (def, _) = npu_core::internal::parse_str_partial(text);
//! let body = promote::casts(&def.unwrap()).expect("i8 meets f32");
//! assert_eq!(print::statement(&body[0]), "y[i] = (q[i] as f32 - zero_point) * scale;");
//! ```

use proc_macro2::{Ident, Span};

use crate::ast::{BinOp, Expr, KernelDef, Stmt};
use crate::dtype::Dtype;

/// `def`'s body with the narrower operands of mixed-dtype operations cast; `None`
/// when no operation mixes dtypes.
pub fn casts(def: &KernelDef) -> Option<Vec<Stmt>> {
    let mut promoter = Promoter {
        dtypes: def
            .inputs
            .iter()
            .chain(&def.outputs)
            .filter_map(|p| Some((p.name.to_string(), Dtype::from_name(&p.dtype.to_string())?)))
            .collect(),
        cast: false,
    };
    let body = def
        .body
        .iter()
        .map(|statement| {
            let mut statement = statement.clone();
            let dtype = promoter.expr(&mut statement.value);
            if let (Some(dtype), Some(_)) = (dtype, statement.let_token) {
                promoter.dtypes.push((statement.output.to_string(), dtype));
            }
            statement
        })
        .collect();
    promoter.cast.then_some(body)
}

struct Promoter {
    /// The dtype of each tensor, parameter and intermediate seen so far.
    dtypes: Vec<(String, Dtype)>,
    /// Whether a cast was added.
    cast: bool,
}

impl Promoter {
    /// The dtype of `expr`'s value (`None` for a literal, a mask or what is not
    /// known), casting the narrower operands under it.
    fn expr(&mut self, expr: &mut Expr) -> Option<Dtype> {
        match expr {
            Expr::Load { tensor, .. } => self
                .dtypes
                .iter()
                .rev()
                .find(|(name, _)| tensor == name)
                .map(|(_, d)| *d),
            Expr::Literal { .. } => None,
            Expr::Neg { arg, .. } | Expr::Not { arg, .. } => self.expr(arg),
            Expr::Cast { arg, dtype, .. } => {
                self.expr(arg);
                Dtype::from_name(&dtype.to_string())
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                let joined = self.join(&mut [&mut **lhs, &mut **rhs], joins(*op));
                (!op.is_comparison()).then_some(joined).flatten()
            }
            Expr::Chain { first, rest } => {
                let joins = rest.iter().all(|link| joins(link.op));
                let mut operands: Vec<&mut Expr> = vec![&mut **first];
                operands.extend(rest.iter_mut().map(|link| &mut link.operand));
                self.join(&mut operands, joins)
            }
            Expr::Call {
                func,
                reduction,
                args,
            } => self.call(&func.to_string(), reduction.as_ref(), args),
        }
    }

    /// The dtype of a call: its values joined for `min`, `max` and `select`; an
    /// index for `argmax`/`argmin`; the accumulator or the argument's for a
    /// reduction, and the argument's for a function.
    fn call(
        &mut self,
        func: &str,
        reduction: Option<&crate::ast::Reduction>,
        args: &mut [Expr],
    ) -> Option<Dtype> {
        let value = match (func, args) {
            ("select", [condition, values @ ..]) => {
                self.expr(condition);
                let mut values: Vec<&mut Expr> = values.iter_mut().collect();
                self.join(&mut values, true)
            }
            ("min" | "max", args) if reduction.is_none() => {
                let mut args: Vec<&mut Expr> = args.iter_mut().collect();
                self.join(&mut args, true)
            }
            (_, args) => args.iter_mut().map(|a| self.expr(a)).last().flatten(),
        };
        match reduction {
            Some(_) if func == "argmax" || func == "argmin" => Some(Dtype::I32),
            Some(bracket) => bracket
                .accumulator
                .as_ref()
                .and_then(|d| Dtype::from_name(&d.to_string()))
                .or(value),
            None => value,
        }
    }

    /// The widest dtype of `operands`, each narrower one cast to it when `casts`.
    fn join(&mut self, operands: &mut [&mut Expr], casts: bool) -> Option<Dtype> {
        let dtypes: Vec<Option<Dtype>> = operands.iter_mut().map(|e| self.expr(e)).collect();
        let widest = dtypes.iter().flatten().copied().reduce(Dtype::wider)?;
        if casts {
            for (operand, dtype) in operands.iter_mut().zip(&dtypes) {
                if dtype.is_some_and(|d| d != widest) {
                    let arg = Box::new(std::mem::replace(&mut **operand, placeholder()));
                    **operand = Expr::Cast {
                        arg,
                        dtype: Ident::new(widest.name(), Span::call_site()),
                        saturating: false,
                    };
                    self.cast = true;
                }
            }
        }
        Some(widest)
    }
}

/// Whether `op` joins its operands into one dtype: arithmetic and comparisons, not the
/// bit operations and shifts, which the checker types by their own rules.
fn joins(op: BinOp) -> bool {
    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) || op.is_comparison()
}

/// A value to stand in an operand's place while it is moved under a cast.
fn placeholder() -> Expr {
    Expr::Literal {
        value: 0.0,
        is_float: false,
        span: Span::call_site(),
    }
}
