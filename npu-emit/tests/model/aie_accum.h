// aie::accum and the calls on it the emitted kernels use: accum<accfloat, N> (fp32
// lanes) with from_vector and to_vector<bfloat16>() or to_vector<float>(), add of an
// accumulator and a bfloat16 or float vector (fp32 adds, nearest even; a NaN lane of
// the accumulator kept), sub of an accumulator and a bfloat16 vector, add and sub of
// two accfloat accumulators, mul of two vectors into an accumulator (bf16 into
// accfloat, exact; 8- and 16-bit integers into acc32, 32-bit into acc64), mac and msc
// of two bf16 vectors into accfloat (the exact product added or subtracted, rounded
// once), to_vector<T>(shift) of an integer accumulator, to_fixed<int16_t> of a bf16
// vector (shift 0; the model takes integer values only, which every rounding mode
// converts alike), and to_float<bfloat16> of an int16 vector (shift 0; to nearest
// even). Conversions obey the core's modes, set with set_rounding and set_saturation:
// the model implements conv_even for floats, and for integers no saturation (the low
// bits kept) and saturate (clamped to the type's range); it fails a conversion made
// under another mode.
#pragma once

#include <limits>

#include "aie_vector.h"

struct accfloat {};
struct acc32 {};
struct acc64 {};

