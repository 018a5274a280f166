// Data movement: DataCopyPad between global memory and the unified buffer with
// DataCopyExtParams / DataCopyPadExtParams; DataCopy between them with DataCopyParams
// (every length and gap in 32-byte blocks: the form the Atlas inference AI Core has);
// and DataCopy inside the unified buffer.
//
// GM->UB (MTE2): blockCount blocks of blockLen bytes; block i is read at
// i * (blockLen + srcStride) bytes into global memory and written at
// i * (ceil32(left + blockLen + right) + dstStride * 32) bytes into the local tensor,
// each block starting on a 32-byte data block with leftPadding elements (`left`
// bytes, at most 32) before its data and rightPadding elements (`right`) after. The
// padding and the bytes up to the next 32-byte boundary get paddingValue when isPad
// is set, otherwise they are undefined (the model writes a pattern there, so a
// kernel that relied on them fails).
// UB->GM (MTE3): the same with the strides' units swapped: srcStride in 32-byte data
// blocks in the unified buffer, dstStride in bytes in global memory.
#pragma once

#include "model_tensor.h"

namespace AscendC {

struct DataCopyExtParams {
    uint16_t blockCount = 0;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

struct DataCopyParams {
    uint16_t blockCount = 0;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
};

template <typename T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

}  // namespace AscendC

namespace npu_model {

constexpr uint64_t ceil32(uint64_t bytes) { return (bytes + 31) / 32 * 32; }

inline void check_blocks(const AscendC::DataCopyExtParams &params, const char *what) {
    if (params.blockCount == 0 || params.blockCount > 4095) {
        fail("%s: blockCount %u is not in 1..4095", what, unsigned(params.blockCount));
    }
    if (params.blockLen == 0 || params.blockLen >= (1u << 21)) {
        fail("%s: blockLen %u is not in 1..2097151 bytes", what, params.blockLen);
    }
}

}  // namespace npu_model

namespace AscendC {

template <typename T>
void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &params,
                 const DataCopyPadExtParams<T> &pad) {
    const char *what = "DataCopyPad GM->UB";
    npu_model::check_blocks(params, what);
    uint64_t left = uint64_t(pad.leftPadding) * sizeof(T), right = uint64_t(pad.rightPadding) * sizeof(T);
    if (left > 32 || right > 32) {
        npu_model::fail("%s: leftPadding %u and rightPadding %u elements are not each within 32 bytes", what,
                        unsigned(pad.leftPadding), unsigned(pad.rightPadding));
    }
    uint64_t padded = npu_model::ceil32(left + params.blockLen + right);
    uint64_t pitch = padded + uint64_t(params.dstStride) * 32;
    uint64_t span = pitch * (params.blockCount - 1) + padded;
    npu_model::check_local(dst, 0, what);
    if (dst.address() + span > dst.limit()) {
        npu_model::fail("%s: %llu B at ub 0x%llx run past the buffer's end", what, (unsigned long long)span,
                        (unsigned long long)dst.address());
    }
    uint64_t time = npu_model::tick(PIPE_MTE2);
    npu_model::Core &c = npu_model::core();
    const uint8_t *from = reinterpret_cast<const uint8_t *>(src.GetPhyAddr());
    for (uint64_t block = 0; block < params.blockCount; ++block) {
        const uint8_t *gm = from + block * (uint64_t(params.blockLen) + params.srcStride);
        npu_model::global(gm, params.blockLen);
        uint64_t ub = dst.address() + block * pitch;
        npu_model::write_ub(PIPE_MTE2, time, ub, padded, what);
        for (uint64_t b = 0; b < padded; b += sizeof(T)) {
            if (b >= left && b < left + params.blockLen) {
                continue;
            }
            if (pad.isPad) {
                std::memcpy(&c.ub[ub + b], &pad.paddingValue, sizeof(T));
            } else {
                std::memset(&c.ub[ub + b], 0x7E, sizeof(T));
            }
        }
        std::memcpy(&c.ub[ub + left], gm, params.blockLen);
    }
}

template <typename T>
void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &params) {
    const char *what = "DataCopyPad UB->GM";
    npu_model::check_blocks(params, what);
    npu_model::check_local(src, 0, what);
    uint64_t pitch = npu_model::ceil32(params.blockLen) + uint64_t(params.srcStride) * 32;
    uint64_t time = npu_model::tick(PIPE_MTE3);
    npu_model::Core &c = npu_model::core();
    uint8_t *to = reinterpret_cast<uint8_t *>(dst.GetPhyAddr());
    for (uint64_t block = 0; block < params.blockCount; ++block) {
        uint64_t ub = src.address() + block * pitch;
        if (ub + params.blockLen > src.limit()) {
            npu_model::fail("%s: block %llu at ub 0x%llx runs past the buffer's end", what,
                            (unsigned long long)block, (unsigned long long)ub);
        }
        npu_model::read_ub(PIPE_MTE3, time, ub, params.blockLen, what);
        uint8_t *gm = to + block * (uint64_t(params.blockLen) + params.dstStride);
        npu_model::global(gm, params.blockLen);
        npu_model::write_global(gm, params.blockLen);
        std::memcpy(gm, &c.ub[ub], params.blockLen);
    }
}

