use npu::npu_kernel;

npu_kernel! {
    /// A padded view's value is a literal of the tensor's dtype.
    kernel shift(x: [i32; 1000]) -> y: [i32; 1008] {
        y[i] = pad(x, 0.5)[i - 2];
    }
    target ascend910b;

    schedule hand {
        stage x, y in ub depth 1;
        tail pad;
    }
}

fn main() {}
