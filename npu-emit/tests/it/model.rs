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
