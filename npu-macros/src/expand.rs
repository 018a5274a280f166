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
//! broken kernel still offers the same names; the loops behind them are written in
//! `evaluate`. Every path into npu starts from `paths::npu`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use npu_core::CheckedKernel;
use npu_core::ast::KernelDef;
use npu_core::ir::Role;

mod evaluate;
mod paths;

use evaluate::evaluate;
use paths::{dtype_path, private, usize_literal};
pub(crate) use paths::{rust_type, unraw};

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
    /// Of rank 0: a scalar parameter (`offset: i8`), which `reference` takes by value,
    /// or a 0-d output (`-> y: f32`), whose field in `Outputs` is one value.
    pub scalar: bool,
}

/// The bodies of the module's functions and the private items they use.
pub(crate) struct Bodies {
    pub kernel: TokenStream,
    pub reference: TokenStream,
    pub reference_host: TokenStream,
    pub helpers: TokenStream,
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
            declared: if tensor.shape.is_empty() {
                tensor.dtype.to_string()
            } else {
                format!("[{}; {}]", tensor.dtype, shape.join(", "))
            },
            scalar: tensor.shape.is_empty(),
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

/// `reference`'s parameters: a slice per input tensor, a value per scalar.
fn parameters(interface: &Interface) -> Vec<TokenStream> {
    interface
        .inputs
        .iter()
        .map(|port| {
            let Port { name, element, .. } = port;
            if port.scalar {
                quote_spanned!(name.span()=> #name: #element)
            } else {
                quote_spanned!(name.span()=> #name: &[#element])
            }
        })
        .collect()
}

/// The fields of `Outputs`, documented: a vector per output tensor, a value per scalar.
fn output_fields(interface: &Interface) -> Vec<TokenStream> {
    interface
        .outputs
        .iter()
        .map(|port| {
            let Port {
                name,
                element,
                declared,
                ..
            } = port;
            if port.scalar {
                let doc = format!(
                    "Output `{}`, declared `{declared}`: one value.",
                    unraw(name)
                );
                return quote_spanned!(name.span()=> #[doc = #doc] pub #name: #element);
            }
            let doc = format!(
                "Output `{}`, declared `{declared}`, in row-major order.",
                unraw(name)
            );
            quote_spanned!(name.span()=> #[doc = #doc] pub #name: ::std::vec::Vec<#element>)
        })
        .collect()
}

/// The module: constants, `kernel()`, `Outputs`, `reference` and `reference_host`.
pub(crate) fn module(interface: &Interface, bodies: &Bodies) -> TokenStream {
    let private = private();
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
    let params = parameters(interface);
    let fields = output_fields(interface);
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
            pub fn kernel() -> &'static #private::CheckedKernel {
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
            pub fn reference(#(#params),*) -> ::core::result::Result<Outputs, #private::InputError> {
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
                inputs: &[#private::HostTensor],
            ) -> ::core::result::Result<::std::vec::Vec<#private::HostTensor>, #private::InputError> {
                #reference_host
            }

            // `emit(backend, "schedule")` when npu has its `emit` feature, else nothing.
            ::npu::__emit_fn!();

            #helpers
        }
    }
}

fn kernel_body() -> TokenStream {
    let private = private();
    quote! {
        static KERNEL: #private::OnceLock<#private::CheckedKernel> = #private::OnceLock::new();
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
            if port.scalar {
                quote!(#name: #private::from_f64(&#result))
            } else {
                quote!(#name: #private::from_f64s(&#result))
            }
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
