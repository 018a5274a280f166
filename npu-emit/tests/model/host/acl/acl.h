// A stand-in of the ACL runtime (acl/acl.h) for running an emitted host launch
// (main.cpp) here: device memory is host memory registered with the CPU model, and
// ACLRT_LAUNCH_KERNEL runs the kernel on every core in turn through the model, as
// the test driver does. Only what main.cpp calls is here. Not part of the modelled
// kernel API; the target's capacities come as NPU_* macros from the test.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kernel_operator.h"

using aclError = int;
using aclrtStream = void *;
using aclFloat16 = uint16_t;
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST };
enum aclrtMemcpyKind { ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST };

inline aclError aclInit(const char *) { return 0; }
inline aclError aclFinalize() { return 0; }
inline aclError aclrtSetDevice(int32_t) { return 0; }
inline aclError aclrtResetDevice(int32_t) { return 0; }
inline aclError aclrtCreateStream(aclrtStream *stream) {
    *stream = nullptr;
    return 0;
}
inline aclError aclrtDestroyStream(aclrtStream) { return 0; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return 0; }

inline aclError aclrtMalloc(void **device, size_t bytes, aclrtMemMallocPolicy) {
    *device = std::malloc(bytes);
    std::memset(*device, 0xCD, bytes);
    npu_model::register_global(static_cast<uint8_t *>(*device), bytes);
    return 0;
}
inline aclError aclrtFree(void *device) {
    std::free(device);
    return 0;
}
inline aclError aclrtMallocHost(void **host, size_t bytes) {
    *host = std::malloc(bytes);
    return 0;
}
inline aclError aclrtFreeHost(void *host) {
    std::free(host);
    return 0;
}
inline aclError aclrtMemcpy(void *dst, size_t, const void *src, size_t bytes, aclrtMemcpyKind) {
    std::memcpy(dst, src, bytes);
    return 0;
}

inline float aclFloat16ToFloat(aclFloat16 bits) {
    half value;
    std::memcpy(&value, &bits, 2);
    return float(value);
}

namespace npu_acl {

// Runs `kernel` on cores 0..blockDim-1 of the modelled target, one after another.
template <typename F> void launch(uint32_t blockDim, F kernel) {
    for (uint32_t block = 0; block < blockDim; ++block) {
        npu_model::start_core(block, NPU_UB_BYTES, NPU_EVENTS);
        npu_model::start_cube(NPU_L1_BYTES, NPU_L0A_BYTES, NPU_L0B_BYTES, NPU_L0C_BYTES);
        kernel();
        npu_model::finish_core();
    }
}

}  // namespace npu_acl

#define ACLRT_LAUNCH_KERNEL(kernel)                                                              \
    [](uint32_t blockDim, aclrtStream, auto... args) {                                           \
        npu_acl::launch(blockDim, [&] { kernel(args...); });                                     \
    }
