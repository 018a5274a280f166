// The advanced math and activation calls over a count of elements: Tanh, Sigmoid,
// Sin, Cos, Tan, Erf, Floor, Ceil, Round, Log2 and Power with a scalar exponent (each
// with a sharedTmpBuffer), and Log10.
//
// Preconditions, from the reference: half or float elements; a positive count;
// 32-byte-aligned operands inside their buffer; the destination does not overlap the
// source; the temporary buffer starts 32-byte aligned, holds at least the minimum
// GetXxxMaxMinTmpSize reports (without reusing the source) and overlaps neither.
// The call may use all of the temporary buffer, so the model writes a pattern there.
//
// Values: the simulator's by definition, computed in double with the same libm
// functions (and the simulator's own erf, step for step) and rounded once to the
// element type; the device's approximations are not modelled (docs/emit.md). The
// reference's ranges on the data (Sin, Cos, Tan within +-65504; Floor and Ceil within
// +-2147483647 on the Atlas inference cores) are the caller's and are not checked.
#pragma once

#include "model_vector.h"

namespace npu_model {

// npu-core's `scalar::erf`, operation for operation: its Taylor series below 3, 1 -
// erfc from erfc's continued fraction below 27, and 1 above.
inline double simulator_erf(double x) {
    if (std::isnan(x)) {
        return x;
    }
    double a = std::fabs(x);
    double value = 1.0;
    if (a < 3.0) {
        double term = a, sum = a, n = 0.0;
        while (std::fabs(term) > 1e-17 * std::fabs(sum)) {
            n += 1.0;
            term *= -a * a / n;
            double next = term / (2.0 * n + 1.0);
            sum += next;
            if (n > 200.0) {
                break;
            }
        }
        value = sum * M_2_SQRTPI;
    } else if (a < 27.0) {
        double fraction = a;
        for (int n = 60; n >= 1; --n) {
            fraction = a + double(n) / 2.0 / fraction;
        }
        value = 1.0 - std::exp(-a * a) * M_2_SQRTPI / 2.0 / fraction;
    }
    return std::copysign(value, x);
}

inline bool ranges_meet(uint64_t a, uint64_t a_bytes, uint64_t b, uint64_t b_bytes) {
    return a < b + b_bytes && b < a + a_bytes;
}

// The temporary buffer's checks; returns the bytes it spans (to its buffer's end).
inline uint64_t check_scratch(const AscendC::LocalTensor<uint8_t> &tmp, uint64_t least, uint64_t dst, uint64_t src,
                              uint64_t bytes, const char *what) {
    if (tmp.address() % 32 != 0) {
        fail("%s: the temporary buffer at ub 0x%llx does not start 32-byte aligned", what,
             (unsigned long long)tmp.address());
    }
    uint64_t room = tmp.limit() > tmp.address() ? tmp.limit() - tmp.address() : 0;
    if (room < least) {
        fail("%s: the temporary buffer holds %llu B, less than the least %llu B", what, (unsigned long long)room,
             (unsigned long long)least);
    }
    if (ranges_meet(tmp.address(), room, dst, bytes) || ranges_meet(tmp.address(), room, src, bytes)) {
        fail("%s: the temporary buffer at ub 0x%llx overlaps an operand", what, (unsigned long long)tmp.address());
    }
    return room;
}

// dst[i] = f(src[i]) rounded once, after the reference's checks; `tmp` may be null
// (a call without a temporary buffer).
template <typename T, typename F>
void advanced(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
              const AscendC::LocalTensor<uint8_t> *tmp, uint64_t least, uint32_t count, const char *what, F f) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                  "the advanced math calls take half and float elements");
    if (count == 0) {
        fail("%s: count 0", what);
    }
    check_local(dst, count, what);
    check_local(src, count, what);
    uint64_t bytes = uint64_t(count) * sizeof(T);
    if (ranges_meet(dst.address(), bytes, src.address(), bytes)) {
        fail("%s: the destination at ub 0x%llx overlaps the source at ub 0x%llx", what,
             (unsigned long long)dst.address(), (unsigned long long)src.address());
    }
    uint64_t room = tmp == nullptr ? 0 : check_scratch(*tmp, least, dst.address(), src.address(), bytes, what);
    uint64_t time = tick(PIPE_V);
    count_elements(PIPE_V, uint64_t(count));
    read_ub(PIPE_V, time, src.address(), bytes, what);
    std::vector<double> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        out[i] = f(load<T>(src.address() + i * sizeof(T)));
    }
    if (room > 0) {
        write_ub(PIPE_V, time, tmp->address(), room, what);
        std::memset(&core().ub[tmp->address()], 0x5A, room);
    }
    write_ub(PIPE_V, time, dst.address(), bytes, what);
    for (uint32_t i = 0; i < count; ++i) {
        store<T>(dst.address() + i * sizeof(T), out[i]);
    }
}

}  // namespace npu_model

namespace AscendC {

// Each call with its least temporary buffer for float and for half elements
// (asc-devkit impl/adv_api/tiling: GetXxxMaxMinTmpSize's minimum, the larger of the
// core generations' where they differ).
#define NPU_MODEL_ADVANCED(name, least_float, least_half, expression)                                        \
    template <typename T, bool isReuseSource = false>                                                        \
    void name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer, \
              const uint32_t calCount) {                                                                     \
        npu_model::advanced<T>(dst, src, &sharedTmpBuffer, sizeof(T) == 4 ? least_float : least_half, calCount, \
                               #name, [](double x) { return expression; });                                  \
    }
NPU_MODEL_ADVANCED(Tanh, 256, 1024, std::tanh(x))
NPU_MODEL_ADVANCED(Sigmoid, 256, 256, 1.0 / (1.0 + std::exp(-x)))
NPU_MODEL_ADVANCED(Sin, 768, 2048, std::sin(x))
NPU_MODEL_ADVANCED(Cos, 768, 2048, std::cos(x))
NPU_MODEL_ADVANCED(Tan, 1024, 2560, std::tan(x))
NPU_MODEL_ADVANCED(Erf, 768, 2048, npu_model::simulator_erf(x))
NPU_MODEL_ADVANCED(Floor, 0, 512, std::floor(x))
NPU_MODEL_ADVANCED(Ceil, 256, 512, std::ceil(x))
// To nearest, ties to even (the reference: "如果小数部分为0.5，则向偶数舍入").
NPU_MODEL_ADVANCED(Round, 256, 512, std::nearbyint(x))
NPU_MODEL_ADVANCED(Log2, 0, 256, std::log2(x))
#undef NPU_MODEL_ADVANCED

template <typename T, bool isReuseSource = false>
void Log10(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount) {
    npu_model::advanced<T>(dst, src, nullptr, 0, calCount, "Log10", [](double x) { return std::log10(x); });
}

// src ** exponent, the exponent a value of the element type: pow on the exact values,
// rounded once. The least temporary buffer: 256 B per live value and one repeat (6
// and 16 / 2 live values for float and half on the older cores).
template <typename T, bool isReuseSource = false>
void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &exponent,
           const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount) {
    double y = double(exponent);
    npu_model::advanced<T>(dst, src, &sharedTmpBuffer, sizeof(T) == 4 ? 1792 : 2304, calCount, "Power",
                           [y](double x) { return std::pow(x, y); });
}

}  // namespace AscendC
