//! The host side, in the layout of the public Ascend C kernel-launch samples: a
//! `main.cpp` that reads each input (and each scalar parameter) from `input/NAME.bin`,
//! launches the kernel on `BLOCK_DIM` cores with `ACLRT_LAUNCH_KERNEL`, writes each
//! output to `output/NAME.bin`, compares it with `golden/NAME.bin` and prints `PASS`
//! or `FAIL` (exit status 0 or 1), as the samples' verification scripts do; and a
//! `CMakeLists.txt` that builds the kernel with the CANN toolkit's `ascendc_library`.
//! `autotune --emit` writes `input/` and `golden/` beside them (seeded inputs and the
//! host reference's outputs). Here `main.cpp` runs against a stand-in of the ACL
//! runtime and the CPU model (npu-emit's `host` test); the CMake build needs the toolkit.

use npu_core::ir::{Role, Tensor};
use npu_core::{Dtype, Level, Program, Target};

use super::names::{Chip, element_type};
use crate::signature::{gm_tensors, parameters};
use crate::text::Text;

/// The helpers `main.cpp` calls: files to and from the device, and the comparison.
const HELPERS: &str = include_str!("host_helpers.cpp");

/// `main.cpp`: read the inputs, launch, write and check the outputs.
pub(super) fn launch(program: &Program, name: &str) -> String {
    let mut text = Text::default();
    let block_dim = program.cores.iter().map(|c| c.core + 1).max().unwrap_or(0);
    text.comment(&format!(
        "Host launch of `{name}` (kernel `{}`, schedule `{}`, target {}).\n\
         Tiling constants: BLOCK_DIM {block_dim}, UB {} B; the per-core shares are in the kernel's GM_BASE table.\n\
         Reads input/NAME.bin, writes output/NAME.bin and checks it against golden/NAME.bin.",
        program.kernel,
        program.schedule,
        program.target,
        program.peak(Level::Ub)
    ));
    text.line("#include <cmath>");
    text.line("#include <cstdint>");
    text.line("#include <cstdio>");
    text.line("#include <cstring>");
    text.line("#include <vector>");
    text.line("#include \"acl/acl.h\"");
    text.line(format!("#include \"aclrtlaunch_{name}.h\""));
    text.line("");
    text.line(format!("constexpr uint32_t BLOCK_DIM = {block_dim};"));
    text.line("");
    for line in HELPERS.lines() {
        text.line(line);
    }
    text.line("");
    text.open("int main()");
    text.line("aclInit(nullptr);");
    text.line("aclrtSetDevice(0);");
    text.line("aclrtStream stream = nullptr;");
    text.line("aclrtCreateStream(&stream);");
    let arguments = device_arguments(&mut text, program);
    text.line(format!(
        "ACLRT_LAUNCH_KERNEL({name})(BLOCK_DIM, stream, {});",
        arguments.join(", ")
    ));
    text.line("aclrtSynchronizeStream(stream);");
    text.line("bool passed = true;");
    for (_, tensor) in gm_tensors(program).filter(|(_, t)| t.role == Role::Output) {
        check_output(&mut text, tensor);
    }
    for (_, tensor) in gm_tensors(program) {
        text.line(format!("aclrtFree({}_device);", tensor.name));
    }
    text.line("aclrtDestroyStream(stream);");
    text.line("aclrtResetDevice(0);");
    text.line("aclFinalize();");
    text.line("std::printf(\"%s\\n\", passed ? \"PASS\" : \"FAIL\");");
    text.line("return passed ? 0 : 1;");
    text.close("");
    text.finish()
}

/// Copies one output back, writes it to `output/` and compares it with `golden/`.
fn check_output(text: &mut Text, tensor: &Tensor) {
    let (name, bytes) = (&tensor.name, tensor.bytes());
    let (kind, tolerance) = comparison(tensor.dtype);
    text.line(format!(
        "std::vector<uint8_t> {name}_host = DeviceToFile({name}_device, \"./output/{name}.bin\", {bytes});"
    ));
    text.line(format!(
        "passed = Matches(\"{name}\", {name}_host, \"./golden/{name}.bin\", {kind}, {tolerance:e}) && passed;"
    ));
}

