// What the device compiler (bisheng, `--cce-aicore-lang`) gives a kernel before the
// first include: its keywords and attributes, the memories' address spaces, its
// built-in types, enumerations and variables, and its intrinsics. Included first in
// every translation unit of the check against the real Ascend C headers
// (tests/it/devkit.rs); the core's macros (__NPU_ARCH__, __DAV_C220_VEC__, ...) come
// on the command line, as the compiler sets them for `--cce-aicore-arch`.
//
// Nothing here is Ascend C: AscendC::, its tensors, calls, enumerations (HardEvent,
// TPosition, ...) and parameter structs (DataCopyExtParams, ...) all come from the
// real headers, so a wrong name, template argument, overload or field is the
// headers' error. The intrinsics below the API are stubs that take any arguments:
// the headers' own use of them is not what is checked. Every name was one the
// headers used and the compiler did not know, when the bundled kernels were first
// compiled against asc-devkit 82b89a15f263; a kernel that reaches a new intrinsic
// fails with "use of undeclared identifier", and the intrinsic belongs below.
#pragma once

#include <cstddef>
#include <cstdint>

// Function and kernel attributes: no meaning for a syntax check.
#define __aicore__
#define __global__
#define __host__
#define __host_aicore__
#define __simd_callee__
#define __sync_alias__
#define __check_sync_alias__
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __inout_pipe__(...)
#define __CCE_IS_AICORE__ 1

// The memories are address spaces, so the headers' overloads by memory
// (`asc_dump(__ubuf__ T*)`, `asc_dump(__cbuf__ T*)`, ...) stay apart and a pointer
// into one memory does not pass for another. Global memory is the generic space, as
// the headers' string literals (`__gm__ const char *`) need.
#define __gm__
#define __cbuf__ __attribute__((address_space(2)))
#define __ca__ __attribute__((address_space(3)))
#define __cb__ __attribute__((address_space(4)))
#define __cc__ __attribute__((address_space(5)))
#define __ubuf__ __attribute__((address_space(6)))
#define __fbuf__ __attribute__((address_space(7)))
#define __biasbuf__ __attribute__((address_space(8)))
#define __ssbuf__ __attribute__((address_space(9)))

// Built-in types. The register types of the vector-function API (reg_compute,
// included on every core) are opaque.
using half = _Float16;
struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    bfloat16_t(float) : bits(0) {}
    operator float() const { return 0.0f; }
};
struct vector_bool {};
struct vector_align {};
struct vector_address {};

