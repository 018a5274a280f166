// The cube path: DataCopy GM->L1 with Nd2NzParams (MTE2), LoadData L1->L0A/L0B with
// LoadData2DParams (MTE1), Mmad with MmadParams (M) and Fixpipe L0C->GM with
// FixpipeParamsV220 (FIX), as the Ascend C API reference describes them for the
// Atlas A2 training/inference series (ascend910b).
//
// Layouts, for b16 inputs (a fractal is 16 x 16 elements, 512 B; C0 is 16 elements,
// 32 B), in the reference's names:
//   Nz (L1, after ND2NZ): element (r, c) at (c / C0) * dstNzC0Stride * 32 B +
//     r * dstNzNStride * 32 B + (c % C0) * 2 B; a row's tail up to C0 is zero.
//   Zz (L0A, matrix A of m x k): fractal (i / 16, kk / 16) at
//     ((i / 16) * ceil(k / 16) + kk / 16) * 512 B, row-major inside.
//   Zn (L0B, matrix B of k x n): fractal (kk / 16, j / 16) at
//     ((kk / 16) * ceil(n / 16) + j / 16) * 512 B, column-major inside.
//   Nz (L0C, matrix C of m x n in f32): element (i, j) at
//     ((j / 16) * ceil16(m) + i) * 64 B + (j % 16) * 4 B.
// LoadData copies 512-byte fractals (startIndex + r * srcStride of the source, to
// r * (1 + dstGap) of the destination), transposing each when ifTranspose is set:
// an Nz tile in L1 becomes Zz in L0A as it is and Zn in L0B transposed.
//
// Mmad's arithmetic is the simulator's by definition (npu-sim's cube module): each
// C[i][j] starts from 0 (cmatrixInitVal) or what L0C holds, and adds
// A[i][kk] * B[kk][j] for kk = 0, 1, ... in order, rounding to f32 after each
// addition; an f16 product is exact in f32. The reference does not fix the order in
// which the cube sums over k; this model and the simulator agree on this one, NaNs
// included (see multiply_add).
#pragma once

#include <algorithm>
#include <type_traits>

#include "model_tensor.h"

enum QuantMode_t { NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };

namespace AscendC {

struct Nd2NzParams {
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
};

// repeatTimes is 8 bits in the reference; it is wider here so that a count past
// 255 reaches the model's check instead of wrapping.
struct LoadData2DParams {
    uint16_t startIndex = 0;
    uint16_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint8_t sid = 0;
    uint16_t dstGap = 0;
    bool ifTranspose = false;
    uint8_t addrMode = 0;
};

struct MmadParams {
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
};

struct FixpipeParamsV220 {
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR };

struct FixpipeConfig {
    CO2Layout format;
    bool isToUB;
};

constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR, false};

}  // namespace AscendC

namespace npu_model {

constexpr uint64_t FRACTAL = 512;

inline uint64_t ceil16(uint64_t n) { return (n + 15) / 16 * 16; }

// The memory a local tensor of the cube path lives in, which must be one of the
// positions `allowed` names (e.g. "A1/B1").
template <typename T>
inline Memory &cube_memory(const AscendC::LocalTensor<T> &tensor, const char *what, const char *allowed) {
    Core &c = core();
    Memory *memory = nullptr;
    const char *position = "VECCALC";
    switch (tensor.position()) {
    case AscendC::TPosition::A1:
    case AscendC::TPosition::B1:
        memory = &c.l1;
        position = "A1/B1";
        break;
    case AscendC::TPosition::A2:
        memory = &c.l0a;
        position = "A2";
        break;
    case AscendC::TPosition::B2:
        memory = &c.l0b;
        position = "B2";
        break;
    case AscendC::TPosition::CO1:
        memory = &c.l0c;
        position = "CO1";
        break;
    default:
        break;
    }
    if (memory == nullptr || std::strcmp(position, allowed) != 0) {
        fail("%s: a local tensor in %s, where the reference allows %s", what, position, allowed);
    }
    if (memory->capacity == 0) {
        fail("%s: the core has no %s (start_cube was not called)", what, memory->name);
    }
    return filled(*memory);
}

// `bytes` from `address` lie inside the tensor's buffer and its memory.
template <typename T>
inline void check_cube_range(const Memory &memory, const AscendC::LocalTensor<T> &tensor, uint64_t address,
                             uint64_t bytes, const char *what) {
    if (address + bytes > tensor.limit() || address + bytes > memory.capacity) {
        fail("%s touches %s 0x%llx..0x%llx, past its buffer's end 0x%llx or the %llu B of %s", what, memory.name,
             (unsigned long long)address, (unsigned long long)(address + bytes), (unsigned long long)tensor.limit(),
             (unsigned long long)memory.capacity, memory.name);
    }
}

template <typename T> inline void check_aligned(const AscendC::LocalTensor<T> &tensor, uint64_t alignment, const char *what) {
    if (tensor.address() % alignment != 0) {
        fail("%s: a local tensor at 0x%llx does not start %llu-byte aligned", what,
             (unsigned long long)tensor.address(), (unsigned long long)alignment);
    }
}

}  // namespace npu_model

