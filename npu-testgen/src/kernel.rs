//! Random kernels: one statement form (elementwise, reduction, arg reduction, scan,
//! `let`, padded view, gather, matmul) over a random shape, its expressions random
//! trees ([`Expr`]), printed as DSL text with the tensors it reads.

use fastrand::Rng;

use crate::expr::{Expr, Scope, is_float, pick};

/// What the target computes, read from its file by the caller.
#[derive(Clone, Debug)]
pub struct Preset {
    /// The preset's name, as a kernel's `target` names it.
    pub name: String,
    /// The vector unit's dtypes (`vector.dtypes`).
    pub vector_dtypes: Vec<String>,
    /// The cube's operand dtypes (`cube.dtypes`); empty without a cube.
    pub cube_dtypes: Vec<String>,
    /// The target's core count (a schedule now and then asks for one more, to be refused).
    pub cores: u64,
}

/// The statement form of a kernel and what it fixes besides its expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum Form {
    /// `y[axes] = e`.
    Elementwise,
    /// `y[outer] = op[reduced](e)`, over the last `reduced` axes, with an accumulator.
    Reduce {
        /// The reduction (`sum`, `max` or `min`).
        op: &'static str,
        /// How many trailing axes it reduces.
        reduced: usize,
        /// The accumulator dtype, when stated.
        accumulator: Option<String>,
    },
    /// `y[outer] = argmax[k](e)` into i32.
    Arg {
        /// The arg reduction (`argmax` or `argmin`).
        op: &'static str,
    },
    /// `y[axes] = cumsum[axis](e)`.
    Scan {
        /// The scan (`cumsum` or `cumprod`).
        op: &'static str,
        /// The axis it scans.
        axis: usize,
        /// The accumulator dtype, when stated.
        accumulator: Option<String>,
    },
    /// `let t[axes] = e0; y[axes] = e1` (e1 reads `t`).
    Let,
    /// `let m[outer] = op[k](e0); y[axes] = e1` (e1 reads `m`).
    LetReduce {
        /// The reduction of the intermediate.
        op: &'static str,
    },
    /// `y[axes] = e` where e reads `pad(x, fill)[i - shift, ..]`; `y` is 2 longer.
    /// With a window `(op, stride)` (1-d): `y[i] = op[k < 3](e)` where e reads
    /// `pad(x, fill)[stride*i + k - shift]`, `x` `stride` times longer than `y`.
    Pad {
        /// The pad value, as a literal.
        fill: String,
        /// How far the read is shifted.
        shift: u64,
        /// A window's reduction and stride, when there is one.
        window: Option<(&'static str, u64)>,
    },
    /// `y[i(, d)] = e` where e reads `x[idx[i](, d)]` from a table of `rows` rows.
    Gather {
        /// The index tensor's dtype.
        index: String,
        /// Rows of the table.
        rows: u64,
    },
    /// `c[(t,) m, n] = sum[k](a[..] as acc * b[..] as acc)`, dims are m, n, k.
    Matmul {
        /// `a`'s dtype.
        a: String,
        /// `b`'s dtype.
        b: String,
        /// The output's dtype.
        out: String,
        /// The batch extent, when batched.
        batch: Option<u64>,
        /// Whether the batches share `b`.
        shared: bool,
    },
}

/// A random kernel, kept as parts so that a shrinker can make it smaller.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Its statement form.
    pub form: Form,
    /// The element dtype of its expressions.
    pub dtype: String,
    /// Axis extents: output axes, then reduced ones.
    pub dims: Vec<u64>,
    /// Scalar parameters, all of `dtype`.
    pub params: Vec<String>,
    /// Its expressions, as the form reads them.
    pub exprs: Vec<Expr>,
}

/// A kernel as text, with what a schedule needs to know.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The kernel's DSL text.
    pub text: String,
    /// Tensors to stage (inputs read, then outputs).
    pub staged: Vec<String>,
    /// Output axes then reduction axes, with extents.
    pub axes: Vec<(String, u64)>,
    /// How many outputs it writes.
    pub outputs: usize,
    /// Whether it is a matmul (staged through L1 and L0).
    pub matmul: bool,
}

const AXES: [&str; 3] = ["i", "j", "l"];
const REDUCED: [&str; 2] = ["k", "q"];

