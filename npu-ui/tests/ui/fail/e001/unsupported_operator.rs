use npu::npu_kernel;

npu_kernel! {
    kernel both(a: [i16; 4096], b: [i16; 4096]) -> y: [i16; 4096] {
        y[i] = a[i] && b[i];
    }
    target ascend910b;

    schedule hand {
        split i by 1024;
        stage a, b, y in ub depth 1;
    }
}

fn main() {}
