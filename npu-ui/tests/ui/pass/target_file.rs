// A kernel checked against a target file, read relative to the crate's directory.
use npu::npu_kernel;

npu_kernel! {
    kernel halve(x: [f32; 8192]) -> y: [f32; 8192] {
        y[i] = x[i] / 2.0;
    }
    target "tests/ui/targets/tiny.toml";

    schedule small_tiles {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

fn main() {
    assert_eq!(halve::kernel().target.name, "tiny");
    assert!(halve::TARGET_TOML.contains("name = \"tiny\""));
    let x: Vec<f32> = (0..8192).map(|i| i as f32).collect();
    assert_eq!(halve::reference(&x).unwrap().y[9], 4.5);
}
