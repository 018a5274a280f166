// Vector calls over a count of elements (the "tensor front, count" form): Add, Sub,
// Mul, Div, Max, Min, And, Or (int16; bitwise on integers); Adds, Muls, Maxs, Mins; Relu, Abs, Exp, Ln, Sqrt, Rsqrt,
// Reciprocal; Duplicate; CreateVecIndex; Cast (the Atlas A2 pairs, CAST_NONE/RINT/TRUNC). Every operand starts 32-byte aligned and lies inside its
// buffer; the count is positive. dst may be a source (in place).
//
// Values: each element is computed in double from the operands' exact values and
// rounded once to the element type, which is what the simulator computes (npu-core's
// `scalar` module); the transcendentals are the simulator's by definition (the same
// libm functions), not the device's.
#pragma once

#include <limits>
#include <type_traits>

#include "model_tensor.h"

namespace npu_model {

// max and min as npu-core's `scalar::max`/`min` define them (IEEE 754-2019's
// maximumNumber and minimumNumber): a NaN operand gives the other, and +0 is larger
// than -0.
inline double max_of(double a, double b) {
    return std::isnan(a) || b > a || (b == a && !std::signbit(b)) ? b : a;
}
inline double min_of(double a, double b) {
    return std::isnan(a) || b < a || (b == a && std::signbit(b)) ? b : a;
}

template <typename T> inline double load(uint64_t address) {
    T value;
    std::memcpy(&value, &core().ub[address], sizeof(T));
    return double(value);
}

// Floats round to nearest even; integers keep the low bits (the value is exact here).
template <typename T> inline void store(uint64_t address, double value) {
    T rounded;
    if constexpr (std::is_integral<T>::value) {
        rounded = T(int64_t(value));
    } else {
        rounded = T(value);
    }
    std::memcpy(&core().ub[address], &rounded, sizeof(T));
}

template <typename T> inline uint64_t begin(int32_t count, std::initializer_list<const AscendC::LocalTensor<T> *> operands,
                                            const char *what) {
    if (count <= 0) {
        fail("%s: count %d is not positive", what, count);
    }
    for (const AscendC::LocalTensor<T> *operand : operands) {
        check_local(*operand, uint64_t(count), what);
    }
    count_elements(PIPE_V, uint64_t(count));
    return tick(PIPE_V);
}

template <typename T, typename F>
void elementwise(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> *a,
                 const AscendC::LocalTensor<T> *b, int32_t count, const char *what, F f) {
    uint64_t time = a == nullptr ? begin<T>(count, {&dst}, what)
                    : b == nullptr ? begin<T>(count, {&dst, a}, what)
                                   : begin<T>(count, {&dst, a, b}, what);
    uint64_t bytes = uint64_t(count) * sizeof(T);
    if (a != nullptr) {
        read_ub(PIPE_V, time, a->address(), bytes, what);
    }
    if (b != nullptr) {
        read_ub(PIPE_V, time, b->address(), bytes, what);
    }
    std::vector<double> out(count);
    for (int32_t i = 0; i < count; ++i) {
        double x = a == nullptr ? 0.0 : load<T>(a->address() + i * sizeof(T));
        double y = b == nullptr ? 0.0 : load<T>(b->address() + i * sizeof(T));
        out[i] = f(x, y);
    }
    write_ub(PIPE_V, time, dst.address(), bytes, what);
    for (int32_t i = 0; i < count; ++i) {
        store<T>(dst.address() + i * sizeof(T), out[i]);
    }
}

}  // namespace npu_model

