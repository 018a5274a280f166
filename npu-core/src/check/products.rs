//! The product rule: a product summed in an accumulator that holds every product of
//! its operands exactly (`sum[k](x[k] * w[k])` of bf16 in f32, of i8 in i32) is exact,
//! as the AIE2 MAC (bf16 × bf16 into fp32) and the Ascend cube (f16 × f16 into f32)
//! compute it. The checked kernel says so in its own terms: the product's operands are
//! cast up to the accumulator first, `(x[k] as f32) * (w[k] as f32)`, which is exact,
//! so the interpreter, the generated host reference and lowering compute the same
//! thing by construction. The syntax tree (and so the printed source) keeps what the
//! user wrote.

use crate::dtype::Dtype;
use crate::ir::{Assign, BinaryOp, Expr, ReduceOp};

/// `body` with every product a `sum` folds directly made exact.
pub(super) fn exact_products(mut body: Vec<Assign>) -> Vec<Assign> {
    for assign in &mut body {
        rewrite(&mut assign.value);
    }
    body
}

fn rewrite(expr: &mut Expr) {
    match expr {
        Expr::Load { .. } | Expr::Const { .. } | Expr::Param { .. } => {}
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => rewrite(arg),
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            rewrite(lhs);
            rewrite(rhs);
        }
        Expr::Chain { first, rest, .. } => {
            rewrite(first);
            rest.iter_mut().for_each(|(_, term)| rewrite(term));
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            rewrite(cond);
            rewrite(then);
            rewrite(otherwise);
        }
        Expr::Reduce {
            op,
            body,
            accumulator,
            ..
        } => {
            rewrite(body);
            if *op == ReduceOp::Sum {
                widen_product(body, *accumulator);
            }
        }
        // A scan's product stays in its own dtype: lowering has no multiply-accumulate
        // for scans, and a unit such as AIE2's computes in its accumulator only there.
        Expr::Scan { body, .. } => rewrite(body),
    }
}

/// Makes `body`, when it is a product whose every value `accumulator` holds but its
/// own dtype does not, a product of its operands cast to `accumulator`.
fn widen_product(body: &mut Expr, accumulator: Dtype) {
    split_last_product(body);
    let Expr::Binary {
        op: BinaryOp::Mul,
        lhs,
        rhs,
        dtype,
    } = body
    else {
        return;
    };
    if *dtype == accumulator || !accumulator.holds_products(*dtype) {
        return;
    }
    for operand in [lhs, rhs] {
        let inner = std::mem::replace(
            operand.as_mut(),
            Expr::Const {
                value: 0.0,
                dtype: accumulator,
            },
        );
        **operand = Expr::Cast {
            arg: Box::new(inner),
            dtype: accumulator,
            saturate: false,
        };
    }
    *dtype = accumulator;
}

/// A chain whose last step multiplies, `a * b * c`, as the product of the chain
/// before that step and its last operand, `(a * b) * c`: the tree the sum's product
/// rule reads, with the same steps.
fn split_last_product(body: &mut Expr) {
    let Expr::Chain { rest, dtype, .. } = body else {
        return;
    };
    if rest.last().map(|(op, _)| *op) != Some(BinaryOp::Mul) {
        return;
    }
    let dtype = *dtype;
    let placeholder = Expr::Const { value: 0.0, dtype };
    let Expr::Chain {
        first, mut rest, ..
    } = std::mem::replace(body, placeholder)
    else {
        return;
    };
    let (op, last) = rest.pop().expect("a chain has steps");
    *body = Expr::Binary {
        op,
        lhs: Box::new(Expr::chain(*first, rest, dtype)),
        rhs: Box::new(last),
        dtype,
    };
}
