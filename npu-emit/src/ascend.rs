//! Ascend C: one kernel source per program, plus the host side.
//!
//! The kernel is the validated program itself, not a re-derivation of it: one `TBuf`
//! over the unified buffer holds every buffer at the program's own byte offsets,
//! every `set_flag`/`wait_flag` is a `SetFlag`/`WaitFlag` with the program's event
//! id, and each core class is a function whose body is that class's program order
//! (the `order` module), a run of alike tiles written once as a loop. `GetBlockIdx()`
//! picks the core's class and its share of each tensor (the core's global-memory
//! bases, as constant tables).
//!
//! Copies are written by the `copy` module, vector instructions by `vector` (the
//! round mode of a cast, or why none converts as the simulator does, by `cast`;
//! reductions by `reduce`; the advanced math calls and negation by `math`; the
//! integer calls beyond arithmetic by `integer`; compares and selects by `compare`;
//! arg reductions along a row by compares, selects and minima by `arg`, the others and
//! scans element by element by `stepwise`; moves the count form
//! cannot write and gathers by `strided`, `gather`, `fill` and `pad`), the cube path
//! (copies into L1, loads into L0A/L0B, `Mmad` and `Fixpipe`, each cube memory a
//! `TBuf` of its own) by `cube`, the launch file and CMakeLists by `host`. The facts
//! these writers share are leaves: `names` (element types, the chip and the
//! unsupported error), `view` (an instruction's UB operands and the loops of calls
//! over its box) and `offsets` (the offset table a `Gather` reads, and where it lives).

mod arg;
mod broadcast;
mod cast;
mod compare;
mod copy;
mod cube;
mod fill;
mod gather;
mod host;
mod integer;
mod lookup;
mod math;
mod names;
mod offsets;
mod pad;
mod pair_sum;
mod reduce;
mod scan;
mod stepwise;
mod strided;
mod vector;
mod view;
mod whole_reduce;
mod window;

use std::collections::BTreeMap;

use npu_core::program::{CoreCode, Op, Operand, VectorInstr, VectorKind};
use npu_core::{CheckedKernel, Dtype, Level, Pipe, Program, Target};

use self::names::{Chip, element_type, unsupported};
use self::offsets::Room;
use crate::order::{self, Block, Step};
use crate::output::{Emitted, File, Unsupported, kernel_hash};
use crate::signature::{file_stem, function_name, gm_tensors, parameters};
use crate::text::Text;

/// Writes the kernel, launch file and CMakeLists of `program`.
pub(crate) fn emit(
    program: &Program,
    target: &Target,
    kernel: &CheckedKernel,
) -> Result<Emitted, Unsupported> {
    cube::check(program)?;
    element_types_exist(program, target)?;
    scratch_fits(program, target)?;
    let name = function_name(program, kernel);
    let stem = file_stem(program);
    let source = kernel_source(program, target, kernel, &name)?;
    Ok(Emitted {
        files: vec![
            File {
                path: format!("{stem}.cpp"),
                text: source,
            },
            File {
                path: "main.cpp".into(),
                text: host::launch(program, &name),
            },
            File {
                path: "CMakeLists.txt".into(),
                text: host::cmake(target, &stem),
            },
        ],
    })
}

/// Every tensor's element type exists on the target's chip: all nine dtypes on the
/// Atlas A2 series, all but bf16 on the Atlas inference AI Core (its API reference has
/// no `bfloat16_t`).
fn element_types_exist(program: &Program, target: &Target) -> Result<(), Unsupported> {
    let chip = Chip::of(target);
    let bf16 = program.signature.iter().find(|t| t.dtype == Dtype::Bf16);
    match bf16 {
        Some(tensor) if chip == Chip::AtlasInference => Err(unsupported(
            &format!("tensor `{}` of bf16", tensor.name),
            &format!("{} has no bfloat16_t", chip.name()),
        )),
        _ => Ok(()),
    }
}

/// The offset tables of gathers and strided moves fit after the program's buffers,
/// below the vendor library's scratch in a program with a select.
fn scratch_fits(program: &Program, target: &Target) -> Result<(), Unsupported> {
    let room = Room::of(program, target);
    let table = strided::scratch_bytes(program, room);
    let end = offsets::scratch_address(program) + table;
    let room = room.any;
    if end <= room {
        return Ok(());
    }
    Err(unsupported(
        &format!("an offset table of {table} B after the program's buffers"),
        &format!("the ub has {room} B for it and the table would end at {end} B"),
    ))
}

