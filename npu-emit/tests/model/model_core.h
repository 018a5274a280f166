// The modelled AI core: its unified buffer, its pipes and the happens-before checks.
//
// Calls run one after the other on the host, in program order. Each call belongs to
// a pipe (MTE2: GM->UB copies, V: vector calls and UB->UB copies, MTE3: UB->GM
// copies) and ticks that pipe's vector clock. SetFlag records the source pipe's
// clock; WaitFlag joins it into the destination pipe's clock; PipeBarrier<PIPE_ALL>
// joins every pipe. Each UB byte remembers its last write (pipe, time) and each
// pipe's last read, so a read not ordered after the write it sees, or a write not
// ordered after earlier reads and writes on other pipes, fails even when the values
// come out right. Global memory remembers which core wrote each byte: two cores
// writing the same byte fail.
#pragma once

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#define __aicore__
#define __global__
#define __gm__
using GM_ADDR = uint8_t *;
using half = _Float16;

// bfloat16_t (Atlas A2): the high 16 bits of a float. From a float it rounds to
// nearest, ties to even (a NaN stays a NaN, quieted), as the device's Cast to it in
// CAST_RINT and npu-core's bf16 rounding do; to a float it is exact. The model makes
// one only from values a float holds (a double or an int that is not one fails:
// converting it through a float would round twice).
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    explicit bfloat16_t(float value) {
        uint32_t word;
        std::memcpy(&word, &value, 4);
        if (value != value) {
            bits = uint16_t((word >> 16) | 0x0040);
            return;
        }
        uint32_t rounding = 0x7FFF + ((word >> 16) & 1);
        bits = uint16_t((word + rounding) >> 16);
    }
    explicit bfloat16_t(double value);
    // The device's bfloat16_t is the compiler's arithmetic type, which an integer
    // constant (a padding value of 0) initialises implicitly.
    bfloat16_t(int value) : bfloat16_t(double(value)) {}
    operator float() const {
        uint32_t word = uint32_t(bits) << 16;
        float value;
        std::memcpy(&value, &word, 4);
        return value;
    }
};

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };

// The kernel types of KERNEL_TASK_TYPE_DEFAULT (asc-devkit kernel_utils_macros.h).
enum KernelMetaType : uint8_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX,
};

// A statement in the kernel's body; the model checks the kernel keeps to it.
#define KERNEL_TASK_TYPE_DEFAULT(value) npu_model::declare_kernel_type(value)

namespace npu_model {

constexpr int PIPES = 7;

[[noreturn]] inline void fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    std::fprintf(stderr, "model: ");
    std::vfprintf(stderr, format, args);
    std::fprintf(stderr, "\n");
    va_end(args);
    std::exit(3);
}

}  // namespace npu_model

inline bfloat16_t::bfloat16_t(double value) : bfloat16_t(float(value)) {
    if (value == value && double(float(value)) != value) {
        npu_model::fail("bfloat16_t from %.17g, which no float holds (two roundings)", value);
    }
}

