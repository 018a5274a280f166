// The AIE test driver's data movement (not part of the modelled API): what the
// object FIFOs and the shim DMA do around each call, copies between a tensor in
// host memory and a buffer in the tile's data memory, in the program's copy shapes.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "driver.h"

namespace npu_aie_driver {

struct Dim {
    uint64_t len, gm_stride, buf_stride;
};

// Element (i0, i1, ..) moves between global element `Σ i·gm_stride` and local byte
// `Σ i·buf_stride`; `in` copies into the tile.
inline void copy(uint8_t *local, uint8_t *global, uint64_t element, const Dim *dims, size_t rank, bool in) {
    if (rank == 0) {
        if (in) {
            std::memcpy(local, global, element);
        } else {
            std::memcpy(global, local, element);
        }
        return;
    }
    for (uint64_t i = 0; i < dims[0].len; ++i) {
        copy(local + i * dims[0].buf_stride, global + i * dims[0].gm_stride * element, element, dims + 1, rank - 1, in);
    }
}

inline void copy(uint8_t *local, std::vector<uint8_t> &tensor, uint64_t at, uint64_t element, std::initializer_list<Dim> dims,
                 bool in) {
    copy(local, tensor.data() + at * element, element, dims.begin(), dims.size(), in);
}

}  // namespace npu_aie_driver
