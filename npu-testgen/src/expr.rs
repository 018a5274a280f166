//! Random expression trees of one dtype, printed as DSL text, and the smaller trees a
//! shrinker tries in their place.

use std::fmt;

use fastrand::Rng;

/// An expression of the kernel's element dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A tensor element, a scalar parameter or a literal, as written.
    Leaf(String),
    /// `name(e)` or a prefix operator (`-`, `!`), or `pow(e, 2.0)` as `pow2`.
    Unary(&'static str, Box<Expr>),
    /// `(a OP b)` for an operator, `name(a, b)` for `min` and `max`.
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// `select(a CMP b, then, else)`.
    Select(&'static str, Box<[Expr; 4]>),
    /// `((e as [sat] via) as back)`: through another dtype and back.
    Cast {
        via: String,
        saturating: bool,
        back: String,
        value: Box<Expr>,
    },
}

/// What an expression may use: its dtype, the loads and scalar parameters in scope,
/// and the dtypes a cast may pass through.
#[derive(Clone, Debug)]
pub struct Scope {
    pub dtype: String,
    pub loads: Vec<String>,
    pub params: Vec<String>,
    pub cast_dtypes: Vec<String>,
}

pub fn is_float(dtype: &str) -> bool {
    dtype.starts_with('f') || dtype == "bf16"
}

const ANY_UNARY: &[&str] = &["abs", "-", "relu", "sign"];
const FLOAT_UNARY: &[&str] = &[
    "exp", "log", "sqrt", "rsqrt", "tanh", "recip", "sigmoid", "sin", "cos", "tan", "exp2", "log2",
    "log10", "erf", "floor", "ceil", "round", "trunc", "pow2",
];
const INTEGER_UNARY: &[&str] = &["!", "popcount"];
const ANY_BINARY: &[&str] = &["+", "-", "*", "min", "max", "+", "*", "/", "%"];
const INTEGER_BINARY: &[&str] = &["&", "|", "^", "<<", ">>"];
const COMPARES: &[&str] = &["<", "<=", ">", ">=", "==", "!="];

impl Expr {
    /// A random tree at most `depth` operations deep.
    pub fn random(rng: &mut Rng, scope: &Scope, depth: u32) -> Expr {
        if depth == 0 || rng.u32(0..100) < 25 {
            return Expr::leaf(rng, scope);
        }
        let float = is_float(&scope.dtype);
        let sub = |rng: &mut Rng| Box::new(Expr::random(rng, scope, depth - 1));
        match rng.u32(0..100) {
            0..30 => {
                let op = pick(rng, ANY_BINARY);
                let (a, b) = (sub(rng), sub(rng));
                Expr::Binary(op, a, b)
            }
            30..45 if !float => {
                let op = pick(rng, INTEGER_BINARY);
                let a = sub(rng);
                // Shift counts mostly in range, now and then past the width.
                let b = if op.ends_with('<') || op.ends_with('>') {
                    Box::new(Expr::Leaf(rng.u32(0..40).to_string()))
                } else {
                    sub(rng)
                };
                Expr::Binary(op, a, b)
            }
            30..50 => Expr::Unary(pick(rng, FLOAT_UNARY), sub(rng)),
            50..62 => {
                let op = if !float && rng.bool() {
                    pick(rng, INTEGER_UNARY)
                } else {
                    pick(rng, ANY_UNARY)
                };
                Expr::Unary(op, sub(rng))
            }
            62..82 => {
                let parts = [sub(rng), sub(rng), sub(rng), sub(rng)].map(|b| *b);
                Expr::Select(pick(rng, COMPARES), Box::new(parts))
            }
            _ => Expr::Cast {
                via: rng.choice(&scope.cast_dtypes).cloned().unwrap_or_default(),
                saturating: rng.bool(),
                back: scope.dtype.clone(),
                value: sub(rng),
            },
        }
    }

    fn leaf(rng: &mut Rng, scope: &Scope) -> Expr {
        let roll = rng.u32(0..100);
        if roll < 65 && !scope.loads.is_empty() {
            return Expr::Leaf(rng.choice(&scope.loads).cloned().unwrap_or_default());
        }
        if roll < 75 && !scope.params.is_empty() {
            return Expr::Leaf(rng.choice(&scope.params).cloned().unwrap_or_default());
        }
        Expr::Leaf(literal(rng, &scope.dtype))
    }

    /// Smaller trees to try in this one's place: each direct operand, then each
    /// operand's own candidates in place, then the literal `1`.
    pub fn smaller(&self) -> Vec<Expr> {
        let mut out = Vec::new();
        match self {
            Expr::Leaf(text) if text != "1" => out.push(Expr::Leaf("1".into())),
            Expr::Leaf(_) => {}
            Expr::Unary(op, value) => {
                out.push((**value).clone());
                out.extend(
                    value
                        .smaller()
                        .into_iter()
                        .map(|v| Expr::Unary(op, Box::new(v))),
                );
            }
            Expr::Binary(op, a, b) => {
                out.push((**a).clone());
                out.push((**b).clone());
                for v in a.smaller() {
                    out.push(Expr::Binary(op, Box::new(v), b.clone()));
                }
                for v in b.smaller() {
                    out.push(Expr::Binary(op, a.clone(), Box::new(v)));
                }
            }
            Expr::Select(op, parts) => {
                out.push(parts[2].clone());
                out.push(parts[3].clone());
                for slot in 0..4 {
                    for v in parts[slot].smaller() {
                        let mut next = parts.clone();
                        next[slot] = v;
                        out.push(Expr::Select(op, next));
                    }
                }
            }
            Expr::Cast { value, .. } => {
                out.push((**value).clone());
                for v in value.smaller() {
                    let mut next = self.clone();
                    if let Expr::Cast { value, .. } = &mut next {
                        **value = v;
                    }
                    out.push(next);
                }
            }
        }
        out
    }

    /// Whether the tree has a node of this kind: `select`, `cast`, `bits`, `math`,
    /// `literal`, `param:NAME`.
    pub fn has(&self, what: &str) -> bool {
        match self {
            Expr::Leaf(text) => match what {
                "literal" => {
                    text.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                        || text == "inf"
                        || text == "nan"
                }
                _ => what.strip_prefix("param:") == Some(text.as_str()),
            },
            Expr::Unary(op, value) => {
                (what == "math" && FLOAT_UNARY.contains(op))
                    || (what == "bits" && INTEGER_UNARY.contains(op))
                    || value.has(what)
            }
            Expr::Binary(op, a, b) => {
                (what == "bits" && INTEGER_BINARY.contains(op)) || a.has(what) || b.has(what)
            }
            Expr::Select(_, parts) => what == "select" || parts.iter().any(|p| p.has(what)),
            Expr::Cast { value, .. } => what == "cast" || value.has(what),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Leaf(text) => write!(f, "{text}"),
            Expr::Unary("pow2", value) => write!(f, "pow({value}, 2.0)"),
            Expr::Unary(op @ ("-" | "!"), value) => write!(f, "({op}{value})"),
            Expr::Unary(op, value) => write!(f, "{op}({value})"),
            Expr::Binary(op @ ("min" | "max"), a, b) => write!(f, "{op}({a}, {b})"),
            Expr::Binary(op, a, b) => write!(f, "({a} {op} {b})"),
            Expr::Select(op, parts) => {
                let [a, b, then, otherwise] = &**parts;
                write!(f, "select({a} {op} {b}, {then}, {otherwise})")
            }
            Expr::Cast {
                via,
                saturating,
                back,
                value,
            } => {
                let sat = if *saturating { "sat " } else { "" };
                write!(f, "(({value} as {sat}{via}) as {back})")
            }
        }
    }
}

/// A literal of `dtype`'s kind: small integers, now and then an extreme; for floats
/// also halves, signed zeros, infinities and NaN.
pub fn literal(rng: &mut Rng, dtype: &str) -> String {
    let integers = [
        "0", "1", "2", "3", "-1", "7", "-2", "100", "127", "-128", "255",
    ];
    if is_float(dtype) && rng.bool() {
        let floats = [
            "0.5", "-1.5", "2.0", "0.0", "-0.0", "0.25", "3.5", "-7.25", "1e3", "inf", "-inf",
            "nan", "65504.0",
        ];
        return pick(rng, &floats).to_string();
    }
    let value = pick(rng, &integers);
    if !dtype.starts_with('u') || !value.starts_with('-') {
        value.to_string()
    } else {
        value.trim_start_matches('-').to_string()
    }
}

pub fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.usize(0..items.len())]
}
