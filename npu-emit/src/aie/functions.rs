//! The bf16 functions a target computes with the AIE-ML vector unit's algorithms
//! (`aie2_bf16` in its `[vector.functions]` table): exp, exp2, log, log2, log10,
//! rsqrt, reciprocal, division, sigmoid and tanh, each a C++ template on the vector size that makes the
//! AIE API calls of npu-core's `functions::aie2` in the same order, with its constants
//! (bf16 multiplies into `accum<accfloat, N>`, accumulator adds, int16 operations on
//! bit patterns, selects). The simulator computes the same algorithm; the CPU model
//! of the AIE API checks the two agree bit for bit (docs/emit.md).
//!
//! A run the vector walk covers calls the template on its vectors; an element the
//! scalar loop reaches (a strided view, a short run) calls it on a broadcast and
//! takes lane 0, so the function's arithmetic is vector code either way.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use npu_core::Dtype;
use npu_core::Pipe;
use npu_core::Program;
use npu_core::functions::aie2;
use npu_core::ir::{BinaryOp, UnaryOp};
use npu_core::program::{Op, VectorKind};
use npu_core::target::{Implementation, Target};

/// The template that computes `kind` in `dtype` on `target`, when the target names an
/// algorithm of its own for it.
pub(super) fn call(target: &Target, kind: VectorKind, dtype: Dtype) -> Option<&'static str> {
    if dtype != Dtype::Bf16 || target.implementation(kind.cost_op()) != Implementation::Aie2Bf16 {
        return None;
    }
    Some(match kind {
        VectorKind::Unary(UnaryOp::Exp) => "npu_exp",
        VectorKind::Unary(UnaryOp::Exp2) => "npu_exp2",
        VectorKind::Unary(UnaryOp::Log) => "npu_log",
        VectorKind::Unary(UnaryOp::Log2) => "npu_log2",
        VectorKind::Unary(UnaryOp::Log10) => "npu_log10",
        VectorKind::Unary(UnaryOp::Rsqrt) => "npu_rsqrt",
        VectorKind::Unary(UnaryOp::Recip) => "npu_recip",
        VectorKind::Unary(UnaryOp::Sigmoid) => "npu_sigmoid",
        VectorKind::Unary(UnaryOp::Tanh) => "npu_tanh",
        VectorKind::Binary(BinaryOp::Div) => "npu_div",
        _ => return None,
    })
}

/// The templates `program` calls, with those they call, in a fixed order; empty when
/// it calls none.
pub(super) fn helpers(program: &Program, target: &Target) -> String {
    let called: BTreeSet<&str> = program
        .classes
        .iter()
        .flat_map(|class| class.stream(Pipe::V))
        .filter_map(|instr| match instr.op {
            Op::Vector(v) => call(target, v.kind, v.dtype),
            _ => None,
        })
        .collect();
    if called.is_empty() {
        return String::new();
    }
    let needs = |names: &[&str]| names.iter().any(|n| called.contains(n));
    // Each group has a guard of its own: a translation unit may hold several kernels.
    let mut text = guarded("LANES", &lanes());
    if needs(&["npu_exp", "npu_exp2", "npu_sigmoid", "npu_tanh"]) {
        text.push_str(&guarded("EXP", &exponential()));
    }
    let logs = ["npu_log", "npu_log2", "npu_log10"];
    let divides = [
        "npu_div",
        "npu_recip",
        "npu_rsqrt",
        "npu_sigmoid",
        "npu_tanh",
    ];
    if needs(&divides) || needs(&logs) {
        text.push_str(&guarded("DIV", &division()));
    }
    if needs(&["npu_rsqrt"]) {
        text.push_str(&guarded("RSQRT", &rsqrt()));
    }
    if needs(&["npu_sigmoid", "npu_tanh"]) {
        text.push_str(&guarded("LOGISTIC", &logistic()));
    }
    if needs(&logs) {
        text.push_str(&guarded("LOG", &logarithm()));
    }
    text
}

