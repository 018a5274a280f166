//! The CPU model's own tests: each case is a few calls, as in the reference's worked
//! examples, run in one compiled binary; it either prints what it checked or fails
//! with the model's message. A precondition or an ordering the reference forbids
//! must fail, whatever the values.

/// Each case: name, body (C++ statements run on core 0 of a 192 KiB UB with 8 event
/// ids and two global buffers `in` and `out` of 256 bytes), and what it must give:
/// `Ok(printed)` or `Err(part of the model's message)`.
const CASES: &[crate::support::ModelCase] = &[
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
        "two_cores_writing_the_same_bytes_fail",
        "for (int i = 0; i < 64; ++i) core.ub[i] = 1;
         AscendC::DataCopyPad(out_gm[0], ub[0], AscendC::DataCopyExtParams{1, 32, 0, 0, 0});
         npu_model::start_core(1, 196608, 8);
         AscendC::DataCopyPad(out_gm[16], ub[0], AscendC::DataCopyExtParams{1, 32, 0, 0, 0});",
        Err("cores 0 and 1 both write global byte 16"),
    ),
];

/// The test program: one function per case, chosen by name.
fn program() -> String {
    let mut text = String::from(
        "#include \"kernel_operator.h\"\n\
         static uint8_t in[256];\nstatic uint8_t out[256];\n",
    );
    for (name, body, _) in CASES {
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
             {body}\n\
             npu_model::finish_core();\n}}\n"
        ));
    }
    text.push_str("int main(int argc, char **argv) {\n");
    for (name, _, _) in CASES {
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
