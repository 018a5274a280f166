// A CPU model of the subset of the Ascend C API (kernel_operator.h) that npu-emit
// writes, for verifying emitted kernels without an NPU. Each function does what the
// public Ascend C API reference says on host memory and checks the reference's
// preconditions; it also checks happens-before between pipes (see model_core.h).
// One header per API family:
//   model_core.h    state of the modelled core: UB, pipes' clocks, global memory
//   model_tensor.h  GlobalTensor, LocalTensor (and its GetValue/SetValue), TPipe, TBuf, GetBlockIdx
//   model_sync.h    HardEvent, SetFlag, WaitFlag, PipeBarrier
//   model_copy.h    DataCopyPad (GM<->UB) with DataCopyExtParams, DataCopy (UB->UB)
//   model_vector.h  the vector calls over a count of elements
//   model_reduce.h  PairReduceSum, WholeReduceMax, WholeReduceMin (ORDER_ONLY_VALUE)
//   model_math.h    the advanced math and activation calls (Tanh, Sigmoid, Sin, ...)
//   model_shift.h   ShiftLeft, ShiftRight
//   model_compare.h Compare, Compares (bit masks), Select
//   model_cube.h    the cube path: DataCopy GM->L1 (ND2NZ), LoadData, Mmad, Fixpipe
//   model_move.h    Copy and Duplicate (masked, with repeats and strides), Gather (byte offsets), Trap
#pragma once

#include "model_core.h"
#include "model_tensor.h"
#include "model_sync.h"
#include "model_copy.h"
#include "model_vector.h"
#include "model_reduce.h"
#include "model_math.h"
#include "model_shift.h"
#include "model_compare.h"
#include "model_cube.h"
#include "model_move.h"