/// `text` inside an include guard named after `group`.
fn guarded(group: &str, text: &str) -> String {
    format!("#ifndef NPU_AIE_FUNCTIONS_{group}\n#define NPU_AIE_FUNCTIONS_{group}\n{text}#endif\n")
}

/// A bf16 constant as a C++ float literal that converts to it exactly.
fn c(value: f32) -> String {
    format!("{value:?}f")
}

/// The lane primitives every template uses (npu-core's `functions::lanes`).
fn lanes() -> String {
    "\
// bf16 functions as the AIE-ML vector unit computes them (npu-core's functions::aie2):
// bf16 multiplies into accfloat (exact), accumulator adds, int16 operations on bits.
template <unsigned N> using npu_bv = aie::vector<bfloat16, N>;
template <unsigned N> using npu_iv = aie::vector<int16_t, N>;
template <unsigned N> using npu_av = aie::accum<accfloat, N>;
template <unsigned N> npu_bv<N> npu_splat(float x) { return aie::broadcast<bfloat16, N>(bfloat16(x)); }
template <unsigned N> npu_iv<N> npu_isplat(int16_t x) { return aie::broadcast<int16_t, N>(x); }
template <unsigned N> npu_av<N> npu_acc(const npu_bv<N> &v) { npu_av<N> a; a.from_vector(v); return a; }
template <unsigned N> npu_bv<N> npu_round(const npu_av<N> &a) { return a.template to_vector<bfloat16>(); }
template <unsigned N> npu_iv<N> npu_bits(const npu_bv<N> &v) { return aie::vector_cast<int16_t>(v); }
template <unsigned N> npu_bv<N> npu_from_bits(const npu_iv<N> &v) { return aie::vector_cast<bfloat16>(v); }
template <unsigned N> npu_bv<N> npu_fma(const npu_bv<N> &c, const npu_bv<N> &a, const npu_bv<N> &b) { return npu_round(aie::mac(npu_acc(c), a, b)); }
template <unsigned N> npu_bv<N> npu_power_of_two(const npu_iv<N> &k) { return npu_from_bits(aie::upshift(aie::add(k, npu_isplat<N>(127)), 7)); }
template <unsigned N> npu_iv<N> npu_magnitude(const npu_bv<N> &x) { return aie::bit_and(npu_bits(x), npu_isplat<N>(0x7FFF)); }
template <unsigned N> npu_bv<N> npu_quiet(const npu_bv<N> &x) { return npu_from_bits(aie::bit_or(npu_bits(x), npu_isplat<N>(0x0040))); }
template <unsigned N> npu_iv<N> npu_sign(const npu_bv<N> &x) { return aie::bit_and(npu_bits(x), npu_isplat<N>(-32768)); }
template <unsigned N> void npu_split(const npu_av<N> &acc, npu_bv<N> &hi, npu_bv<N> &lo) { hi = npu_round(acc); lo = npu_round(aie::sub(acc, hi)); }
template <unsigned N> npu_bv<N> npu_scaled(const npu_bv<N> &hi, const npu_bv<N> &lo, const npu_bv<N> &scale) { return npu_round(aie::mac(aie::mul(lo, scale), hi, scale)); }
template <unsigned N> npu_bv<N> npu_finish(const npu_bv<N> &x, const npu_bv<N> &value) { return aie::select(value, npu_quiet(x), aie::gt(npu_magnitude(x), npu_isplat<N>(0x7F80))); }
".to_string()
}

