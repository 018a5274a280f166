use npu::npu_kernel;

// `tiny.toml` predates the math operations: its `vector.cycles` has no `sin`.
npu_kernel! {
    kernel wave(x: [f32; 4096]) -> y: [f32; 4096] {
        y[i] = x[i] * 2.0 + sin(x[i]);
    }
    target "tests/ui/targets/tiny.toml";

    schedule hand {
        split i by 1024;
        stage x, y in ub depth 1;
    }
}

fn main() {}
