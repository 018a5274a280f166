//! The body of a generated module's `evaluate`: a kernel's algorithm as plain loops
//! over `f64` values, every operation rounded through `npu_core::scalar`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{ToTokens as _, format_ident, quote};

use npu_core::ir::{self, BinaryOp, Expr, ReduceOp, Role, Subscript, UnaryOp};
use npu_core::target::{Implementation, VectorOp};
use npu_core::{CheckedKernel, Dtype};

use super::paths::{dtype_path, private, usize_literal, variant};

/// `fn evaluate`: the algorithm over `f64` values, one loop nest per statement. Names
/// inside are generated (`t0` for tensor 0, `a1` for axis 1), so no tensor or axis name
/// of the user's can shadow anything.
pub(super) fn evaluate(kernel: &CheckedKernel) -> TokenStream {
    let input_count = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Input)
        .count();
    let output_count = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Output)
        .count();
    let mut read = vec![false; kernel.tensors.len()];
    for assign in &kernel.body {
        assign.value.accesses(&mut |tensor, _| read[tensor] = true);
        assign.value.walk(&mut |node| match node {
            Expr::Param { tensor, .. } => read[*tensor] = true,
            // A scalar parameter a padded view pads with.
            Expr::Load { pad: Some(pad), .. } => {
                if let Expr::Param { tensor, .. } = pad.as_ref() {
                    read[*tensor] = true;
                }
            }
            _ => {}
        });
    }
    let bindings = (0..input_count).map(|t| {
        if read[t] {
            tensor_var(t).into_token_stream()
        } else {
            quote!(_)
        }
    });
    let statements = kernel.body.iter().map(|assign| {
        let output = tensor_var(assign.output);
        let elements = usize_literal(kernel.tensors[assign.output].elements());
        let subscripts: Vec<Subscript> = assign.axes.iter().map(|a| Subscript::Axis(*a)).collect();
        let index = index(kernel, assign.output, &subscripts);
        let mut ctx = Statement {
            axes: &assign.axes,
            scans: Vec::new(),
        };
        // Each scan whole before the statement, one running value per line along its
        // axis (row-major order visits each line in index order).
        let mut found = Vec::new();
        assign.value.walk(&mut |node| {
            if let Expr::Scan { .. } = node {
                found.push(node);
            }
        });
        let mut scans = Vec::new();
        for node in found {
            scans.push(scan(kernel, &ctx, node, ctx.scans.len()));
            ctx.scans.push(node);
        }
        let value = value(kernel, &ctx, &assign.value);
        let mut nest = quote!(#output[#index] = #value;);
        for axis in assign.axes.iter().rev() {
            let var = axis_var(*axis);
            let extent = usize_literal(kernel.axes[*axis].extent);
            nest = quote!(for #var in 0..#extent { #nest });
        }
        quote! {
            #(#scans)*
            let mut #output = ::std::vec![0.0f64; #elements];
            #nest
        }
    });
    // `let` intermediates are computed in order like outputs, but not returned.
    let outputs = (input_count..input_count + output_count).map(tensor_var);
    let private = private();
    quote! {
        fn evaluate(
            inputs: [&[::core::primitive::f64]; #input_count],
        ) -> ::core::result::Result<[::std::vec::Vec<::core::primitive::f64>; #output_count], #private::IndexError> {
            let [#(#bindings),*] = inputs;
            #(#statements)*
            ::core::result::Result::Ok([#(#outputs),*])
        }
    }
}

/// The statement an expression belongs to: its axes, and its scans in the order
/// their values (`s0`, `s1`, ...) are computed.
struct Statement<'a> {
    axes: &'a [usize],
    scans: Vec<&'a Expr>,
}

impl Statement<'_> {
    /// The row-major position in the statement's space as a `usize` expression,
    /// leaving out axis `skip` if given.
    fn flat(&self, kernel: &CheckedKernel, skip: Option<usize>) -> TokenStream {
        let mut flat = quote!(0usize);
        for axis in self.axes.iter().filter(|a| Some(**a) != skip) {
            let (var, extent) = (axis_var(*axis), usize_literal(kernel.axes[*axis].extent));
            flat = quote!((#flat) * #extent + #var);
        }
        flat
    }
}

/// `let sN = ...;`: every element of scan number `number` over the statement's space.
fn scan(kernel: &CheckedKernel, ctx: &Statement, node: &Expr, number: usize) -> TokenStream {
    let private = private();
    let scalar = quote!(#private::scalar);
    let Expr::Scan {
        op,
        axis,
        body,
        dtype,
        accumulator,
    } = node
    else {
        return TokenStream::new();
    };
    let var = format_ident!("s{number}");
    let total: u64 = ctx.axes.iter().map(|a| kernel.axes[*a].extent).product();
    let lines = usize_literal(total / kernel.axes[*axis].extent.max(1));
    let total = usize_literal(total);
    let (op, dtype, accumulator) = (variant(op), dtype_path(*dtype), dtype_path(*accumulator));
    let body = value(kernel, ctx, body);
    let (flat, line) = (ctx.flat(kernel, None), ctx.flat(kernel, Some(*axis)));
    let mut nest = quote! {
        let line = &mut carry[#line];
        *line = #scalar::scan_step(#private::ScanOp::#op, #accumulator, *line, #body);
        values[#flat] = #dtype.round(*line);
    };
    for axis in ctx.axes.iter().rev() {
        let var = axis_var(*axis);
        let extent = usize_literal(kernel.axes[*axis].extent);
        nest = quote!(for #var in 0..#extent { #nest });
    }
    quote! {
        let #var: ::std::vec::Vec<::core::primitive::f64> = {
            let mut values = ::std::vec![0.0f64; #total];
            let mut carry = ::std::vec![#scalar::scan_init(#private::ScanOp::#op); #lines];
            #nest
            values
        };
    }
}

/// One element of an expression, as an `f64` expression holding an exact value of the
/// node's dtype.
fn value(kernel: &CheckedKernel, ctx: &Statement, expr: &Expr) -> TokenStream {
    let private = private();
    let scalar = quote!(#private::scalar);
    match expr {
        Expr::Load {
            tensor,
            subscripts,
            pad: None,
            ..
        } => {
            let var = tensor_var(*tensor);
            let index = index(kernel, *tensor, subscripts);
            quote!(#var[#index])
        }
        Expr::Load {
            tensor,
            subscripts,
            pad: Some(pad),
            ..
        } => padded_load(kernel, *tensor, subscripts, value(kernel, ctx, pad)),
        Expr::Const { value, .. } => f64_literal(*value),
        Expr::Param { tensor, .. } => {
            let var = tensor_var(*tensor);
            quote!(#var[0])
        }
        Expr::Unary { op, arg, dtype } => {
            unary_value(kernel, expr, (*op, *dtype), value(kernel, ctx, arg))
        }
        Expr::Binary {
            op,
            lhs,
            rhs,
            dtype,
        } => {
            let (lhs, rhs) = (value(kernel, ctx, lhs), value(kernel, ctx, rhs));
            binary_value(kernel, expr, (*op, *dtype), lhs, rhs)
        }
        // One statement per step, so that rustc sees a flat block however long the
        // chain, never an expression nested once per step.
        Expr::Chain { first, rest, dtype } => chain_value(kernel, ctx, expr, first, rest, *dtype),
        Expr::Compare { op, lhs, rhs, .. } => {
            let op = variant(op);
            let (lhs, rhs) = (value(kernel, ctx, lhs), value(kernel, ctx, rhs));
            quote!(#scalar::compare(#private::CompareOp::#op, #lhs, #rhs))
        }
        Expr::Select {
            cond,
            then,
            otherwise,
            ..
        } => {
            let (cond, then, otherwise) = (
                value(kernel, ctx, cond),
                value(kernel, ctx, then),
                value(kernel, ctx, otherwise),
            );
            quote!(if #cond { #then } else { #otherwise })
        }
        Expr::Cast {
            arg,
            dtype,
            saturate,
        } => {
            let (dtype, arg) = (dtype_path(*dtype), value(kernel, ctx, arg));
            if *saturate {
                quote!(#scalar::cast_saturating(#dtype, #arg))
            } else {
                quote!(#scalar::cast(#dtype, #arg))
            }
        }
        Expr::Reduce { op, axes, body, .. } if op.is_arg() => {
            arg_reduce_value(kernel, ctx, *op, axes[0], body)
        }
        Expr::Scan { .. } => scan_value(kernel, ctx, expr),
        Expr::Reduce {
            axes,
            body,
            dtype,
            accumulator,
            ..
        } if kernel.fold_lanes(expr) > 1 => {
            let lanes = kernel.fold_lanes(expr);
            lane_sum_value(kernel, ctx, (axes[0], lanes), body, (*dtype, *accumulator))
        }
        Expr::Reduce {
            op,
            axes,
            body,
            dtype,
            accumulator,
        } => reduce_value(kernel, ctx, *op, axes, body, (*dtype, *accumulator)),
    }
}

/// `op` of `arg` as the target computes the unary operation of `node`.
fn unary_value(
    kernel: &CheckedKernel,
    node: &Expr,
    (op, dtype): (UnaryOp, Dtype),
    arg: TokenStream,
) -> TokenStream {
    let private = private();
    let op_path = variant(&op);
    let op_path = quote!(#private::UnaryOp::#op_path);
    computed(
        kernel,
        node,
        (op.vector_op(), "unary"),
        (op_path, dtype),
        quote!(#arg),
    )
}

/// `lhs op rhs` as the target computes the binary operation of `node`.
fn binary_value(
    kernel: &CheckedKernel,
    node: &Expr,
    (op, dtype): (BinaryOp, Dtype),
    lhs: TokenStream,
    rhs: TokenStream,
) -> TokenStream {
    let private = private();
    let op_path = variant(&op);
    let op_path = quote!(#private::BinaryOp::#op_path);
    computed(
        kernel,
        node,
        (op.vector_op(), "binary"),
        (op_path, dtype),
        quote!(#lhs, #rhs),
    )
}

/// The call of npu-core's `scalar::{call}` on `op` in `dtype` and `arguments` as the
/// target computes `node` (`ir::implementation_of`): `scalar::{call}_by` for an
/// algorithm of the target's own, else `scalar::{call}`, correctly rounded.
fn computed(
    kernel: &CheckedKernel,
    node: &Expr,
    (vector_op, call): (VectorOp, &str),
    (op, dtype): (TokenStream, Dtype),
    arguments: TokenStream,
) -> TokenStream {
    let private = private();
    let dtype = dtype_path(dtype);
    match ir::implementation_of(&kernel.target, node, vector_op) {
        Implementation::CorrectlyRounded => {
            let call = format_ident!("{call}");
            quote!(#private::scalar::#call(#op, #dtype, #arguments))
        }
        other => {
            let (call, other) = (format_ident!("{call}_by"), variant(&other));
            quote!(#private::scalar::#call(#private::Implementation::#other, #op, #dtype, #arguments))
        }
    }
}

// One statement per step, so that rustc sees a flat block however long the chain,
// never an expression nested once per step.
fn chain_value(
    kernel: &CheckedKernel,
    ctx: &Statement,
    chain: &Expr,
    first: &Expr,
    rest: &[(BinaryOp, Expr)],
    dtype: Dtype,
) -> TokenStream {
    let first = value(kernel, ctx, first);
    let steps = rest.iter().map(|(op, term)| {
        let term = value(kernel, ctx, term);
        let step = binary_value(kernel, chain, (*op, dtype), quote!(chain), term);
        quote!(chain = #step;)
    });
    quote!({
        let mut chain: ::core::primitive::f64 = #first;
        #(#steps)*
        chain
    })
}

/// An argmax or argmin along one axis: the first position whose value beats every
/// earlier one.
fn arg_reduce_value(
    kernel: &CheckedKernel,
    ctx: &Statement,
    op: ReduceOp,
    axis: usize,
    body: &Expr,
) -> TokenStream {
    let private = private();
    let scalar = quote!(#private::scalar);
    let op = variant(&op);
    let body = value(kernel, ctx, body);
    let var = axis_var(axis);
    let extent = usize_literal(kernel.axes[axis].extent);
    quote!({
        let mut best = #scalar::reduce_init(#private::ReduceOp::#op);
        let mut at = 0usize;
        for #var in 0..#extent {
            let x = #body;
            if #scalar::arg_takes(#private::ReduceOp::#op, best, x) {
                best = x;
                at = #var;
            }
        }
        at as ::core::primitive::f64
    })
}

/// A scan's element at the statement's point, from the array computed before it.
fn scan_value(kernel: &CheckedKernel, ctx: &Statement, scan: &Expr) -> TokenStream {
    let number = ctx
        .scans
        .iter()
        .position(|node| std::ptr::eq(*node, scan))
        .unwrap_or(0);
    let var = format_ident!("s{number}");
    let flat = ctx.flat(kernel, None);
    quote!(#var[#flat])
}

/// A fold over `axes`, one loop per axis, the first outermost: the fold runs in index
/// order, in the accumulator, and the result is rounded to the dtype.
fn reduce_value(
    kernel: &CheckedKernel,
    ctx: &Statement,
    op: ReduceOp,
    axes: &[usize],
    body: &Expr,
    (dtype, accumulator): (Dtype, Dtype),
) -> TokenStream {
    let private = private();
    let scalar = quote!(#private::scalar);
    let (op, dtype) = (variant(&op), dtype_path(dtype));
    let accumulator = dtype_path(accumulator);
    let body = value(kernel, ctx, body);
    let mut nest =
        quote!(acc = #scalar::reduce_step_in(#private::ReduceOp::#op, #accumulator, acc, #body););
    for axis in axes.iter().rev() {
        let var = axis_var(*axis);
        let extent = usize_literal(kernel.axes[*axis].extent);
        nest = quote!(for #var in 0..#extent { #nest });
    }
    quote!({
        let mut acc = #scalar::reduce_init(#private::ReduceOp::#op);
        #nest
        #dtype.round(acc)
    })
}

/// A float sum folded in `lanes` along `axis` (`scalar::LaneSum`), rounded to the
/// dtype at the end.
fn lane_sum_value(
    kernel: &CheckedKernel,
    ctx: &Statement,
    (axis, lanes): (usize, u32),
    body: &Expr,
    (dtype, accumulator): (Dtype, Dtype),
) -> TokenStream {
    let private = private();
    let (dtype, accumulator) = (dtype_path(dtype), dtype_path(accumulator));
    let body = value(kernel, ctx, body);
    let var = axis_var(axis);
    let extent = usize_literal(kernel.axes[axis].extent);
    let lanes = proc_macro2::Literal::u32_suffixed(lanes);
    quote!({
        let mut lanes = #private::scalar::LaneSum::new(#lanes, #accumulator);
        for #var in 0..#extent {
            lanes.add(#body);
        }
        #dtype.round(lanes.total())
    })
}

/// The row-major position of an element of `tensor` as a `usize` expression.
fn index(kernel: &CheckedKernel, tensor: usize, subscripts: &[Subscript]) -> TokenStream {
    let shape = &kernel.tensors[tensor].shape;
    let mut terms = Vec::new();
    let mut constant: u64 = 0;
    for (dim, subscript) in subscripts.iter().enumerate() {
        let stride = shape[dim + 1..]
            .iter()
            .fold(1u64, |a, b| a.saturating_mul(*b));
        for (axis, coefficient) in subscript.terms() {
            let var = axis_var(axis);
            let step = stride.saturating_mul(coefficient);
            let step_literal = usize_literal(step);
            terms.push(if step == 1 {
                quote!(#var)
            } else {
                quote!(#var * #step_literal)
            });
        }
        if let Subscript::Gather {
            tensor: index_tensor,
            subscripts: inner,
            extent,
            ..
        } = subscript
        {
            let row = gathered(kernel, *index_tensor, inner, tensor, dim, *extent);
            let stride = usize_literal(stride);
            terms.push(quote!(#row * #stride));
        }
        // The checker proved every unpadded subscript's offset non-negative.
        let offset = subscript.offset().max(0) as u64;
        constant = constant.saturating_add(offset.saturating_mul(stride));
    }
    if constant != 0 || terms.is_empty() {
        terms.push(usize_literal(constant).into_token_stream());
    }
    quote!(#(#terms)+*)
}

/// The row a gather subscript reads, as a `usize` expression: the index tensor's
/// element, checked against the gathered dimension (`?` returns the error).
fn gathered(
    kernel: &CheckedKernel,
    index_tensor: usize,
    inner: &[Subscript],
    table: usize,
    dim: usize,
    extent: u64,
) -> TokenStream {
    let private = private();
    let var = tensor_var(index_tensor);
    let at = index(kernel, index_tensor, inner);
    let position = inner.iter().map(|subscript| {
        let offset = Literal::i64_unsuffixed(subscript.offset());
        let terms = subscript.terms().into_iter().map(|(axis, c)| {
            let var = axis_var(axis);
            let c = Literal::i64_unsuffixed(c as i64);
            quote!(+ (#var as i64) * #c)
        });
        quote!((#offset #(#terms)*) as u64)
    });
    let index_name = &kernel.tensors[index_tensor].name;
    let table_name = &kernel.tensors[table].name;
    let extent = Literal::u64_suffixed(extent);
    quote!(#private::gather_index(#var[#at], #extent, #index_name, &[#(#position),*], #table_name, #dim)?)
}

/// A read through a padded view: each subscript as an `i64`, the element where all are
/// inside the tensor, else the pad value.
fn padded_load(
    kernel: &CheckedKernel,
    tensor: usize,
    subscripts: &[Subscript],
    pad: TokenStream,
) -> TokenStream {
    let shape = &kernel.tensors[tensor].shape;
    let var = tensor_var(tensor);
    let positions: Vec<Ident> = (0..subscripts.len())
        .map(|dim| format_ident!("p{dim}"))
        .collect();
    let lets = subscripts.iter().zip(&positions).map(|(subscript, p)| {
        let offset = Literal::i64_unsuffixed(subscript.offset());
        let terms = subscript.terms().into_iter().map(|(axis, c)| {
            let var = axis_var(axis);
            let c = Literal::i64_unsuffixed(c as i64);
            quote!(+ (#var as i64) * #c)
        });
        quote!(let #p: i64 = #offset #(#terms)*;)
    });
    let inside = positions.iter().zip(shape).map(|(p, extent)| {
        let extent = Literal::i64_unsuffixed(*extent as i64);
        quote!((0..#extent).contains(&#p))
    });
    let index = positions.iter().enumerate().map(|(dim, p)| {
        let stride = shape[dim + 1..]
            .iter()
            .fold(1u64, |a, b| a.saturating_mul(*b));
        let stride = usize_literal(stride);
        quote!((#p as usize) * #stride)
    });
    quote!({
        #(#lets)*
        if #(#inside)&&* { #var[#(#index)+*] } else { #pad }
    })
}

fn tensor_var(tensor: usize) -> Ident {
    format_ident!("t{tensor}")
}

fn axis_var(axis: usize) -> Ident {
    format_ident!("a{axis}")
}

/// An `f64` expression for any value, infinities and NaN included (a literal such as
/// `1e999` in the DSL is infinite).
fn f64_literal(value: f64) -> TokenStream {
    if value.is_nan() {
        quote!(::core::primitive::f64::NAN)
    } else if value.is_infinite() {
        let sign = value.is_sign_negative().then(|| quote!(-));
        quote!((#sign ::core::primitive::f64::INFINITY))
    } else if value.is_sign_negative() {
        let magnitude = Literal::f64_suffixed(-value);
        quote!((-#magnitude))
    } else {
        Literal::f64_suffixed(value).into_token_stream()
    }
}