/// exp and exp2 (npu-core's `functions::aie2::exp`).
fn exponential() -> String {
    let mut text = String::new();
    let (p, l) = (aie2::POWERS, aie2::LN_2);
    let _ = write!(
        text,
        "\
template <unsigned N> npu_bv<N> npu_exp_power(const npu_av<N> &t) {{
    const npu_bv<N> rounder = npu_splat<N>({rounder});
    const npu_av<N> k = aie::sub(aie::add(t, rounder), rounder);
    npu_bv<N> f_hi, f_lo, p_hi, p_lo;
    npu_split(aie::sub(t, k), f_hi, f_lo);
    npu_bv<N> q = npu_fma(npu_splat<N>({p2}), f_hi, npu_splat<N>({p3}));
    q = npu_fma(npu_splat<N>({p1}), f_hi, q);
    q = npu_fma(npu_splat<N>({p0}), f_hi, q);
    const npu_bv<N> g = npu_round(aie::mul(f_hi, q));
    npu_av<N> p = aie::mul(npu_splat<N>({l1}), f_hi);
    p = aie::mac(p, npu_splat<N>({l0}), f_lo);
    p = aie::mac(p, f_hi, g);
    p = aie::add(aie::mac(p, npu_splat<N>({l0}), f_hi), npu_splat<N>(1.0f));
    npu_split(p, p_hi, p_lo);
    const npu_iv<N> k_all = aie::to_fixed<int16_t>(npu_round(k), 0);
    const npu_iv<N> k1 = aie::downshift(k_all, 1);
    const npu_bv<N> s1 = npu_power_of_two(k1);
    return npu_scaled(npu_round(aie::mul(p_hi, s1)), npu_round(aie::mul(p_lo, s1)), npu_power_of_two(aie::sub(k_all, k1)));
}}
",
        rounder = c(aie2::ROUNDER),
        p0 = c(p[0]),
        p1 = c(p[1]),
        p2 = c(p[2]),
        p3 = c(p[3]),
        l0 = c(l[0]),
        l1 = c(l[1]),
    );
    let (e, r, r2) = (aie2::LOG2_E, aie2::EXP_RANGE, aie2::EXP2_RANGE);
    let _ = write!(
        text,
        "\
template <unsigned N> npu_bv<N> npu_exp(const npu_bv<N> &x) {{
    const npu_bv<N> clamped = aie::min(aie::max(x, npu_splat<N>({low})), npu_splat<N>({high}));
    npu_av<N> t = aie::mul(clamped, npu_splat<N>({e2}));
    t = aie::mac(t, clamped, npu_splat<N>({e1}));
    t = aie::mac(t, clamped, npu_splat<N>({e0}));
    return npu_finish(x, npu_exp_power(t));
}}
template <unsigned N> npu_bv<N> npu_exp2(const npu_bv<N> &x) {{
    return npu_finish(x, npu_exp_power(npu_acc(aie::min(aie::max(x, npu_splat<N>({low2})), npu_splat<N>({high2})))));
}}
",
        low = c(r[0]),
        high = c(r[1]),
        low2 = c(r2[0]),
        high2 = c(r2[1]),
        e0 = c(e[0]),
        e1 = c(e[1]),
        e2 = c(e[2]),
    );
    text
}

