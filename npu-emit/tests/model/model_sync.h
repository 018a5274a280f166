// Synchronisation between pipes: HardEvent, SetFlag, WaitFlag, PipeBarrier.
// The events are those between the vector path's pipes (MTE2, V, MTE3, S) and the
// cube path's (MTE2 into L1, MTE1 into L0A/L0B, M, FIX).
//
// SetFlag<HardEvent::SRC_DST>(id) is issued on the source pipe and sets the event
// once the pipe's earlier work is done; WaitFlag<...>(id) stalls the destination pipe
// until it is set, and consumes it. Ids are below the target's event count (8 on the
// Ascend presets). The model counts sets per (event, id) as the simulator does; a
// wait with no set pending is a hang on the device, and fails here.
#pragma once

#include "model_core.h"

namespace AscendC {

// Each event joins a source and a destination pipe.
#define NPU_MODEL_EVENTS(X)                                                                                  \
    X(MTE2_V, PIPE_MTE2, PIPE_V)                                                                             \
    X(V_MTE2, PIPE_V, PIPE_MTE2)                                                                             \
    X(V_MTE3, PIPE_V, PIPE_MTE3)                                                                             \
    X(MTE3_V, PIPE_MTE3, PIPE_V)                                                                             \
    X(MTE2_MTE3, PIPE_MTE2, PIPE_MTE3)                                                                       \
    X(MTE3_MTE2, PIPE_MTE3, PIPE_MTE2)                                                                       \
    X(V_V, PIPE_V, PIPE_V)                                                                                   \
    X(S_V, PIPE_S, PIPE_V)                                                                                   \
    X(V_S, PIPE_V, PIPE_S)                                                                                   \
    X(MTE2_MTE1, PIPE_MTE2, PIPE_MTE1)                                                                       \
    X(MTE1_MTE2, PIPE_MTE1, PIPE_MTE2)                                                                       \
    X(MTE1_M, PIPE_MTE1, PIPE_M)                                                                             \
    X(M_MTE1, PIPE_M, PIPE_MTE1)                                                                             \
    X(M_FIX, PIPE_M, PIPE_FIX)                                                                               \
    X(FIX_M, PIPE_FIX, PIPE_M)                                                                               \
    X(MTE2_FIX, PIPE_MTE2, PIPE_FIX)                                                                         \
    X(FIX_MTE2, PIPE_FIX, PIPE_MTE2)

enum class HardEvent {
#define NPU_MODEL_ENUM(name, from, to) name,
    NPU_MODEL_EVENTS(NPU_MODEL_ENUM)
#undef NPU_MODEL_ENUM
};

constexpr pipe_t EventSource(HardEvent event) {
#define NPU_MODEL_SOURCE(name, from, to) event == HardEvent::name ? from:
    return NPU_MODEL_EVENTS(NPU_MODEL_SOURCE) PIPE_ALL;
#undef NPU_MODEL_SOURCE
}

constexpr pipe_t EventDestination(HardEvent event) {
#define NPU_MODEL_DESTINATION(name, from, to) event == HardEvent::name ? to:
    return NPU_MODEL_EVENTS(NPU_MODEL_DESTINATION) PIPE_ALL;
#undef NPU_MODEL_DESTINATION
}

template <HardEvent event> void SetFlag(int32_t id) {
    npu_model::Core &c = npu_model::core();
    if (id < 0 || uint32_t(id) >= c.events) {
        npu_model::fail("SetFlag event id %d is not below %u", id, c.events);
    }
    int from = EventSource(event);
    npu_model::tick(from);
    c.flags[{int(event), id}].push_back(c.clocks[from]);
}

template <HardEvent event> void WaitFlag(int32_t id) {
    npu_model::Core &c = npu_model::core();
    if (id < 0 || uint32_t(id) >= c.events) {
        npu_model::fail("WaitFlag event id %d is not below %u", id, c.events);
    }
    auto &pending = c.flags[{int(event), id}];
    if (pending.empty()) {
        npu_model::fail("WaitFlag %s->%s id %d with no SetFlag pending: the pipe would hang",
                        npu_model::pipe_name(EventSource(event)), npu_model::pipe_name(EventDestination(event)), id);
    }
    int to = EventDestination(event);
    c.clocks[to].join(pending.front());
    pending.pop_front();
    npu_model::tick(to);
}

// PipeBarrier<PIPE_ALL> joins every pipe; PipeBarrier<PIPE_M> orders the cube's own
// instructions (an Mmad after it sees the L0C an earlier Mmad wrote: see Mmad), and
// PipeBarrier<PIPE_V> the vector unit's (see PairReduceSum).
template <pipe_t pipe> void PipeBarrier() {
    static_assert(pipe == PIPE_ALL || pipe == PIPE_M || pipe == PIPE_V,
                  "the model has PipeBarrier<PIPE_ALL>, <PIPE_M> and <PIPE_V> only");
    npu_model::Core &c = npu_model::core();
    if (pipe == PIPE_M) {
        c.m_barrier = npu_model::tick(PIPE_M);
        return;
    }
    if (pipe == PIPE_V) {
        c.v_barrier = npu_model::tick(PIPE_V);
        return;
    }
    npu_model::Clock all;
    for (const npu_model::Clock &clock : c.clocks) {
        all.join(clock);
    }
    for (npu_model::Clock &clock : c.clocks) {
        clock = all;
    }
}

}  // namespace AscendC
