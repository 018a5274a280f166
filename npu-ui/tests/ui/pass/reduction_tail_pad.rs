// Row sums over 217 rows: tiles of 32 rows leave a tail of 25, padded.
use npu::npu_kernel;

npu_kernel! {
    kernel row_sum(x: [f32; 217, 256]) -> y: [f32; 217] {
        y[i] = sum[k](x[i, k]);
    }
    target ascend910b;

    schedule rows {
        split i by 32;
        stage x, y in ub depth 2;
        tail pad;
    }
}

fn main() {
    let x: Vec<f32> = (0..217 * 256)
        .map(|n| (n % 256) as f32 + (n / 256) as f32)
        .collect();
    let outputs = row_sum::reference(&x).unwrap();
    // Row r holds r + 0, r + 1, ..., r + 255.
    for r in [0usize, 100, 216] {
        assert_eq!(outputs.y[r], (256 * r + 255 * 256 / 2) as f32);
    }
    assert_eq!(row_sum::kernel().schedules[0].tail, npu::ir::Tail::Pad);
}