/// Division and the reciprocal (npu-core's `functions::aie2::divide`).
fn division() -> String {
    let (line, range) = (aie2::RECIPROCAL_LINE, aie2::DIFFERENCE_RANGE);
    let mut text = format!(
        "\
template <unsigned N> void npu_decompose(const npu_bv<N> &x, npu_bv<N> &mantissa, npu_iv<N> &exponent) {{
    const npu_iv<N> m = npu_magnitude(x);
    const aie::mask<N> subnormal = aie::lt(m, npu_isplat<N>(0x0080));
    const npu_bv<N> scaled = npu_round(aie::mul(npu_from_bits(m), npu_splat<N>({two_64})));
    const npu_iv<N> n = npu_bits(aie::select(npu_from_bits(m), scaled, subnormal));
    mantissa = npu_from_bits(aie::bit_or(aie::bit_and(n, npu_isplat<N>(0x007F)), npu_isplat<N>(0x3F80)));
    exponent = aie::sub(aie::downshift(n, 7), aie::select(npu_isplat<N>(127), npu_isplat<N>(191), subnormal));
}}
template <unsigned N> npu_av<N> npu_reciprocal(const npu_bv<N> &m) {{
    const npu_bv<N> one = npu_splat<N>(1.0f);
    const npu_bv<N> y0 = npu_fma(npu_splat<N>({r0}), npu_splat<N>({r1}), m);
    const npu_bv<N> y1 = npu_fma(y0, y0, npu_round(aie::msc(npu_acc(one), m, y0)));
    return aie::mac(npu_acc(y1), y1, npu_round(aie::msc(npu_acc(one), m, y1)));
}}
",
        two_64 = c(aie2::TWO_64),
        r0 = c(line[0]),
        r1 = c(line[1]),
    );
    let _ = write!(
        text,
        "\
template <unsigned N> npu_bv<N> npu_div_special(const npu_bv<N> &a, const npu_bv<N> &b, const npu_bv<N> &quotient) {{
    const npu_iv<N> m_a = npu_magnitude(a), m_b = npu_magnitude(b);
    const npu_iv<N> zero = npu_isplat<N>(0), inf = npu_isplat<N>(0x7F80), nan = npu_isplat<N>(0x7FC0);
    npu_iv<N> r = npu_bits(quotient);
    r = aie::select(r, zero, aie::eq(m_a, zero));
    r = aie::select(r, zero, aie::eq(m_b, inf));
    r = aie::select(r, inf, aie::eq(m_b, zero));
    r = aie::select(r, inf, aie::eq(m_a, inf));
    r = aie::bit_or(r, aie::bit_and(aie::bit_xor(npu_bits(a), npu_bits(b)), npu_isplat<N>(-32768)));
    r = aie::select(r, nan, aie::eq(aie::bit_or(m_a, m_b), zero));
    r = aie::select(r, nan, aie::eq(aie::bit_and(m_a, m_b), inf));
    r = aie::select(r, npu_bits(npu_quiet(b)), aie::gt(m_b, inf));
    r = aie::select(r, npu_bits(npu_quiet(a)), aie::gt(m_a, inf));
    return npu_from_bits(r);
}}
template <unsigned N> npu_bv<N> npu_div(const npu_bv<N> &a, const npu_bv<N> &b) {{
    npu_bv<N> m_a, m_b, y_hi, y_lo, q_hi, q_lo;
    npu_iv<N> e_a, e_b;
    npu_decompose(a, m_a, e_a);
    npu_decompose(b, m_b, e_b);
    npu_split(npu_reciprocal(m_b), y_hi, y_lo);
    npu_split(aie::mac(aie::mul(m_a, y_lo), m_a, y_hi), q_hi, q_lo);
    const npu_iv<N> d = aie::min(aie::max(aie::sub(e_a, e_b), npu_isplat<N>({low})), npu_isplat<N>({high}));
    const npu_iv<N> d1 = aie::downshift(d, 1);
    const npu_bv<N> s1 = npu_power_of_two(d1);
    const npu_bv<N> quotient = npu_scaled(npu_round(aie::mul(q_hi, s1)), npu_round(aie::mul(q_lo, s1)), npu_power_of_two(aie::sub(d, d1)));
    return npu_div_special(a, b, quotient);
}}
template <unsigned N> npu_bv<N> npu_recip(const npu_bv<N> &x) {{ return npu_div(npu_splat<N>(1.0f), x); }}
",
        low = range[0],
        high = range[1],
    );
    text
}

