//! Code generation: a checked kernel to the Rust module users call.
//!
//! A kernel `vmla` becomes `pub mod vmla` with:
//!
//! - `NAME`, `SOURCE` (the canonical text from `npu_core::print`), `TARGET_TOML` and
//!   `SCHEDULES`;
//! - `kernel()`, the [`CheckedKernel`], checked again from `SOURCE` on first use;
//! - `Outputs`, one typed field per output tensor;
//! - `reference(..)` on typed slices and `reference_host(..)` on `HostTensor`s: the
//!   algorithm alone as plain loops, with every operation rounded through
//!   `npu_core::scalar` exactly as the simulator rounds it.
//!
//! [`module`] writes the public items, which the stub of [`crate::fallback`] shares, so a
//! broken kernel still offers the same names. Every path into npu starts from [`npu`].

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{ToTokens as _, format_ident, quote, quote_spanned};

use npu_core::ast::KernelDef;
use npu_core::ir::{Expr, Role, Subscript};
use npu_core::{CheckedKernel, Dtype};

/// The public items of a generated module, the same for a checked kernel and the stub.
pub(crate) struct Interface {
    pub name: Ident,
    pub doc: String,
    pub source: String,
    /// An expression of type `&'static str`: a literal, or `include_str!` of a file.
    pub target_toml: TokenStream,
    pub schedules: Vec<String>,
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
}

/// A tensor of the kernel's signature.
pub(crate) struct Port {
    /// The name as the user wrote it, with its span.
    pub name: Ident,
    /// The Rust element type.
    pub element: TokenStream,
    /// The declaration as written in the DSL, such as `[f16; 65536]`, for docs.
    pub declared: String,
    /// A scalar parameter (`offset: i8`): `reference` takes it by value, not as a slice.
    pub scalar: bool,
}

/// The bodies of the module's functions and the private items they use.
pub(crate) struct Bodies {
    pub kernel: TokenStream,
    pub reference: TokenStream,
    pub reference_host: TokenStream,
    pub helpers: TokenStream,
}

/// `::npu`: the one place generated paths start from. Everything the bodies need that
/// is not public API is under `::npu::__private`.
pub(crate) fn npu() -> TokenStream {
    quote!(::npu)
}