namespace aie {

enum class rounding_mode { floor, ceil, positive_inf, negative_inf, symmetric_inf, symmetric_zero, conv_even, conv_odd };
enum class saturation_mode { none, truncate, saturate, symmetric };

namespace detail {
struct Modes {
    rounding_mode rounding = rounding_mode::floor;
    saturation_mode saturation = saturation_mode::none;
};
inline Modes &modes() {
    static Modes state;
    return state;
}
template <typename Tag> struct lane_of;
template <> struct lane_of<accfloat> { using type = float; };
template <> struct lane_of<acc32> { using type = int64_t; };
template <> struct lane_of<acc64> { using type = int64_t; };
template <typename T> struct product_of { using type = acc32; };
template <> struct product_of<bfloat16> { using type = accfloat; };
template <> struct product_of<int32_t> { using type = acc64; };
template <> struct product_of<uint32_t> { using type = acc64; };
}  // namespace detail

inline void set_rounding(rounding_mode mode) { detail::modes().rounding = mode; }
inline void set_saturation(saturation_mode mode) { detail::modes().saturation = mode; }

template <typename Tag, unsigned N> struct accum {
    static_assert(N >= 4 && N <= 64 && (N & (N - 1)) == 0, "an AIE API accumulator size");
    using lane = typename detail::lane_of<Tag>::type;
    std::array<lane, N> lanes{};

    template <typename T> void from_vector(const vector<T, N> &v) {
        for (unsigned i = 0; i < N; ++i) {
            lanes[i] = std::is_integral<T>::value ? lane(int64_t(v.lanes[i])) : lane(float(v.lanes[i]));
        }
    }
    // To bfloat16: nearest, ties to even (the bfloat16 conversion), only under conv_even.
    template <typename T> vector<T, N> to_vector() const {
        static_assert(std::is_same<Tag, accfloat>::value == !std::is_integral<T>::value,
                      "a float accumulator converts to floats, an integer one to integers");
        vector<T, N> v;
        if (std::is_same<Tag, accfloat>::value) {
            if (detail::modes().rounding != rounding_mode::conv_even) {
                aie_model::fail("to_vector of an accfloat under a rounding mode the model does not implement");
            }
            for (unsigned i = 0; i < N; ++i) v.lanes[i] = T(float(lanes[i]));
            return v;
        }
        return to_vector_shifted<T>(0);
    }
    template <typename T> vector<T, N> to_vector(int shift) const { return to_vector_shifted<T>(shift); }

  private:
    // Shift 0 only. Under saturation_mode::none the low bits are kept; under saturate
    // each lane is clamped to T's range (0 and up for an unsigned T: UG1583's SRS
    // saturation); the other modes are not modelled.
    template <typename T> vector<T, N> to_vector_shifted(int shift) const {
        saturation_mode mode = detail::modes().saturation;
        if (shift != 0 || (mode != saturation_mode::none && mode != saturation_mode::saturate)) {
            aie_model::fail("to_vector with shift %d or a saturation mode other than none and saturate", shift);
        }
        vector<T, N> v;
        const int64_t low = int64_t(std::numeric_limits<T>::min()), high = int64_t(std::numeric_limits<T>::max());
        for (unsigned i = 0; i < N; ++i) {
            int64_t x = int64_t(lanes[i]);
            if (mode == saturation_mode::saturate) x = x < low ? low : (x > high ? high : x);
            v.lanes[i] = T(x);
        }
        return v;
    }
};

template <typename T, unsigned N> accum<accfloat, N> add(const accum<accfloat, N> &acc, const vector<T, N> &v) {
    static_assert(std::is_same<T, bfloat16>::value || std::is_same<T, float>::value,
                  "the model adds bfloat16 or float vectors to an accfloat");
    accum<accfloat, N> out;
    // A NaN lane stays as it is, whatever the vector holds (the simulator's fold keeps
    // its accumulator's NaN; which NaN the device gives of two is not documented).
    for (unsigned i = 0; i < N; ++i) {
        const float x = acc.lanes[i];
        out.lanes[i] = x != x ? x : x + float(v.lanes[i]);
    }
    return out;
}
template <unsigned N> accum<accfloat, N> sub(const accum<accfloat, N> &acc, const vector<bfloat16, N> &v) {
    accum<accfloat, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = acc.lanes[i] - float(v.lanes[i]);
    return out;
}
template <unsigned N> accum<accfloat, N> add(const accum<accfloat, N> &a, const accum<accfloat, N> &b) {
    accum<accfloat, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = a.lanes[i] + b.lanes[i];
    return out;
}
template <unsigned N> accum<accfloat, N> sub(const accum<accfloat, N> &a, const accum<accfloat, N> &b) {
    accum<accfloat, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = a.lanes[i] - b.lanes[i];
    return out;
}
template <unsigned N>
accum<accfloat, N> mac(const accum<accfloat, N> &acc, const vector<bfloat16, N> &a, const vector<bfloat16, N> &b) {
    accum<accfloat, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = acc.lanes[i] + float(a.lanes[i]) * float(b.lanes[i]);
    return out;
}
template <unsigned N>
accum<accfloat, N> msc(const accum<accfloat, N> &acc, const vector<bfloat16, N> &a, const vector<bfloat16, N> &b) {
    accum<accfloat, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = acc.lanes[i] - float(a.lanes[i]) * float(b.lanes[i]);
    return out;
}
template <typename R, unsigned N> vector<R, N> to_fixed(const vector<bfloat16, N> &v, int shift) {
    static_assert(std::is_same<R, int16_t>::value, "the model's to_fixed is the int16 one");
    vector<R, N> out;
    for (unsigned i = 0; i < N; ++i) {
        float x = float(v.lanes[i]);
        if (shift != 0 || x != std::floor(x) || x < -32768.0f || x > 32767.0f) {
            aie_model::fail("to_fixed of %g with shift %d: the model converts integer values only", double(x), shift);
        }
        out.lanes[i] = R(x);
    }
    return out;
}

template <typename R, unsigned N> vector<R, N> to_float(const vector<int16_t, N> &v, int shift) {
    static_assert(std::is_same<R, bfloat16>::value, "the model's to_float is the bfloat16 one");
    if (shift != 0) aie_model::fail("to_float with shift %d", shift);
    vector<R, N> out;
    for (unsigned i = 0; i < N; ++i) out.lanes[i] = R(float(v.lanes[i]));
    return out;
}

template <typename T, unsigned N>
accum<typename detail::product_of<T>::type, N> mul(const vector<T, N> &a, const vector<T, N> &b) {
    accum<typename detail::product_of<T>::type, N> out;
    for (unsigned i = 0; i < N; ++i) {
        if (std::is_integral<T>::value) {
            out.lanes[i] = decltype(out.lanes[i] + 0)(int64_t(a.lanes[i]) * int64_t(b.lanes[i]));
        } else {
            out.lanes[i] = decltype(out.lanes[i] + 0)(float(a.lanes[i]) * float(b.lanes[i]));
        }
    }
    return out;
}

}  // namespace aie