/// rsqrt (npu-core's `functions::aie2::rsqrt`).
fn rsqrt() -> String {
    let line = aie2::RSQRT_LINE;
    format!(
        "\
template <unsigned N> npu_av<N> npu_rsqrt_newton(const npu_bv<N> &m, const aie::mask<N> &odd) {{
    const npu_bv<N> one = npu_splat<N>(1.0f), half = npu_splat<N>(0.5f);
    const npu_bv<N> start = npu_round(aie::mul(m, aie::select(one, half, odd)));
    npu_bv<N> y0 = npu_fma(npu_splat<N>({s0}), npu_splat<N>({s1}), start);
    y0 = npu_round(aie::mul(y0, aie::select(one, npu_splat<N>({root_half}), odd)));
    const npu_bv<N> h = npu_round(aie::mul(m, y0));
    const npu_bv<N> r = npu_round(aie::msc(npu_acc(one), h, y0));
    const npu_bv<N> y1 = npu_fma(y0, y0, npu_round(aie::mul(r, half)));
    npu_bv<N> h_hi, h_lo;
    npu_split(aie::mul(m, y1), h_hi, h_lo);
    const npu_bv<N> r1 = npu_round(aie::msc(aie::msc(npu_acc(one), h_hi, y1), h_lo, y1));
    return aie::mac(npu_acc(y1), y1, npu_round(aie::mul(r1, half)));
}}
template <unsigned N> npu_bv<N> npu_rsqrt(const npu_bv<N> &x) {{
    npu_bv<N> m, y_hi, y_lo;
    npu_iv<N> e;
    npu_decompose(x, m, e);
    const npu_iv<N> odd = aie::bit_and(e, npu_isplat<N>(1));
    m = npu_from_bits(aie::add(npu_bits(m), aie::upshift(odd, 7)));
    const npu_iv<N> half = aie::downshift(aie::sub(e, odd), 1);
    npu_split(npu_rsqrt_newton(m, aie::eq(odd, npu_isplat<N>(1))), y_hi, y_lo);
    const npu_bv<N> root = npu_scaled(y_hi, y_lo, npu_power_of_two(aie::sub(npu_isplat<N>(0), half)));
    const npu_iv<N> m_x = npu_magnitude(x), zero = npu_isplat<N>(0), inf = npu_isplat<N>(0x7F80);
    npu_iv<N> r = npu_bits(root);
    r = aie::select(r, zero, aie::eq(m_x, inf));
    r = aie::select(r, npu_isplat<N>(0x7FC0), aie::lt(npu_bits(x), zero));
    r = aie::select(r, aie::bit_or(npu_bits(x), inf), aie::eq(m_x, zero));
    return npu_finish(x, npu_from_bits(r));
}}
",
        s0 = c(line[0]),
        s1 = c(line[1]),
        root_half = c(aie2::FRAC_1_SQRT_2),
    )
}

/// log, log2 and log10 (npu-core's `functions::aie2::log`).
fn logarithm() -> String {
    let q = aie2::LOG_SERIES;
    let mut horner = String::new();
    for coefficient in q[..6].iter().rev() {
        let _ = writeln!(
            horner,
            "    q = npu_fma(npu_splat<N>({}), f, q);",
            c(*coefficient)
        );
    }
    let (l, e2, g2, ge) = (aie2::LN_2, aie2::LOG2_E, aie2::LOG10_2, aie2::LOG10_E);
    format!(
        "\
template <unsigned N> void npu_log_reduce(const npu_bv<N> &x, npu_av<N> &log_m, npu_bv<N> &e) {{
    npu_bv<N> m;
    npu_iv<N> exponent;
    npu_decompose(x, m, exponent);
    const aie::mask<N> high = aie::gt(npu_bits(m), npu_isplat<N>({switch}));
    m = aie::select(m, npu_from_bits(aie::sub(npu_bits(m), npu_isplat<N>(0x0080))), high);
    e = aie::to_float<bfloat16>(aie::add(exponent, aie::select(npu_isplat<N>(0), npu_isplat<N>(1), high)), 0);
    const npu_bv<N> f = npu_round(aie::sub(npu_acc(m), npu_splat<N>(1.0f)));
    npu_bv<N> q = npu_splat<N>({q6});
{horner}    const npu_bv<N> p = npu_round(aie::mul(npu_round(aie::mul(f, f)), q));
    log_m = aie::add(aie::mac(aie::mul(f, p), f, npu_round(aie::mul(f, npu_splat<N>(-0.5f)))), f);
}}
template <unsigned N> npu_bv<N> npu_log_special(const npu_bv<N> &x, const npu_bv<N> &value) {{
    const npu_iv<N> m = npu_magnitude(x), zero = npu_isplat<N>(0), inf = npu_isplat<N>(0x7F80);
    npu_iv<N> r = npu_bits(value);
    r = aie::select(r, inf, aie::eq(m, inf));
    r = aie::select(r, npu_isplat<N>(0x7FC0), aie::lt(npu_bits(x), zero));
    r = aie::select(r, npu_isplat<N>(-128), aie::eq(m, zero));
    return npu_finish(x, npu_from_bits(r));
}}
template <unsigned N> npu_bv<N> npu_log(const npu_bv<N> &x) {{
    npu_av<N> log_m;
    npu_bv<N> e;
    npu_log_reduce(x, log_m, e);
    return npu_log_special(x, npu_round(aie::mac(aie::mac(log_m, e, npu_splat<N>({l1})), e, npu_splat<N>({l0}))));
}}
template <unsigned N> npu_bv<N> npu_log2(const npu_bv<N> &x) {{
    npu_av<N> log_m;
    npu_bv<N> e, hi, lo;
    npu_log_reduce(x, log_m, e);
    npu_split(log_m, hi, lo);
    npu_av<N> t = aie::mac(aie::mac(aie::mul(lo, npu_splat<N>({e0})), hi, npu_splat<N>({e1})), hi, npu_splat<N>({e0}));
    return npu_log_special(x, npu_round(aie::add(t, e)));
}}
template <unsigned N> npu_bv<N> npu_log10(const npu_bv<N> &x) {{
    npu_av<N> log_m;
    npu_bv<N> e, hi, lo;
    npu_log_reduce(x, log_m, e);
    npu_split(log_m, hi, lo);
    npu_av<N> t = aie::mac(aie::mac(aie::mul(lo, npu_splat<N>({ge0})), hi, npu_splat<N>({ge2})), hi, npu_splat<N>({ge1}));
    t = aie::mac(aie::mac(t, e, npu_splat<N>({g1})), hi, npu_splat<N>({ge0}));
    return npu_log_special(x, npu_round(aie::mac(t, e, npu_splat<N>({g0}))));
}}
",
        switch = aie2::LOG_SWITCH,
        q6 = c(q[6]),
        l0 = c(l[0]),
        l1 = c(l[1]),
        e0 = c(e2[0]),
        e1 = c(e2[1]),
        g0 = c(g2[0]),
        g1 = c(g2[1]),
        ge0 = c(ge[0]),
        ge1 = c(ge[1]),
        ge2 = c(ge[2]),
    )
}

