//! The host side, in the layout of the public Ascend C kernel-launch samples: a
//! `main.cpp` that reads each input from `input/NAME.bin`, launches the kernel on
//! `BLOCK_DIM` cores with `ACLRT_LAUNCH_KERNEL` and writes each output to
//! `output/NAME.bin`, and a `CMakeLists.txt` that builds the kernel with the CANN
//! toolkit's `ascendc_library`. Neither is compiled here (they need the toolkit).

use npu_core::ir::Role;
use npu_core::{Level, Program, Target};

use super::names::c_type;
use crate::signature::{gm_tensors, parameters};
use crate::text::Text;

/// `main.cpp`: allocate, copy in, launch, copy out.
pub(super) fn launch(program: &Program, name: &str) -> String {
    let mut text = Text::default();
    let block_dim = program.cores.iter().map(|c| c.core + 1).max().unwrap_or(0);
    text.comment(&format!(
        "Host launch of `{name}` (kernel `{}`, schedule `{}`, target {}).\n\
         Tiling constants: BLOCK_DIM {block_dim}, UB {} B; the per-core shares are in the kernel's GM_BASE table.",
        program.kernel,
        program.schedule,
        program.target,
        program.peak(Level::Ub)
    ));
    text.line("#include <cstdint>");
    text.line("#include <cstdio>");
    text.line("#include \"acl/acl.h\"");
    text.line(format!("#include \"aclrtlaunch_{name}.h\""));
    text.line("");
    text.line(format!("constexpr uint32_t BLOCK_DIM = {block_dim};"));
    text.line("");
    read_write_helpers(&mut text);
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
    for (_, tensor) in gm_tensors(program).filter(|(_, t)| t.role == Role::Output) {
        text.line(format!(
            "CopyDeviceToFile({0}_device, \"./output/{0}.bin\", {1});",
            tensor.name,
            tensor.bytes()
        ));
    }
    for (_, tensor) in gm_tensors(program) {
        text.line(format!("aclrtFree({}_device);", tensor.name));
    }
    text.line("aclrtDestroyStream(stream);");
    text.line("aclrtResetDevice(0);");
    text.line("aclFinalize();");
    text.line("return 0;");
    text.close("");
    text.finish()
}

/// Device buffers for the global tensors (inputs filled from files) and the
/// parameters' values: the kernel's arguments, in order.
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
                "CopyFileToDevice(\"./input/{name}.bin\", {name}_device, {bytes});"
            ));
        }
        arguments.push(format!("{name}_device"));
    }
    for (_, tensor) in parameters(program) {
        let ty = c_type(tensor.dtype).unwrap_or("float");
        text.line(format!(
            "{ty} {} = {ty}(0);  // set the parameter here",
            tensor.name
        ));
        arguments.push(tensor.name.clone());
    }
    arguments
}

/// File to device and back, through host buffers.
fn read_write_helpers(text: &mut Text) {
    text.open("static void CopyFileToDevice(const char *path, uint8_t *device, size_t bytes)");
    text.line("void *host = nullptr;");
    text.line("aclrtMallocHost(&host, bytes);");
    text.line("FILE *file = std::fopen(path, \"rb\");");
    text.line("size_t read = file != nullptr ? std::fread(host, 1, bytes, file) : 0;");
    text.line("if (file != nullptr) {");
    text.line("    std::fclose(file);");
    text.line("}");
    text.line("if (read != bytes) {");
    text.line("    std::fprintf(stderr, \"%s: expected %zu bytes\\n\", path, bytes);");
    text.line("}");
    text.line("aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);");
    text.line("aclrtFreeHost(host);");
    text.close("");
    text.line("");
    text.open(
        "static void CopyDeviceToFile(const uint8_t *device, const char *path, size_t bytes)",
    );
    text.line("void *host = nullptr;");
    text.line("aclrtMallocHost(&host, bytes);");
    text.line("aclrtMemcpy(host, bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST);");
    text.line("FILE *file = std::fopen(path, \"wb\");");
    text.line("if (file != nullptr) {");
    text.line("    std::fwrite(host, 1, bytes, file);");
    text.line("    std::fclose(file);");
    text.line("}");
    text.line("aclrtFreeHost(host);");
    text.close("");
    text.line("");
}

/// `CMakeLists.txt` for the CANN toolkit's Ascend C build.
pub(super) fn cmake(target: &Target, name: &str) -> String {
    let soc = match target.name.as_str() {
        "ascend310p" => "Ascend310P3",
        _ => "Ascend910B3",
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
