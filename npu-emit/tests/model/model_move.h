// Moves inside the unified buffer on the vector pipe that DataCopy's whole blocks do
// not cover: Copy (the mask-and-repeat form, continuous mask) and Gather (the count
// form, byte offsets from a uint32 tensor); Duplicate's mask-and-repeat form (bit
// mask, block and repeat strides); Trap.
//
// Copy (UBToUB masked move): repeat r moves the first `mask` elements of 8 data
// blocks; element e of a repeat lies in block e / (32 / sizeof(T)) at position
// e % (32 / sizeof(T)), and block k of repeat r starts at
// r * repeatSize * 32 + k * stride * 32 bytes from the operand's start (dst and src
// each with their own stride and repeat size). Elements the mask leaves out are not
// written. Both starts are 32-byte aligned; the mask is 1..256 / sizeof(T); strides
// fit 16 bits and repeat sizes 0..4095; repeatTime 0 is no operation. The bytes one
// call reads and writes may not partly overlap (the reference's general overlap rule).
//
// Gather: dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)] for i < count, each
// offset in bytes, aligned to the element, and the element inside src's buffer; dst,
// src and srcOffset start 32-byte aligned; the source and the destination may not
// share memory.
#pragma once

#include <algorithm>

#include "model_tensor.h"

namespace AscendC {

struct CopyRepeatParams {
    uint16_t dstStride = 1;
    uint16_t srcStride = 1;
    uint16_t dstRepeatSize = 8;
    uint16_t srcRepeatSize = 8;
};

}  // namespace AscendC

namespace npu_model {

// The byte address of element `e` of repeat `r` of an operand of the Copy form.
inline uint64_t repeat_element(uint64_t start, uint64_t r, uint64_t e, uint64_t size, uint16_t stride,
                               uint16_t repeat_size) {
    uint64_t per_block = 32 / size;
    return start + (r * repeat_size + (e / per_block) * stride) * 32 + (e % per_block) * size;
}

// Whether byte ranges [a, a + n) and [b, b + m) meet.
inline bool meets(uint64_t a, uint64_t n, uint64_t b, uint64_t m) { return a < b + m && b < a + n; }

}  // namespace npu_model

namespace AscendC {

template <typename T>
void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask, const uint8_t repeatTime,
          const CopyRepeatParams &params) {
    const char *what = "Copy";
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Copy takes 16- and 32-bit elements");
    npu_model::check_local(dst, 0, what);
    npu_model::check_local(src, 0, what);
    if (mask == 0 || mask > 256 / sizeof(T)) {
        npu_model::fail("%s: mask %llu is not in 1..%zu", what, (unsigned long long)mask, 256 / sizeof(T));
    }
    if (params.dstRepeatSize > 4095 || params.srcRepeatSize > 4095) {
        npu_model::fail("%s: repeat sizes %u and %u are not in 0..4095", what, unsigned(params.dstRepeatSize),
                        unsigned(params.srcRepeatSize));
    }
    uint64_t time = npu_model::tick(PIPE_V);
    std::vector<std::pair<uint64_t, uint64_t>> moves;
    for (uint64_t r = 0; r < repeatTime; ++r) {
        for (uint64_t e = 0; e < mask; ++e) {
            uint64_t from = npu_model::repeat_element(src.address(), r, e, sizeof(T), params.srcStride,
                                                      params.srcRepeatSize);
            uint64_t to = npu_model::repeat_element(dst.address(), r, e, sizeof(T), params.dstStride,
                                                    params.dstRepeatSize);
            if (from + sizeof(T) > src.limit() || to + sizeof(T) > dst.limit()) {
                npu_model::fail("%s: repeat %llu element %llu runs past the buffer's end", what,
                                (unsigned long long)r, (unsigned long long)e);
            }
            moves.emplace_back(from, to);
        }
    }
    std::vector<uint64_t> written;
    for (const auto &move : moves) {
        written.push_back(move.second);
    }
    std::sort(written.begin(), written.end());
    for (const auto &move : moves) {
        // A written element that starts within one element before the read one meets it.
        auto near = std::lower_bound(written.begin(), written.end(), move.first + 1 > sizeof(T) ? move.first + 1 - sizeof(T) : 0);
        for (; near != written.end() && *near < move.first + sizeof(T); ++near) {
            if (*near != move.first) {
                npu_model::fail("%s: ub 0x%llx is read and written by one call", what, (unsigned long long)move.first);
            }
        }
        npu_model::read_ub(PIPE_V, time, move.first, sizeof(T), what);
    }
    std::vector<uint8_t> values(moves.size() * sizeof(T));
    npu_model::Core &c = npu_model::core();
    for (size_t i = 0; i < moves.size(); ++i) {
        std::memcpy(&values[i * sizeof(T)], &c.ub[moves[i].first], sizeof(T));
    }
    npu_model::count_elements(PIPE_V, moves.size());
    for (size_t i = 0; i < moves.size(); ++i) {
        npu_model::write_ub(PIPE_V, time, moves[i].second, sizeof(T), what);
        std::memcpy(&c.ub[moves[i].second], &values[i * sizeof(T)], sizeof(T));
    }
}

