// PairReduceSum (asc-devkit's ReducePairElem with ReduceType::SUM), see pair_reduce_sum.
//
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

// The source bytes one PairReduceSum repeat reads: [first, last).
struct Span {
    uint64_t first, last;
    bool meets(const Span &other) const { return first < other.last && other.first < last; }
};

// PairReduceSum: each repeat adds the adjacent pairs (2p, 2p + 1) of its first `mask`
// elements (`mask` even: no pair is half active) and writes sum p at dst + r x
// dstRepStride x 128 + p x sizeof(T); the elements lie as WholeReduceMax's do. A NaN
// first element of a pair stays as it is, as `Add`'s first source does. The reference's
// overlap rules (the "general address overlap constraints"): a repeat's destination
// starts where its source starts or misses it (asc-devkit's own ReduceSum reduces in
// place so), and no repeat writes what a later repeat reads. Its reads see only the
// vector writes a PipeBarrier<PIPE_V> orders before it.
template <typename T>
void pair_reduce_sum(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, int32_t repeats,
                     int32_t mask, int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride) {
    const char *what = "PairReduceSum";
    const int32_t per_repeat = int32_t(256 / sizeof(T)), per_block = int32_t(32 / sizeof(T));
    if (mask < 2 || mask > per_repeat || mask % 2 != 0 || repeats < 1 || repeats > 255) {
        fail("%s: mask %d (even, 2..%d) or repeatTime %d (1..255) out of range", what, mask, per_repeat, repeats);
    }
    if (dst_rep_stride < 0 || src_blk_stride < 0 || src_rep_stride < 0) {
        fail("%s: a negative stride", what);
    }
    check_local(src, 1, what);
    check_local(dst, 1, what);
    Core &c = core();
    count_elements(PIPE_V, uint64_t(mask) * uint64_t(repeats));
    uint64_t time = tick(PIPE_V);
    auto element = [&](int32_t r, int32_t i) {
        return src.address() + uint64_t(r) * src_rep_stride * 32 + uint64_t(i / per_block) * src_blk_stride * 32 +
               uint64_t(i % per_block) * sizeof(T);
    };
    std::vector<Span> reads(repeats), writes(repeats);
    std::vector<std::vector<double>> sums(repeats);
    for (int32_t r = 0; r < repeats; ++r) {
        reads[r] = {element(r, 0), element(r, mask - 1) + sizeof(T)};
        uint64_t out = dst.address() + uint64_t(r) * dst_rep_stride * 128;
        writes[r] = {out, out + uint64_t(mask / 2) * sizeof(T)};
        if (reads[r].last > src.limit() || writes[r].last > dst.limit()) {
            fail("%s: repeat %d runs past its buffer's end", what, r);
        }
        for (int32_t i = 0; i < mask; i += 2) {
            for (uint64_t at : {element(r, i), element(r, i + 1)}) {
                for (uint64_t b = at; b < at + sizeof(T); ++b) {
                    const Shadow &s = c.shadow[b];
                    if (s.writer == PIPE_V && s.written > c.v_barrier) {
                        fail("%s reads ub 0x%llx, written by an earlier vector call with no PipeBarrier<PIPE_V> "
                             "between", what, (unsigned long long)b);
                    }
                }
                read_ub(PIPE_V, time, at, sizeof(T), what);
            }
            double x = load<T>(element(r, i)), y = load<T>(element(r, i + 1));
            sums[r].push_back(x != x ? x : x + y);
        }
    }
    for (int32_t r = 0; r < repeats; ++r) {
        if (writes[r].meets(reads[r]) && writes[r].first != reads[r].first) {
            fail("%s: repeat %d's destination overlaps its source from a different start", what, r);
        }
        for (int32_t later = r + 1; later < repeats; ++later) {
            if (writes[r].meets(reads[later])) {
                fail("%s: repeat %d writes what repeat %d reads", what, r, later);
            }
        }
        write_ub(PIPE_V, time, writes[r].first, writes[r].last - writes[r].first, what);
        for (size_t p = 0; p < sums[r].size(); ++p) {
            store<T>(writes[r].first + p * sizeof(T), sums[r][p]);
        }
    }
}

}  // namespace npu_model

namespace AscendC {

template <typename T, bool isSetMask = true>
void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                   const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                   const int32_t srcRepStride) {
    npu_model::pair_reduce_sum<T>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
}

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
