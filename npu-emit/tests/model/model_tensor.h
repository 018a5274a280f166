// Tensors and buffers: GlobalTensor, LocalTensor, TPipe, TBuf, GetBlockIdx.
//
// A LocalTensor is a byte address in the memory of its TPosition (the unified buffer
// for VECCALC, L1 for A1/B1, L0A for A2, L0B for B2, L0C for CO1) and the end of the
// buffer it was taken from (the model's bound). operator[] moves it by elements and
// ReinterpretCast changes the element type, as in the reference.
#pragma once

#include "model_core.h"

namespace AscendC {

enum class TPosition { GM, VECIN, VECOUT, VECCALC, A1, A2, B1, B2, CO1, CO2 };

inline int64_t GetBlockIdx() { return int64_t(npu_model::core().block); }

template <typename T> class GlobalTensor {
public:
    void SetGlobalBuffer(__gm__ T *buffer, uint64_t size = 0) {
        (void)size;
        address_ = buffer;
    }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor moved;
        moved.address_ = address_ + offset;
        return moved;
    }
    T *GetPhyAddr() const { return address_; }

private:
    T *address_ = nullptr;
};

template <typename T> class LocalTensor {
public:
    LocalTensor() = default;
    LocalTensor(uint64_t address, uint64_t limit, TPosition position = TPosition::VECCALC)
        : address_(address), limit_(limit), position_(position) {}
    LocalTensor operator[](uint64_t offset) const {
        return LocalTensor(address_ + offset * sizeof(T), limit_, position_);
    }
    template <typename U> LocalTensor<U> ReinterpretCast() const {
        return LocalTensor<U>(address_, limit_, position_);
    }
    // Scalar access on the scalar unit (pipe S), element `index` from this view.
    T GetValue(uint64_t index) const {
        check_in_ub("GetValue");
        uint64_t at = address_ + index * sizeof(T);
        if (at + sizeof(T) > limit_) {
            npu_model::fail("GetValue at ub 0x%llx past the buffer's end", (unsigned long long)at);
        }
        npu_model::read_ub(PIPE_S, npu_model::tick(PIPE_S), at, sizeof(T), "GetValue");
        T value;
        std::memcpy(&value, &npu_model::core().ub[at], sizeof(T));
        return value;
    }
    void SetValue(uint64_t index, T value) const {
        check_in_ub("SetValue");
        uint64_t at = address_ + index * sizeof(T);
        if (at + sizeof(T) > limit_) {
            npu_model::fail("SetValue at ub 0x%llx past the buffer's end", (unsigned long long)at);
        }
        npu_model::write_ub(PIPE_S, npu_model::tick(PIPE_S), at, sizeof(T), "SetValue");
        npu_model::count_elements(PIPE_S, 1);
        std::memcpy(&npu_model::core().ub[at], &value, sizeof(T));
    }
    uint64_t address() const { return address_; }
    uint64_t limit() const { return limit_; }
    TPosition position() const { return position_; }

private:
    // The scalar unit reads and writes the unified buffer only.
    void check_in_ub(const char *what) const {
        if (position_ != TPosition::VECCALC) {
            npu_model::fail("%s on a tensor outside the unified buffer", what);
        }
    }
    uint64_t address_ = 0;
    uint64_t limit_ = 0;
    TPosition position_ = TPosition::VECCALC;
};

template <TPosition position> class TBuf {
public:
    template <typename T> LocalTensor<T> Get() const {
        if (!initialised_) {
            npu_model::fail("TBuf::Get before TPipe::InitBuffer");
        }
        return LocalTensor<T>(address_, address_ + bytes_, position);
    }
    void init(uint64_t address, uint64_t bytes) {
        address_ = address;
        bytes_ = bytes;
        initialised_ = true;
    }

private:
    uint64_t address_ = 0;
    uint64_t bytes_ = 0;
    bool initialised_ = false;
};

// Hands out each memory from its start, each buffer 32-byte aligned, within the
// memory's capacity: the UB for VECCALC, L1 for A1 and B1 (one memory), L0A for A2,
// L0B for B2, L0C for CO1.
class TPipe {
public:
    template <TPosition position> void InitBuffer(TBuf<position> &buffer, uint32_t bytes) {
        static_assert(position == TPosition::VECCALC || position == TPosition::A1 || position == TPosition::B1 ||
                          position == TPosition::A2 || position == TPosition::B2 || position == TPosition::CO1,
                      "the model holds VECCALC, A1, B1, A2, B2 and CO1 buffers");
        int memory = memory_of(position);
        static const char *names[] = {"unified buffer", "l1", "l0a", "l0b", "l0c"};
        npu_model::Core &c = npu_model::core();
        uint64_t capacities[] = {c.ub_capacity, c.l1.capacity, c.l0a.capacity, c.l0b.capacity, c.l0c.capacity};
        uint64_t start = (next_[memory] + 31) / 32 * 32;
        if (bytes == 0 || start + bytes > capacities[memory]) {
            npu_model::fail("InitBuffer of %u B at 0x%llx does not fit the %llu B %s", bytes,
                            (unsigned long long)start, (unsigned long long)capacities[memory], names[memory]);
        }
        buffer.init(start, bytes);
        next_[memory] = start + bytes;
    }

private:
    static int memory_of(TPosition position) {
        switch (position) {
        case TPosition::A1:
        case TPosition::B1:
            return 1;
        case TPosition::A2:
            return 2;
        case TPosition::B2:
            return 3;
        case TPosition::CO1:
            return 4;
        default:
            return 0;
        }
    }
    uint64_t next_[5] = {};
};

}  // namespace AscendC

namespace npu_model {

// A local operand of `count` elements: 32-byte-aligned start, inside its buffer.
template <typename T>
inline void check_local(const AscendC::LocalTensor<T> &tensor, uint64_t count, const char *what) {
    if (tensor.position() != AscendC::TPosition::VECCALC) {
        fail("%s: a local tensor outside the unified buffer", what);
    }
    if (tensor.address() % 32 != 0) {
        fail("%s: local tensor at ub 0x%llx does not start 32-byte aligned", what,
             (unsigned long long)tensor.address());
    }
    if (tensor.address() + count * sizeof(T) > tensor.limit()) {
        fail("%s: %llu elements at ub 0x%llx run past the buffer's end 0x%llx", what, (unsigned long long)count,
             (unsigned long long)tensor.address(), (unsigned long long)tensor.limit());
    }
}

}  // namespace npu_model
