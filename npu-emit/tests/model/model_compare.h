// Compare, Compares and Select over a count of elements.
//
// Compare and Compares write a bit mask: bit i (little-endian: bit i % 8 of byte
// i / 8) is 1 where element i compares true. Their count must fill whole 256-byte
// blocks (the reference: elements past the last whole block are not computed).
// Select reads such a mask: bit 1 takes src0, bit 0 src1 (a tensor,
// VSEL_TENSOR_TENSOR_MODE, or a scalar, VSEL_TENSOR_SCALAR_MODE); the model refuses
// VSEL_CMPMASK_SPR, which reuses one repeat's bits and which the emitter never
// writes. Elements are half or float; every operand starts 32-byte aligned and lies
// inside its buffer; the destination may be a source exactly but not overlap one in
// part. Comparisons are IEEE's: any comparison with a NaN is false but NE.
#pragma once

#include "model_math.h"

namespace AscendC {

enum class CMPMODE { LT, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

}  // namespace AscendC

namespace npu_model {

inline bool compares_true(AscendC::CMPMODE mode, double a, double b) {
    switch (mode) {
    case AscendC::CMPMODE::LT: return a < b;
    case AscendC::CMPMODE::GT: return a > b;
    case AscendC::CMPMODE::EQ: return a == b;
    case AscendC::CMPMODE::LE: return a <= b;
    case AscendC::CMPMODE::GE: return a >= b;
    case AscendC::CMPMODE::NE: return a != b;
    }
    return false;
}

// dst's bits from src0 against src1 (a tensor) or `scalar` (src1 null).
template <typename T, typename U>
void compare_into(const AscendC::LocalTensor<U> &dst, const AscendC::LocalTensor<T> &src0,
                  const AscendC::LocalTensor<T> *src1, double scalar, AscendC::CMPMODE mode, uint32_t count,
                  const char *what) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "the model compares half and float");
    static_assert(sizeof(U) == 1, "the mask is int8_t or uint8_t");
    uint64_t bytes = uint64_t(count) * sizeof(T);
    if (count == 0 || bytes % 256 != 0) {
        fail("%s: %u elements are %llu B, not whole 256-byte blocks", what, count, (unsigned long long)bytes);
    }
    check_local(dst, count / 8, what);
    check_local(src0, count, what);
    if (src1 != nullptr) {
        check_local(*src1, count, what);
    }
    uint64_t time = tick(PIPE_V);
    count_elements(PIPE_V, uint64_t(count));
    read_ub(PIPE_V, time, src0.address(), bytes, what);
    if (src1 != nullptr) {
        read_ub(PIPE_V, time, src1->address(), bytes, what);
    }
    std::vector<uint8_t> bits(count / 8, 0);
    for (uint32_t i = 0; i < count; ++i) {
        double a = load<T>(src0.address() + i * sizeof(T));
        double b = src1 == nullptr ? scalar : load<T>(src1->address() + i * sizeof(T));
        if (compares_true(mode, a, b)) {
            bits[i / 8] |= uint8_t(1u << (i % 8));
        }
    }
    write_ub(PIPE_V, time, dst.address(), count / 8, what);
    std::memcpy(&core().ub[dst.address()], bits.data(), bits.size());
}

// The reference's overlap rule: the destination is a source exactly, or apart.
inline void check_overlap(uint64_t dst, uint64_t src, uint64_t bytes, const char *what) {
    if (dst != src && ranges_meet(dst, bytes, src, bytes)) {
        fail("%s: the destination at ub 0x%llx overlaps a source at ub 0x%llx in part", what,
             (unsigned long long)dst, (unsigned long long)src);
    }
}

template <typename T, typename U>
void select_into(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<U> &mask,
                 const AscendC::LocalTensor<T> &src0, const AscendC::LocalTensor<T> *src1, double scalar,
                 uint32_t count, const char *what) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Select takes half and float");
    if (count == 0) {
        fail("%s: count 0", what);
    }
    uint64_t bytes = uint64_t(count) * sizeof(T), mask_bytes = (count + 7) / 8;
    check_local(dst, count, what);
    check_local(mask, mask_bytes, what);
    check_local(src0, count, what);
    check_overlap(dst.address(), src0.address(), bytes, what);
    check_overlap(dst.address(), mask.address(), bytes, what);
    if (src1 != nullptr) {
        check_local(*src1, count, what);
        check_overlap(dst.address(), src1->address(), bytes, what);
    }
    uint64_t time = tick(PIPE_V);
    count_elements(PIPE_V, uint64_t(count));
    clobber_api_scratch();
    read_ub(PIPE_V, time, mask.address(), mask_bytes, what);
    read_ub(PIPE_V, time, src0.address(), bytes, what);
    if (src1 != nullptr) {
        read_ub(PIPE_V, time, src1->address(), bytes, what);
    }
    std::vector<double> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        bool bit = (core().ub[mask.address() + i / 8] >> (i % 8)) & 1u;
        out[i] = bit ? load<T>(src0.address() + i * sizeof(T))
                     : (src1 == nullptr ? scalar : load<T>(src1->address() + i * sizeof(T)));
    }
    write_ub(PIPE_V, time, dst.address(), bytes, what);
    for (uint32_t i = 0; i < count; ++i) {
        store<T>(dst.address() + i * sizeof(T), out[i]);
    }
}

}  // namespace npu_model

namespace AscendC {

template <typename T, typename U>
void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
             uint32_t count) {
    npu_model::compare_into(dst, src0, &src1, 0.0, cmpMode, count, "Compare");
}

template <typename T, typename U>
void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
              uint32_t count) {
    npu_model::compare_into<T, U>(dst, src0, nullptr, double(src1Scalar), cmpMode, count, "Compares");
}

template <typename T, typename U>
void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
            const LocalTensor<T> &src1, SELMODE selMode, uint32_t count) {
    if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE) {
        npu_model::fail("Select of two tensors: mode %d is not modelled (VSEL_TENSOR_TENSOR_MODE is)", int(selMode));
    }
    npu_model::select_into(dst, selMask, src0, &src1, 0.0, count, "Select");
}

template <typename T, typename U>
void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
            SELMODE selMode, uint32_t count) {
    if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE) {
        npu_model::fail("Select with a scalar: mode %d, not VSEL_TENSOR_SCALAR_MODE", int(selMode));
    }
    npu_model::select_into(dst, selMask, src0, static_cast<const LocalTensor<T> *>(nullptr), double(src1), count,
                           "Select");
}

}  // namespace AscendC
