//! A matmul's core grids, and specs that read back as they were written.

use npu_core::ir::Tail;

use super::*;
use crate::kernels::Bundled;

#[test]
fn a_matmuls_cores_are_every_grid_with_a_fractal_per_core() {
    // The suite's matmul: c is 128 x 256 on ascend910b's 20 cube cores, fractals
    // of 16, so m takes at most 128 / 16 = 8 cores and n 256 / 16 = 16. Counts are
    // the powers of two and the divisors of 20 up to those: m 1, 2, 4, 5, 8 and
    // n 1, 2, 4, 5, 8, 10, 16; grids are the pairs of at most 20 cores, n's count
    // outermost.
    let problem = Bundled::find("matmul").unwrap().problem(0, None).unwrap();
    let space = Space::of(&problem.kernel);
    assert_eq!(
        space.cores,
        [
            [1, 1],
            [2, 1],
            [4, 1],
            [5, 1],
            [8, 1],
            [1, 2],
            [2, 2],
            [4, 2],
            [5, 2],
            [8, 2],
            [1, 4],
            [2, 4],
            [4, 4],
            [5, 4],
            [1, 5],
            [2, 5],
            [4, 5],
            [1, 8],
            [2, 8],
            [1, 10],
            [2, 10],
            [1, 16],
        ]
    );
    // Each grid is one the checker takes: with 16 x 16 x 16 blocks and m and n
    // split by 16, every core gets whole blocks (uneven shares, such as 128 over
    // 5 cores, deal out whole tiles).
    for &[cores, cores_n] in &space.cores {
        let mut tiles = vec![None; problem.kernel.axes.len()];
        for axis in problem.kernel.output_axes() {
            tiles[*axis] = Some(16);
        }
        let spec = Spec {
            cores,
            cores_n,
            tiles,
            depth: 1,
            l0_depth: 1,
            l0c_depth: 1,
            cube: Some([16, 16, 16]),
            tail: Tail::None,
        };
        let text = spec.to_dsl(&problem.kernel, "s");
        let checked = problem.check(&text);
        assert!(checked.is_ok(), "{text}");
    }
}

#[test]
fn a_grid_reads_back_as_it_was_written() {
    let problem = Bundled::find("matmul").unwrap().problem(0, None).unwrap();
    let kernel = &problem.kernel;
    let space = Space::of(kernel);
    for index in [0, 1, space.size() / 3, space.size() - 1] {
        let spec = space.point(kernel, index);
        let text = spec.to_dsl(kernel, "s");
        let schedules = npu_core::internal::parse_schedules_str(&text).unwrap();
        assert_eq!(Spec::from_schedule(kernel, &schedules[0]), spec, "{text}");
    }
    // Cores over n alone are written as such.
    let mut spec = space.point(kernel, 0);
    (spec.cores, spec.cores_n) = (1, 16);
    assert!(
        spec.to_dsl(kernel, "s")
            .contains("parallel n over 16 cores;")
    );
}