// Built-in enumerations, with the enumerators the headers name.
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
enum class cache_line_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class dcci_dst_t { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum mem_dsb_t { DSB_ALL, DSB_DDR, DSB_OUT, DSB_UB };
enum mem_t {};
enum class QuantMode_t {
    NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8,
    VQS322BF16_PRE, VQF322HIF8_PRE, VQF322F16_PRE
};
enum ConvRelu_t {
    CRMODE_NONE, CRMODE_F32toF16_NONE, CRMODE_F32toF16_RELU, CRMODE_S32toF16_NONE,
    CRMODE_F16toF32_NONE, CRMODE_NONE_RELU, CRMODE_F16_MUL, CRMODE_S32toF16_DEQSCALE_SPR,
    CRMODE_DEQSCALE_VDEQ8, CRMODE_DEQSCALE_DEQ8, CRMODE_DEQSCALE_VDEQ16, CRMODE_DEQSCALE_DEQ16,
    CRMODE_DEQSCALE_VDEQS16, CRMODE_DEQSCALE_DEQS16
};
enum ub_addr8_t { VA0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };
enum class Order_t { VALUE_INDEX, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
enum pad_t { PAD_NONE };
enum addr_cal_mode_t { inc, dec };
enum vpart_t { L128, H128 };
enum csize_t { CSIZE0, CSIZE1 };
enum atomic_type_t { ATOMIC_NONE, ATOMIC_F32, ATOMIC_F16, ATOMIC_S16, ATOMIC_S32, ATOMIC_S8, ATOMIC_BF16 };
enum atomic_op_t { ATOMIC_SUM };

// Built-in variables of the ascend310p core.
inline int64_t block_idx;
inline int64_t block_num;

// The device library (printf, assert, asc_prof_start, ...) is in __asc_aicore and
// the headers call it unqualified from AscendC (`ProfStartImpl`): the CPU build's
// headers say `using namespace __asc_aicore`, and on the device it comes with the
// compiler's own includes.
namespace __asc_aicore {}
using namespace __asc_aicore;

// Scalar math the headers call in the global namespace (`::sqrt`, `::abs`).
template <typename T> T sqrt(T);
template <typename T> T abs(T);

// The intrinsics: any arguments, a scalar result; or none, where a header returns
// the call from a void function.
#define NPU_BUILTIN(name)                                                                  \
    template <typename... Arguments> inline int64_t name(Arguments...) { return 0; }
#define NPU_BUILTIN_VOID(name)                                                             \
    template <typename... Arguments> inline void name(Arguments...) {}

namespace bisheng::cce {
NPU_BUILTIN(metrics_prof_start)
NPU_BUILTIN(metrics_prof_stop)
}  // namespace bisheng::cce

NPU_BUILTIN_VOID(copy_matrix_cc_to_gm)
NPU_BUILTIN(__ib_set_stub) NPU_BUILTIN(__ib_wait_stub) NPU_BUILTIN(__sync_all_stub)
NPU_BUILTIN(bcnt0) NPU_BUILTIN(bcnt1) NPU_BUILTIN(clz) NPU_BUILTIN(conv_f322f16o)
NPU_BUILTIN(conv_f322s32a) NPU_BUILTIN(conv_f322s32c) NPU_BUILTIN(conv_f322s32f)
NPU_BUILTIN(conv_f322s32r) NPU_BUILTIN(copy_cbuf_to_bt) NPU_BUILTIN(copy_cbuf_to_fbuf)
NPU_BUILTIN(copy_cbuf_to_gm) NPU_BUILTIN(copy_cbuf_to_ubuf) NPU_BUILTIN(copy_gm_to_cbuf)
NPU_BUILTIN(copy_gm_to_cbuf_multi_nd2nz_b16) NPU_BUILTIN(copy_gm_to_cbuf_multi_nd2nz_b32s)
NPU_BUILTIN(copy_gm_to_cbuf_multi_nd2nz_b8) NPU_BUILTIN(copy_gm_to_ubuf)
NPU_BUILTIN(copy_gm_to_ubuf_align_b8) NPU_BUILTIN(copy_gm_to_ubuf_align_b16)
NPU_BUILTIN(copy_gm_to_ubuf_align_b32)
NPU_BUILTIN(copy_matrix_cc_to_ubuf) NPU_BUILTIN(copy_matrix_ubuf_to_cc)
NPU_BUILTIN(copy_ubuf_to_cbuf) NPU_BUILTIN(copy_ubuf_to_gm)
NPU_BUILTIN(copy_ubuf_to_gm_align_b8) NPU_BUILTIN(copy_ubuf_to_gm_align_b16)
NPU_BUILTIN(copy_ubuf_to_gm_align_b32)
NPU_BUILTIN(copy_ubuf_to_ubuf) NPU_BUILTIN(copy_vector_cc_to_ubuf)
NPU_BUILTIN(copy_vector_ubuf_to_cc) NPU_BUILTIN(create_ca_matrix)
NPU_BUILTIN(create_cb_matrix) NPU_BUILTIN(create_cbuf_matrix) NPU_BUILTIN(dc_preload)
NPU_BUILTIN(dcci) NPU_BUILTIN(dsb) NPU_BUILTIN(ffts_cross_core_sync)
NPU_BUILTIN(get_acc_val) NPU_BUILTIN(get_arch_ver) NPU_BUILTIN(get_block_idx)
NPU_BUILTIN(get_block_num) NPU_BUILTIN(get_coreid) NPU_BUILTIN(get_ctrl)
NPU_BUILTIN(get_icache_prl_st) NPU_BUILTIN(get_imm) NPU_BUILTIN(get_max_min_cnt)
NPU_BUILTIN(get_pc) NPU_BUILTIN(get_rsvd_cnt) NPU_BUILTIN(get_st_atomic_cfg)
NPU_BUILTIN(get_status) NPU_BUILTIN(get_subblockdim) NPU_BUILTIN(get_subblockid)
NPU_BUILTIN(get_sys_cnt) NPU_BUILTIN(get_vms4_sr) NPU_BUILTIN(hset_flag)
NPU_BUILTIN(hwait_flag) NPU_BUILTIN(img2colv2_cbuf_to_ca)
NPU_BUILTIN(img2colv2_cbuf_to_ca_s4) NPU_BUILTIN(img2colv2_cbuf_to_cb)
NPU_BUILTIN(img2colv2_cbuf_to_cb_s4) NPU_BUILTIN(ld_dev) NPU_BUILTIN(load_cbuf_to_ca)
NPU_BUILTIN(load_cbuf_to_ca_s4) NPU_BUILTIN(load_cbuf_to_cb) NPU_BUILTIN(load_cbuf_to_cb_s4)
NPU_BUILTIN(load_cbuf_to_cb_sp) NPU_BUILTIN(load_cbuf_to_cb_transpose_s4)
NPU_BUILTIN(load_gm_to_cb_unzip) NPU_BUILTIN(load_gm_to_cbuf_unzip)
NPU_BUILTIN(load_unzip_index_from_gm) NPU_BUILTIN(mad) NPU_BUILTIN(mad_sp)
NPU_BUILTIN(pipe_barrier) NPU_BUILTIN(preload) NPU_BUILTIN(sbitset0) NPU_BUILTIN(sbitset1)
NPU_BUILTIN(scatter_vnchwconv_b16) NPU_BUILTIN(scatter_vnchwconv_b32)
NPU_BUILTIN(scatter_vnchwconv_b8) NPU_BUILTIN(set_aipp_spr_0) NPU_BUILTIN(set_aipp_spr_1)
NPU_BUILTIN(set_aipp_spr_18) NPU_BUILTIN(set_aipp_spr_19) NPU_BUILTIN(set_aipp_spr_2)
NPU_BUILTIN(set_aipp_spr_20) NPU_BUILTIN(set_aipp_spr_21) NPU_BUILTIN(set_aipp_spr_3)
NPU_BUILTIN(set_aipp_spr_4) NPU_BUILTIN(set_aipp_spr_5) NPU_BUILTIN(set_aipp_spr_6)
NPU_BUILTIN(set_aipp_spr_7) NPU_BUILTIN(set_aipp_spr_8) NPU_BUILTIN(set_aipp_spr_9)
NPU_BUILTIN(set_atomic_add) NPU_BUILTIN(set_atomic_bf16) NPU_BUILTIN(set_atomic_f16)
NPU_BUILTIN(set_atomic_f32) NPU_BUILTIN(set_atomic_max) NPU_BUILTIN(set_atomic_min)
NPU_BUILTIN(set_atomic_none) NPU_BUILTIN(set_atomic_s16) NPU_BUILTIN(set_atomic_s32)
NPU_BUILTIN(set_atomic_s8) NPU_BUILTIN(set_cmpmask) NPU_BUILTIN(set_ctrl)
NPU_BUILTIN(set_data_exp_0) NPU_BUILTIN(set_data_exp_1) NPU_BUILTIN(set_data_exp_2)
NPU_BUILTIN(set_data_exp_3) NPU_BUILTIN(set_deqscale) NPU_BUILTIN(set_ffts_base_addr)
NPU_BUILTIN(set_flag) NPU_BUILTIN(set_fmatrix) NPU_BUILTIN(set_fmatrix_b)
NPU_BUILTIN(set_fpc) NPU_BUILTIN(set_l1_3d_size) NPU_BUILTIN(set_l3d_rpt)
NPU_BUILTIN(set_mask_count) NPU_BUILTIN(set_mask_norm) NPU_BUILTIN(set_mov_pad_val)
NPU_BUILTIN(set_nd_para) NPU_BUILTIN(set_padding) NPU_BUILTIN(set_quant_pre)
NPU_BUILTIN(set_st_atomic_cfg) NPU_BUILTIN(set_va_reg_sb) NPU_BUILTIN(set_vector_mask)
NPU_BUILTIN(sff0) NPU_BUILTIN(sff1) NPU_BUILTIN(sflbits) NPU_BUILTIN(st_dev)
NPU_BUILTIN(trap) NPU_BUILTIN(v4dtrans) NPU_BUILTIN(vabs) NPU_BUILTIN(vadd)
NPU_BUILTIN(vadddeqrelu) NPU_BUILTIN(vadds) NPU_BUILTIN(vand) NPU_BUILTIN(vbi)
NPU_BUILTIN(vbrcb) NPU_BUILTIN(vcadd) NPU_BUILTIN(vcbd_s322s16) NPU_BUILTIN(vcgadd)
NPU_BUILTIN(vcgmax) NPU_BUILTIN(vcmax) NPU_BUILTIN(vcmin) NPU_BUILTIN(vcmpv_eq)
NPU_BUILTIN(vcmpv_ge) NPU_BUILTIN(vcmpv_gt) NPU_BUILTIN(vcmpv_le) NPU_BUILTIN(vcmpv_lt)
NPU_BUILTIN(vcmpv_ne) NPU_BUILTIN(vcmpvs_eq) NPU_BUILTIN(vcmpvs_ge) NPU_BUILTIN(vcmpvs_gt)
NPU_BUILTIN(vcmpvs_le) NPU_BUILTIN(vcmpvs_lt) NPU_BUILTIN(vcmpvs_ne) NPU_BUILTIN(vcpadd)
NPU_BUILTIN(vconv_bf162f32) NPU_BUILTIN(vconv_bf162s32a) NPU_BUILTIN(vconv_bf162s32c)
NPU_BUILTIN(vconv_bf162s32f) NPU_BUILTIN(vconv_bf162s32r) NPU_BUILTIN(vconv_bf162s32z)
NPU_BUILTIN(vconv_deq) NPU_BUILTIN(vconv_f162f32) NPU_BUILTIN(vconv_f162s16a)
NPU_BUILTIN(vconv_f162s16c) NPU_BUILTIN(vconv_f162s16f) NPU_BUILTIN(vconv_f162s16r)
NPU_BUILTIN(vconv_f162s16z) NPU_BUILTIN(vconv_f162s32a) NPU_BUILTIN(vconv_f162s32c)
NPU_BUILTIN(vconv_f162s32f) NPU_BUILTIN(vconv_f162s32r) NPU_BUILTIN(vconv_f162s32z)
NPU_BUILTIN(vconv_f162s4) NPU_BUILTIN(vconv_f162s4a) NPU_BUILTIN(vconv_f162s4c)
NPU_BUILTIN(vconv_f162s4f) NPU_BUILTIN(vconv_f162s4r) NPU_BUILTIN(vconv_f162s4z)
NPU_BUILTIN(vconv_f162s8) NPU_BUILTIN(vconv_f162s8a) NPU_BUILTIN(vconv_f162s8c)
NPU_BUILTIN(vconv_f162s8f) NPU_BUILTIN(vconv_f162s8r) NPU_BUILTIN(vconv_f162s8z)
NPU_BUILTIN(vconv_f162u8) NPU_BUILTIN(vconv_f162u8a) NPU_BUILTIN(vconv_f162u8c)
NPU_BUILTIN(vconv_f162u8f) NPU_BUILTIN(vconv_f162u8r) NPU_BUILTIN(vconv_f162u8z)
NPU_BUILTIN(vconv_f322bf16a) NPU_BUILTIN(vconv_f322bf16c) NPU_BUILTIN(vconv_f322bf16f)
NPU_BUILTIN(vconv_f322bf16r) NPU_BUILTIN(vconv_f322bf16z) NPU_BUILTIN(vconv_f322f16)
NPU_BUILTIN(vconv_f322f16a) NPU_BUILTIN(vconv_f322f16c) NPU_BUILTIN(vconv_f322f16f)
NPU_BUILTIN(vconv_f322f16o) NPU_BUILTIN(vconv_f322f16r) NPU_BUILTIN(vconv_f322f16z)
NPU_BUILTIN(vconv_f322f32a) NPU_BUILTIN(vconv_f322f32c) NPU_BUILTIN(vconv_f322f32f)
NPU_BUILTIN(vconv_f322f32r) NPU_BUILTIN(vconv_f322f32z) NPU_BUILTIN(vconv_f322s16a)
NPU_BUILTIN(vconv_f322s16c) NPU_BUILTIN(vconv_f322s16f) NPU_BUILTIN(vconv_f322s16r)
NPU_BUILTIN(vconv_f322s16z) NPU_BUILTIN(vconv_f322s32a) NPU_BUILTIN(vconv_f322s32c)
NPU_BUILTIN(vconv_f322s32f) NPU_BUILTIN(vconv_f322s32r) NPU_BUILTIN(vconv_f322s32z)
NPU_BUILTIN(vconv_f322s64a) NPU_BUILTIN(vconv_f322s64c) NPU_BUILTIN(vconv_f322s64f)
NPU_BUILTIN(vconv_f322s64r) NPU_BUILTIN(vconv_f322s64z) NPU_BUILTIN(vconv_s162f16)
NPU_BUILTIN(vconv_s162f16a) NPU_BUILTIN(vconv_s162f16c) NPU_BUILTIN(vconv_s162f16f)
NPU_BUILTIN(vconv_s162f16r) NPU_BUILTIN(vconv_s162f16z) NPU_BUILTIN(vconv_s162f32)
NPU_BUILTIN(vconv_s322f32) NPU_BUILTIN(vconv_s322f32a) NPU_BUILTIN(vconv_s322f32c)
NPU_BUILTIN(vconv_s322f32f) NPU_BUILTIN(vconv_s322f32r) NPU_BUILTIN(vconv_s322f32z)
NPU_BUILTIN(vconv_s322s16) NPU_BUILTIN(vconv_s322s64) NPU_BUILTIN(vconv_s42f16)
NPU_BUILTIN(vconv_s642f32a) NPU_BUILTIN(vconv_s642f32c) NPU_BUILTIN(vconv_s642f32f)
NPU_BUILTIN(vconv_s642f32r) NPU_BUILTIN(vconv_s642f32z) NPU_BUILTIN(vconv_s642s32)
NPU_BUILTIN(vconv_s82f16) NPU_BUILTIN(vconv_u82f16) NPU_BUILTIN(vcopy) NPU_BUILTIN(vdiv)
NPU_BUILTIN(vector_dup) NPU_BUILTIN(vexp) NPU_BUILTIN(vgather) NPU_BUILTIN(vld_va_reg)
NPU_BUILTIN(vln) NPU_BUILTIN(vmax) NPU_BUILTIN(vmaxs) NPU_BUILTIN(vmin) NPU_BUILTIN(vmins)
NPU_BUILTIN(vmul) NPU_BUILTIN(vmulconv_f162s8) NPU_BUILTIN(vmulconv_f162u8)
NPU_BUILTIN(vmuls) NPU_BUILTIN(vnot) NPU_BUILTIN(vor) NPU_BUILTIN(vpadding)
NPU_BUILTIN(vrec) NPU_BUILTIN(vreduce) NPU_BUILTIN(vreducev2) NPU_BUILTIN(vrelu)
NPU_BUILTIN(vrsqrt) NPU_BUILTIN(vscatter) NPU_BUILTIN(vsel) NPU_BUILTIN(vshl)
NPU_BUILTIN(vshr) NPU_BUILTIN(vsqrt) NPU_BUILTIN(vsub) NPU_BUILTIN(vtranspose)
NPU_BUILTIN(wait_flag) NPU_BUILTIN(wait_flag_dev)
