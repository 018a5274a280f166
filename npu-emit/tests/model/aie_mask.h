// aie::mask<N> and the calls that make and use one: lt, le, gt, ge, eq and neq of two
// vectors (one bit per lane: whether the comparison holds, IEEE 754's for bfloat16: a
// NaN lane compares false but for neq; what the device gives for NaN lanes is not
// documented) and select(a, b, m), which takes b's lane where the bit is set and a's
// where it is clear.
#pragma once

#include "aie_vector.h"

namespace aie {

template <unsigned N> struct mask {
    std::array<bool, N> bits{};
    bool test(unsigned i) const { return bits[i]; }
};

namespace detail {
template <typename T, unsigned N, typename F> mask<N> compare(const vector<T, N> &a, const vector<T, N> &b, F f) {
    mask<N> m;
    for (unsigned i = 0; i < N; ++i) m.bits[i] = f(a.lanes[i], b.lanes[i]);
    return m;
}
}  // namespace detail

template <typename T, unsigned N> mask<N> lt(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::compare(a, b, [](T x, T y) { return double(x) < double(y); });
}
template <typename T, unsigned N> mask<N> gt(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::compare(a, b, [](T x, T y) { return double(x) > double(y); });
}
template <typename T, unsigned N> mask<N> eq(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::compare(a, b, [](T x, T y) { return double(x) == double(y); });
}
template <typename T, unsigned N> mask<N> le(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::compare(a, b, [](T x, T y) { return double(x) <= double(y); });
}
template <typename T, unsigned N> mask<N> ge(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::compare(a, b, [](T x, T y) { return double(x) >= double(y); });
}
template <typename T, unsigned N> mask<N> neq(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::compare(a, b, [](T x, T y) { return double(x) != double(y); });
}
template <typename T, unsigned N> vector<T, N> select(const vector<T, N> &a, const vector<T, N> &b, const mask<N> &m) {
    vector<T, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = m.bits[i] ? b.lanes[i] : a.lanes[i];
    return out;
}

}  // namespace aie