/// The kernel source: header comment, constant tables, one function per core class,
/// and the entry point.
fn kernel_source(
    program: &Program,
    target: &Target,
    kernel: &CheckedKernel,
    name: &str,
) -> Result<String, Unsupported> {
    let mut text = Text::default();
    header(&mut text, program, target, kernel);
    let scratch = math::scratch_bytes(program, target)?;
    compare::check(program)?;
    text.line("#include \"kernel_operator.h\"");
    text.line("");
    text.open(format!("namespace npu_{name}"));
    let room = Room::of(program, target);
    tables(&mut text, program, scratch, room);
    text.line("");
    for line in reduce::HELPERS.lines() {
        text.line(line);
    }
    for (index, code) in program.classes.iter().enumerate() {
        text.line("");
        class_function(&mut text, program, index, code, room)?;
    }
    text.close(&format!("  // namespace npu_{name}"));
    text.line("");
    entry(&mut text, program, name);
    Ok(text.finish())
}

/// What the file is, where it came from, and the schedule it implements.
fn header(text: &mut Text, program: &Program, target: &Target, kernel: &CheckedKernel) {
    text.comment(&format!(
        "Ascend C for kernel `{}`, schedule `{}`, target {}.\n\
         Written by npu-emit from the validated program; do not edit by hand.\n\
         kernel-hash: {}",
        program.kernel,
        program.schedule,
        target.name,
        kernel_hash(kernel)
    ));
    text.comment("\nSchedule and buffers (unified-buffer byte offsets inside the one TBuf):");
    for buffer in program.buffers.iter().filter(|b| b.level == Level::Ub) {
        text.comment(&format!(
            "  {} at 0x{:05x}, {} x {} B",
            buffer.name, buffer.address, buffer.depth, buffer.slot_bytes
        ));
    }
    if program.cube.is_some() {
        text.comment("Cube buffers (byte offsets inside each memory's TBuf, fractal layouts):");
    }
    for buffer in program.buffers.iter().filter(|b| b.level != Level::Ub) {
        text.comment(&format!(
            "  {} in {} at 0x{:05x}, {} x {} B",
            buffer.name, buffer.level, buffer.address, buffer.depth, buffer.slot_bytes
        ));
    }
    if let Some([m, n, k]) = program.cube {
        text.comment(&format!("  cube block m {m}, n {n}, k {k}"));
    }
    for (index, code) in program.classes.iter().enumerate() {
        let cores: Vec<String> = program
            .cores
            .iter()
            .filter(|c| c.class as usize == index)
            .map(|c| c.core.to_string())
            .collect();
        text.comment(&format!(
            "  class {index} (cores {}): {}",
            cores.join(", "),
            code.summary
        ));
    }
    text.line("");
}

/// Launch geometry, the temporary buffer of the advanced calls (`scratch` bytes past
/// the program's buffers, when any) and each core's class and global-memory bases.
fn tables(text: &mut Text, program: &Program, scratch: u64, room: Room) {
    let block_dim = program.cores.iter().map(|c| c.core + 1).max().unwrap_or(0);
    let ub = offsets::scratch_address(program) + strided::scratch_bytes(program, room);
    text.line(format!("constexpr uint32_t BLOCK_DIM = {block_dim};"));
    if scratch > 0 {
        text.comment("The advanced math calls' temporary buffer, past the program's buffers.");
        text.line(format!("constexpr uint32_t TMP_AT = {ub};"));
    }
    text.line(format!(
        "constexpr uint32_t UB_BYTES = {};",
        (ub + scratch).max(32)
    ));
    let mut class = vec![-1i64; block_dim as usize];
    let mut bases = vec![vec![0u64; program.tensors.len()]; block_dim as usize];
    for core in &program.cores {
        class[core.core as usize] = i64::from(core.class);
        bases[core.core as usize].clone_from(&core.gm_base);
    }
    let class: Vec<String> = class.iter().map(i64::to_string).collect();
    text.line(format!(
        "constexpr int32_t CLASS_OF[BLOCK_DIM] = {{{}}};",
        class.join(", ")
    ));
    text.comment("Element offset of each core's share of each tensor (signature order).");
    text.open(format!(
        "constexpr uint64_t GM_BASE[BLOCK_DIM][{}] =",
        program.tensors.len().max(1)
    ));
    for row in bases {
        let row: Vec<String> = row.iter().map(u64::to_string).collect();
        text.line(format!("{{{}}},", row.join(", ")));
    }
    text.close(";");
}