// GM->UB in whole blocks: block i is read at i * (blockLen + srcStride) * 32 bytes
// and written at i * (blockLen + dstStride) * 32 bytes.
template <typename T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &params) {
    const char *what = "DataCopy GM->UB";
    if (params.blockCount == 0 || params.blockCount > 4095 || params.blockLen == 0) {
        npu_model::fail("%s: blockCount %u, blockLen %u blocks", what, unsigned(params.blockCount), unsigned(params.blockLen));
    }
    npu_model::check_local(dst, 0, what);
    uint64_t time = npu_model::tick(PIPE_MTE2);
    uint64_t bytes = uint64_t(params.blockLen) * 32;
    const uint8_t *from = reinterpret_cast<const uint8_t *>(src.GetPhyAddr());
    for (uint64_t block = 0; block < params.blockCount; ++block) {
        const uint8_t *gm = from + block * (bytes + uint64_t(params.srcStride) * 32);
        uint64_t ub = dst.address() + block * (bytes + uint64_t(params.dstStride) * 32);
        if (ub + bytes > dst.limit()) {
            npu_model::fail("%s: block %llu runs past the buffer's end", what, (unsigned long long)block);
        }
        npu_model::global(gm, bytes);
        npu_model::write_ub(PIPE_MTE2, time, ub, bytes, what);
        std::memcpy(&npu_model::core().ub[ub], gm, bytes);
    }
}

// UB->GM in whole blocks, the strides' roles swapped.
template <typename T> void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params) {
    const char *what = "DataCopy UB->GM";
    if (params.blockCount == 0 || params.blockCount > 4095 || params.blockLen == 0) {
        npu_model::fail("%s: blockCount %u, blockLen %u blocks", what, unsigned(params.blockCount), unsigned(params.blockLen));
    }
    npu_model::check_local(src, 0, what);
    uint64_t time = npu_model::tick(PIPE_MTE3);
    uint64_t bytes = uint64_t(params.blockLen) * 32;
    uint8_t *to = reinterpret_cast<uint8_t *>(dst.GetPhyAddr());
    for (uint64_t block = 0; block < params.blockCount; ++block) {
        uint64_t ub = src.address() + block * (bytes + uint64_t(params.srcStride) * 32);
        uint8_t *gm = to + block * (bytes + uint64_t(params.dstStride) * 32);
        if (ub + bytes > src.limit()) {
            npu_model::fail("%s: block %llu runs past the buffer's end", what, (unsigned long long)block);
        }
        npu_model::read_ub(PIPE_MTE3, time, ub, bytes, what);
        npu_model::global(gm, bytes);
        npu_model::write_global(gm, bytes);
        std::memcpy(gm, &npu_model::core().ub[ub], bytes);
    }
}

// UB to UB on the vector pipe; the length is a whole number of 32-byte blocks.
template <typename T> void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t count) {
    const char *what = "DataCopy UB->UB";
    if (count == 0 || count * sizeof(T) % 32 != 0) {
        npu_model::fail("%s: %u elements are not a whole number of 32-byte blocks", what, count);
    }
    npu_model::check_local(dst, count, what);
    npu_model::check_local(src, count, what);
    uint64_t time = npu_model::tick(PIPE_V);
    npu_model::count_elements(PIPE_V, uint64_t(count));
    uint64_t bytes = uint64_t(count) * sizeof(T);
    npu_model::read_ub(PIPE_V, time, src.address(), bytes, what);
    npu_model::write_ub(PIPE_V, time, dst.address(), bytes, what);
    npu_model::Core &c = npu_model::core();
    std::memmove(&c.ub[dst.address()], &c.ub[src.address()], bytes);
}

}  // namespace AscendC
