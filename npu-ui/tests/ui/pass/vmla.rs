// The kernel of the design notes with both of its schedules.
use npu::{f16, npu_kernel};

npu_kernel! {
    /// y = a * b + c
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule hand {
        split i by 2048;
        stage a, b, c, y in ub depth 1;
    }
    schedule pipelined {
        split i by 4096;
        stage a, b, c, y in ub depth 2;
    }
}

fn main() {
    let a: Vec<f16> = (0..65536)
        .map(|i| f16::from_f32((i % 7) as f32 * 0.5))
        .collect();
    let b = vec![f16::from_f32(3.0); 65536];
    let c = vec![f16::from_f32(0.25); 65536];
    let outputs = vmla::reference(&a, &b, &c).unwrap();
    // 3.0 * 3.0 + 0.25 at i = 6 (a = 3.0).
    assert_eq!(outputs.y[6], f16::from_f32(9.25));
    assert_eq!(vmla::SCHEDULES, ["hand", "pipelined"]);
    assert_eq!(vmla::NAME, "vmla");
    assert_eq!(vmla::kernel().schedules[1].tiles, [4096]);
    assert!(vmla::SOURCE.starts_with("/// y = a * b + c\nkernel vmla("));
    let short = vmla::reference(&a[..10], &b, &c).unwrap_err();
    assert_eq!(
        short.to_string(),
        "`a` has 10 elements but the kernel expects 65536"
    );
}
