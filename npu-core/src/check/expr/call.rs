//! Calls of the built-in functions: element-wise ones, folds, `select` and the binary
//! calls (`max`, `min`, ...), each checked for its argument count and types.

use proc_macro2::Ident;

use super::expr_span;
use crate::ast;
use crate::check::{Checker, FUNCTIONS, Scope, Ty};
use crate::diag::{Code, Diagnostic};
use crate::ir::*;
use crate::words::suggestion;

impl Checker<'_> {
    pub(super) fn call(
        &mut self,
        func: &Ident,
        reduction: Option<&ast::Reduction>,
        args: &[ast::Expr],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let name = func.to_string();
        if let Some(reduction) = reduction {
            return self.reduce(func, reduction, args, scope, tensors);
        }
        let unary = UnaryOp::function(&name);
        let arity = match name.as_str() {
            _ if unary.is_some() => 1,
            "min" | "max" | "pow" => 2,
            "select" => 3,
            "sum" | "argmax" | "argmin" => {
                self.report(
                    Diagnostic::new(
                        Code::E003,
                        func.span(),
                        format!("`{name}` needs the axis it reduces over"),
                    )
                    .help(format!("write `{name}[k](x[i, k])`")),
                );
                return (None, Ty::Error);
            }
            "cumsum" | "cumprod" => {
                self.report(
                    Diagnostic::new(
                        Code::E003,
                        func.span(),
                        format!("`{name}` needs the axis it runs along"),
                    )
                    .help(format!("write `y[i, k] = {name}[k](x[i, k])`")),
                );
                return (None, Ty::Error);
            }
            _ => {
                let help = suggestion(&name, FUNCTIONS);
                self.report(
                    Diagnostic::new(
                        Code::E003,
                        func.span(),
                        format!("unknown function `{name}`"),
                    )
                    .help(help),
                );
                // The arguments may hold mistakes of their own: report those too.
                for arg in args {
                    self.expr(arg, scope, tensors);
                }
                return (None, Ty::Error);
            }
        };
        let variadic = name == "min" || name == "max";
        if variadic && args.len() > arity {
            return self.fold_call(func, &name, args, scope, tensors);
        }
        if args.len() != arity {
            let plural = match (arity, variadic) {
                (1, _) => "",
                (_, false) => "s",
                (_, true) => "s or more",
            };
            self.error(
                Code::E003,
                func.span(),
                format!(
                    "`{name}` takes {arity} argument{plural} but was given {}",
                    args.len()
                ),
            );
            return (None, Ty::Error);
        }
        let mut typed: Vec<(Option<Expr>, Ty)> =
            args.iter().map(|a| self.expr(a, scope, tensors)).collect();
        if let Some(op) = unary {
            let (arg, ty) = typed.remove(0);
            return self.unary_result(op, arg, ty, func.span());
        }
        if name == "select" {
            return self.select_call(func, args, typed);
        }
        self.binary_call(func, &name, args, typed)
    }

    /// `min(a, b, c, ..)`: `min(min(a, b), c)` and so on, left to right.
    fn fold_call(
        &mut self,
        func: &Ident,
        name: &str,
        args: &[ast::Expr],
        scope: &mut Scope,
        tensors: &[Tensor],
    ) -> (Option<Expr>, Ty) {
        let mut typed = args.iter().map(|a| self.expr(a, scope, tensors));
        let first = typed.next().expect("three arguments or more");
        let typed: Vec<(Option<Expr>, Ty)> = typed.collect();
        typed.into_iter().fold(first, |folded, next| {
            self.binary_call(func, name, args, vec![folded, next])
        })
    }

    /// `select(cond, then, otherwise)`: a comparison, and two values of one dtype.
    fn select_call(
        &mut self,
        func: &Ident,
        args: &[ast::Expr],
        mut typed: Vec<(Option<Expr>, Ty)>,
    ) -> (Option<Expr>, Ty) {
        let otherwise = typed.pop().expect("arity 3");
        let then = typed.pop().expect("arity 3");
        let cond = typed.pop().expect("arity 3");
        if !matches!(cond.1, Ty::Mask(_) | Ty::Error) {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    expr_span(&args[0]),
                    "`select` needs a comparison as its condition",
                )
                .help("write `select(a[i] > b[i], a[i], b[i])`"),
            );
            return (None, Ty::Error);
        }
        let Some(dtype) = self.unify(func.span(), "select", then.1, otherwise.1) else {
            return (None, Ty::Error);
        };
        let (Some(c), Some(t), Some(o)) = (cond.0, then.0, otherwise.0) else {
            return (None, Ty::Error);
        };
        // A select of literals is a literal tree: it takes its context's dtype, as
        // `select(x[i] > 0, 1, 0) + select(x[i] < 0, 2, 0)` does from an i8 output.
        let ty = match (then.1, otherwise.1) {
            (Ty::Literal { is_float: a }, Ty::Literal { is_float: b }) => {
                Ty::Literal { is_float: a || b }
            }
            _ => Ty::Value(dtype),
        };
        let expr = Expr::Select {
            cond: Box::new(c),
            then: Box::new(self.typed(t, dtype, func.span())),
            otherwise: Box::new(self.typed(o, dtype, func.span())),
            dtype,
        };
        (Some(expr), ty)
    }

    /// `min`, `max` and `pow` (a constant exponent, a floating-point operand).
    fn binary_call(
        &mut self,
        func: &Ident,
        name: &str,
        args: &[ast::Expr],
        mut typed: Vec<(Option<Expr>, Ty)>,
    ) -> (Option<Expr>, Ty) {
        let rhs = typed.pop().expect("arity 2");
        let lhs = typed.pop().expect("arity 2");
        if name == "pow" && !matches!(rhs.1, Ty::Literal { .. } | Ty::Error) {
            self.report(
                Diagnostic::new(Code::E010, expr_span(&args[1]), "`pow` needs a constant exponent")
                    .help(
                        "write a number, as in `pow(x[i], 3.0)`, or `exp(e * log(x))` for a tensor exponent",
                    ),
            );
            return (None, Ty::Error);
        }
        let Some(dtype) = self.unify(func.span(), name, lhs.1, rhs.1) else {
            return (None, Ty::Error);
        };
        let (Some(l), Some(r)) = (lhs.0, rhs.0) else {
            return (None, Ty::Error);
        };
        let op = match name {
            "min" => BinaryOp::Min,
            "max" => BinaryOp::Max,
            _ => BinaryOp::Pow,
        };
        if op == BinaryOp::Pow && !dtype.is_float() {
            self.report(
                Diagnostic::new(
                    Code::E010,
                    func.span(),
                    format!("`pow` needs a floating-point operand but got {dtype}"),
                )
                .help("cast the operand first: `pow(x as f32, 2.0)`"),
            );
            return (None, Ty::Error);
        }
        let ty = match (lhs.1, rhs.1) {
            (Ty::Literal { is_float: a }, Ty::Literal { is_float: b }) => {
                Ty::Literal { is_float: a || b }
            }
            _ => Ty::Value(dtype),
        };
        let expr = Expr::Binary {
            op,
            lhs: Box::new(self.typed(l, dtype, func.span())),
            rhs: Box::new(self.typed(r, dtype, func.span())),
            dtype,
        };
        (Some(expr), ty)
    }
}
