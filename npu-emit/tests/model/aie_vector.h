// aie::vector<T, N> and the calls on it the emitted kernels use: load_v/store_v (the
// pointer aligned to the vector, at most 32 bytes, as the AIE-ML alignment rules
// state), load_unaligned_v/store_unaligned_v (element alignment), broadcast, zeros,
// add, sub (integers, wrapping), max, min, abs, neg, bit_and, bit_or, bit_xor,
// bit_not, reduce_max/reduce_min (the largest or smallest lane), unpack of 8- and
// 16-bit integer vectors (each lane extended to twice its size), vector_cast (the
// same bits as another element type of the same vector size), and upshift/downshift
// of integer lanes (a left shift, wrapping; an arithmetic right shift), filter_even
// and filter_odd (half the lanes: the even or odd chunks of chunk_size lanes), and
// concat of two vectors (the first's lanes, then the second's).
// The sizes are the API's: every vector is 128 to 1024 bits.
#pragma once

#include <array>
#include <type_traits>

#include "aie_core.h"

namespace aie {

namespace detail {
// The element type twice as wide, of the same signedness: what unpack() makes.
template <typename T> struct wider;
template <> struct wider<int8_t> { using type = int16_t; };
template <> struct wider<uint8_t> { using type = uint16_t; };
template <> struct wider<int16_t> { using type = int32_t; };
template <> struct wider<uint16_t> { using type = uint32_t; };
}  // namespace detail

template <typename T, unsigned N> struct vector {
    static_assert(std::is_same<T, bfloat16>::value || std::is_integral<T>::value || std::is_same<T, float>::value,
                  "an AIE API element type");
    static_assert(N * sizeof(T) * 8 >= 128 && N * sizeof(T) * 8 <= 1024 && (N & (N - 1)) == 0,
                  "the AIE API's vectors are 128, 256, 512 or 1024 bits");
    std::array<T, N> lanes{};
    T get(unsigned i) const { return lanes[i]; }
    static constexpr unsigned size() { return N; }
    // Each element sign- or zero-extended (as T is signed or not) to twice its size.
    template <typename U = T> vector<typename detail::wider<U>::type, N> unpack() const {
        vector<typename detail::wider<U>::type, N> out;
        for (unsigned i = 0; i < N; ++i) out.lanes[i] = typename detail::wider<U>::type(lanes[i]);
        return out;
    }
};

namespace detail {
template <typename T, unsigned N> void check(const T *p, bool aligned, const char *what) {
    aie_model::check_access(p, N * sizeof(T), what);
    uint64_t alignment = aligned ? (N * sizeof(T) < 32 ? N * sizeof(T) : 32) : sizeof(T);
    if (aie_model::offset_of(p) % alignment != 0) {
        aie_model::fail("%s<%u> at offset %llu is not %llu-byte aligned", what, N,
                        (unsigned long long)aie_model::offset_of(p), (unsigned long long)alignment);
    }
}

// max and min as npu-core's `scalar::max`/`min` define them: a NaN operand gives
// the other, and +0 is larger than -0 (IEEE 754-2019's maximumNumber, minimumNumber).
template <typename T> T max_of(T a, T b) {
    double x = double(a), y = double(b);
    return std::isnan(x) || y > x || (y == x && !std::signbit(y)) ? b : a;
}
template <typename T> T min_of(T a, T b) {
    double x = double(a), y = double(b);
    return std::isnan(x) || y < x || (y == x && std::signbit(y)) ? b : a;
}

template <typename T, unsigned N, typename F> vector<T, N> map2(const vector<T, N> &a, const vector<T, N> &b, F f) {
    vector<T, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = f(a.lanes[i], b.lanes[i]);
    return out;
}
template <typename T, unsigned N, typename F> vector<T, N> map1(const vector<T, N> &a, F f) {
    vector<T, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = f(a.lanes[i]);
    return out;
}
// Integer lanes wrap, as the vector unit's integer add does.
template <typename T> T wrap(int64_t value) { return T(value); }
}  // namespace detail

template <unsigned N, typename T> vector<T, N> load_v(const T *p) {
    detail::check<T, N>(p, true, "load_v");
    vector<T, N> v;
    std::memcpy(v.lanes.data(), p, N * sizeof(T));
    return v;
}
template <unsigned N, typename T> vector<T, N> load_unaligned_v(const T *p) {
    detail::check<T, N>(p, false, "load_unaligned_v");
    vector<T, N> v;
    std::memcpy(v.lanes.data(), p, N * sizeof(T));
    return v;
}
template <typename T, unsigned N> void store_v(T *p, const vector<T, N> &v) {
    detail::check<T, N>(p, true, "store_v");
    std::memcpy(p, v.lanes.data(), N * sizeof(T));
}
template <typename T, unsigned N> void store_unaligned_v(T *p, const vector<T, N> &v) {
    detail::check<T, N>(p, false, "store_unaligned_v");
    std::memcpy(p, v.lanes.data(), N * sizeof(T));
}

template <typename T, unsigned N> vector<T, N> broadcast(T value) {
    vector<T, N> v;
    v.lanes.fill(value);
    return v;
}
template <typename T, unsigned N> vector<T, N> zeros() { return broadcast<T, N>(T(0.0f)); }

template <typename T, unsigned N> vector<T, N> add(const vector<T, N> &a, const vector<T, N> &b) {
    static_assert(std::is_integral<T>::value, "the model's vector add is the integer one");
    return detail::map2(a, b, [](T x, T y) { return detail::wrap<T>(int64_t(x) + int64_t(y)); });
}
template <typename T, unsigned N> vector<T, N> sub(const vector<T, N> &a, const vector<T, N> &b) {
    static_assert(std::is_integral<T>::value, "the model's vector sub is the integer one");
    return detail::map2(a, b, [](T x, T y) { return detail::wrap<T>(int64_t(x) - int64_t(y)); });
}
template <typename T, unsigned N> vector<T, N> max(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::map2(a, b, [](T x, T y) { return detail::max_of(x, y); });
}
template <typename T, unsigned N> vector<T, N> min(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::map2(a, b, [](T x, T y) { return detail::min_of(x, y); });
}
template <typename T, unsigned N> vector<T, N> abs(const vector<T, N> &a) {
    return detail::map1(a, [](T x) { return std::is_integral<T>::value ? detail::wrap<T>(x < 0 ? -int64_t(x) : int64_t(x)) : T(std::fabs(float(x))); });
}
template <typename T, unsigned N> vector<T, N> neg(const vector<T, N> &a) {
    return detail::map1(a, [](T x) { return std::is_integral<T>::value ? detail::wrap<T>(-int64_t(x)) : T(-float(x)); });
}
template <typename T, unsigned N> vector<T, N> bit_and(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::map2(a, b, [](T x, T y) { return T(x & y); });
}
template <typename T, unsigned N> vector<T, N> bit_or(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::map2(a, b, [](T x, T y) { return T(x | y); });
}
template <typename T, unsigned N> vector<T, N> bit_xor(const vector<T, N> &a, const vector<T, N> &b) {
    return detail::map2(a, b, [](T x, T y) { return T(x ^ y); });
}
template <typename T, unsigned N> vector<T, N> bit_not(const vector<T, N> &a) {
    return detail::map1(a, [](T x) { return T(~x); });
}

// The same bits as a vector of another element type; the sizes must match.
template <typename U, typename T, unsigned N> vector<U, N * sizeof(T) / sizeof(U)> vector_cast(const vector<T, N> &v) {
    vector<U, N * sizeof(T) / sizeof(U)> out;
    static_assert(sizeof(out.lanes) == sizeof(v.lanes), "vector_cast keeps the vector's size");
    std::memcpy(out.lanes.data(), v.lanes.data(), sizeof(v.lanes));
    return out;
}
template <typename T, unsigned N> vector<T, N> upshift(const vector<T, N> &a, unsigned shift) {
    static_assert(std::is_integral<T>::value, "upshift shifts integer lanes");
    if (shift >= 8 * sizeof(T)) aie_model::fail("upshift by %u of %u-bit lanes", shift, unsigned(8 * sizeof(T)));
    return detail::map1(a, [shift](T x) { return T(uint64_t(int64_t(x)) << shift); });
}
template <typename T, unsigned N> vector<T, N> downshift(const vector<T, N> &a, unsigned shift) {
    static_assert(std::is_integral<T>::value, "downshift shifts integer lanes");
    if (shift >= 8 * sizeof(T)) aie_model::fail("downshift by %u of %u-bit lanes", shift, unsigned(8 * sizeof(T)));
    return detail::map1(a, [shift](T x) { return T(int64_t(x) >> shift); });
}

namespace detail {
// The chunks of `chunk` lanes with an even (first = 0) or odd (first = 1) index, in order.
template <typename T, unsigned N> vector<T, N / 2> filter(const vector<T, N> &v, unsigned chunk, unsigned first) {
    if (chunk == 0 || (chunk & (chunk - 1)) != 0 || chunk > N / 2) {
        aie_model::fail("filter of %u lanes in chunks of %u: a power of two up to half the lanes", N, chunk);
    }
    vector<T, N / 2> out;
    for (unsigned i = 0; i < N / 2; ++i) out.lanes[i] = v.lanes[(2 * (i / chunk) + first) * chunk + i % chunk];
    return out;
}
}  // namespace detail

// filter_even(v, 1) = { v[0], v[2], ... }, filter_even(v, 2) = { v[0], v[1], v[4], v[5], ... };
// filter_odd takes the chunks between.
template <typename T, unsigned N> vector<T, N / 2> filter_even(const vector<T, N> &v, unsigned chunk_size = 1) {
    return detail::filter(v, chunk_size, 0);
}
template <typename T, unsigned N> vector<T, N / 2> filter_odd(const vector<T, N> &v, unsigned chunk_size = 1) {
    return detail::filter(v, chunk_size, 1);
}
template <typename T, unsigned N> vector<T, 2 * N> concat(const vector<T, N> &a, const vector<T, N> &b) {
    vector<T, 2 * N> out;
    for (unsigned i = 0; i < N; ++i) {
        out.lanes[i] = a.lanes[i];
        out.lanes[N + i] = b.lanes[i];
    }
    return out;
}

// The largest (smallest) lane, by max_of (min_of): for integers the plain order, for
// bfloat16 maximumNumber (minimumNumber), which gives one value in any order.
template <typename T, unsigned N> T reduce_max(const vector<T, N> &a) {
    T best = a.lanes[0];
    for (unsigned i = 1; i < N; ++i) best = detail::max_of(best, a.lanes[i]);
    return best;
}
template <typename T, unsigned N> T reduce_min(const vector<T, N> &a) {
    T best = a.lanes[0];
    for (unsigned i = 1; i < N; ++i) best = detail::min_of(best, a.lanes[i]);
    return best;
}

}  // namespace aie