/// sigmoid and tanh (npu-core's `functions::aie2::logistic`).
fn logistic() -> String {
    let t = aie2::TANH_SERIES;
    format!(
        "\
template <unsigned N> npu_bv<N> npu_sigmoid(const npu_bv<N> &x) {{
    const npu_bv<N> one = npu_splat<N>(1.0f);
    const npu_bv<N> e = npu_exp(npu_from_bits(aie::bit_or(npu_bits(x), npu_isplat<N>(-32768))));
    const npu_bv<N> numerator = aie::select(one, e, aie::lt(npu_bits(x), npu_isplat<N>(0)));
    return npu_finish(x, npu_div(numerator, npu_round(aie::add(npu_acc(e), one))));
}}
template <unsigned N> npu_bv<N> npu_tanh_series(const npu_bv<N> &a) {{
    const npu_bv<N> p = npu_round(aie::mul(a, a));
    npu_bv<N> q = npu_fma(npu_splat<N>({t2}), p, npu_splat<N>({t3}));
    q = npu_fma(npu_splat<N>({t1}), p, q);
    q = npu_fma(npu_splat<N>({t0}), p, q);
    return npu_fma(a, a, npu_round(aie::mul(p, q)));
}}
template <unsigned N> npu_bv<N> npu_tanh(const npu_bv<N> &x) {{
    const npu_bv<N> one = npu_splat<N>(1.0f);
    const npu_bv<N> a = npu_from_bits(npu_magnitude(x));
    const npu_bv<N> e = npu_exp(npu_round(aie::mul(a, npu_splat<N>(-2.0f))));
    const npu_bv<N> large = npu_div(npu_round(aie::sub(npu_acc(one), e)), npu_round(aie::add(npu_acc(one), e)));
    const npu_bv<N> value = aie::select(large, npu_tanh_series(a), aie::lt(npu_magnitude(x), npu_isplat<N>({switch})));
    return npu_finish(x, npu_from_bits(aie::bit_or(npu_bits(value), npu_sign(x))));
}}
",
        t0 = c(t[0]),
        t1 = c(t[1]),
        t2 = c(t[2]),
        t3 = c(t[3]),
        switch = aie2::TANH_SWITCH,
    )
}