template <typename T>
void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
            const uint32_t srcBaseAddr, const uint32_t count) {
    const char *what = "Gather";
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Gather takes 16- and 32-bit elements");
    if (count == 0) {
        npu_model::fail("%s: count 0", what);
    }
    // The count form issues 256-byte repeats, and the repeat count is 8 bits.
    if ((uint64_t(count) * sizeof(T) + 255) / 256 > 255) {
        npu_model::fail("%s: %u elements take %llu repeats of 256 B, more than 255", what, count,
                        (unsigned long long)((uint64_t(count) * sizeof(T) + 255) / 256));
    }
    npu_model::check_local(dst, count, what);
    npu_model::check_local(src, 0, what);
    npu_model::check_local(srcOffset, count, what);
    if (srcBaseAddr % sizeof(T) != 0) {
        npu_model::fail("%s: base %u B is not aligned to the element", what, srcBaseAddr);
    }
    uint64_t time = npu_model::tick(PIPE_V);
    npu_model::count_elements(PIPE_V, count);
    npu_model::read_ub(PIPE_V, time, srcOffset.address(), uint64_t(count) * 4, what);
    npu_model::Core &c = npu_model::core();
    std::vector<uint8_t> values(uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t offset;
        std::memcpy(&offset, &c.ub[srcOffset.address() + 4 * uint64_t(i)], 4);
        uint64_t from = src.address() + srcBaseAddr + offset;
        if (offset % sizeof(T) != 0 || from + sizeof(T) > src.limit()) {
            npu_model::fail("%s: offset %u of element %u is not an element inside the source's buffer", what, offset, i);
        }
        if (npu_model::meets(from, sizeof(T), dst.address(), uint64_t(count) * sizeof(T))) {
            npu_model::fail("%s: element %u is read from ub 0x%llx, inside the destination", what, i,
                            (unsigned long long)from);
        }
        npu_model::read_ub(PIPE_V, time, from, sizeof(T), what);
        std::memcpy(&values[i * sizeof(T)], &c.ub[from], sizeof(T));
    }
    npu_model::write_ub(PIPE_V, time, dst.address(), values.size(), what);
    std::memcpy(&c.ub[dst.address()], values.data(), values.size());
}

// Duplicate's mask-and-repeat form (bit mask): in repeat r, element e of the 256
// bytes is written when bit e of the mask is set (mask[0] bits 0..63, mask[1] bits
// 64..127; elements of 32-bit types stop at 63, so mask[1] must be 0 for them); element
// e lies in block e / (32 / sizeof(T)) at position e % (32 / sizeof(T)), and block j of
// repeat r starts (r * dstRepeatStride + j * dstBlockStride) * 32 bytes from the
// 32-byte-aligned destination. Elements the mask leaves out are not written.
template <typename T>
void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask[], const uint8_t repeatTime,
               const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
    const char *what = "Duplicate (masked)";
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Duplicate takes 16- and 32-bit elements");
    npu_model::check_local(dst, 0, what);
    uint64_t per_repeat = 256 / sizeof(T);
    if (per_repeat == 64 && mask[1] != 0) {
        npu_model::fail("%s: mask[1] is 0x%llx, past the 64 elements of a repeat", what,
                        (unsigned long long)mask[1]);
    }
    uint64_t time = npu_model::tick(PIPE_V);
    for (uint64_t r = 0; r < repeatTime; ++r) {
        for (uint64_t e = 0; e < per_repeat; ++e) {
            if ((mask[e / 64] >> (e % 64) & 1) == 0) {
                continue;
            }
            uint64_t to = npu_model::repeat_element(dst.address(), r, e, sizeof(T), dstBlockStride, dstRepeatStride);
            if (to + sizeof(T) > dst.limit()) {
                npu_model::fail("%s: repeat %llu element %llu runs past the buffer's end", what,
                                (unsigned long long)r, (unsigned long long)e);
            }
            npu_model::write_ub(PIPE_V, time, to, sizeof(T), what);
            npu_model::count_elements(PIPE_V, 1);
            std::memcpy(&npu_model::core().ub[to], &scalarValue, sizeof(T));
        }
    }
}

// Stops the kernel with an exception on the device; the model reports it and fails.
inline void Trap() { npu_model::fail("Trap: the kernel stopped itself"); }

}  // namespace AscendC