/// The argument list of a class function: global tensors, parameters, the UB.
fn class_parameters(program: &Program) -> String {
    let mut parameters: Vec<String> = gm_tensors(program)
        .map(|(_, t)| {
            let ty = element_type(t.dtype);
            format!("const AscendC::GlobalTensor<{ty}> &{}_gm", t.name)
        })
        .collect();
    for (_, t) in crate::signature::parameters(program) {
        parameters.push(format!("{} {}", element_type(t.dtype), t.name));
    }
    parameters.push("const AscendC::LocalTensor<uint8_t> &ub".into());
    for (_, name, _) in cube::used(program) {
        parameters.push(format!("const AscendC::LocalTensor<uint8_t> &{name}"));
    }
    parameters.join(", ")
}

/// One core class: its blocks in program order; `room` is where the UB ends for the
/// emitter's scratch.
fn class_function(
    text: &mut Text,
    program: &Program,
    index: usize,
    code: &CoreCode,
    room: Room,
) -> Result<(), Unsupported> {
    let blocks = order::blocks(code)
        .map_err(|e| unsupported(&format!("the flags of core class {index}"), &e.0))?;
    let mut tags = Tags::new();
    text.comment(&code.summary);
    text.open(format!(
        "__aicore__ inline void Class{index}({})",
        class_parameters(program)
    ));
    for block in &blocks {
        match block {
            Block::Straight(steps) => {
                for step in steps {
                    instruction(text, program, step, (None, room), &mut tags)?;
                }
            }
            Block::Loop { count, body } => {
                text.open(format!("for (uint64_t j = 0; j < {count}; ++j)"));
                for step in body {
                    instruction(text, program, step, (Some("j"), room), &mut tags)?;
                }
                text.close("");
            }
        }
    }
    text.close("");
    Ok(())
}

/// One instruction as one call (or a bounded loop of calls); `iteration` names the
/// loop variable when inside a run's loop, `room` is where the UB ends for the
/// emitter's scratch.
fn instruction(
    text: &mut Text,
    program: &Program,
    step: &Step,
    (iteration, room): (Option<&str>, Room),
    tags: &mut Tags,
) -> Result<(), Unsupported> {
    // The source's dtype is the one written there before this instruction: an
    // instruction in place (a narrowing cast over its own accumulator) reads what
    // was there, not what it writes.
    let source = match step.op {
        Op::Vector(v) => match v.src[0] {
            Operand::Ub { address, .. } => tags.get(&address).copied(),
            _ => None,
        },
        _ => None,
    };
    tag(tags, program, &step.op);
    match step.op {
        Op::Loop => Ok(()),
        Op::SetFlag { from, to, event } => {
            text.line(format!(
                "AscendC::SetFlag<AscendC::HardEvent::{}>({event});",
                hard_event(from, to)
            ));
            Ok(())
        }
        Op::WaitFlag { from, to, event } => {
            text.line(format!(
                "AscendC::WaitFlag<AscendC::HardEvent::{}>({event});",
                hard_event(from, to)
            ));
            Ok(())
        }
        Op::Barrier => {
            text.line("AscendC::PipeBarrier<PIPE_ALL>();");
            Ok(())
        }
        Op::CopyIn {
            level: Level::L1, ..
        } => cube::copy_in(text, program, step, iteration),
        Op::CopyIn { .. } | Op::CopyOut { .. } => copy::copy(text, program, step, iteration),
        Op::Vector(v) if stepwise::writes(&v) => {
            if arg::arg(text, program, &v, room) || scan::scan(text, program, &v, room) {
                return Ok(());
            }
            stepwise::stepwise(text, program, &v)
        }
        Op::Vector(v) if v.kind == VectorKind::PairSum => pair_sum::pair_sum(text, program, &v),
        Op::Vector(
            v @ VectorInstr {
                kind: VectorKind::Gather(gather),
                ..
            },
        ) => gather::gather(text, program, &v, (gather, room.any)),
        Op::Vector(v) if matches!(v.kind, VectorKind::Reduce(..)) => {
            reduce::reduce(text, program, &v, room.any)
        }
        Op::Vector(v) if math::writes(&v) => math::math(text, program, &v),
        Op::Vector(v) if v.kind == VectorKind::Select => compare::select(text, program, &v),
        Op::Vector(v) if compare::writes(&v) => compare::compare(text, program, &v),
        Op::Vector(v) if integer::writes(&v) => integer::integer(text, program, &v),
        Op::Vector(v) => vector::vector(text, program, &v, source.unwrap_or(v.dtype)),
        Op::LoadL0 { .. } => cube::load(text, program, &step.op),
        Op::Mmad { .. } => cube::mmad(text, &step.op),
        Op::Fixpipe { .. } => cube::fixpipe(text, program, step, iteration),
    }
}