/// How `Matches` reads an element of `dtype`, and its tolerance: `|got - want| <=
/// tolerance * (1 + |want|)`, the public samples' check (1e-3 for 16-bit floats, 1e-4
/// for f32); integers exactly.
fn comparison(dtype: Dtype) -> (&'static str, f64) {
    match dtype {
        Dtype::F16 => ("Kind::Half", 1e-3),
        Dtype::Bf16 => ("Kind::BFloat16", 1e-3),
        Dtype::F32 => ("Kind::Float", 1e-4),
        Dtype::I8 => ("Kind::Int8", 0.0),
        Dtype::U8 => ("Kind::Uint8", 0.0),
        Dtype::I16 => ("Kind::Int16", 0.0),
        Dtype::U16 => ("Kind::Uint16", 0.0),
        Dtype::I32 => ("Kind::Int32", 0.0),
        Dtype::U32 => ("Kind::Uint32", 0.0),
    }
}

/// Device buffers for the global tensors (inputs filled from files) and the
/// parameters' values read from their files: the kernel's arguments, in order.
fn device_arguments(text: &mut Text, program: &Program) -> Vec<String> {
    let mut arguments = Vec::new();
    for (_, tensor) in gm_tensors(program) {
        let bytes = tensor.bytes();
        let name = &tensor.name;
        text.line(format!("uint8_t *{name}_device = nullptr;"));
        text.line(format!(
            "aclrtMalloc(reinterpret_cast<void **>(&{name}_device), {bytes}, ACL_MEM_MALLOC_HUGE_FIRST);"
        ));
        if tensor.role == Role::Input {
            text.line(format!(
                "FileToDevice(\"./input/{name}.bin\", {name}_device, {bytes});"
            ));
        }
        arguments.push(format!("{name}_device"));
    }
    for (_, tensor) in parameters(program) {
        let ty = element_type(tensor.dtype);
        let name = &tensor.name;
        text.line(format!("{ty} {name} = {ty}(0);"));
        text.line(format!(
            "ReadFile(\"./input/{name}.bin\", &{name}, sizeof({name}));"
        ));
        arguments.push(name.clone());
    }
    arguments
}

/// `CMakeLists.txt` for the CANN toolkit's Ascend C build.
pub(super) fn cmake(target: &Target, name: &str) -> String {
    let soc = match Chip::of(target) {
        Chip::AtlasInference => "Ascend310P3",
        Chip::AtlasA2 => "Ascend910B3",
    };
    let mut text = Text::default();
    text.line(format!(
        "# Builds `{name}` with the CANN toolkit (target {}).",
        target.name
    ));
    text.line("cmake_minimum_required(VERSION 3.16)");
    text.line(format!("project({name} LANGUAGES CXX)"));
    text.line("");
    text.line(format!(
        "set(SOC_VERSION \"{soc}\" CACHE STRING \"system on chip type\")"
    ));
    text.line("set(ASCEND_CANN_PACKAGE_PATH \"$ENV{ASCEND_HOME_PATH}\" CACHE PATH \"CANN package installation directory\")");
    text.line("set(RUN_MODE \"npu\" CACHE STRING \"npu or cpu (the toolkit's CPU debug mode)\")");
    text.line("");
    text.line("if(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)");
    text.line("    set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)");
    text.line("elseif(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)");
    text.line(
        "    set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)",
    );
    text.line("else()");
    text.line("    message(FATAL_ERROR \"ascendc_kernel_cmake not found under ${ASCEND_CANN_PACKAGE_PATH}\")");
    text.line("endif()");
    text.line("include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)");
    text.line("");
    text.line(format!("ascendc_library(kernels STATIC {name}.cpp)"));
    text.line("add_executable(main main.cpp)");
    text.line("target_link_libraries(main PRIVATE kernels ascendcl)");
    text.finish()
}
