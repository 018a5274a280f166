//! Paths and names in generated code. Every path into npu starts from [`private`], so
//! the generated code never needs the user to import anything.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use npu_core::Dtype;

/// `::npu::__private`: the one place generated paths start from (npu-core's
/// `internal::generated`, which the facade re-exports under that name).
pub(crate) fn private() -> TokenStream {
    quote!(::npu::__private)
}

/// The Rust element type of a dtype.
pub(crate) fn rust_type(dtype: Dtype) -> TokenStream {
    let private = private();
    match dtype {
        Dtype::F16 => quote!(#private::f16),
        Dtype::Bf16 => quote!(#private::bf16),
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

pub(crate) fn dtype_path(dtype: Dtype) -> TokenStream {
    let private = private();
    let dtype = variant(&dtype);
    quote!(#private::Dtype::#dtype)
}

pub(crate) fn usize_literal(value: u64) -> Literal {
    Literal::u64_unsuffixed(value)
}

/// The name of a fieldless enum variant, which derived `Debug` prints.
pub(crate) fn variant(value: &impl std::fmt::Debug) -> Ident {
    Ident::new(&format!("{value:?}"), Span::call_site())
}