impl Form {
    /// The construct this form exercises, for the coverage table.
    pub fn construct(&self) -> &'static str {
        match self {
            Form::Elementwise => "elementwise",
            Form::Reduce { .. } => "reduce",
            Form::Arg { .. } => "argmax",
            Form::Scan { .. } => "scan",
            Form::Let | Form::LetReduce { .. } => "let",
            Form::Pad { .. } => "pad",
            Form::Gather { .. } => "gather",
            Form::Matmul { .. } => "matmul",
        }
    }
}

impl Kernel {
    /// A random kernel of element dtype `dtype` for `preset`, expressions at most
    /// `depth` deep.
    pub fn random(rng: &mut Rng, preset: &Preset, dtype: &str, depth: u32) -> Kernel {
        let dtype = dtype.to_string();
        let roll = rng.u32(0..100);
        if roll < 8 && !preset.cube_dtypes.is_empty() {
            return matmul(rng, preset);
        }
        let mut rank = 1 + rng.usize(0..3);
        // A `let` reduction needs an outer axis (a reduction over every axis writes a
        // 0-d output); padded views are 1- or 2-d.
        if rank == 1 && (66..74).contains(&roll) {
            rank = 2;
        }
        if rank == 3 && (74..100).contains(&roll) {
            rank = 2;
        }
        let dims = shape(rng, rank);
        let accumulator = |rng: &mut Rng, dtype: &str| match rng.u32(0..3) {
            0 => Some(dtype.to_string()),
            1 => Some(if is_float(dtype) { "f32" } else { "i32" }.to_string()),
            _ => None,
        };
        let form = match roll {
            0..16 => Form::Elementwise,
            16..30 => Form::Reduce {
                op: pick(rng, &["sum", "max", "min"]),
                reduced: 1 + rng.usize(0..rank.min(2)),
                accumulator: accumulator(rng, &dtype),
            },
            30..42 => Form::Arg {
                op: pick(rng, &["argmax", "argmin"]),
            },
            42..58 => Form::Scan {
                op: pick(rng, &["cumsum", "cumprod"]),
                axis: rng.usize(0..rank),
                accumulator: accumulator(rng, &dtype),
            },
            58..66 => Form::Let,
            66..74 => Form::LetReduce {
                op: pick(rng, &["sum", "max", "min"]),
            },
            74..88 => Form::Pad {
                fill: crate::expr::literal(rng, &dtype),
                shift: 1 + rng.u64(0..2),
                window: (rank == 1 && rng.bool())
                    .then(|| (pick(rng, &["sum", "max", "min"]), 1 + rng.u64(0..2))),
            },
            _ => Form::Gather {
                index: pick(rng, &["i8", "u8", "i16", "u16", "i32", "u32"]).to_string(),
                rows: pick(rng, &[3, 64, 100, 300, 1024]),
            },
        };
        let params = if rng.u32(0..100) < 50 {
            vec!["s".to_string()]
        } else {
            Vec::new()
        };
        let mut kernel = Kernel {
            form,
            dtype,
            dims,
            params,
            exprs: Vec::new(),
        };
        let scopes = kernel.scopes(preset);
        kernel.exprs = scopes
            .iter()
            .map(|scope| Expr::random(rng, scope, depth))
            .collect();
        kernel
    }

