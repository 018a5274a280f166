// Shifts by a scalar over a count of elements: ShiftLeft, ShiftRight.
//
// Preconditions, from the reference (Atlas A2/A3): int16_t, uint16_t, int32_t or
// uint32_t elements; the shift in [0, 16] for 16-bit and [0, 32] for 32-bit elements;
// operands as for every vector call. ShiftLeft keeps the low bits; ShiftRight is
// arithmetic for signed and logical for unsigned elements; a shift by the whole
// width leaves 0 (or -1 for a negative signed element shifted right).
#pragma once

#include "model_vector.h"

namespace npu_model {

template <typename T> inline void check_shift(const T &scalar, const char *what) {
    static_assert(std::is_integral<T>::value && (sizeof(T) == 2 || sizeof(T) == 4),
                  "the shifts take 16- and 32-bit integers");
    if (int64_t(scalar) < 0 || int64_t(scalar) > int64_t(8 * sizeof(T))) {
        fail("%s: shift %lld outside [0, %d]", what, (long long)scalar, int(8 * sizeof(T)));
    }
}

template <typename T> inline double shift_left(double x, int64_t n) {
    if (n >= int64_t(8 * sizeof(T))) {
        return 0.0;
    }
    using U = typename std::make_unsigned<T>::type;
    return double(T(U(U(T(int64_t(x))) << n)));
}

template <typename T> inline double shift_right(double x, int64_t n) {
    int64_t value = int64_t(x);
    return double(n >= int64_t(8 * sizeof(T)) ? (value < 0 ? -1 : 0) : (value >> n));
}

}  // namespace npu_model

namespace AscendC {

template <typename T>
void ShiftLeft(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &count) {
    npu_model::check_shift(scalarValue, "ShiftLeft");
    int64_t n = int64_t(scalarValue);
    npu_model::elementwise<T>(dst, &src, nullptr, count, "ShiftLeft",
                              [n](double x, double) { return npu_model::shift_left<T>(x, n); });
}

template <typename T>
void ShiftRight(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &count) {
    npu_model::check_shift(scalarValue, "ShiftRight");
    int64_t n = int64_t(scalarValue);
    npu_model::elementwise<T>(dst, &src, nullptr, count, "ShiftRight",
                              [n](double x, double) { return npu_model::shift_right<T>(x, n); });
}

}  // namespace AscendC
