// The test driver's file input and output (not part of the modelled API).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "model_core.h"

namespace npu_driver {

inline std::string path(const char *dir, const char *name, const char *extension) {
    return std::string(dir) + "/" + name + extension;
}

inline std::vector<uint8_t> read(const char *dir, const char *name, uint64_t bytes) {
    std::vector<uint8_t> data(bytes);
    FILE *file = std::fopen(path(dir, name, ".bin").c_str(), "rb");
    if (file == nullptr || std::fread(data.data(), 1, bytes, file) != bytes) {
        npu_model::fail("driver: cannot read %llu bytes of input %s", (unsigned long long)bytes, name);
    }
    std::fclose(file);
    return data;
}

template <typename T> T read_scalar(const char *dir, const char *name) {
    std::vector<uint8_t> bytes = read(dir, name, sizeof(T));
    T value;
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

inline void write(const char *dir, const char *name, const std::vector<uint8_t> &data) {
    FILE *file = std::fopen(path(dir, name, ".out").c_str(), "wb");
    if (file == nullptr || std::fwrite(data.data(), 1, data.size(), file) != data.size()) {
        npu_model::fail("driver: cannot write output %s", name);
    }
    std::fclose(file);
}

// Writes the census (model_core.h) of the run as `PIPE COUNT` lines, for pipes S, V, M.
inline void write_census(const char *dir) {
    FILE *file = std::fopen(path(dir, "census", ".out").c_str(), "w");
    if (file == nullptr) {
        npu_model::fail("driver: cannot write the census");
    }
    const uint64_t *counts = npu_model::census();
    std::fprintf(file, "S %llu\nV %llu\nM %llu\n", (unsigned long long)counts[PIPE_S],
                 (unsigned long long)counts[PIPE_V], (unsigned long long)counts[PIPE_M]);
    std::fclose(file);
}

}  // namespace npu_driver
