//! The CPU model's own tests: each case is a few calls, as in the reference's worked
//! examples, run in one compiled binary; it either prints what it checked or fails
//! with the model's message. A precondition or an ordering the reference forbids
//! must fail, whatever the values.

/// Each case: name, body (C++ statements run on core 0 of a 192 KiB UB with 8 event
/// ids and two global buffers `in` and `out` of 256 bytes), and what it must give:
/// `Ok(printed)` or `Err(part of the model's message)`.
const CASES: &[crate::support::ModelCase] = &[
    (
        // Two repeats of 8 of 64 floats, 2 blocks apart: each folds to its largest
        // (a NaN gives the other; +0 above -0), written one element apart; the
        // smallest likewise.
        "whole_reduce_folds_each_repeat_to_one_value",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         float v[16] = {1, -3, NAN, 7, 2, 0, 5, -1, -0.0f, 0.0f, NAN, NAN, NAN, NAN, NAN, NAN};
         std::memcpy(&core.ub[0], v, 32); std::memcpy(&core.ub[64], v + 8, 32);
         AscendC::WholeReduceMax(f[64], f[0], 8, 2, 1, 1, 2, AscendC::ReduceOrder::ORDER_ONLY_VALUE);
         AscendC::WholeReduceMin(f[72], f[0], 8, 2, 1, 1, 2, AscendC::ReduceOrder::ORDER_ONLY_VALUE);
         float r[4]; std::memcpy(r, &core.ub[256], 8); std::memcpy(r + 2, &core.ub[288], 8);
         std::printf(\"%g %g %g %g %d\", r[0], r[1], r[2], r[3], std::signbit(r[3]) ? 1 : 0);",
        Ok("7 0 -3 -0 1"),
    ),
    (
        // Two outputs of 8 lanes, 128 bytes apart, reduced in place level by level:
        // the pairs are neighbours (2^24 + 1 rounds to 2^24, -2^24 + 1 is exact), and
        // a NaN first element of a pair stays.
        "pair_reduce_sum_adds_neighbours_in_place",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         float v[16] = {1, 2, 4, 8, 16, 32, 64, 128, 3, 1, 16777216.f, 1, -16777216.f, 1, 0, 0};
         std::memcpy(&core.ub[0], v, 32); std::memcpy(&core.ub[128], v + 8, 32);
         for (int32_t width = 8; width > 1; width /= 2) {
             AscendC::PipeBarrier<PIPE_V>();
             AscendC::PairReduceSum(f[0], f[0], 2, width, 1, 1, 4);
         }
         float nan = NAN; std::memcpy(&core.ub[32], &nan, 4);
         AscendC::PipeBarrier<PIPE_V>();
         AscendC::PairReduceSum(f[8], f[8], 1, 2, 1, 1, 8);
         float r[3]; std::memcpy(&r[0], &core.ub[0], 4); std::memcpy(&r[1], &core.ub[128], 4);
         std::memcpy(&r[2], &core.ub[32], 4);
         std::printf(\"%g %g %d\", r[0], r[1], r[2] != r[2]);",
        Ok("255 5 1"),
    ),
    (
        "pair_reduce_sum_over_a_later_repeat_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::PairReduceSum(f[8], f[0], 2, 8, 0, 1, 1);",
        Err("repeat 0 writes what repeat 1 reads"),
    ),
    (
        "pair_reduce_sum_with_an_odd_mask_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::PairReduceSum(f[0], f[0], 1, 7, 1, 1, 8);",
        Err("mask 7"),
    ),
    (
        "pair_reduce_sum_without_a_barrier_after_a_vector_write_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::Duplicate(f[0], 1.0f, 64);
         AscendC::PairReduceSum(f[0], f[0], 1, 64, 1, 1, 8);",
        Err("no PipeBarrier<PIPE_V> between"),
    ),
    (
        "whole_reduce_with_a_mask_past_one_repeat_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::WholeReduceMax(f[64], f[0], 65, 1, 1, 1, 8, AscendC::ReduceOrder::ORDER_ONLY_VALUE);",
        Err("mask 65"),
    ),
    (
        "whole_reduce_with_value_and_index_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::WholeReduceMin(f[64], f[0], 8, 1, 1, 1, 8);",
        Err("ORDER_ONLY_VALUE only"),
    ),
    (
        "whole_reduce_from_an_unaligned_source_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::WholeReduceMax(f[64], f[1], 8, 1, 1, 1, 8, AscendC::ReduceOrder::ORDER_ONLY_VALUE);",
        Err("does not start 32-byte aligned"),
    ),
    (
        "create_vec_index_counts_up_from_the_first_value",
        "AscendC::LocalTensor<int32_t> w = buffer.Get<int32_t>();
         AscendC::CreateVecIndex(w[0], int32_t(5), 10);
         int32_t r[10]; std::memcpy(r, &core.ub[0], 40);
         std::printf(\"%d %d %d\", r[0], r[1], r[9]);",
        Ok("5 6 14"),
    ),
    (
        // An int32 product keeps its low 32 bits (65536 * 65537 = 2^32 + 65536), an
        // int16 sum wraps, and And on int16 is bitwise.
        "integer_calls_wrap",
        "AscendC::LocalTensor<int32_t> w = buffer.Get<int32_t>();
         AscendC::LocalTensor<int16_t> s = buffer.Get<int16_t>();
         for (int i = 0; i < 8; ++i) { int32_t a = 65536, b = 65537; std::memcpy(&core.ub[4 * i], &a, 4); std::memcpy(&core.ub[32 + 4 * i], &b, 4); }
         AscendC::Mul(w[16], w[0], w[8], 8);
         for (int i = 0; i < 16; ++i) { int16_t a = 32767, b = 0x0ff0; std::memcpy(&core.ub[128 + 2 * i], &a, 2); std::memcpy(&core.ub[160 + 2 * i], &b, 2); }
         AscendC::Adds(s[96], s[64], int16_t(1), 16);
         AscendC::And(s[112], s[64], s[80], 16);
         int32_t p; int16_t q, r;
         std::memcpy(&p, &core.ub[64], 4); std::memcpy(&q, &core.ub[192], 2); std::memcpy(&r, &core.ub[224], 2);
         std::printf(\"%d %d %d\", p, q, r);",
        Ok("65536 -32768 4080"),
    ),
    (
        // Two blocks of 20 B, 12 B apart in GM; in UB each block starts on a 32-byte
        // data block, and dstStride adds one more data block between them.
        "copy_blocks_land_on_data_blocks",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{2, 20, 12, 1, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});
         std::printf(\"%d %d %d %d\", core.ub[19], core.ub[20], core.ub[64], core.ub[83]);",
        Ok("19 126 32 51"),
    ),
    (
        "copy_pad_value_fills_the_data_block",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 20, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{true, 0, 12, 9});
         std::printf(\"%d %d\", core.ub[20], core.ub[31]);",
        Ok("9 9"),
    ),
    (
        // Left padding of 4 elements: each 20-byte block lands after 4 bytes of the
        // pad value, the rest of its 32-byte block is padded too, and the next block
        // starts on the next data block.
        "copy_left_padding_shifts_each_block",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{2, 20, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{true, 4, 0, 9});
         std::printf(\"%d %d %d %d %d\", core.ub[3], core.ub[4], core.ub[24], core.ub[35], core.ub[36]);",
        Ok("9 0 9 9 20"),
    ),
    (
        "left_padding_past_32_bytes_fails",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 20, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{true, 33, 0, 9});",
        Err("leftPadding 33 and rightPadding 0"),
    ),
    (
        "copy_out_reads_data_blocks",
        "for (int i = 0; i < 128; ++i) core.ub[i] = uint8_t(i);
         AscendC::DataCopyPad(out_gm[0], ub[0], AscendC::DataCopyExtParams{2, 8, 1, 4, 0});
         std::printf(\"%d %d %d\", out[7], out[12], out[13]);",
        Ok("7 64 65"),
    ),
    (
        // The Atlas inference form: lengths and gaps in 32-byte blocks.
        "block_copy_moves_whole_blocks",
        "AscendC::DataCopy(ub[0], in_gm[0], AscendC::DataCopyParams{2, 1, 1, 2});
         std::printf(\"%d %d\", core.ub[31], core.ub[96]);",
        Ok("31 64"),
    ),
    (
        "an_unaligned_local_start_fails",
        "AscendC::DataCopyPad(ub[8], in_gm[0], AscendC::DataCopyExtParams{1, 32, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});",
        Err("does not start 32-byte aligned"),
    ),
    (
        "a_block_count_over_4095_fails",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{4096, 1, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});",
        Err("blockCount 4096"),
    ),
    (
        "a_copy_past_the_argument_fails",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 512, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});",
        Err("outside every argument"),
    ),
    (
        "a_wait_with_no_set_hangs",
        "AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);",
        Err("would hang"),
    ),
    (
        "an_event_id_past_the_target_fails",
        "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(8);",
        Err("event id 8 is not below 8"),
    ),
    (
        "a_flag_never_waited_for_fails_at_the_end",
        "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);",
        Err("never waited for"),
    ),
    (
        "a_vector_read_after_a_copy_needs_a_flag",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 64, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});
         AscendC::Add(h[64], h[0], h[0], 16);",
        Err("reads ub 0x0, written by MTE2"),
    ),
    (
        "a_flag_orders_the_read",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 64, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});
         AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(3);
         AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(3);
         AscendC::Add(h[64], h[0], h[0], 16);
         std::printf(\"ordered\");",
        Ok("ordered"),
    ),
    (
        "a_copy_over_a_buffer_still_read_needs_a_flag",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 32, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});
         AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
         AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
         AscendC::Add(h[64], h[0], h[0], 16);
         AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 32, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});",
        Err("overwrites ub 0x0, read by V"),
    ),
    (
        "a_scalar_read_after_a_vector_write_needs_a_flag",
        "AscendC::Duplicate(h[0], half(1), 16);
         (void)h.GetValue(3);",
        Err("GetValue on S reads ub 0x6, written by V"),
    ),
    (
        "a_scalar_write_after_a_vector_read_needs_a_flag",
        "AscendC::Duplicate(h[0], half(1), 16);
         AscendC::SetFlag<AscendC::HardEvent::V_S>(0);
         AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);
         h.SetValue(3, half(2));
         AscendC::Add(h[64], h[0], h[0], 16);
         std::printf(\"%g\", double(core_half(6)));",
        Err("Add on V reads ub 0x6, written by S"),
    ),
    (
        "a_barrier_orders_every_pipe",
        "AscendC::DataCopyPad(ub[0], in_gm[0], AscendC::DataCopyExtParams{1, 64, 0, 0, 0}, AscendC::DataCopyPadExtParams<uint8_t>{false, 0, 0, 0});
         AscendC::PipeBarrier<PIPE_ALL>();
         AscendC::Add(h[64], h[0], h[0], 16);
         std::printf(\"ordered\");",
        Ok("ordered"),
    ),
    (
        // Rounded once from the exact sum: 65504 + 65504 overflows f16 to infinity.
        "add_rounds_once_to_the_element_type",
        "AscendC::Duplicate(h[0], half(1.5), 16);
         AscendC::Duplicate(h[16], half(2.25), 16);
         AscendC::Duplicate(h[32], half(65504), 16);
         AscendC::Add(h[64], h[0], h[16], 16);
         AscendC::Add(h[96], h[32], h[32], 16);
         std::printf(\"%g %g\", double(core_half(128)), double(core_half(192)));",
        Ok("3.75 inf"),
    ),
    (
        // The reference's Compare example (src0 < src1, a bit per element, little
        // endian): 64 floats, i < 32 for the first 32.
        "compare_writes_a_bit_per_element",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         for (int i = 0; i < 64; ++i) { f.SetValue(i, float(i)); f.SetValue(64 + i, 32.0f); }
         AscendC::SetFlag<AscendC::HardEvent::S_V>(0);
         AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);
         AscendC::Compare(ub[1024], f[0], f[64], AscendC::CMPMODE::LT, 64);
         std::printf(\"%x %x %x\", core.ub[1024], core.ub[1027], core.ub[1028]);",
        Ok("ff ff 0"),
    ),
    (
        "a_compare_not_of_whole_256_byte_blocks_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::Compares(ub[1024], f[0], 0.0f, AscendC::CMPMODE::GT, 8);",
        Err("not whole 256-byte blocks"),
    ),
    (
        // The reference's Select example in tensor-scalar mode: bit 1 takes src0,
        // bit 0 the scalar (here 0b01010101: the even elements).
        "select_takes_src0_where_the_bit_is_set",
        "AscendC::Duplicate(h[0], half(7), 16);
         core.ub[1024] = 0x55; core.ub[1025] = 0x55;
         AscendC::Select(h[64], ub[1024], h[0], half(0), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, 16);
         std::printf(\"%g %g %g\", double(core_half(128)), double(core_half(130)), double(core_half(132)));",
        Ok("7 0 7"),
    ),
    (
        "a_select_overlapping_a_source_in_part_fails",
        "AscendC::Select(h[16], ub[1024], h[0], h[64], AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, 32);",
        Err("overlaps a source at ub 0x0 in part"),
    ),
    (
        // The reference's shift examples on int16: 0b1010101010101010 arithmetic
        // right by 1 is 0b1101010101010101 (0xd555), by 3 0b1111010101010101
        // (0xf555); left shifts keep the low bits (0x4001 << 1 = 0x8002).
        "shifts_are_arithmetic_and_keep_the_low_bits",
        "AscendC::LocalTensor<int16_t> s = buffer.Get<int16_t>();
         AscendC::Duplicate(s[0], int16_t(0xaaaa), 16);
         AscendC::Duplicate(s[16], int16_t(0x4001), 16);
         AscendC::ShiftRight(s[32], s[0], int16_t(1), 16);
         AscendC::ShiftRight(s[48], s[0], int16_t(3), 16);
         AscendC::ShiftLeft(s[64], s[16], int16_t(1), 16);
         AscendC::SetFlag<AscendC::HardEvent::V_S>(0);
         AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);
         std::printf(\"%x %x %x\", uint16_t(s.GetValue(32)), uint16_t(s.GetValue(48)), uint16_t(s.GetValue(64)));",
        Ok("d555 f555 8002"),
    ),
    (
        "a_shift_past_the_width_fails",
        "AscendC::LocalTensor<int16_t> s = buffer.Get<int16_t>();
         AscendC::ShiftRight(s[32], s[0], int16_t(17), 16);",
        Err("shift 17 outside [0, 16]"),
    ),
    (
        // The reference: Round goes to the nearest integer, a half to the even one.
        "round_takes_ties_to_even",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         f.SetValue(0, 0.5f); f.SetValue(1, 1.5f); f.SetValue(2, 2.5f); f.SetValue(3, -0.5f);
         for (int i = 4; i < 8; ++i) f.SetValue(i, 0.0f);
         AscendC::SetFlag<AscendC::HardEvent::S_V>(0);
         AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);
         AscendC::Round(f[64], f[0], ub[4096], 8);
         std::printf(\"%g %g %g %g\", core_float(256), core_float(260), core_float(264), core_float(268));",
        Ok("0 2 2 -0"),
    ),
    (
        // erf(0.5) = 0.5204998778..., rounded to float.
        "erf_is_the_simulators",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::Duplicate(f[0], 0.5f, 8);
         AscendC::Erf(f[64], f[0], ub[4096], 8);
         std::printf(\"%.7f\", core_float(256));",
        Ok("0.5204999"),
    ),
    (
        "an_advanced_call_in_place_fails",
        "AscendC::Tanh(h[0], h[0], ub[4096], 16);",
        Err("overlaps the source"),
    ),
    (
        // Tanh on half needs at least 1024 B of temporary buffer.
        "a_temporary_buffer_below_the_least_fails",
        "AscendC::Tanh(h[64], h[0], ub[196608 - 512], 16);",
        Err("less than the least 1024 B"),
    ),
    (
        "a_temporary_buffer_over_an_operand_fails",
        "AscendC::Sin(h[64], h[0], ub[96], 16);",
        Err("temporary buffer at ub 0x60 overlaps an operand"),
    ),
    (
        "a_vector_call_past_its_buffer_fails",
        "AscendC::Duplicate(h[98304 - 16], half(0), 32);",
        Err("run past the buffer's end"),
    ),
    (
        // The reference's Copy example: 8 elements of each of 18 rows of 64 int32,
        // packed (mask 8, 18 repeats, source repeat 8 blocks, destination 1). The
        // element after the last row keeps the UB's poison.
        "copy_picks_a_column_block_of_each_row",
        "AscendC::LocalTensor<int32_t> w = buffer.Get<int32_t>();
         for (int32_t i = 0; i < 18 * 64; ++i) std::memcpy(&core.ub[4 * i], &i, 4);
         AscendC::Copy(w[2048], w[0], 8, 18, AscendC::CopyRepeatParams{1, 1, 1, 8});
         int32_t a, b, c;
         std::memcpy(&a, &core.ub[8192 + 4 * 9], 4); std::memcpy(&b, &core.ub[8192 + 4 * 143], 4); std::memcpy(&c, &core.ub[8192 + 4 * 144], 4);
         std::printf(\"%d %d %d\", a, b, c);",
        Ok("65 1095 -1515870811"),
    ),
    (
        // A masked tail moves bits: -0.0 stays negative, the fourth element is left.
        "copy_with_a_mask_moves_the_tail_bits",
        "AscendC::Duplicate(h[0], half(-0.0), 16);
         AscendC::Copy(h[64], h[0], 3, 1, AscendC::CopyRepeatParams{1, 1, 8, 8});
         std::printf(\"%d %d\", int(std::signbit(double(core_half(132)))), int(core.ub[134]));",
        Ok("1 165"),
    ),
    (
        "a_copy_mask_past_a_repeat_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::Copy(f[64], f[0], 65, 1, AscendC::CopyRepeatParams{1, 1, 8, 8});",
        Err("mask 65 is not in 1..64"),
    ),
    (
        "a_copy_at_an_unaligned_start_fails",
        "AscendC::Copy(h[3], h[64], 8, 1, AscendC::CopyRepeatParams{1, 1, 8, 8});",
        Err("does not start 32-byte aligned"),
    ),
    (
        // The reference's pseudo-code: dst[i] = src[(srcBaseAddr + srcOffset[i]) / 4].
        "gather_reads_byte_offsets_from_the_base",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::LocalTensor<uint32_t> o = buffer.Get<uint32_t>();
         for (int i = 0; i < 16; ++i) { float v = float(i); std::memcpy(&core.ub[4 * i], &v, 4); }
         for (uint32_t i = 0; i < 8; ++i) { uint32_t v = (7 - i) * 4; std::memcpy(&core.ub[1024 + 4 * i], &v, 4); }
         AscendC::Gather(f[64], f[0], o[256], 16, 8);
         float a, b;
         std::memcpy(&a, &core.ub[256], 4); std::memcpy(&b, &core.ub[256 + 28], 4);
         std::printf(\"%g %g\", double(a), double(b));",
        Ok("11 4"),
    ),
    (
        "a_gather_offset_past_the_buffer_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::LocalTensor<uint32_t> o = buffer.Get<uint32_t>();
         uint32_t far = 196608; std::memcpy(&core.ub[1024], &far, 4);
         AscendC::Gather(f[64], f[0], o[256], 0, 1);",
        Err("not an element inside the source's buffer"),
    ),
    (
        "a_gather_from_its_own_destination_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::LocalTensor<uint32_t> o = buffer.Get<uint32_t>();
         std::memset(&core.ub[1024], 0, 32);
         AscendC::Gather(f[0], f[0], o[256], 4, 8);",
        Err("inside the destination"),
    ),
    (
        "a_gather_offset_table_written_on_the_scalar_unit_needs_a_flag",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::LocalTensor<uint32_t> o = buffer.Get<uint32_t>();
         o.SetValue(256, 0);
         AscendC::Gather(f[64], f[0], o[256], 0, 1);",
        Err("Gather on V reads ub 0x400, written by S"),
    ),
    (
        // A column of a padded f16 tile, rows 64 bytes (2 blocks) apart: bit 0 of
        // each of the 8 blocks, block stride 2, repeat stride 16; two repeats write
        // rows 0 to 15, and each row's next element keeps the UB's poison.
        "masked_duplicate_writes_a_column",
        "uint64_t mask[2] = {0x0001000100010001ULL, 0x0001000100010001ULL};
         AscendC::Duplicate(h[0], half(-1), mask, 2, 2, 16);
         std::printf(\"%g %g %g %d\", double(core_half(0)), double(core_half(64 * 9)), double(core_half(64 * 15)), int(core.ub[2]));",
        Ok("-1 -1 -1 165"),
    ),
    (
        "a_masked_duplicate_of_floats_with_high_mask_bits_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         uint64_t mask[2] = {1, 1};
         AscendC::Duplicate(f[0], 1.0f, mask, 1, 1, 8);",
        Err("past the 64 elements of a repeat"),
    ),
    (
        // A narrowing cast in place: each repeat's f16 results land on half of its
        // f32 sources, a partial overlap the reference's general rule forbids.
        "a_narrowing_cast_in_place_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::Duplicate(f[0], 1.0f, 64);
         AscendC::Cast(h[0], f[0], AscendC::RoundMode::CAST_RINT, 64);",
        Err("overlap partly"),
    ),
    (
        // Half to int8 toward zero, saturating: past the range (127.875 truncates to
        // 127; 200, 65504 and inf) the bound, NaN and -0 give 0, ties truncate.
        "cast_half_to_int8_truncates_and_saturates",
        "half v[16] = {half(1.5), half(-1.5), half(127.9), half(200), half(-300), half(INFINITY), half(-INFINITY), half(NAN),
                       half(-0.0), half(0.5), half(-128.9), half(2.5), half(3.5), half(-2.5), half(65504), half(-65504)};
         std::memcpy(&core.ub[0], v, 32);
         AscendC::Cast(ub[64].ReinterpretCast<int8_t>(), h[0], AscendC::RoundMode::CAST_TRUNC, 16);
         for (int i = 0; i < 16; ++i) std::printf(\"%d \", int(int8_t(core.ub[64 + i])));",
        Ok("1 -1 127 127 -128 127 -128 0 0 0 -128 2 3 -2 127 -128 "),
    ),
    (
        // The same pair in CAST_RINT: ties go to the even neighbour.
        "cast_half_to_int8_in_rint_rounds_ties_to_even",
        "half v[16] = {half(1.5), half(-1.5), half(2.5), half(3.5), half(-2.5), half(0.5), half(126.5), half(127.5)};
         std::memcpy(&core.ub[0], v, 32);
         AscendC::Cast(ub[64].ReinterpretCast<int8_t>(), h[0], AscendC::RoundMode::CAST_RINT, 8);
         for (int i = 0; i < 8; ++i) std::printf(\"%d \", int(int8_t(core.ub[64 + i])));",
        Ok("2 -2 2 4 -2 0 126 127 "),
    ),
    (
        // 8-bit integers to half are exact: the bounds of int8 and uint8 arrive as they are.
        "cast_int8_and_uint8_to_half_is_exact",
        "int8_t s[4] = {-128, 127, -1, 0}; uint8_t u[3] = {255, 0, 128};
         std::memcpy(&core.ub[0], s, 4); std::memcpy(&core.ub[32], u, 3);
         AscendC::Cast(h[32], ub[0].ReinterpretCast<int8_t>(), AscendC::RoundMode::CAST_NONE, 4);
         AscendC::Cast(h[64], ub[32], AscendC::RoundMode::CAST_NONE, 3);
         for (int i = 0; i < 4; ++i) std::printf(\"%g \", double(core_half(64 + 2 * i)));
         for (int i = 0; i < 3; ++i) std::printf(\"%g \", double(core_half(128 + 2 * i)));",
        Ok("-128 127 -1 0 255 0 128 "),
    ),
    (
        // Float to bfloat16 to nearest, ties to even: 1 + 2^-8 is a tie down to 1,
        // 1 + 3 x 2^-8 a tie up to 1 + 2^-6, just past a tie rounds up; NaN stays a
        // quiet NaN, -0 keeps its sign, 3.4e38 is past bf16's largest and becomes inf.
        // Back to float is exact.
        "cast_float_to_bfloat16_rounds_to_nearest_even",
        "float v[8] = {1.00390625f, 1.01171875f, NAN, INFINITY, -0.0f, 3.4e38f, 1.00390625f + 0x1p-20f, -1.5f};
         std::memcpy(&core.ub[0], v, 32);
         AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::LocalTensor<bfloat16_t> b = buffer.Get<bfloat16_t>();
         AscendC::Cast(b[32], f[0], AscendC::RoundMode::CAST_RINT, 8);
         AscendC::Cast(f[32], b[32], AscendC::RoundMode::CAST_NONE, 8);
         for (int i = 0; i < 8; ++i) { uint16_t x; std::memcpy(&x, &core.ub[64 + 2 * i], 2); std::printf(\"%04x \", x); }
         std::printf(\"%g %g\", core_float(128 + 4), core_float(128 + 28));",
        Ok("3f80 3f82 7fc0 7f80 8000 7f80 3f81 bfc0 1.01562 -1.5"),
    ),
    (
        // int32 to int16 saturates at both bounds.
        "cast_int32_to_int16_saturates",
        "int32_t v[8] = {70000, -70000, 5, -5, 32768, -32769, 0, 1};
         std::memcpy(&core.ub[0], v, 32);
         AscendC::LocalTensor<int32_t> w = buffer.Get<int32_t>();
         AscendC::Cast(h[32].ReinterpretCast<int16_t>(), w[0], AscendC::RoundMode::CAST_NONE, 8);
         for (int i = 0; i < 8; ++i) { int16_t x; std::memcpy(&x, &core.ub[64 + 2 * i], 2); std::printf(\"%d \", x); }",
        Ok("32767 -32768 5 -5 32767 -32768 0 1 "),
    ),
    (
        "cast_of_a_negative_half_to_uint8_fails",
        "half v[16] = {half(1), half(-1)};
         std::memcpy(&core.ub[0], v, 32);
         AscendC::Cast(ub[64], h[0], AscendC::RoundMode::CAST_TRUNC, 2);",
        Err("an exception in the reference"),
    ),
    (
        // int8 to float is no pair of the Atlas A2 table (through half it is).
        "cast_of_a_pair_the_table_lacks_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::Cast(f[32], ub[0].ReinterpretCast<int8_t>(), AscendC::RoundMode::CAST_NONE, 8);",
        Err("no Cast from a 1-byte to a 4-byte type"),
    ),
    (
        // half to float lists CAST_NONE only.
        "cast_in_a_mode_the_pair_does_not_list_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::Cast(f[32], h[0], AscendC::RoundMode::CAST_RINT, 8);",
        Err("is not listed for this pair"),
    ),
    (
        "a_gather_past_255_repeats_fails",
        "AscendC::LocalTensor<float> f = buffer.Get<float>();
         AscendC::LocalTensor<uint32_t> o = buffer.Get<uint32_t>();
         AscendC::Gather(f[0], f[0], o[16384], 0, 16321);",
        Err("16321 elements take 256 repeats of 256 B, more than 255"),
    ),
    (
        "a_kernel_declared_for_the_cube_core_has_no_vector_unit",
        "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
         AscendC::Duplicate(h[0], half(1), 16);",
        Err("declared KERNEL_TYPE_AIC_ONLY uses pipe V"),
    ),
    (
        "a_trap_stops_the_kernel",
        "AscendC::Trap();",
        Err("Trap"),
    ),
    (
        "two_cores_writing_the_same_bytes_fail",
        "for (int i = 0; i < 64; ++i) core.ub[i] = 1;
         AscendC::DataCopyPad(out_gm[0], ub[0], AscendC::DataCopyExtParams{1, 32, 0, 0, 0});
         npu_model::start_core(1, 196608, 8);
         AscendC::DataCopyPad(out_gm[16], ub[0], AscendC::DataCopyExtParams{1, 32, 0, 0, 0});",
        Err("cores 0 and 1 both write global byte 16"),
    ),
];

/// The test program of [`CASES`].
fn program() -> String {
    program_of(CASES, "")
}

/// The test program: one function per case, chosen by name, each body after
/// `prelude`.
fn program_of(cases: &[crate::support::ModelCase], prelude: &str) -> String {
    let mut text = String::from(
        "#include \"kernel_operator.h\"\n\
         static uint8_t in[256];\nstatic uint8_t out[256];\n",
    );
    for (name, body, _) in cases {
        text.push_str(&format!(
            "static void {name}() {{\n\
             npu_model::start_core(0, 196608, 8);\n\
             npu_model::register_global(in, 256);\nnpu_model::register_global(out, 256);\n\
             for (int i = 0; i < 256; ++i) in[i] = uint8_t(i);\n\
             npu_model::Core &core = npu_model::core();\n\
             auto core_half = [&](int byte) {{ half v; std::memcpy(&v, &core.ub[byte], 2); return v; }};\n\
             (void)core_half;\n\
             auto core_float = [&](int byte) {{ float v; std::memcpy(&v, &core.ub[byte], 4); return double(v); }};\n\
             (void)core_float;\n\
             AscendC::TPipe pipe;\nAscendC::TBuf<AscendC::TPosition::VECCALC> buffer;\n\
             pipe.InitBuffer(buffer, 196608);\n\
             AscendC::LocalTensor<uint8_t> ub = buffer.Get<uint8_t>();\n\
             AscendC::LocalTensor<half> h = buffer.Get<half>();\n\
             AscendC::GlobalTensor<uint8_t> in_gm;\nin_gm.SetGlobalBuffer(in);\n\
             AscendC::GlobalTensor<uint8_t> out_gm;\nout_gm.SetGlobalBuffer(out);\n\
             (void)h; (void)ub;\n\
             {prelude}\n{body}\n\
             npu_model::finish_core();\n}}\n"
        ));
    }
    text.push_str("int main(int argc, char **argv) {\n");
    for (name, _, _) in cases {
        text.push_str(&format!(
            "    if (argc == 2 && std::strcmp(argv[1], \"{name}\") == 0) {{ {name}(); return 0; }}\n"
        ));
    }
    text.push_str("    return 2;\n}\n");
    text
}

#[test]
fn the_model_does_what_the_reference_says_and_refuses_what_it_forbids() {
    let wrong = crate::support::run_model_cases("model_cases", &program(), CASES);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What every cube case starts from: the cube memories of an ascend910b core, each
/// one `TBuf` (`l1`, `a` in L0A, `b` in L0B, `c` in L0C), `in` as 128 halves valued
/// 0, 1, 2, ..., and helpers to set and read elements of a memory directly.
const CUBE_PRELUDE: &str = "npu_model::start_cube(524288, 65536, 65536, 131072);
    AscendC::TBuf<AscendC::TPosition::A1> l1_buffer; pipe.InitBuffer(l1_buffer, 524288);
    AscendC::TBuf<AscendC::TPosition::A2> a_buffer; pipe.InitBuffer(a_buffer, 65536);
    AscendC::TBuf<AscendC::TPosition::B2> b_buffer; pipe.InitBuffer(b_buffer, 65536);
    AscendC::TBuf<AscendC::TPosition::CO1> c_buffer; pipe.InitBuffer(c_buffer, 131072);
    AscendC::LocalTensor<half> l1 = l1_buffer.Get<half>(), a = a_buffer.Get<half>(), b = b_buffer.Get<half>();
    AscendC::LocalTensor<float> c = c_buffer.Get<float>();
    half *in_halves = reinterpret_cast<half *>(in);
    for (int i = 0; i < 128; ++i) in_halves[i] = half(i);
    AscendC::GlobalTensor<half> in_half; in_half.SetGlobalBuffer(in_halves);
    AscendC::GlobalTensor<half> out_half; out_half.SetGlobalBuffer(reinterpret_cast<half *>(out));
    auto get_half = [](npu_model::Memory &m, uint64_t byte) { half v; std::memcpy(&v, &npu_model::filled(m).bytes[byte], 2); return double(v); };
    auto set_half = [](npu_model::Memory &m, uint64_t byte, double x) { half v = half(x); std::memcpy(&npu_model::filled(m).bytes[byte], &v, 2); };
    auto get_float = [](npu_model::Memory &m, uint64_t byte) { float v; std::memcpy(&v, &npu_model::filled(m).bytes[byte], 4); return double(v); };
    auto set_float = [](npu_model::Memory &m, uint64_t byte, float v) { std::memcpy(&npu_model::filled(m).bytes[byte], &v, 4); };
    (void)get_half; (void)set_half; (void)get_float; (void)set_float; (void)l1; (void)a; (void)b; (void)c;";

/// The cube calls' cases, the worked examples of the reference's LoadData, Mmad,
/// ND2NZ and Fixpipe pages among them.
const CUBE_CASES: &[crate::support::ModelCase] = &[
    (
        // A 2 x 20 matrix, rows 24 elements apart in GM, into Nz with 16 rows per
        // column of fractals: (1, 17) lands at 1 x 16 x 32 + 1 x 32 + 1 x 2 = 546 B,
        // and the row's tail (1, 20..31) is zero.
        "nd2nz_lays_rows_into_fractal_columns",
        "AscendC::Nd2NzParams p; p.ndNum = 1; p.nValue = 2; p.dValue = 20; p.srcDValue = 24; p.dstNzC0Stride = 16; p.dstNzNStride = 1;
         AscendC::DataCopy(l1, in_half, p);
         std::printf(\"%g %g %g\", get_half(core.l1, 546), get_half(core.l1, 552), get_half(core.l1, 6));",
        Ok("41 0 3"),
    ),
    (
        // The reference's non-contiguous example: 4 repeats, srcStride 2, dstGap 2:
        // fractal r comes from source fractal 2r and lands at fractal 3r.
        "load_data_strides_over_fractals",
        "for (int f = 0; f < 8; ++f) set_half(core.l1, f * 512, f);
         AscendC::LoadData2DParams p; p.repeatTimes = 4; p.srcStride = 2; p.dstGap = 2;
         AscendC::LoadData(a, l1, p);
         std::printf(\"%g %g %g %g\", get_half(core.l0a, 0), get_half(core.l0a, 1536), get_half(core.l0a, 3072), get_half(core.l0a, 4608));",
        Ok("0 2 4 6"),
    ),
    (
        // ifTranspose turns a fractal's row-major (1, 2) into (2, 1): Nz to Zn.
        "load_data_transposes_each_fractal",
        "set_half(core.l1, (1 * 16 + 2) * 2, 7);
         AscendC::LoadData2DParams p; p.repeatTimes = 1; p.ifTranspose = true;
         AscendC::LoadData(b, l1, p);
         std::printf(\"%g\", get_half(core.l0b, (2 * 16 + 1) * 2));",
        Ok("7"),
    ),
    (
        // The reference's M = 30, K = 70, N = 40: A is 2 x 5 fractals (Zz), B 5 x 3
        // (Zn), C 2 x 3 (Nz); the invalid parts of the edge fractals (set to 1000
        // here) are ignored.
        "mmad_of_partial_fractals_ignores_the_padding",
        "const int M = 30, K = 70, N = 40, M1 = 2, K1 = 5, N1 = 3;
         for (int i = 0; i < M1 * 16; ++i) for (int k = 0; k < K1 * 16; ++k)
             set_half(core.l0a, ((i / 16 * K1 + k / 16) * 256 + i % 16 * 16 + k % 16) * 2, i < M && k < K ? (i + 2 * k) % 5 - 2 : 1000);
         for (int k = 0; k < K1 * 16; ++k) for (int j = 0; j < N1 * 16; ++j)
             set_half(core.l0b, ((k / 16 * N1 + j / 16) * 256 + j % 16 * 16 + k % 16) * 2, k < K && j < N ? (3 * k + j) % 7 - 3 : 1000);
         AscendC::MmadParams p; p.m = M; p.n = N; p.k = K;
         AscendC::Mmad(c, a, b, p);
         int wrong = 0;
         for (int i = 0; i < M; ++i) for (int j = 0; j < N; ++j) {
             double sum = 0;
             for (int k = 0; k < K; ++k) sum += double((i + 2 * k) % 5 - 2) * double((3 * k + j) % 7 - 3);
             wrong += get_float(core.l0c, ((j / 16 * M1 * 16) + i) * 64 + j % 16 * 4) != sum;
         }
         std::printf(\"%d wrong\", wrong);",
        Ok("0 wrong"),
    ),
    (
        // Summed in k order, rounding to f32 after each addition (the simulator's
        // order): 2^24 + 1 + 1 stays 2^24, where 1 + 1 + 2^24 would be 2^24 + 2.
        "mmad_sums_in_k_order_rounding_each_step",
        "for (int byte = 0; byte < 512; byte += 2) { set_half(core.l0a, byte, 0); set_half(core.l0b, byte, 0); }
         set_half(core.l0a, 0, 4096); set_half(core.l0a, 2, 1); set_half(core.l0a, 4, 1);
         set_half(core.l0b, 0, 4096); set_half(core.l0b, 2, 1); set_half(core.l0b, 4, 1);
         AscendC::MmadParams p; p.m = 16; p.n = 16; p.k = 3;
         AscendC::Mmad(c, a, b, p);
         std::printf(\"%.1f\", get_float(core.l0c, 0));",
        Ok("16777216.0"),
    ),
    (
        "a_small_accumulating_mmad_needs_a_pipe_m_barrier",
        "AscendC::MmadParams p; p.m = 16; p.n = 16; p.k = 16;
         AscendC::Mmad(c, a, b, p);
         p.cmatrixInitVal = false;
         AscendC::Mmad(c, a, b, p);",
        Err("no PipeBarrier<PIPE_M> between"),
    ),
    (
        "a_pipe_m_barrier_orders_the_accumulation",
        "AscendC::MmadParams p; p.m = 16; p.n = 16; p.k = 16;
         AscendC::Mmad(c, a, b, p);
         p.cmatrixInitVal = false;
         AscendC::PipeBarrier<PIPE_M>();
         AscendC::Mmad(c, a, b, p);
         std::printf(\"ordered\");",
        Ok("ordered"),
    ),
    (
        "an_mmad_after_a_load_needs_a_flag",
        "AscendC::LoadData2DParams l; l.repeatTimes = 1;
         AscendC::LoadData(a, l1, l);
         AscendC::MmadParams p; p.m = 16; p.n = 16; p.k = 16;
         AscendC::Mmad(c, a, b, p);",
        Err("Mmad on M reads l0a 0x0, written by MTE1"),
    ),
    (
        // 256 x 256 f16 is 128 KiB: twice L0A.
        "an_mmad_past_l0a_fails",
        "AscendC::MmadParams p; p.m = 256; p.n = 16; p.k = 256;
         AscendC::Mmad(c, a, b, p);",
        Err("past its buffer's end"),
    ),
    (
        // CAST_RINT: 1 + 2^-11 is halfway between two halves and goes to the even
        // one, 1; 1 + 3 x 2^-11 goes to 1 + 2^-9.
        "fixpipe_casts_to_half_to_nearest_even",
        "set_float(core.l0c, 0, 1.00048828125f); set_float(core.l0c, 4, 1.00146484375f);
         AscendC::FixpipeParamsV220 p; p.nSize = 16; p.mSize = 1; p.srcStride = 16; p.dstStride = 16; p.quantPre = QuantMode_t::F322F16;
         AscendC::Fixpipe<half, float, AscendC::CFG_ROW_MAJOR>(out_half, c, p);
         half first, second; std::memcpy(&first, &out[0], 2); std::memcpy(&second, &out[2], 2);
         std::printf(\"%g %g\", double(first), double(second));",
        Ok("1 1.00195"),
    ),
    (
        "a_fixpipe_src_stride_other_than_m_rounded_up_fails",
        "AscendC::FixpipeParamsV220 p; p.nSize = 16; p.mSize = 16; p.srcStride = 32; p.dstStride = 16; p.quantPre = QuantMode_t::F322F16;
         AscendC::Fixpipe<half, float, AscendC::CFG_ROW_MAJOR>(out_half, c, p);",
        Err("srcStride 32 is not mSize 16 rounded up"),
    ),
    (
        "a_load_of_256_fractals_fails",
        "AscendC::LoadData2DParams p; p.repeatTimes = 256;
         AscendC::LoadData(a, l1, p);",
        Err("repeatTimes 256 is not in 0..255"),
    ),
    (
        "a_load_to_an_unaligned_l0a_start_fails",
        "AscendC::LoadData2DParams p; p.repeatTimes = 1;
         AscendC::LoadData(a[16], l1, p);",
        Err("does not start 512-byte aligned"),
    ),
    (
        "nd2nz_into_the_unified_buffer_fails",
        "AscendC::Nd2NzParams p; p.ndNum = 1; p.nValue = 1; p.dValue = 16; p.srcDValue = 16; p.dstNzC0Stride = 1; p.dstNzNStride = 1;
         AscendC::DataCopy(h, in_half, p);",
        Err("a local tensor in VECCALC, where the reference allows A1/B1"),
    ),
];

#[test]
fn the_cube_model_does_what_the_reference_says_and_refuses_what_it_forbids() {
    let program = program_of(CUBE_CASES, CUBE_PRELUDE);
    let wrong = crate::support::run_model_cases("model_cube_cases", &program, CUBE_CASES);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