namespace AscendC {

// GM->L1 with ND2NZ: ndNum matrices of nValue rows of dValue elements (srcDValue
// apart in GM) into Nz fractals; each row's tail up to C0 elements is zero.
template <typename T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const Nd2NzParams &params) {
    const char *what = "DataCopy GM->L1 (ND2NZ)";
    npu_model::Memory &l1 = npu_model::cube_memory(dst, what, "A1/B1");
    npu_model::check_aligned(dst, 32, what);
    if (params.ndNum > 4095 || params.nValue > 16384 || params.srcDValue == 0 || params.dstNzC0Stride == 0 ||
        params.dstNzC0Stride > 16384 || params.dstNzNStride == 0 || params.dstNzNStride > 16384) {
        npu_model::fail("%s: ndNum %u, nValue %u, srcDValue %u, dstNzC0Stride %u, dstNzNStride %u out of range", what,
                        unsigned(params.ndNum), unsigned(params.nValue), unsigned(params.srcDValue),
                        unsigned(params.dstNzC0Stride), unsigned(params.dstNzNStride));
    }
    if (params.ndNum == 0 || params.nValue == 0 || params.dValue == 0) {
        return;
    }
    constexpr uint64_t c0 = 32 / sizeof(T);
    uint64_t time = npu_model::tick(PIPE_MTE2);
    const T *from = src.GetPhyAddr();
    for (uint64_t nd = 0; nd < params.ndNum; ++nd) {
        for (uint64_t row = 0; row < params.nValue; ++row) {
            const T *gm = from + nd * params.srcNdMatrixStride + row * params.srcDValue;
            npu_model::global(reinterpret_cast<const uint8_t *>(gm), params.dValue * sizeof(T));
            for (uint64_t column = 0; column < params.dValue; column += c0) {
                uint64_t at = dst.address() + nd * params.dstNzMatrixStride * sizeof(T) +
                              column / c0 * params.dstNzC0Stride * 32 + row * params.dstNzNStride * 32;
                npu_model::check_cube_range(l1, dst, at, 32, what);
                npu_model::write_shadow(l1.shadow, l1.name, PIPE_MTE2, time, at, 32, what);
                uint64_t valid = std::min<uint64_t>(c0, params.dValue - column);
                std::memset(&l1.bytes[at], 0, 32);
                std::memcpy(&l1.bytes[at], gm + column, valid * sizeof(T));
            }
        }
    }
}

// L1->L0A or L0B: repeatTimes fractals of 512 B, the r-th from fractal
// startIndex + r * srcStride of the source to fractal r * (1 + dstGap) of the
// destination, each transposed (b16 only) when ifTranspose is set.
template <typename T> void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2DParams &params) {
    const char *what = dst.position() == TPosition::B2 ? "LoadData L1->L0B" : "LoadData L1->L0A";
    npu_model::Memory &l1 = npu_model::cube_memory(src, what, "A1/B1");
    npu_model::Memory &l0 = npu_model::cube_memory(dst, what, dst.position() == TPosition::B2 ? "B2" : "A2");
    npu_model::check_aligned(src, 32, what);
    npu_model::check_aligned(dst, npu_model::FRACTAL, what);
    if (params.repeatTimes > 255) {
        npu_model::fail("%s: repeatTimes %u is not in 0..255", what, unsigned(params.repeatTimes));
    }
    if (params.ifTranspose && sizeof(T) != 2) {
        npu_model::fail("%s: ifTranspose moves b16 data only", what);
    }
    if (params.addrMode != 0) {
        npu_model::fail("%s: addrMode %u is for GM->L1 only", what, unsigned(params.addrMode));
    }
    uint64_t time = npu_model::tick(PIPE_MTE1);
    for (uint64_t r = 0; r < params.repeatTimes; ++r) {
        uint64_t from = src.address() + (params.startIndex + r * params.srcStride) * npu_model::FRACTAL;
        uint64_t to = dst.address() + r * (1 + uint64_t(params.dstGap)) * npu_model::FRACTAL;
        npu_model::check_cube_range(l1, src, from, npu_model::FRACTAL, what);
        npu_model::check_cube_range(l0, dst, to, npu_model::FRACTAL, what);
        npu_model::read_shadow(l1.shadow, l1.name, PIPE_MTE1, time, from, npu_model::FRACTAL, what);
        npu_model::write_shadow(l0.shadow, l0.name, PIPE_MTE1, time, to, npu_model::FRACTAL, what);
        if (!params.ifTranspose) {
            std::memcpy(&l0.bytes[to], &l1.bytes[from], npu_model::FRACTAL);
            continue;
        }
        for (uint64_t row = 0; row < 16; ++row) {
            for (uint64_t column = 0; column < 16; ++column) {
                std::memcpy(&l0.bytes[to + (column * 16 + row) * 2], &l1.bytes[from + (row * 16 + column) * 2], 2);
            }
        }
    }
}

}  // namespace AscendC