    /// The scope of each expression slot.
    pub fn scopes(&self, preset: &Preset) -> Vec<Scope> {
        let rank = self.dims.len();
        let all: Vec<&str> = self.axis_names(rank);
        let scope = |loads: Vec<String>| Scope {
            dtype: self.dtype.clone(),
            loads,
            params: self.params.clone(),
            cast_dtypes: preset.vector_dtypes.clone(),
        };
        let plain = |names: &[&str], axes: &[&str]| -> Vec<String> {
            names
                .iter()
                .map(|n| format!("{n}[{}]", axes.join(", ")))
                .collect()
        };
        let mut loads = plain(&["x", "z"], &all);
        if rank > 1 {
            loads.push(format!("b[{}]", all[rank - 1]));
        }
        match &self.form {
            Form::Let => vec![scope(loads.clone()), {
                let mut with = loads;
                with.push(format!("t[{}]", all.join(", ")));
                scope(with)
            }],
            Form::LetReduce { .. } => {
                let mut with = loads.clone();
                with.push(format!("m[{}]", all[..rank - 1].join(", ")));
                vec![scope(loads), scope(with)]
            }
            Form::Pad { shift, window, .. } => {
                let subs: Vec<String> = match window {
                    Some((_, stride)) => vec![format!("{stride}*i + k - {shift}")],
                    None => all.iter().map(|a| format!("{a} - {shift}")).collect(),
                };
                let mut with = plain(&["z"], &all);
                with.push(format!("pad(x, FILL)[{}]", subs.join(", ")));
                vec![scope(with)]
            }
            Form::Gather { .. } => {
                let row = if rank == 2 {
                    format!("x[idx[i], {}]", all[1])
                } else {
                    "x[idx[i]]".to_string()
                };
                let mut with = plain(&["z"], &all);
                with.push(row);
                vec![scope(with)]
            }
            Form::Matmul { .. } => Vec::new(),
            _ => vec![scope(loads)],
        }
    }

    /// Axis names of a form's input shape: the reduced axes of a reduction are
    /// `k`, `q`, the rest `i`, `j`, `l`.
    pub fn axis_names(&self, rank: usize) -> Vec<&'static str> {
        let reduced = match &self.form {
            Form::Reduce { reduced, .. } => *reduced,
            Form::Arg { .. } | Form::LetReduce { .. } => 1,
            _ => 0,
        };
        let mut names: Vec<&str> = AXES[..rank - reduced].to_vec();
        names.extend(&REDUCED[..reduced]);
        names
    }

    /// Whether the kernel has a construct beyond its form: `select`, `cast`, `bits`,
    /// `math`, `literal`, `scalar`, `accumulator`, `0-d` (a 0-d output).
    pub fn has(&self, what: &str) -> bool {
        match what {
            "0-d" => match &self.form {
                Form::Reduce { reduced, .. } => *reduced == self.dims.len(),
                Form::Arg { .. } => self.dims.len() == 1,
                _ => false,
            },
            "scalar" => self.exprs.iter().any(|e| e.has("param:s")),
            "accumulator" => matches!(
                &self.form,
                Form::Reduce {
                    accumulator: Some(_),
                    ..
                } | Form::Scan {
                    accumulator: Some(_),
                    ..
                }
            ),
            _ => self.exprs.iter().any(|e| e.has(what)),
        }
    }
}

/// A random shape of `rank` dimensions, small enough to simulate quickly.
fn shape(rng: &mut Rng, rank: usize) -> Vec<u64> {
    match rank {
        1 => vec![pick(rng, &[1, 16, 64, 100, 128, 256, 1000, 1024])],
        2 => vec![
            pick(rng, &[1, 2, 3, 4, 8, 16]),
            pick(rng, &[8, 16, 17, 32, 64, 100, 128, 217]),
        ],
        _ => vec![
            pick(rng, &[2, 3, 4]),
            pick(rng, &[2, 4, 8]),
            pick(rng, &[16, 32, 33, 64]),
        ],
    }
}

fn matmul(rng: &mut Rng, preset: &Preset) -> Kernel {
    let operand = |rng: &mut Rng| rng.choice(&preset.cube_dtypes).cloned().unwrap_or_default();
    let (a, b) = if rng.u32(0..100) < 70 {
        let d = operand(rng);
        (d.clone(), d)
    } else {
        (operand(rng), operand(rng))
    };
    let accumulator = if is_float(&a) || is_float(&b) {
        "f32"
    } else {
        "i32"
    };
    let out = if rng.u32(0..100) < 20 {
        a.clone()
    } else {
        accumulator.to_string()
    };
    let batch = (rng.u32(0..100) < 30).then(|| pick(rng, &[2, 3]));
    Kernel {
        form: Form::Matmul {
            a,
            b,
            out,
            batch,
            shared: batch.is_some() && rng.bool(),
        },
        dtype: accumulator.to_string(),
        dims: vec![
            pick(rng, &[16, 32, 48, 64]),
            pick(rng, &[16, 32, 64]),
            pick(rng, &[16, 32, 64, 80]),
        ],
        params: Vec::new(),
        exprs: Vec::new(),
    }
}
