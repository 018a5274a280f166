//! The dtypes a body may compute in: those of the target's vector unit, by the rule the
//! checker applies ([`Target::computes_in`], [`Target::accumulates_in`]; E026 refuses an
//! operation whose result has another dtype, but not a load, a cast or a constant of
//! it). A tensor or scalar parameter of a dtype the target does not compute in is read
//! cast to one it does (`q[i] as f32`), or copied whole to an output of its dtype; a
//! cast to a dtype it does not compute in ends a statement (`(..) as sat i8`), and only
//! to the dtype of the output it writes.
//!
//! The grammar is context-free and does not track dtypes: a literal takes the dtype
//! of its use, and a `select` of literals written to an i8 output computes in i8, which
//! the grammar admits and the checker refuses (E026, with a rewrite in its help). On a
//! matmul the cube multiplies i8 without a cast, but the grammar asks for the cast to
//! i32 the vector unit needs: both run the same product.

use npu_core::{Dtype, Target};

use super::loads::tensor_inputs;
use super::text::{choice, literal};
use crate::draft::Port;

/// `dtype`, the dtypes a cast inside an expression reaches, and `accdtype`, those a
/// reduction or scan may accumulate in.
pub(super) fn dtype_rules(target: &Target) -> Vec<String> {
    let (computes, accumulates) = dtype_names(target);
    vec![
        format!("dtype ::= {}", choice(&computes)),
        format!("accdtype ::= {}", choice(&accumulates)),
    ]
}

/// The names of the dtypes `target` computes in, and of those it accumulates in.
pub(in crate::draft) fn dtype_names(target: &Target) -> (Vec<&'static str>, Vec<&'static str>) {
    let names = |keep: &dyn Fn(Dtype) -> bool| -> Vec<&'static str> {
        Dtype::ALL
            .into_iter()
            .filter(|d| keep(*d))
            .map(Dtype::name)
            .collect()
    };
    (
        names(&|d| target.computes_in(d)),
        names(&|d| target.accumulates_in(d)),
    )
}

/// The reads of `ports`' inputs whose dtype `target` does not compute in, with that
/// dtype: the load rule of a tensor (`load-t1`), the name of a scalar parameter.
pub(super) fn uncomputed(ports: &[Port], target: &Target) -> Vec<(String, Dtype)> {
    let tensors =
        tensor_inputs(ports).map(|(position, port)| (super::loads::load_rule(position), port));
    let scalars = ports
        .iter()
        .filter(|p| !p.output && p.rank == 0)
        .map(|port| (literal(&port.name), port));
    tensors
        .chain(scalars)
        .filter_map(|(read, port)| match port.dtype {
            Some(dtype) if !target.computes_in(dtype) => Some((read, dtype)),
            _ => None,
        })
        .collect()
}

/// Whether `port` reads or writes a dtype `target` computes in (or one npu does not
/// have, which the checker names).
pub(in crate::draft) fn computed(port: &Port, target: &Target) -> bool {
    port.dtype.is_none_or(|dtype| target.computes_in(dtype))
}

/// The value of a statement that writes `port` with the expression rules `expr` and
/// `atom`: `expr`, or, when `target` does not compute in the output's dtype, also an
/// operand cast to it (`to-i8`) or an uncomputed read copied or cast.
pub(super) fn value(
    port: &Port,
    target: &Target,
    (expr, atom): (&str, &str),
    reads: &[(String, Dtype)],
) -> String {
    let Some(dtype) = port.dtype.filter(|_| !computed(port, target)) else {
        return expr.to_string();
    };
    let to = widen_rule(dtype);
    let mut alternatives = vec![expr.to_string(), format!("{atom} {to}")];
    for (read, read_dtype) in reads {
        let optional = if *read_dtype == dtype { "?" } else { "" };
        alternatives.push(format!("{read} {to}{optional}"));
    }
    format!("( {} )", alternatives.join(" | "))
}

/// The `to-DTYPE` rules of the outputs of `ports` whose dtype `target` does not
/// compute in: a cast, wrapping or saturating, that ends a statement.
pub(super) fn widen_rules(ports: &[Port], target: &Target) -> Vec<String> {
    let mut dtypes: Vec<Dtype> = ports
        .iter()
        .filter(|p| p.output && !computed(p, target))
        .filter_map(|p| p.dtype)
        .collect();
    dtypes.sort_by_key(|d| d.name());
    dtypes.dedup();
    dtypes
        .into_iter()
        .map(|dtype| {
            let name = dtype.name();
            format!(
                "{} ::= \" as {name}\" | \" as sat {name}\"",
                widen_rule(dtype)
            )
        })
        .collect()
}

/// `to-i8`: the rule of a cast to `dtype` that ends a statement.
fn widen_rule(dtype: Dtype) -> String {
    format!("to-{}", dtype.name())
}
