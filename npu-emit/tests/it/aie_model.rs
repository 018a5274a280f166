//! The AIE API model's own tests, after the documentation's examples (UG1603's
//! "Load and Store Using Pointers" and "Alignment", the AIE API's vector sizes and
//! conversions): each case is a few calls on a 256-byte data memory `mem`, aligned to
//! 64 bytes, run in one compiled binary; it prints what it computed or fails with the
//! model's message. A precondition the documentation states must fail, whatever the
//! values.

/// Each case: name, body, and `Ok(printed)` or `Err(part of the model's message)`.
const CASES: &[crate::support::ModelCase] = &[
    (
        // load_v<8> of int16 from an aligned buffer and store_v back, moved on.
        "load_and_store_an_aligned_vector",
        "int16_t *p = reinterpret_cast<int16_t *>(mem);
         for (int i = 0; i < 16; ++i) p[i] = int16_t(i * 3);
         aie::vector<int16_t, 8> v = aie::load_v<8>(p);
         aie::store_v(p + 8, v);
         std::printf(\"%d %d\", p[8], p[15]);",
        Ok("0 21"),
    ),
    (
        // The documentation's pair: load_v<8> at an aligned int32 pointer, and
        // load_unaligned_v<8> one element on.
        "an_unaligned_load_needs_only_element_alignment",
        "int32_t *pv = reinterpret_cast<int32_t *>(mem);
         for (int i = 0; i < 16; ++i) pv[i] = i;
         aie::vector<int32_t, 8> v1 = aie::load_v<8>(pv);
         aie::vector<int32_t, 8> v2 = aie::load_unaligned_v<8>(pv + 1);
         std::printf(\"%d %d\", v1.get(7), v2.get(7));",
        Ok("7 8"),
    ),
    (
        "load_v_one_element_off_fails",
        "int32_t *pv = reinterpret_cast<int32_t *>(mem);
         aie::load_v<8>(pv + 1);",
        Err("load_v<8> at offset 4 is not 32-byte aligned"),
    ),
    (
        // A 128-bit vector needs 128-bit (16-byte) alignment, no more.
        "a_128_bit_vector_needs_16_bytes",
        "int32_t *pv = reinterpret_cast<int32_t *>(mem);
         pv[4] = 9;
         std::printf(\"%d\", aie::load_v<4>(pv + 4).get(0));",
        Ok("9"),
    ),
    (
        "a_store_past_the_data_memory_fails",
        "aie::store_v(reinterpret_cast<int16_t *>(mem) + 120, aie::broadcast<int16_t, 32>(int16_t(1)));",
        Err("outside the tile's 256 B of data memory"),
    ),
    (
        // 1 + 2^-8 lies halfway between two bf16 values: it rounds to the even one, 1;
        // 1 + 3 * 2^-8 to 1 + 2^-6.
        "bfloat16_rounds_to_nearest_even",
        "std::printf(\"%04x %04x\", bfloat16(1.00390625f).bits, bfloat16(1.01171875f).bits);",
        Ok("3f80 3f82"),
    ),
    (
        // A bf16 sum goes through accfloat and is rounded once, under conv_even.
        "a_bf16_sum_through_accfloat_rounds_once",
        "aie::set_rounding(aie::rounding_mode::conv_even);
         aie::accum<accfloat, 16> acc;
         acc.from_vector(aie::broadcast<bfloat16, 16>(bfloat16(1.0f)));
         aie::vector<bfloat16, 16> v = aie::add(acc, aie::broadcast<bfloat16, 16>(bfloat16(0.01171875f))).to_vector<bfloat16>();
         std::printf(\"%04x\", v.get(3).bits);",
        Ok("3f82"),
    ),
    (
        "a_conversion_under_the_default_rounding_fails",
        "aie::accum<accfloat, 16> acc;
         acc.from_vector(aie::broadcast<bfloat16, 16>(bfloat16(1.0f)));
         acc.to_vector<bfloat16>();",
        Err("rounding mode the model does not implement"),
    ),
    (
        // int16 x int16 into acc32, back to int16 without saturation: the low bits.
        "an_integer_product_keeps_the_low_bits",
        "aie::set_saturation(aie::saturation_mode::none);
         aie::vector<int16_t, 16> a = aie::broadcast<int16_t, 16>(int16_t(300));
         std::printf(\"%d\", aie::mul(a, a).to_vector<int16_t>().get(0));",
        Ok("24464"),
    ),
    (
        // 300 * 300 = 90000 saturates to int16's largest under saturate (UG1583, SRS).
        "a_saturating_conversion_clamps_to_the_type",
        "aie::set_saturation(aie::saturation_mode::saturate);
         aie::vector<int16_t, 16> a = aie::broadcast<int16_t, 16>(int16_t(300));
         aie::vector<int16_t, 16> b = aie::broadcast<int16_t, 16>(int16_t(-300));
         std::printf(\"%d %d\", aie::mul(a, a).to_vector<int16_t>().get(0), aie::mul(a, b).to_vector<int16_t>().get(0));",
        Ok("32767 -32768"),
    ),
    (
        // An unsigned type saturates at 0 and its largest value.
        "a_saturating_conversion_to_unsigned_stops_at_zero",
        "aie::set_saturation(aie::saturation_mode::saturate);
         aie::accum<acc32, 32> acc;
         acc.from_vector(aie::broadcast<int16_t, 32>(int16_t(-5)));
         aie::accum<acc32, 32> big;
         big.from_vector(aie::broadcast<int16_t, 32>(int16_t(300)));
         std::printf(\"%d %d\", acc.to_vector<uint8_t>(0).get(0), big.to_vector<uint8_t>(0).get(0));",
        Ok("0 255"),
    ),
    (
        "a_symmetric_saturation_is_not_modelled",
        "aie::set_saturation(aie::saturation_mode::symmetric);
         aie::vector<int16_t, 16> a = aie::broadcast<int16_t, 16>(int16_t(300));
         aie::mul(a, a).to_vector<int16_t>();",
        Err("other than none and saturate"),
    ),
    (
        // unpack extends the sign of a signed element and zeros above an unsigned one.
        "unpack_extends_each_element",
        "aie::vector<int8_t, 16> a = aie::broadcast<int8_t, 16>(int8_t(-3));
         aie::vector<uint8_t, 16> b = aie::broadcast<uint8_t, 16>(uint8_t(250));
         std::printf(\"%d %d\", int(a.unpack().unpack().get(5)), int(b.unpack().get(5)));",
        Ok("-3 250"),
    ),
    (
        "an_integer_sum_wraps",
        "aie::vector<int16_t, 16> a = aie::broadcast<int16_t, 16>(int16_t(32767));
         std::printf(\"%d\", aie::add(a, aie::broadcast<int16_t, 16>(int16_t(1))).get(0));",
        Ok("-32768"),
    ),
    (
        "reduce_max_and_reduce_min_give_the_extreme_lanes",
        "int16_t *p = reinterpret_cast<int16_t *>(mem);
         for (int i = 0; i < 32; ++i) p[i] = int16_t((i * 37) % 64 - 20);
         aie::vector<int16_t, 32> v = aie::load_v<32>(p);
         std::printf(\"%d %d\", aie::reduce_max(v), aie::reduce_min(v));",
        Ok("43 -20"),
    ),
    (
        // The simulator's f64::max: a NaN operand gives the other.
        "max_of_a_nan_gives_the_other",
        "aie::vector<bfloat16, 16> nan = aie::broadcast<bfloat16, 16>(bfloat16(NAN));
         aie::vector<bfloat16, 16> one = aie::broadcast<bfloat16, 16>(bfloat16(1.0f));
         std::printf(\"%g %g\", float(aie::max(nan, one).get(0)), float(aie::min(one, nan).get(0)));",
        Ok("1 1"),
    ),
    (
        // mac adds the exact product of two bf16 lanes and rounds once in fp32: 1 + (1 +
        // 2^-7)^2 = 2 + 2^-6 + 2^-14 is an fp32 value; msc subtracts it.
        "mac_and_msc_round_the_exact_product_once",
        "aie::vector<bfloat16, 16> a = aie::broadcast<bfloat16, 16>(bfloat16(1.0078125f));
         aie::accum<accfloat, 16> one;
         one.from_vector(aie::broadcast<bfloat16, 16>(bfloat16(1.0f)));
         std::printf(\"%.10g %.10g\", double(aie::mac(one, a, a).lanes[0]), double(aie::msc(one, a, a).lanes[0]));",
        Ok("2.015686035 -0.01568603516"),
    ),
    (
        // vector_cast keeps the bits; upshift wraps, downshift is arithmetic.
        "vector_cast_and_shifts_work_on_bits",
        "aie::vector<bfloat16, 16> x = aie::broadcast<bfloat16, 16>(bfloat16(-2.0f));
         aie::vector<int16_t, 16> bits = aie::vector_cast<int16_t>(x);
         aie::vector<int16_t, 16> down = aie::downshift(bits, 7);
         aie::vector<int16_t, 16> up = aie::upshift(aie::broadcast<int16_t, 16>(int16_t(0x0101)), 8);
         std::printf(\"%04x %d %04x %g\", uint16_t(bits.get(0)), down.get(0), uint16_t(up.get(0)), float(aie::vector_cast<bfloat16>(bits).get(0)));",
        Ok("c000 -128 0100 -2"),
    ),
    (
        // select takes the second vector's lane where the mask bit is set.
        "select_takes_b_where_the_mask_is_set",
        "aie::vector<int16_t, 16> a = aie::broadcast<int16_t, 16>(int16_t(1));
         aie::vector<int16_t, 16> b = aie::broadcast<int16_t, 16>(int16_t(2));
         aie::vector<int16_t, 16> r = aie::select(a, b, aie::lt(a, b));
         aie::vector<int16_t, 16> s = aie::select(a, b, aie::gt(a, b));
         std::printf(\"%d %d %d\", r.get(0), s.get(0), int(aie::eq(a, a).test(3)));",
        Ok("2 1 1"),
    ),
    (
        // The model converts integer-valued bf16 lanes only (every rounding agrees).
        "to_fixed_of_a_fraction_fails",
        "aie::to_fixed<int16_t>(aie::broadcast<bfloat16, 16>(bfloat16(1.5f)), 0);",
        Err("the model converts integer values only"),
    ),
    (
        "to_fixed_of_an_integer_is_exact",
        "std::printf(\"%d\", aie::to_fixed<int16_t>(aie::broadcast<bfloat16, 16>(bfloat16(-133.0f)), 0).get(5));",
        Ok("-133"),
    ),
    (
        "to_float_of_int16_rounds_to_nearest_even",
        "aie::vector<int16_t, 16> v = aie::broadcast<int16_t, 16>(int16_t(257));
         std::printf(\"%g %g\", float(aie::to_float<bfloat16>(v, 0).get(0)), float(aie::to_float<bfloat16>(aie::broadcast<int16_t, 16>(int16_t(-133)), 0).get(0)));",
        Ok("256 -133"),
    ),
    (
        // The documentation's examples: chunk 1 takes every other lane, chunk 2 every
        // other pair.
        "filter_even_and_filter_odd_take_alternate_chunks",
        "int32_t *p = reinterpret_cast<int32_t *>(mem);
         for (int i = 0; i < 8; ++i) p[i] = i;
         aie::vector<int32_t, 8> v = aie::load_v<8>(p);
         aie::vector<int32_t, 4> e = aie::filter_even(v), o = aie::filter_odd(v);
         aie::vector<int32_t, 4> e2 = aie::filter_even(v, 2), o2 = aie::filter_odd(v, 2);
         for (aie::vector<int32_t, 4> r : {e, o, e2, o2}) std::printf(\"%d%d%d%d \", r.get(0), r.get(1), r.get(2), r.get(3));",
        Ok("0246 1357 0145 2367 "),
    ),
    (
        // The chunk size must be a power of two.
        "a_filter_in_chunks_of_three_fails",
        "aie::filter_odd(aie::broadcast<int32_t, 8>(1), 3);",
        Err("a power of two up to half the lanes"),
    ),
    (
        "concat_puts_the_second_vector_after_the_first",
        "aie::vector<float, 16> v = aie::concat(aie::broadcast<float, 8>(1.5f), aie::broadcast<float, 8>(-2.0f));
         std::printf(\"%g %g\", v.get(7), v.get(8));",
        Ok("1.5 -2"),
    ),
    (
        // 1 + 2^-24 is halfway between two floats: an fp32 add rounds it to the even
        // one, 1; 1 + 3 * 2^-24 to 1 + 2^-22. An accumulator's NaN stays as it is, the
        // vector's NaN beside it or not (the simulator's fold keeps its left operand).
        "a_float_add_through_accfloat_rounds_to_float_and_keeps_the_accumulator_nan",
        "aie::set_rounding(aie::rounding_mode::conv_even);
         uint32_t bits[2] = {0x7fc00001u, 0x7fc00002u};
         float nans[2];
         std::memcpy(nans, bits, sizeof nans);
         aie::accum<accfloat, 8> one, nan;
         one.from_vector(aie::broadcast<float, 8>(1.0f));
         nan.from_vector(aie::broadcast<float, 8>(nans[0]));
         float half = aie::add(one, aie::broadcast<float, 8>(0x1p-24f)).to_vector<float>().get(0);
         float more = aie::add(one, aie::broadcast<float, 8>(0x3p-24f)).to_vector<float>().get(0);
         float kept = aie::add(nan, aie::broadcast<float, 8>(nans[1])).to_vector<float>().get(0);
         uint32_t out[3];
         std::memcpy(&out[0], &half, 4);
         std::memcpy(&out[1], &more, 4);
         std::memcpy(&out[2], &kept, 4);
         std::printf(\"%08x %08x %08x\", out[0], out[1], out[2]);",
        Ok("3f800000 3f800002 7fc00001"),
    ),
];

/// The cases as one program: `main` runs the case named on the command line.
fn program() -> String {
    let mut text = String::from(
        "#include <aie_api/aie.hpp>\n#include <cstdio>\n#include <cstring>\n\
         alignas(64) static uint8_t mem[256];\n",
    );
    for (name, body, _) in CASES {
        text.push_str(&format!(
            "static void {name}() {{\n\
             aie_model::register_memory(mem, sizeof mem);\n\
             {body}\n}}\n"
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
fn the_aie_model_does_what_the_documentation_says_and_refuses_what_it_forbids() {
    let wrong = crate::support::run_model_cases("aie_model_cases", &program(), CASES);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