/// The dtype each UB address was last written in, by the start of the write.
type Tags = BTreeMap<u32, Dtype>;

/// Records what `op` writes, before it is written out: a cast reads its source in
/// the dtype last written there (as the simulator does), and the order of the calls
/// is the order of the writes.
fn tag(tags: &mut Tags, program: &Program, op: &Op) {
    match *op {
        Op::CopyIn {
            tensor,
            address,
            level: Level::Ub,
            ..
        } => {
            if let Some(declared) = program.signature.get(usize::from(tensor)) {
                tags.insert(address, declared.dtype);
            }
        }
        Op::Vector(v) => {
            let written = match v.kind {
                VectorKind::Compare(_) => Dtype::U8,
                // An arg reduction writes the index; its accumulator names the
                // values' dtype.
                VectorKind::Reduce(op, _) if op.is_arg() => v.dtype,
                VectorKind::Reduce(_, accumulator) => accumulator,
                _ => v.dtype,
            };
            tags.insert(v.dst, written);
        }
        _ => {}
    }
}

/// The `HardEvent` of a flag from one pipe to another, e.g. `MTE2_V`.
fn hard_event(from: Pipe, to: Pipe) -> String {
    format!("{}_{}", from.name(), to.name())
}

/// The entry point: the core's class, its share of each tensor, the UB.
fn entry(text: &mut Text, program: &Program, name: &str) {
    let mut arguments: Vec<String> = gm_tensors(program)
        .map(|(_, t)| format!("GM_ADDR {}", t.name))
        .collect();
    for (_, t) in parameters(program) {
        arguments.push(format!("{} {}", element_type(t.dtype), t.name));
    }
    text.open(format!(
        "extern \"C\" __global__ __aicore__ void {name}({})",
        arguments.join(", ")
    ));
    if cube::only(program) {
        // As the public cube samples do: the kernel runs on cube cores alone.
        text.line("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);");
    }
    text.line(format!("using namespace npu_{name};"));
    text.line("const uint32_t core = AscendC::GetBlockIdx();");
    text.line("if (core >= BLOCK_DIM || CLASS_OF[core] < 0) {");
    text.line("    return;");
    text.line("}");
    text.line("AscendC::TPipe pipe;");
    text.line("AscendC::TBuf<AscendC::TPosition::VECCALC> unified;");
    text.line("pipe.InitBuffer(unified, UB_BYTES);");
    text.line("const AscendC::LocalTensor<uint8_t> ub = unified.Get<uint8_t>();");
    cube::declare(text, program);
    let mut call = Vec::new();
    for (index, t) in gm_tensors(program) {
        let ty = element_type(t.dtype);
        text.line(format!("AscendC::GlobalTensor<{ty}> {}_gm;", t.name));
        text.line(format!(
            "{0}_gm.SetGlobalBuffer(reinterpret_cast<__gm__ {ty} *>({0}) + GM_BASE[core][{index}]);",
            t.name
        ));
        call.push(format!("{}_gm", t.name));
    }
    call.extend(parameters(program).map(|(_, t)| t.name.clone()));
    call.push("ub".into());
    call.extend(cube::used(program).map(|(_, name, _)| name.to_string()));
    text.line("switch (CLASS_OF[core]) {");
    for class in 0..program.classes.len() {
        text.line(format!("case {class}:"));
        text.line(format!("    Class{class}({});", call.join(", ")));
        text.line("    break;");
    }
    text.line("default:");
    text.line("    break;");
    text.line("}");
    text.close("");
}
