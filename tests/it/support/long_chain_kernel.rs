// A flat chain of 4,096 operands, the most one chain may have
// (`npu_core::MAX_CHAIN_TERMS`), through the macro: rustc compiles its host
// reference, a block of one statement per step. Included by tests/it/math_and_bits.rs.
// Operand n is the n-th of `a[i]`, `b[i]`, `0.5`, `exp(b[i])`, `a[i] * b[i]` (cycling)
// and the operators cycle through `- + +`, twelve operands a line.
npu_kernel! {
    /// A flat chain of 4,096 operands.
    kernel long_chain(a: [f32; 256], b: [f32; 256]) -> y: [f32; 256] {
        y[i] =
            a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i])
            + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i]
            + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i] + a[i] - b[i] + 0.5
            + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i] + 0.5 - exp(b[i]) + a[i] * b[i]
            + a[i] - b[i] + 0.5 + exp(b[i]) - a[i] * b[i] + a[i] + b[i] - 0.5 + exp(b[i]) + a[i] * b[i] - a[i] + b[i]
            + 0.5 - exp(b[i]) + a[i] * b[i] + a[i];
    }
    target npueval_demo;
    schedule hand {
        split i by 64;
        stage a, b, y in ub depth 2;
    }
}