fn private() -> TokenStream {
    let npu = npu();
    quote!(#npu::__private)
}

/// The Rust element type of a dtype.
pub(crate) fn rust_type(dtype: Dtype) -> TokenStream {
    let npu = npu();
    match dtype {
        Dtype::F16 => quote!(#npu::f16),
        Dtype::Bf16 => quote!(#npu::bf16),
        Dtype::F32 => quote!(::core::primitive::f32),
        Dtype::I8 => quote!(::core::primitive::i8),
        Dtype::U8 => quote!(::core::primitive::u8),
        Dtype::I16 => quote!(::core::primitive::i16),
        Dtype::I32 => quote!(::core::primitive::i32),
        Dtype::U16 => quote!(::core::primitive::u16),
        Dtype::U32 => quote!(::core::primitive::u32),
    }
}

/// A name as a string, without the `r#` of a raw identifier.
pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_string).unwrap_or(text)
}

/// The module of a kernel that passed the checker against the target whose TOML text
/// `target_toml` evaluates to.
pub(crate) fn kernel(
    def: &KernelDef,
    kernel: &CheckedKernel,
    target_toml: TokenStream,
) -> TokenStream {
    let tensors_of = |role| kernel.tensors.iter().filter(move |t| t.role == role);
    let port = |param: &npu_core::ast::Param, tensor: &npu_core::ir::Tensor| {
        let shape: Vec<String> = tensor.shape.iter().map(u64::to_string).collect();
        Port {
            name: param.name.clone(),
            element: rust_type(tensor.dtype),
            declared: if tensor.is_scalar() {
                tensor.dtype.to_string()
            } else {
                format!("[{}; {}]", tensor.dtype, shape.join(", "))
            },
            scalar: tensor.is_scalar(),
        }
    };
    let interface = Interface {
        name: def.name.clone(),
        doc: kernel.doc.clone(),
        source: kernel.source.clone(),
        target_toml,
        schedules: kernel.schedules.iter().map(|s| s.name.clone()).collect(),
        inputs: def
            .inputs
            .iter()
            .zip(tensors_of(Role::Input))
            .map(|(p, t)| port(p, t))
            .collect(),
        outputs: def
            .outputs
            .iter()
            .zip(tensors_of(Role::Output))
            .map(|(p, t)| port(p, t))
            .collect(),
    };
    let bodies = Bodies {
        kernel: kernel_body(),
        reference: reference_body(kernel, &interface),
        reference_host: reference_host_body(kernel),
        helpers: evaluate(kernel),
    };
    module(&interface, &bodies)
}

/// The module: constants, `kernel()`, `Outputs`, `reference` and `reference_host`.
pub(crate) fn module(interface: &Interface, bodies: &Bodies) -> TokenStream {
    let npu = npu();
    let name = &interface.name;
    let name_text = unraw(name);
    let doc = if interface.doc.trim().is_empty() {
        format!("The `{name_text}` kernel, generated by `npu_kernel!`.")
    } else {
        interface.doc.clone()
    };
    let source = &interface.source;
    let target_toml = &interface.target_toml;
    let schedules = &interface.schedules;
    let schedule_count = schedules.len();
    let params = interface.inputs.iter().map(|port| {
        let Port { name, element, .. } = port;
        if port.scalar {
            quote_spanned!(name.span()=> #name: #element)
        } else {
            quote_spanned!(name.span()=> #name: &[#element])
        }
    });
    let fields = interface.outputs.iter().map(|port| {
        let Port {
            name,
            element,
            declared,
            ..
        } = port;
        let doc = format!(
            "Output `{}`, declared `{declared}`, in row-major order.",
            unraw(name)
        );
        quote_spanned!(name.span()=> #[doc = #doc] pub #name: ::std::vec::Vec<#element>)
    });
    let Bodies {
        kernel,
        reference,
        reference_host,
        helpers,
    } = bodies;
    // The module's name keeps the user's span, so that rustc blames the kernel's name
    // for a clash with another item; the rest is the macro's own code, which user lints
    // leave alone. Tensor names are the user's, as written in the DSL, so matrices
    // named `A` and `B` are not "non-snake-case" mistakes here.
    quote! {
        #[doc = #doc]
        #[allow(non_snake_case)]
        pub mod #name {
            /// The kernel's name.
            pub const NAME: &::core::primitive::str = #name_text;
            /// The kernel's canonical DSL text, as prompts and reports show it.
            pub const SOURCE: &::core::primitive::str = #source;
            /// The TOML text of the target the kernel was checked against.
            pub const TARGET_TOML: &::core::primitive::str = #target_toml;
            /// The names of the kernel's schedules, in source order.
            pub const SCHEDULES: [&::core::primitive::str; #schedule_count] = [#(#schedules),*];

            /// The checked kernel: parsed and checked again from [`SOURCE`] and
            /// [`TARGET_TOML`] on first use, then cached.
            pub fn kernel() -> &'static #npu::CheckedKernel {
                #kernel
            }

            /// The results of [`reference`], one field per output tensor.
            #[derive(Clone, Debug, PartialEq)]
            pub struct Outputs {
                #(#fields,)*
            }

            /// The kernel computed on the host from its algorithm alone, as plain loops.
            /// Every operation rounds to its dtype as the simulator does, so a schedule's
            /// outputs can be compared with these exactly. Tensors are slices in row-major
            /// order; scalar parameters are passed by value.
            ///
            /// # Errors
            ///
            /// An [`InputError`](npu::InputError): a slice whose length is not its
            /// tensor's element count, or a gather index outside the dimension it indexes
            /// (naming the index tensor, the element and its value).
            #[allow(clippy::too_many_arguments)] // One argument per input tensor.
            pub fn reference(#(#params),*) -> ::core::result::Result<Outputs, #npu::InputError> {
                #reference
            }

            /// [`reference`] on dynamically typed tensors, in signature order, for the
            /// tuner and the simulator. Values of another dtype are rounded to the
            /// declared one. A scalar parameter is a tensor of shape `[]` holding one value.
            ///
            /// # Errors
            ///
            /// An [`InputError`](npu::InputError) when the number of tensors or a tensor's
            /// element count is wrong, or a gather index is out of range.
            pub fn reference_host(
                inputs: &[#npu::HostTensor],
            ) -> ::core::result::Result<::std::vec::Vec<#npu::HostTensor>, #npu::InputError> {
                #reference_host
            }

            #helpers
        }
    }
}

fn kernel_body() -> TokenStream {
    let npu = npu();
    let private = private();
    quote! {
        static KERNEL: #private::OnceLock<#npu::CheckedKernel> = #private::OnceLock::new();
        KERNEL.get_or_init(|| #private::recheck(NAME, SOURCE, TARGET_TOML))
    }
}

fn reference_body(kernel: &CheckedKernel, interface: &Interface) -> TokenStream {
    let private = private();
    let inputs = kernel.tensors.iter().filter(|t| t.role == Role::Input);
    let checks = inputs
        .zip(&interface.inputs)
        .filter(|(_, port)| !port.scalar)
        .map(|(tensor, port)| {
            let name = &port.name;
            let expected = usize_literal(tensor.elements());
            let text = &tensor.name;
            quote!(#private::check_length(#text, #expected, #name.len())?;)
        });
    let converted = interface.inputs.iter().map(|port| {
        let name = &port.name;
        if port.scalar {
            quote!(#private::to_f64s(&[#name]).as_slice())
        } else {
            quote!(#private::to_f64s(#name).as_slice())
        }
    });
    let results: Vec<Ident> = (0..interface.outputs.len())
        .map(|i| format_ident!("result{i}"))
        .collect();
    let fields = interface
        .outputs
        .iter()
        .zip(&results)
        .map(|(port, result)| {
            let name = &port.name;
            quote!(#name: #private::from_f64s(&#result))
        });
    quote! {
        #(#checks)*
        let [#(#results),*] = self::evaluate([#(#converted),*])?;
        ::core::result::Result::Ok(Outputs { #(#fields),* })
    }
}

fn reference_host_body(kernel: &CheckedKernel) -> TokenStream {
    let private = private();
    let inputs = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Input)
        .map(|tensor| {
            let name = &tensor.name;
            let dtype = dtype_path(tensor.dtype);
            let elements = usize_literal(tensor.elements());
            quote!((#name, #dtype, #elements))
        });
    let outputs = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Output)
        .map(|tensor| {
            let dtype = dtype_path(tensor.dtype);
            let shape = tensor
                .shape
                .iter()
                .map(|extent| Literal::u64_suffixed(*extent));
            quote!((#dtype, &[#(#shape),*][..]))
        });
    quote! {
        let inputs = #private::host_inputs(inputs, [#(#inputs),*])?;
        let outputs = self::evaluate(inputs.each_ref().map(::std::vec::Vec::as_slice))?;
        ::core::result::Result::Ok(#private::host_outputs(outputs, [#(#outputs),*]))
    }
}

/// `fn evaluate`: the algorithm over `f64` values, one loop nest per statement. Names
/// inside are generated (`t0` for tensor 0, `a1` for axis 1), so no tensor or axis name
/// of the user's can shadow anything.
fn evaluate(kernel: &CheckedKernel) -> TokenStream {
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
    let npu = npu();
    quote! {
        fn evaluate(
            inputs: [&[::core::primitive::f64]; #input_count],
        ) -> ::core::result::Result<[::std::vec::Vec<::core::primitive::f64>; #output_count], #npu::IndexError> {
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
            let (op, dtype, arg) = (variant(op), dtype_path(*dtype), value(kernel, ctx, arg));
            quote!(#scalar::unary(#private::UnaryOp::#op, #dtype, #arg))
        }
        Expr::Binary {
            op,
            lhs,
            rhs,
            dtype,
        } => {
            let (op, dtype) = (variant(op), dtype_path(*dtype));
            let (lhs, rhs) = (value(kernel, ctx, lhs), value(kernel, ctx, rhs));
            quote!(#scalar::binary(#private::BinaryOp::#op, #dtype, #lhs, #rhs))
        }
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
            // One axis: the first position whose value beats every earlier one.
            let op = variant(op);
            let body = value(kernel, ctx, body);
            let var = axis_var(axes[0]);
            let extent = usize_literal(kernel.axes[axes[0]].extent);
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
        Expr::Scan { .. } => {
            let number = ctx
                .scans
                .iter()
                .position(|node| std::ptr::eq(*node, expr))
                .unwrap_or(0);
            let var = format_ident!("s{number}");
            let flat = ctx.flat(kernel, None);
            quote!(#var[#flat])
        }
        Expr::Reduce {
            op,
            axes,
            body,
            dtype,
            accumulator,
        } => {
            let (op, dtype) = (variant(op), dtype_path(*dtype));
            let accumulator = dtype_path(*accumulator);
            let body = value(kernel, ctx, body);
            // One loop per axis, the first outermost: the fold runs in index order.
            let mut nest = quote!(acc = #scalar::reduce_step_in(#private::ReduceOp::#op, #accumulator, acc, #body););
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
    }
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

fn dtype_path(dtype: Dtype) -> TokenStream {
    let private = private();
    let dtype = variant(&dtype);
    quote!(#private::Dtype::#dtype)
}

/// The name of a fieldless enum variant, which derived `Debug` prints.
fn variant(value: &impl std::fmt::Debug) -> Ident {
    Ident::new(&format!("{value:?}"), Span::call_site())
}

fn usize_literal(value: u64) -> Literal {
    Literal::u64_unsuffixed(value)
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