namespace npu_model {

inline const char *pipe_name(int pipe) {
    static const char *names[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
    return pipe >= 0 && pipe < PIPES ? names[pipe] : "?";
}

struct Clock {
    uint64_t at[PIPES] = {};
    void join(const Clock &other) {
        for (int p = 0; p < PIPES; ++p) {
            if (other.at[p] > at[p]) {
                at[p] = other.at[p];
            }
        }
    }
};

// The last write and each pipe's last read of one UB byte.
struct Shadow {
    int8_t writer = -1;
    uint64_t written = 0;
    uint64_t read[PIPES] = {};
};

// One registered global-memory allocation: its bytes and the core that wrote each.
struct Allocation {
    uint8_t *start;
    uint64_t bytes;
    std::vector<int32_t> writer;
};

// One on-chip memory of the cube path (L1, L0A, L0B, L0C): its bytes and the last
// write and reads of each, as the UB keeps them. Capacity 0 until start_cube.
struct Memory {
    const char *name = "";
    uint64_t capacity = 0;
    std::vector<uint8_t> bytes;
    std::vector<Shadow> shadow;
};

struct Core {
    uint32_t block = 0;
    uint64_t ub_capacity = 0;
    uint32_t events = 8;
    std::vector<uint8_t> ub;
    std::vector<Shadow> shadow;
    Clock clocks[PIPES];
    std::map<std::pair<int, int>, std::deque<Clock>> flags;
    bool buffer_taken = false;
    Memory l1, l0a, l0b, l0c;
    // M's time at its last PipeBarrier<PIPE_M> (see model_cube.h's Mmad).
    uint64_t m_barrier = 0;
    // V's time at its last PipeBarrier<PIPE_V>: a call that checks its reads (see
    // model_reduce.h's PairReduceSum) sees only vector writes from before it.
    uint64_t v_barrier = 0;
    // What KERNEL_TASK_TYPE_DEFAULT declared, or KERNEL_TYPE_MAX for nothing.
    KernelMetaType kernel_type = KERNEL_TYPE_MAX;
    // Where the basic API's own scratch starts (TMP_UB_OFFSET), or the capacity for
    // none: the calls that use it (Select) overwrite it from there to the end.
    uint64_t api_scratch = 0;
};

inline Core &core() {
    static Core state;
    return state;
}

inline std::vector<Allocation> &allocations() {
    static std::vector<Allocation> state;
    return state;
}

// Starts core `block` with a UB of `capacity` bytes filled with a poison pattern.
inline void start_core(uint32_t block, uint64_t capacity, uint32_t events) {
    Core &c = core();
    c.block = block;
    c.ub_capacity = capacity;
    c.events = events;
    c.ub.assign(capacity, 0xA5);
    c.shadow.assign(capacity, Shadow{});
    for (Clock &clock : c.clocks) {
        clock = Clock{};
    }
    c.flags.clear();
    c.buffer_taken = false;
    // Cleared, not freed: the next core that uses a memory refills the allocation.
    for (Memory *m : {&c.l1, &c.l0a, &c.l0b, &c.l0c}) {
        m->capacity = 0;
        m->bytes.clear();
        m->shadow.clear();
    }
    c.l1.name = "l1";
    c.l0a.name = "l0a";
    c.l0b.name = "l0b";
    c.l0c.name = "l0c";
    c.m_barrier = 0;
    c.kernel_type = KERNEL_TYPE_MAX;
    c.api_scratch = capacity;
}

// The target's TMP_UB_OFFSET (kernel_utils_constants.h): the basic API's scratch.
inline void set_api_scratch(uint64_t offset) { core().api_scratch = offset; }

// A call that uses the basic API's scratch leaves it garbage: whatever a kernel keeps
// there is lost, as on the device.
inline void clobber_api_scratch() {
    Core &c = core();
    for (uint64_t at = c.api_scratch; at < c.ub_capacity; ++at) {
        c.ub[at] = uint8_t(0x5A ^ (at & 0xFF));
    }
}

inline void declare_kernel_type(KernelMetaType type) { core().kernel_type = type; }

// The census: element operations each pipe performed over a whole run (every core),
// counted as the calls run. A vector call counts the elements it writes, SetValue one,
// an Mmad its m x n x k multiply-adds; copies count nothing.
inline uint64_t (&census())[PIPES] {
    static uint64_t counts[PIPES] = {};
    return counts;
}

inline void count_elements(int pipe, uint64_t elements) { census()[pipe] += elements; }

// `memory` with its bytes and shadow, filled with a poison pattern on first use, so
// vector-only kernels do not pay for the cube's memories.
inline Memory &filled(Memory &memory) {
    if (memory.bytes.empty()) {
        memory.bytes.assign(memory.capacity, 0xA5);
        memory.shadow.assign(memory.capacity, Shadow{});
    }
    return memory;
}

// Gives the started core the cube path's memories, of the target's capacities, each
// filled when the core first uses it (`filled`).
inline void start_cube(uint64_t l1, uint64_t l0a, uint64_t l0b, uint64_t l0c) {
    Core &c = core();
    Memory *memories[] = {&c.l1, &c.l0a, &c.l0b, &c.l0c};
    uint64_t capacities[] = {l1, l0a, l0b, l0c};
    for (int i = 0; i < 4; ++i) {
        memories[i]->capacity = capacities[i];
    }
}

// Every flag set on the core was waited for: a flag left set would satisfy a wait
// of the next kernel on the same core.
inline void finish_core() {
    for (const auto &entry : core().flags) {
        if (!entry.second.empty()) {
            fail("core %u ends with %zu sets of event %d id %d never waited for", core().block,
                 entry.second.size(), entry.first.first, entry.first.second);
        }
    }
}

inline void register_global(uint8_t *start, uint64_t bytes) {
    allocations().push_back(Allocation{start, bytes, std::vector<int32_t>(bytes, -1)});
}

inline Allocation &global(const uint8_t *at, uint64_t bytes) {
    for (Allocation &a : allocations()) {
        if (at >= a.start && at + bytes <= a.start + a.bytes) {
            return a;
        }
    }
    fail("global memory access of %llu bytes at %p is outside every argument", (unsigned long long)bytes,
         (const void *)at);
}

// Ticks `pipe`: the time of its next operation. A kernel declared to run on the cube
// core alone (KERNEL_TYPE_AIC_ONLY) has no vector unit and no UB to copy out of.
inline uint64_t tick(int pipe) {
    if (core().kernel_type == KERNEL_TYPE_AIC_ONLY && (pipe == PIPE_V || pipe == PIPE_MTE3)) {
        fail("a kernel declared KERNEL_TYPE_AIC_ONLY uses pipe %s, which only a vector core has", pipe_name(pipe));
    }
    Clock &clock = core().clocks[pipe];
    return ++clock.at[pipe];
}

inline void check_ub_range(uint64_t address, uint64_t bytes, const char *what) {
    if (address + bytes > core().ub_capacity) {
        fail("%s touches ub 0x%llx..0x%llx, past the %llu B of the unified buffer", what,
             (unsigned long long)address, (unsigned long long)(address + bytes),
             (unsigned long long)core().ub_capacity);
    }
}

// `pipe` reads bytes [address, address + bytes) of `memory` (whose shadows are
// `shadow`) at `time`: the write it sees must be ordered before it.
inline void read_shadow(std::vector<Shadow> &shadow, const char *memory, int pipe, uint64_t time, uint64_t address,
                        uint64_t bytes, const char *what) {
    Core &c = core();
    for (uint64_t b = address; b < address + bytes; ++b) {
        Shadow &s = shadow[b];
        if (s.writer >= 0 && s.writer != pipe && s.written > c.clocks[pipe].at[s.writer]) {
            fail("%s on %s reads %s 0x%llx, written by %s at its step %llu with no flag between", what,
                 pipe_name(pipe), memory, (unsigned long long)b, pipe_name(s.writer), (unsigned long long)s.written);
        }
        s.read[pipe] = time;
    }
}

// `pipe` writes bytes [address, address + bytes) of `memory` at `time`: earlier
// writes and reads on other pipes must be ordered before it.
inline void write_shadow(std::vector<Shadow> &shadow, const char *memory, int pipe, uint64_t time, uint64_t address,
                         uint64_t bytes, const char *what) {
    Core &c = core();
    for (uint64_t b = address; b < address + bytes; ++b) {
        Shadow &s = shadow[b];
        if (s.writer >= 0 && s.writer != pipe && s.written > c.clocks[pipe].at[s.writer]) {
            fail("%s on %s overwrites %s 0x%llx, written by %s at its step %llu with no flag between", what,
                 pipe_name(pipe), memory, (unsigned long long)b, pipe_name(s.writer), (unsigned long long)s.written);
        }
        for (int q = 0; q < PIPES; ++q) {
            if (q != pipe && s.read[q] > c.clocks[pipe].at[q]) {
                fail("%s on %s overwrites %s 0x%llx, read by %s at its step %llu with no flag between", what,
                     pipe_name(pipe), memory, (unsigned long long)b, pipe_name(q), (unsigned long long)s.read[q]);
            }
        }
        s.writer = int8_t(pipe);
        s.written = time;
    }
}

// `pipe` reads UB bytes [address, address + bytes) at `time`.
inline void read_ub(int pipe, uint64_t time, uint64_t address, uint64_t bytes, const char *what) {
    check_ub_range(address, bytes, what);
    read_shadow(core().shadow, "ub", pipe, time, address, bytes, what);
}

// `pipe` writes UB bytes [address, address + bytes) at `time`.
inline void write_ub(int pipe, uint64_t time, uint64_t address, uint64_t bytes, const char *what) {
    check_ub_range(address, bytes, what);
    write_shadow(core().shadow, "ub", pipe, time, address, bytes, what);
}

// The current core writes global bytes [at, at + bytes).
inline void write_global(const uint8_t *at, uint64_t bytes) {
    Allocation &a = global(at, bytes);
    for (uint64_t i = 0; i < bytes; ++i) {
        int32_t &writer = a.writer[at - a.start + i];
        if (writer >= 0 && writer != int32_t(core().block)) {
            fail("cores %d and %u both write global byte %llu of an argument", writer, core().block,
                 (unsigned long long)(at - a.start + i));
        }
        writer = int32_t(core().block);
    }
}

}  // namespace npu_model
