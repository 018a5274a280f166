//! A [`Kernel`] as DSL text: its signature lists the tensors its expressions read.

use crate::kernel::{Form, Kernel, Rendered};

// The method lives here, beside the renderer, so that `kernel` never uses `render`.
impl Kernel {
    /// The kernel as DSL text.
    pub fn render(&self) -> Rendered {
        render(self)
    }
}

fn render(kernel: &Kernel) -> Rendered {
    if let Form::Matmul { .. } = kernel.form {
        return matmul(kernel);
    }
    let statement = statement(kernel);
    let (mut inputs, mut staged) = signature(kernel, &statement);
    let t = &kernel.dtype;
    for param in &kernel.params {
        if kernel
            .exprs
            .iter()
            .any(|e| e.has(&format!("param:{param}")))
        {
            inputs.push(format!("{param}: {t}"));
        }
    }
    staged.push("y".into());
    let Statement {
        body,
        dims: out_dims,
        dtype,
        names,
        reduced,
    } = statement;
    let output = if out_dims.is_empty() {
        dtype.clone()
    } else {
        format!("[{dtype}; {}]", list(&out_dims))
    };
    let text = format!(
        "kernel fuzz({}) -> y: {output} {{ {body} }}",
        inputs.join(", ")
    );
    let mut axes: Vec<(String, u64)> = names
        .iter()
        .zip(&out_dims)
        .map(|(n, d)| (n.to_string(), *d))
        .collect();
    axes.extend(reduced.iter().map(|(n, d)| (n.to_string(), *d)));
    Rendered {
        text,
        staged,
        axes,
        outputs: out_dims.len(),
        matmul: false,
    }
}

