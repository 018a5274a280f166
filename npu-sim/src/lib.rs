//! npu-sim: simulator of lowered npu programs.
