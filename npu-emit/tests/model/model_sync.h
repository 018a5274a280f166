// Synchronisation between pipes: HardEvent, SetFlag, WaitFlag, PipeBarrier.
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
    X(V_S, PIPE_V, PIPE_S)

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

template <pipe_t pipe> void PipeBarrier() {
    static_assert(pipe == PIPE_ALL, "the model has PipeBarrier<PIPE_ALL> only");
    npu_model::Core &c = npu_model::core();
    npu_model::Clock all;
    for (const npu_model::Clock &clock : c.clocks) {
        all.join(clock);
    }
    for (npu_model::Clock &clock : c.clocks) {
        clock = all;
    }
}

}  // namespace AscendC