namespace npu_model {

// An accumulating Mmad of fewer than 10 fractals of C must follow the Mmad that
// wrote its L0C through PipeBarrier<PIPE_M> (the reference's "同步优化说明").
inline void check_m_barrier(const Memory &l0c, uint64_t address, uint64_t bytes, uint64_t m, uint64_t n) {
    if ((m / 16) * (n / 16) >= 10) {
        return;
    }
    for (uint64_t b = address; b < address + bytes; ++b) {
        const Shadow &s = l0c.shadow[b];
        if (s.writer == PIPE_M && s.written > core().m_barrier) {
            fail("Mmad of %llux%llu accumulates onto l0c 0x%llx, which the Mmad at its step %llu wrote, with no "
                 "PipeBarrier<PIPE_M> between",
                 (unsigned long long)m, (unsigned long long)n, (unsigned long long)b, (unsigned long long)s.written);
        }
    }
}

// One step of Mmad's sum with the NaNs the simulator gives (its vectorised build adds
// the product to the accumulator, so a NaN product replaces a NaN accumulator, which
// the edge inputs show): a NaN factor passes on, inf x 0 is the default NaN, and a NaN
// accumulator stays only while the products are numbers. Which of two NaN factors
// passes on the edge inputs do not tell; the first does here. Written out because a
// compiler may swap the operands of an addition, which changes which NaN comes out.
inline float multiply_add(float acc, float x, float y) {
    float product = x != x ? x : (y != y ? y : x * y);
    if (product != product) {
        return product;
    }
    return acc != acc ? acc : acc + product;
}

}  // namespace npu_model

namespace AscendC {

// C (+)= A x B on f16 inputs with f32 accumulators, in the layouts above.
template <typename T, typename U, typename S>
void Mmad(const LocalTensor<T> &dst, const LocalTensor<U> &fm, const LocalTensor<S> &filter, const MmadParams &params) {
    static_assert(std::is_same<T, float>::value && std::is_same<U, half>::value && std::is_same<S, half>::value,
                  "the model has the half x half -> float Mmad only");
    const char *what = "Mmad";
    npu_model::Memory &l0a = npu_model::cube_memory(fm, what, "A2");
    npu_model::Memory &l0b = npu_model::cube_memory(filter, what, "B2");
    npu_model::Memory &l0c = npu_model::cube_memory(dst, what, "CO1");
    npu_model::check_aligned(fm, 512, what);
    npu_model::check_aligned(filter, 512, what);
    npu_model::check_aligned(dst, 1024, what);
    uint64_t m = params.m, n = params.n, k = params.k;
    if (m > 4095 || n > 4095 || k > 4095) {
        npu_model::fail("%s: m %llu, n %llu, k %llu not in 0..4095", what, (unsigned long long)m,
                        (unsigned long long)n, (unsigned long long)k);
    }
    if (m == 0 || n == 0 || k == 0) {
        return;
    }
    if (m == 1) {
        npu_model::fail("%s: m = 1 reads A as ND (GEMV), which the model does not hold", what);
    }
    if (params.cmatrixSource || params.isBias || params.unitFlag != 0) {
        npu_model::fail("%s: cmatrixSource, isBias and unitFlag are not modelled", what);
    }
    uint64_t m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + 15) / 16;
    uint64_t a_bytes = m1 * k1 * 512, b_bytes = k1 * n1 * 512, c_bytes = n1 * m1 * 1024;
    npu_model::check_cube_range(l0a, fm, fm.address(), a_bytes, what);
    npu_model::check_cube_range(l0b, filter, filter.address(), b_bytes, what);
    npu_model::check_cube_range(l0c, dst, dst.address(), c_bytes, what);
    if (!params.cmatrixInitVal) {
        npu_model::check_m_barrier(l0c, dst.address(), c_bytes, m, n);
    }
    uint64_t time = npu_model::tick(PIPE_M);
    npu_model::count_elements(PIPE_M, uint64_t(m) * n * k);
    npu_model::read_shadow(l0a.shadow, l0a.name, PIPE_M, time, fm.address(), a_bytes, what);
    npu_model::read_shadow(l0b.shadow, l0b.name, PIPE_M, time, filter.address(), b_bytes, what);
    if (!params.cmatrixInitVal) {
        npu_model::read_shadow(l0c.shadow, l0c.name, PIPE_M, time, dst.address(), c_bytes, what);
    }
    npu_model::write_shadow(l0c.shadow, l0c.name, PIPE_M, time, dst.address(), c_bytes, what);
    // A row by row and B column by column as floats first: a half converts in
    // software on the host, so once per element rather than once per product.
    std::vector<float> rows(m * k), columns(n * k);
    auto element = [](const npu_model::Memory &memory, uint64_t at) {
        half value;
        std::memcpy(&value, &memory.bytes[at], 2);
        return float(value);
    };
    for (uint64_t kk = 0; kk < k; ++kk) {
        for (uint64_t i = 0; i < m; ++i) {
            rows[i * k + kk] = element(l0a, fm.address() + ((i / 16) * k1 + kk / 16) * 512 + ((i % 16) * 16 + kk % 16) * 2);
        }
        for (uint64_t j = 0; j < n; ++j) {
            columns[j * k + kk] =
                element(l0b, filter.address() + ((kk / 16) * n1 + j / 16) * 512 + ((j % 16) * 16 + kk % 16) * 2);
        }
    }
    for (uint64_t i = 0; i < m; ++i) {
        for (uint64_t j = 0; j < n; ++j) {
            uint64_t c_at = dst.address() + ((j / 16) * m1 * 16 + i) * 64 + (j % 16) * 4;
            float acc = 0.0f;
            if (!params.cmatrixInitVal) {
                std::memcpy(&acc, &l0c.bytes[c_at], 4);
            }
            const float *row = &rows[i * k];
            const float *column = &columns[j * k];
            for (uint64_t kk = 0; kk < k; ++kk) {
                acc = npu_model::multiply_add(acc, row[kk], column[kk]);
            }
            std::memcpy(&l0c.bytes[c_at], &acc, 4);
        }
    }
}

