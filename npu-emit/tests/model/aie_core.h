// The modelled AIE tile: its local data memory, the bfloat16 type, and the checks.
//
// The driver registers the tile's data memory; every vector load and store must lie
// inside it. bfloat16 converts from float by rounding to nearest, ties to even (a NaN
// stays a NaN, quieted), as `aie::rounding_mode::conv_even` does and as npu-core
// stores bf16; to float it is exact.
#pragma once

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace aie_model {

[[noreturn]] inline void fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    std::fprintf(stderr, "model: ");
    std::vfprintf(stderr, format, args);
    std::fprintf(stderr, "\n");
    va_end(args);
    std::exit(3);
}

struct Memory {
    const uint8_t *start = nullptr;
    uint64_t bytes = 0;
};

inline Memory &memory() {
    static Memory state;
    return state;
}

// The tile's data memory, as the driver lays it out.
inline void register_memory(const uint8_t *start, uint64_t bytes) { memory() = Memory{start, bytes}; }

inline void check_access(const void *at, uint64_t bytes, const char *what) {
    const uint8_t *p = static_cast<const uint8_t *>(at);
    const Memory &m = memory();
    if (p < m.start || p + bytes > m.start + m.bytes) {
        fail("%s of %llu B at offset %lld is outside the tile's %llu B of data memory", what,
             (unsigned long long)bytes, (long long)(p - m.start), (unsigned long long)m.bytes);
    }
}

inline uint64_t offset_of(const void *at) { return uint64_t(static_cast<const uint8_t *>(at) - memory().start); }

}  // namespace aie_model

struct bfloat16 {
    uint16_t bits = 0;
    bfloat16() = default;
    bfloat16(float value) {
        uint32_t word;
        std::memcpy(&word, &value, 4);
        if (std::isnan(value)) {
            bits = uint16_t((word >> 16) | 0x0040);
            return;
        }
        uint32_t rounding = 0x7FFF + ((word >> 16) & 1);
        bits = uint16_t((word + rounding) >> 16);
    }
    operator float() const {
        uint32_t word = uint32_t(bits) << 16;
        float value;
        std::memcpy(&value, &word, 4);
        return value;
    }
};
