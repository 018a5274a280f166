//! Linear least squares for a small dense system (a few hundred rows, a few dozen
//! columns), by Householder QR: `A = QR`, then `R x = Qᵀ b` by back substitution. QR
//! works on `A` itself, so its error grows with the condition number of `A`, not of
//! `AᵀA` as the normal equations' would; the columns are scaled to unit length first,
//! so the condition number reported is that of the scaled matrix. It is written by hand
//! rather than taken from a linear-algebra crate: the systems are tiny and the 80 lines
//! cost less than a dependency's build.
//!
//! Beside the solution it gives, per column, the two figures identifiability is judged
//! by. With `a_j` the column and `A` all of them:
//!
//! - **leverage** `1 / [(AᵀA)⁻¹]_jj`: how strongly the rows pin the unknown down. With
//!   each row's relative error `σ`, the unknown's standard error is
//!   `σ / sqrt(leverage)`.
//! - **independent share** `leverage / |a_j|²`, in (0, 1]: the part of the column no
//!   other column explains (1 for a column orthogonal to the rest, near 0 for one the
//!   others nearly reproduce).

/// The solution of `min |A x - b|` and the figures of each column.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Solution {
    pub x: Vec<f64>,
    pub leverage: Vec<f64>,
    pub share: Vec<f64>,
    /// An upper bound of the 2-norm condition number of `A` with unit columns
    /// (`|R|_F |R⁻¹|_F`).
    pub condition: f64,
}

/// Solves `min |A x - b|` for `A` given by `columns` (each of `b.len()` rows); `None`
/// when `A` is rank-deficient (a column of zeros, or one the others reproduce to
/// within rounding) or has more columns than rows.
pub(crate) fn solve(columns: &[Vec<f64>], b: &[f64]) -> Option<Solution> {
    let (m, n) = (b.len(), columns.len());
    if n == 0 || m < n {
        return None;
    }
    let norms: Vec<f64> = columns.iter().map(|c| norm(c)).collect();
    if norms.iter().any(|&v| v == 0.0 || !v.is_finite()) {
        return None;
    }
    let mut a: Vec<Vec<f64>> = columns
        .iter()
        .zip(&norms)
        .map(|(c, s)| c.iter().map(|v| v / s).collect())
        .collect();
    let mut rhs = b.to_vec();
    for k in 0..n {
        reflect(&mut a, &mut rhs, k);
    }
    let r = |i: usize, j: usize| a[j][i];
    let largest = (0..n).map(|k| r(k, k).abs()).fold(0.0, f64::max);
    if (0..n).any(|k| r(k, k).abs() <= 1e-10 * largest) {
        return None;
    }
    let inverse = upper_inverse(n, r);
    let mut x = vec![0.0; n];
    for (i, row) in inverse.iter().enumerate() {
        x[i] = (0..n).map(|k| row[k] * rhs[k]).sum::<f64>() / norms[i];
    }
    let diag: Vec<f64> = inverse
        .iter()
        .map(|row| row.iter().map(|v| v * v).sum())
        .collect();
    let leverage: Vec<f64> = diag.iter().zip(&norms).map(|(d, s)| s * s / d).collect();
    let share = diag.iter().map(|d| 1.0 / d).collect();
    let r_norm: f64 = (0..n)
        .flat_map(|j| (0..=j).map(move |i| (i, j)))
        .map(|(i, j)| r(i, j).powi(2))
        .sum();
    let condition = r_norm.sqrt() * diag.iter().sum::<f64>().sqrt();
    Some(Solution {
        x,
        leverage,
        share,
        condition,
    })
}

/// Applies the Householder reflection that zeroes column `k` below the diagonal to
/// columns `k..` and to `rhs`.
fn reflect(a: &mut [Vec<f64>], rhs: &mut [f64], k: usize) {
    let m = rhs.len();
    let alpha = norm(&a[k][k..]);
    if alpha == 0.0 {
        return;
    }
    let alpha = if a[k][k] > 0.0 { -alpha } else { alpha };
    let mut v: Vec<f64> = a[k][k..].to_vec();
    v[0] -= alpha;
    let vv: f64 = v.iter().map(|x| x * x).sum();
    if vv == 0.0 {
        return;
    }
    let apply = |column: &mut [f64]| {
        let dot: f64 = (k..m).map(|i| v[i - k] * column[i]).sum();
        let factor = 2.0 * dot / vv;
        for i in k..m {
            column[i] -= factor * v[i - k];
        }
    };
    for column in a.iter_mut().skip(k) {
        apply(column);
    }
    apply(rhs);
}

/// The inverse of the upper-triangular `n × n` matrix `r(i, j)`, by rows: column
/// `col` solves `R c = e_col` by back substitution.
fn upper_inverse(n: usize, r: impl Fn(usize, usize) -> f64) -> Vec<Vec<f64>> {
    let mut inverse = vec![vec![0.0; n]; n];
    for col in 0..n {
        let mut column = vec![0.0; n];
        for i in (0..=col).rev() {
            let unit = if i == col { 1.0 } else { 0.0 };
            let sum: f64 = (i + 1..=col).map(|k| r(i, k) * column[k]).sum();
            column[i] = (unit - sum) / r(i, i);
        }
        for (row, value) in inverse.iter_mut().zip(column) {
            row[col] = value;
        }
    }
    inverse
}

fn norm(values: &[f64]) -> f64 {
    values.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::solve;

    #[test]
    fn an_exact_system_is_solved_and_its_figures_are_known() {
        // y = 2 + 3 t at t = 0, 1, 2, 3: columns 1 and t.
        let ones = vec![1.0; 4];
        let t = vec![0.0, 1.0, 2.0, 3.0];
        let b: Vec<f64> = t.iter().map(|t| 2.0 + 3.0 * t).collect();
        let solution = solve(&[ones, t], &b).unwrap();
        assert!((solution.x[0] - 2.0).abs() < 1e-12 && (solution.x[1] - 3.0).abs() < 1e-12);
        // (AᵀA) = [[4, 6], [6, 14]], its inverse's diagonal 14/20 and 4/20.
        assert!((solution.leverage[0] - 20.0 / 14.0).abs() < 1e-9);
        assert!((solution.leverage[1] - 5.0).abs() < 1e-9);
        // Independent shares: leverage / |a_j|², 20/56 and 5/14.
        assert!((solution.share[0] - 20.0 / 56.0).abs() < 1e-9);
    }

    #[test]
    fn dependent_columns_are_refused() {
        let a = vec![1.0, 2.0, 3.0];
        let b: Vec<f64> = a.iter().map(|v| v * 2.0).collect();
        assert_eq!(solve(&[a.clone(), b], &[1.0, 2.0, 3.0]), None);
        assert_eq!(solve(&[vec![0.0; 3]], &[1.0, 2.0, 3.0]), None);
    }
}
