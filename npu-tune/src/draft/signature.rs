//! The signature a body is written for, read from the kernel's text.

/// A tensor or scalar parameter of the signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// The parameter's name.
    pub name: String,
    /// `None` when the signature names a dtype npu does not have (the checker says so).
    pub dtype: Option<npu_core::Dtype>,
    /// The extents, empty for a scalar parameter or a 0-d output.
    pub shape: Vec<u64>,
    /// The number of dimensions: 0 for a scalar parameter or a 0-d output.
    pub rank: usize,
    /// Whether it is an output (after the `->`) rather than an input.
    pub output: bool,
}

/// The doc comment and the signature's ports, as far as the text parses.
pub(super) fn signature(text: &str) -> (String, Vec<Port>) {
    let (def, _) = npu_core::internal::parse_str_partial(text);
    proc_macro2::extra::invalidate_current_thread_spans();
    let Some(def) = def else {
        return (String::new(), Vec::new());
    };
    let port = |param: &npu_core::ast::Param, output: bool| Port {
        name: param.name.to_string(),
        dtype: npu_core::Dtype::from_name(&param.dtype.to_string()),
        shape: param.shape.iter().map(|n| n.value).collect(),
        rank: param.shape.len(),
        output,
    };
    let inputs = def.inputs.iter().map(|p| port(p, false));
    let ports = inputs.chain(def.outputs.iter().map(|p| port(p, true)));
    (def.doc.join("\n"), ports.collect())
}