namespace AscendC {

#define NPU_MODEL_BINARY(name, expression)                                                                   \
    template <typename T>                                                                                    \
    void name(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,            \
              const int32_t &count) {                                                                        \
        npu_model::elementwise<T>(dst, &src0, &src1, count, #name, [](double x, double y) { return expression; }); \
    }
// A NaN first source stays as it is, whatever the second (x86 and Arm return the first
// operand's quiet NaN of two): the simulator's folds keep the accumulator's.
NPU_MODEL_BINARY(Add, x != x ? x : x + y)
NPU_MODEL_BINARY(Sub, x - y)
// An integer product is exact in int64, not always in double; it keeps its low bits.
NPU_MODEL_BINARY(Mul, std::is_integral<T>::value ? double(T(int64_t(x) * int64_t(y))) : x * y)
NPU_MODEL_BINARY(And, double(int64_t(x) & int64_t(y)))
NPU_MODEL_BINARY(Or, double(int64_t(x) | int64_t(y)))
NPU_MODEL_BINARY(Div, x / y)
NPU_MODEL_BINARY(Max, npu_model::max_of(x, y))
NPU_MODEL_BINARY(Min, npu_model::min_of(x, y))
#undef NPU_MODEL_BINARY

#define NPU_MODEL_SCALAR(name, expression)                                                                   \
    template <typename T>                                                                                    \
    void name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalar, const int32_t &count) { \
        double y = double(scalar);                                                                           \
        npu_model::elementwise<T>(dst, &src, nullptr, count, #name, [y](double x, double) { return expression; }); \
    }
NPU_MODEL_SCALAR(Adds, x + y)
NPU_MODEL_SCALAR(Muls, std::is_integral<T>::value ? double(T(int64_t(x) * int64_t(y))) : x * y)
NPU_MODEL_SCALAR(Maxs, npu_model::max_of(x, y))
NPU_MODEL_SCALAR(Mins, npu_model::min_of(x, y))
#undef NPU_MODEL_SCALAR

#define NPU_MODEL_UNARY(name, expression)                                                                    \
    template <typename T> void name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) { \
        npu_model::elementwise<T>(dst, &src, nullptr, count, #name, [](double x, double) { return expression; }); \
    }
NPU_MODEL_UNARY(Relu, npu_model::max_of(x, 0.0))
NPU_MODEL_UNARY(Abs, std::fabs(x))
NPU_MODEL_UNARY(Exp, std::exp(x))
NPU_MODEL_UNARY(Ln, std::log(x))
NPU_MODEL_UNARY(Sqrt, std::sqrt(x))
NPU_MODEL_UNARY(Rsqrt, 1.0 / std::sqrt(x))
NPU_MODEL_UNARY(Reciprocal, 1.0 / x)
#undef NPU_MODEL_UNARY

enum class RoundMode { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

}  // namespace AscendC

namespace npu_model {

// The round modes the model implements, as bits: CAST_NONE (exact, or as CAST_RINT
// where the conversion loses precision), CAST_RINT (nearest, ties to even) and
// CAST_TRUNC (toward zero).
constexpr unsigned CAST_NONE_BIT = 1, CAST_RINT_BIT = 2, CAST_TRUNC_BIT = 4;

template <typename A, typename B> constexpr bool same() { return std::is_same<A, B>::value; }

// Which of those modes the Atlas A2 Cast table (API reference, Cast: "Atlas A2
// training/inference series, supported data type pairs") lists for S -> D; 0 for a
// pair it does not list. The Atlas inference AI Core lists a subset of these pairs
// with fewer modes; the emitter keeps to that subset on ascend310p.
template <typename D, typename S> constexpr unsigned cast_modes() {
    constexpr unsigned N = CAST_NONE_BIT, R = CAST_RINT_BIT, T = CAST_TRUNC_BIT;
    return (same<S, int8_t>() || same<S, uint8_t>()) && same<D, half>()  ? N
           : same<S, int16_t>() && same<D, half>()                       ? R | T | N
           : same<S, int16_t>() && same<D, float>()                      ? N
           : same<S, half>() && (same<D, int8_t>() || same<D, uint8_t>()) ? R | T | N
           : same<S, half>() && (same<D, int16_t>() || same<D, int32_t>()) ? R | T
           : same<S, half>() && same<D, float>()                         ? N
           : same<S, bfloat16_t>() && same<D, int32_t>()                 ? R | T
           : same<S, bfloat16_t>() && same<D, float>()                   ? N
           : same<S, int32_t>() && same<D, int16_t>()                    ? N
           : same<S, int32_t>() && same<D, float>()                      ? R | T | N
           : same<S, float>() && (same<D, int16_t>() || same<D, int32_t>()) ? R | T
           : same<S, float>() && same<D, half>()                         ? R | T | N
           : same<S, float>() && same<D, bfloat16_t>()                   ? R | T
                                                                         : 0;
}

inline unsigned mode_bit(AscendC::RoundMode mode) {
    switch (mode) {
    case AscendC::RoundMode::CAST_NONE:
        return CAST_NONE_BIT;
    case AscendC::RoundMode::CAST_RINT:
        return CAST_RINT_BIT;
    case AscendC::RoundMode::CAST_TRUNC:
        return CAST_TRUNC_BIT;
    default:
        return 0;
    }
}

// One value of S converted to D under `mode`. To an integer: rounded by the mode,
// then saturated (the reference's precision-conversion rules: an overflow saturates
// by default; a float's ±inf becomes the bound and NaN 0, its table of saturation
// modes). To a float: rounded to nearest even (the only mode the model converts to a
// float in), past the range infinity: the runtime's INF/NaN mode, as the kernels'
// f16 arithmetic assumes.
template <typename D> double convert(double x, AscendC::RoundMode mode) {
    if constexpr (std::is_integral<D>::value) {
        if (x != x) {
            return 0.0;
        }
        double rounded = mode == AscendC::RoundMode::CAST_TRUNC ? std::trunc(x) : std::nearbyint(x);
        double low = double(std::numeric_limits<D>::min()), high = double(std::numeric_limits<D>::max());
        return rounded < low ? low : rounded > high ? high : rounded;
    } else {
        if (mode == AscendC::RoundMode::CAST_TRUNC) {
            fail("Cast: the model converts to a float to nearest only, not CAST_TRUNC");
        }
        return x;
    }
}

}  // namespace npu_model

namespace AscendC {

// A cast of `count` elements: the pair and the mode must be in the Atlas A2 table
// (`cast_modes`), and of its modes the model implements CAST_NONE, CAST_RINT and
// CAST_TRUNC (`convert` says how each converts). A half converted to uint8_t must not
// be negative: the reference treats a negative input as an exception there.
template <typename D, typename S>
void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &mode, const uint32_t &count) {
    const char *what = "Cast";
    constexpr unsigned listed = npu_model::cast_modes<D, S>();
    if (listed == 0) {
        npu_model::fail("%s: no Cast from a %zu-byte to a %zu-byte type in the Atlas A2 table", what, sizeof(S),
                        sizeof(D));
    }
    if ((listed & npu_model::mode_bit(mode)) == 0) {
        npu_model::fail("%s: round mode %d is not listed for this pair (or not modelled)", what, int(mode));
    }
    if (count == 0) {
        npu_model::fail("%s: count 0", what);
    }
    npu_model::check_local(dst, count, what);
    npu_model::check_local(src, count, what);
    // The reference's general overlap rule: within one repeat the source and the
    // destination overlap completely or not at all.
    uint64_t read = uint64_t(count) * sizeof(S), written = uint64_t(count) * sizeof(D);
    bool meet = src.address() < dst.address() + written && dst.address() < src.address() + read;
    if (meet && (src.address() != dst.address() || sizeof(S) != sizeof(D))) {
        npu_model::fail("%s: source at ub 0x%llx and destination at ub 0x%llx overlap partly", what,
                        (unsigned long long)src.address(), (unsigned long long)dst.address());
    }
    uint64_t time = npu_model::tick(PIPE_V);
    npu_model::count_elements(PIPE_V, uint64_t(count));
    npu_model::read_ub(PIPE_V, time, src.address(), uint64_t(count) * sizeof(S), what);
    std::vector<double> values(count);
    for (uint32_t i = 0; i < count; ++i) {
        double x = npu_model::load<S>(src.address() + i * sizeof(S));
        if (npu_model::same<S, half>() && npu_model::same<D, uint8_t>() && x < 0.0) {
            npu_model::fail("%s: half %g to uint8_t is negative, an exception in the reference", what, x);
        }
        values[i] = npu_model::convert<D>(x, mode);
    }
    npu_model::write_ub(PIPE_V, time, dst.address(), uint64_t(count) * sizeof(D), what);
    for (uint32_t i = 0; i < count; ++i) {
        npu_model::store<D>(dst.address() + i * sizeof(D), values[i]);
    }
}

// CreateVecIndex: firstValue, firstValue + 1, ... (the count form).
template <typename T> void CreateVecIndex(LocalTensor<T> dst, const T &firstValue, uint32_t count) {
    const char *what = "CreateVecIndex";
    uint64_t time = npu_model::begin<T>(int32_t(count), {&dst}, what);
    npu_model::write_ub(PIPE_V, time, dst.address(), uint64_t(count) * sizeof(T), what);
    for (uint32_t i = 0; i < count; ++i) {
        npu_model::store<T>(dst.address() + i * sizeof(T), double(firstValue) + double(i));
    }
}

template <typename T> void Duplicate(const LocalTensor<T> &dst, const T &scalar, const int32_t &count) {
    double y = double(scalar);
    npu_model::elementwise<T>(dst, nullptr, nullptr, count, "Duplicate", [y](double, double) { return y; });
}

}  // namespace AscendC
