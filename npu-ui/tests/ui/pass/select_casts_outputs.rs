// Several outputs, a select, min, a reduction-free cast and an integer result.
use npu::npu_kernel;

npu_kernel! {
    kernel split_sign(x: [f32; 1024]) -> (positive: [f32; 1024], negative: [f32; 1024], rounded: [i32; 1024]) {
        positive[i] = select(x[i] > 0.0, x[i], 0.0);
        negative[i] = min(x[i], 0.0);
        rounded[i] = x[i] as i32 * 2;
    }
    target npueval_demo;

    schedule whole {
        stage x, positive, negative, rounded in ub depth 1;
    }
}

fn main() {
    let x: Vec<f32> = (0..1024).map(|i| i as f32 * 0.75 - 300.0).collect();
    let outputs = split_sign::reference(&x).unwrap();
    assert_eq!((outputs.positive[0], outputs.negative[0]), (0.0, -300.0));
    assert_eq!(
        (outputs.positive[1023], outputs.negative[1023]),
        (467.25, 0.0)
    );
    // -299.25 truncates toward zero to -299, times 2.
    assert_eq!(outputs.rounded[1], -598);
}
