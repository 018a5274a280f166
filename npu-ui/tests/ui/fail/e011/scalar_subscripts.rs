use npu::npu_kernel;

npu_kernel! {
    kernel add_offset(x: [i8; 4096], offset: i8) -> (y: [i8; 4096], z: [i8; 4096]) {
        y[i] = x[i] + offset[i];
        z[i] = x + offset;
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage x, y, z in ub depth 2;
    }
}

fn main() {
    // The stub keeps the typed signature: the scalar is passed by value.
    let _ = add_offset::reference(&[0; 4096], 3);
}