// L0C (Nz) -> GM (ND, NZ2ND): mSize x nSize accumulators, column block b at
// b * srcStride * 16 elements, each row to dst + row * dstStride, cast by quantPre.
template <typename T, typename U, const FixpipeConfig &config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T> &dst, const LocalTensor<U> &src, const FixpipeParamsV220 &params) {
    static_assert(config.format == CO2Layout::ROW_MAJOR, "the model has the NZ2ND Fixpipe only");
    static_assert(std::is_same<U, float>::value, "the model has the Fixpipe of float accumulators only");
    const char *what = "Fixpipe L0C->GM";
    npu_model::Memory &l0c = npu_model::cube_memory(src, what, "CO1");
    npu_model::check_aligned(src, 64, what);
    QuantMode_t wanted = std::is_same<T, half>::value ? F322F16 : NoQuant;
    if (!std::is_same<T, half>::value && !std::is_same<T, float>::value) {
        npu_model::fail("%s: the model writes float or half only", what);
    }
    if (params.quantPre != wanted) {
        npu_model::fail("%s: quantPre %d does not cast float to the destination's type (%d)", what,
                        int(params.quantPre), int(wanted));
    }
    if (params.nSize % 16 != 0 || params.nSize > 4095 || params.mSize > 8192) {
        npu_model::fail("%s: nSize %u is not a multiple of 16 in 0..4095 or mSize %u is past 8192", what,
                        unsigned(params.nSize), unsigned(params.mSize));
    }
    if (params.ndNum != 1 || params.reluEn || params.unitFlag != 0 || params.isChannelSplit) {
        npu_model::fail("%s: ndNum other than 1, reluEn, unitFlag and channel split are not modelled", what);
    }
    if (params.nSize == 0 || params.mSize == 0) {
        return;
    }
    if (params.srcStride != npu_model::ceil16(params.mSize) || params.dstStride == 0) {
        npu_model::fail("%s: srcStride %u is not mSize %u rounded up to 16, or dstStride is 0", what,
                        unsigned(params.srcStride), unsigned(params.mSize));
    }
    uint64_t time = npu_model::tick(PIPE_FIX);
    for (uint64_t row = 0; row < params.mSize; ++row) {
        T *gm = dst.GetPhyAddr() + row * params.dstStride;
        uint8_t *bytes = reinterpret_cast<uint8_t *>(gm);
        npu_model::global(bytes, params.nSize * sizeof(T));
        npu_model::write_global(bytes, params.nSize * sizeof(T));
        for (uint64_t block = 0; block < params.nSize / 16; ++block) {
            uint64_t at = src.address() + (block * params.srcStride * 16 + row * 16) * 4;
            npu_model::check_cube_range(l0c, src, at, 64, what);
            npu_model::read_shadow(l0c.shadow, l0c.name, PIPE_FIX, time, at, 64, what);
            for (uint64_t j = 0; j < 16; ++j) {
                float value;
                std::memcpy(&value, &l0c.bytes[at + j * 4], 4);
                gm[block * 16 + j] = T(value);
            }
        }
    }
}

}  // namespace AscendC
