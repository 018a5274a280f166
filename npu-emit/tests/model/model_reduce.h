// WholeReduceMax and WholeReduceMin (asc-devkit's ReduceRepeat with ReduceType MAX/MIN):
// each repeat folds the first `mask` elements of its 256 bytes into one value.
// Element i of repeat r lies at src + r x srcRepStride x 32 + (i / per block) x
// srcBlkStride x 32 + (i % per block) x sizeof(T); with ORDER_ONLY_VALUE (the only
// order the model has) the value of repeat r lands at dst + r x dstRepStride x
// sizeof(T). The source starts 32-byte aligned, the destination element-aligned;
// 1 <= mask <= 256 / sizeof(T), 1 <= repeatTime <= 255. The fold is npu-core's
// `scalar::max`/`min`, which no order changes.
#pragma once

#include "model_vector.h"

namespace AscendC {

enum class ReduceOrder { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

}  // namespace AscendC

namespace npu_model {

template <typename T, typename F>
void whole_reduce(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, int32_t mask,
                  int32_t repeats, int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride,
                  AscendC::ReduceOrder order, const char *what, F fold) {
    const int32_t per_repeat = int32_t(256 / sizeof(T)), per_block = int32_t(32 / sizeof(T));
    if (order != AscendC::ReduceOrder::ORDER_ONLY_VALUE) {
        fail("%s: the model has ORDER_ONLY_VALUE only", what);
    }
    if (mask < 1 || mask > per_repeat || repeats < 1 || repeats > 255) {
        fail("%s: mask %d (1..%d) or repeatTime %d (1..255) out of range", what, mask, per_repeat, repeats);
    }
    if (dst_rep_stride < 0 || src_blk_stride < 0 || src_rep_stride < 0) {
        fail("%s: a negative stride", what);
    }
    check_local(src, 1, what);
    if (dst.position() != AscendC::TPosition::VECCALC) {
        fail("%s: a local tensor outside the unified buffer", what);
    }
    count_elements(PIPE_V, uint64_t(mask) * uint64_t(repeats));
    uint64_t time = tick(PIPE_V);
    std::vector<double> values(repeats);
    for (int32_t r = 0; r < repeats; ++r) {
        for (int32_t i = 0; i < mask; ++i) {
            uint64_t at = src.address() + uint64_t(r) * src_rep_stride * 32 +
                          uint64_t(i / per_block) * src_blk_stride * 32 + uint64_t(i % per_block) * sizeof(T);
            if (at + sizeof(T) > src.limit()) {
                fail("%s: repeat %d reads ub 0x%llx past the buffer's end", what, r, (unsigned long long)at);
            }
            read_ub(PIPE_V, time, at, sizeof(T), what);
            double x = load<T>(at);
            values[r] = i == 0 ? x : fold(values[r], x);
        }
    }
    for (int32_t r = 0; r < repeats; ++r) {
        uint64_t at = dst.address() + uint64_t(r) * dst_rep_stride * sizeof(T);
        if (at + sizeof(T) > dst.limit()) {
            fail("%s: repeat %d writes ub 0x%llx past the buffer's end", what, r, (unsigned long long)at);
        }
        write_ub(PIPE_V, time, at, sizeof(T), what);
        store<T>(at, values[r]);
    }
}

}  // namespace npu_model

namespace AscendC {

#define NPU_MODEL_WHOLE_REDUCE(name, fold)                                                                         \
    template <typename T>                                                                                          \
    void name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime, \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                  \
              ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {                                                \
        npu_model::whole_reduce<T>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order,   \
                                   #name, fold);                                                                   \
    }
NPU_MODEL_WHOLE_REDUCE(WholeReduceMax, npu_model::max_of)
NPU_MODEL_WHOLE_REDUCE(WholeReduceMin, npu_model::min_of)
#undef NPU_MODEL_WHOLE_REDUCE

}  // namespace AscendC