/// The body of a vector kernel and its output: extents, dtype, axis names, and the
/// reduction axes with their extents.
struct Statement {
    body: String,
    dims: Vec<u64>,
    dtype: String,
    names: Vec<&'static str>,
    reduced: Vec<(&'static str, u64)>,
}

fn list(dims: &[u64]) -> String {
    dims.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn accumulator(accumulator: &Option<String>) -> String {
    accumulator
        .as_ref()
        .map_or(String::new(), |a| format!(": {a}"))
}

fn statement(kernel: &Kernel) -> Statement {
    let rank = kernel.dims.len();
    let names = kernel.axis_names(rank);
    let exprs: Vec<String> = kernel.exprs.iter().map(ToString::to_string).collect();
    let all = names.join(", ");
    let whole = |body: String| Statement {
        body,
        dims: kernel.dims.clone(),
        dtype: kernel.dtype.clone(),
        names: names.clone(),
        reduced: Vec::new(),
    };
    // A reduction over the last `count` axes into `dtype`.
    let folded = |count: usize, body: String, dtype: String| Statement {
        body,
        dims: kernel.dims[..rank - count].to_vec(),
        dtype,
        names: names[..rank - count].to_vec(),
        reduced: names[rank - count..]
            .iter()
            .copied()
            .zip(kernel.dims[rank - count..].iter().copied())
            .collect(),
    };
    // The output written over all but the last `count` axes: `y` alone when 0-d.
    let outer = |count: usize| {
        if count == rank {
            "y".to_string()
        } else {
            format!("y[{}]", names[..rank - count].join(", "))
        }
    };
    match &kernel.form {
        Form::Reduce {
            op,
            reduced,
            accumulator: acc,
        } => {
            let axes = names[rank - reduced..].join(", ");
            let acc = accumulator(acc);
            let body = format!("{} = {op}[{axes}{acc}]({});", outer(*reduced), exprs[0]);
            folded(*reduced, body, kernel.dtype.clone())
        }
        Form::Arg { op } => {
            let body = format!("{} = {op}[k]({});", outer(1), exprs[0]);
            folded(1, body, "i32".into())
        }
        Form::Scan {
            op,
            axis,
            accumulator: acc,
        } => {
            let acc = accumulator(acc);
            whole(format!(
                "y[{all}] = {op}[{}{acc}]({});",
                names[*axis], exprs[0]
            ))
        }
        Form::Let => whole(format!(
            "let t[{all}] = {}; y[{all}] = {};",
            exprs[0], exprs[1]
        )),
        Form::LetReduce { op } => whole(format!(
            "let m[{}] = {op}[k]({}); y[{all}] = {};",
            names[..rank - 1].join(", "),
            exprs[0],
            exprs[1]
        )),
        Form::Pad {
            fill,
            window: Some((op, _)),
            ..
        } => {
            let mut statement = whole(format!(
                "y[i] = {op}[k < 3]({});",
                exprs[0].replace("FILL", fill)
            ));
            statement.reduced = vec![("k", 3)];
            statement
        }
        Form::Pad { fill, .. } => {
            let mut statement = whole(format!("y[{all}] = {};", exprs[0].replace("FILL", fill)));
            statement.dims = kernel.dims.iter().map(|d| d + 2).collect();
            statement
        }
        Form::Elementwise | Form::Gather { .. } | Form::Matmul { .. } => {
            whole(format!("y[{all}] = {};", exprs[0]))
        }
    }
}

/// The tensor inputs the statement reads, declared, and the names to stage.
fn signature(kernel: &Kernel, statement: &Statement) -> (Vec<String>, Vec<String>) {
    let t = &kernel.dtype;
    let body = &statement.body;
    let mut inputs = Vec::new();
    let mut staged = Vec::new();
    let mut input = |name: &str, dtype: &str, dims: &[u64], used: bool| {
        if used {
            inputs.push(format!("{name}: [{dtype}; {}]", list(dims)));
            staged.push(name.to_string());
        }
    };
    match &kernel.form {
        Form::Pad { window, .. } => {
            let x_dims: Vec<u64> = match window {
                Some((_, stride)) => vec![kernel.dims[0] * stride],
                None => kernel.dims.clone(),
            };
            input("x", t, &x_dims, body.contains("pad(x"));
            input("z", t, &statement.dims, body.contains("z["));
        }
        Form::Gather { index, rows } => {
            let mut table = vec![*rows];
            table.extend(&kernel.dims[1..]);
            input("x", t, &table, true);
            input("idx", index, &kernel.dims[..1], true);
            input("z", t, &kernel.dims, body.contains("z["));
        }
        _ => {
            let rank = kernel.dims.len();
            input("x", t, &kernel.dims, body.contains("x["));
            input("z", t, &kernel.dims, body.contains("z["));
            input("b", t, &kernel.dims[rank - 1..], body.contains("b["));
        }
    }
    (inputs, staged)
}

fn matmul(kernel: &Kernel) -> Rendered {
    let Form::Matmul {
        a,
        b,
        out,
        batch,
        shared,
    } = &kernel.form
    else {
        unreachable!("a matmul form");
    };
    let acc = &kernel.dtype;
    let [m, n, k] = [kernel.dims[0], kernel.dims[1], kernel.dims[2]];
    let (t, td) = match batch {
        Some(extent) => ("t, ", format!("{extent}, ")),
        None => ("", String::new()),
    };
    let (bt, btd) = if *shared { ("", "") } else { (t, td.as_str()) };
    let product = format!("sum[k](a[{t}m, k] as {acc} * b[{bt}k, n] as {acc})");
    let value = if out == acc {
        product
    } else {
        format!("{product} as {out}")
    };
    let text = format!(
        "kernel fuzz(a: [{a}; {td}{m}, {k}], b: [{b}; {btd}{k}, {n}]) -> c: [{out}; {td}{m}, {n}] {{ c[{t}m, n] = {value}; }}"
    );
    let mut axes = Vec::new();
    if let Some(extent) = batch {
        axes.push(("t".to_string(), *extent));
    }
    axes.extend([
        ("m".to_string(), m),
        ("n".to_string(), n),
        ("k".to_string(), k),
    ]);
    Rendered {
        text,
        staged: vec!["a".into(), "b".into(), "c".into()],
        outputs: axes.len() - 1,
        axes,
        matmul: true,
    }
}
